//! `toll doctor`: which runtimes this machine has, what each can do, and the
//! command that installs what is missing.

use std::io::Write;
use std::process::ExitCode;
use toll_peers::Runtime;
use toll_report::table::Table;

/// `toll doctor`.
pub fn run() -> anyhow::Result<ExitCode> {
    let mut t = Table::new(&[
        "runtime",
        "status",
        "version",
        "transports",
        "ops",
        "units (spawn, ring)",
        "to install",
    ]);
    let mut missing = 0;
    for r in Runtime::ALL {
        let transports: Vec<&str> = r.transports().iter().map(|t| t.name()).collect();
        let (status, version, install) = match r.detect() {
            Ok(tool) => ("found", tool.version, String::new()),
            Err(_) => {
                missing += 1;
                ("missing", "–".into(), r.install_hint().to_string())
            }
        };
        t.row(vec![
            r.name().into(),
            status.into(),
            version,
            transports.join(", "),
            r.ops().join(", "),
            r.units().join(", "),
            install,
        ]);
    }
    let mut out = std::io::stdout().lock();
    write!(out, "{}", t.render())?;
    if missing > 0 {
        writeln!(
            out,
            "\n{missing} runtime(s) missing: run the command beside each to add it"
        )?;
    }
    writeln!(out, "\n{}", rpc_servers().render().trim_end())?;
    Ok(ExitCode::SUCCESS)
}

/// `toll rpc`'s servers: the stacks each runtime serves.
fn rpc_servers() -> Table {
    use toll_families::rpc::server::STACKS;
    let mut t = Table::new(&["rpc server", "status", "stacks", "paths"]);
    t.row(vec![
        "rust".into(),
        "built in (tokio, hyper, tonic)".into(),
        format!("{}; raw also over a unix socket", STACKS.join(", ")),
        "direct, broker (toll's own)".into(),
    ]);
    t
}
