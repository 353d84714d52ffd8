//! `toll doctor`: which runtimes this machine has, what each can do (its
//! worker's transports, ops and units; its RPC server's stacks), which
//! proxies `toll rpc --path` can start, and the command that installs what
//! is missing. Nothing is built or started: it answers at once.

use std::io::Write;
use std::process::ExitCode;
use toll_families::rpc::proxy::{ProxyKind, NGINX_STREAM_INSTALL};
use toll_peers::rpc_server::{grpcio_install, rpc_stacks, STACKS};
use toll_peers::Runtime;
use toll_report::table::Table;

/// `toll doctor`.
pub fn run() -> anyhow::Result<ExitCode> {
    // Two tables, so each fits 100 columns: what is there, then what each
    // runtime's worker can do.
    let mut t = Table::new(&["runtime", "status", "version", "rpc stacks", "to install"]);
    let mut can = Table::new(&["runtime", "transports", "ops", "units (spawn, ring)"]);
    let mut missing = 0;
    for r in Runtime::ALL {
        let transports: Vec<&str> = r.transports().iter().map(|t| t.name()).collect();
        let stacks = rpc_stacks(r);
        let (status, version, install) = match r.detect() {
            Ok(tool) if r == Runtime::Python && !stacks.contains(&"grpc") => {
                missing += 1;
                (
                    "found",
                    tool.version,
                    format!("{} (rpc's grpc)", grpcio_install()),
                )
            }
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
            if stacks.is_empty() {
                "–".into()
            } else {
                stacks.join(", ")
            },
            install,
        ]);
        can.row(vec![
            r.name().into(),
            if transports.is_empty() {
                "–".into()
            } else {
                transports.join(", ")
            },
            r.ops().join(", "),
            r.units().join(", "),
        ]);
    }
    let mut p = Table::new(&[
        "proxy (toll rpc --path)",
        "status",
        "version",
        "rpc stacks",
        "to install",
    ]);
    for k in ProxyKind::ALL {
        let (status, version, stacks, install) = match k.version() {
            Ok(v) => {
                let stacks = k.available_stacks();
                let install = if stacks.len() < STACKS.len() {
                    missing += 1;
                    format!("{NGINX_STREAM_INSTALL} (raw)")
                } else {
                    String::new()
                };
                ("found", v, stacks.join(", "), install)
            }
            Err(_) => {
                missing += 1;
                (
                    "missing",
                    "–".into(),
                    "–".into(),
                    k.install_hint().to_string(),
                )
            }
        };
        p.row(vec![
            k.name().into(),
            status.into(),
            version,
            stacks,
            install,
        ]);
    }
    let mut out = crate::screen::stdout();
    write!(out, "{}\n{}\n{}", t.render(), can.render(), p.render())?;
    if missing > 0 {
        writeln!(
            out,
            "\n{missing} thing(s) missing: run the command beside each to add it"
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
