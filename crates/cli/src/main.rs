//! `toll`: parse the arguments, run the command, print one clean line on error.
//!
//! The binary is thin: `args` holds the clap structs, `values` the parsers of
//! numbers, times and sizes with their ranges, `commands/` one module per
//! command (each turns its arguments into a family's config, runs it, prints
//! its table), `stop` the one Ctrl-C/SIGTERM/SIGHUP handler, `progress` the
//! progress bar, `screen` the terminal's width and colour. Measuring lives in
//! `toll_families`, storing in `toll_store`, printing in `toll_report`; the
//! end-to-end tests in `tests/` run the binary as a user does.

mod args;
mod commands;
mod parsers;
mod progress;
mod screen;
mod stop;
mod usage;
mod values;

use args::{Cli, Command};
use clap::Parser;
use std::process::ExitCode;
use usage::Usage;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage::clap_error(e),
    };
    toll_report::table::set_width((!cli.wide).then_some(toll_report::table::DEFAULT_WIDTH));
    let db = cli.db.as_deref();
    let dry = cli.dry_run;
    if !matches!(
        cli.command,
        Command::Agent | Command::Worker | Command::RpcServer
    ) {
        // The temporary files of a toll that was killed outright. The
        // agent, worker and RPC server are toll's own children: their toll
        // sweeps.
        toll_peers::scratch::sweep();
    }
    let result = run(cli.command, db, dry);
    toll_peers::scratch::remove();
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            // One message, fitted to the width as every line toll prints
            // for people (past 100 columns it goes on over indented
            // lines; --wide keeps it on one for a script to grep whole).
            crate::screen::eprint_line(&format!("toll: {e:#}"));
            if e.downcast_ref::<Usage>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// Run one command: its exit status, or the error to print.
fn run(command: Command, db: Option<&std::path::Path>, dry: bool) -> anyhow::Result<ExitCode> {
    match command {
        Command::Transfer(a) => commands::transfer::run(a, db, dry),
        Command::Spawn(a) => commands::units::spawn(a, db, dry),
        Command::Ring(a) => commands::units::ring(a, db, dry),
        Command::Http(a) => match a.command {
            Some(args::HttpCommand::Compare(c)) => commands::http_compare::run(*c, db, dry),
            None => commands::http::run(*a, db, dry),
        },
        Command::Exec(a) => commands::exec::run(*a, db, dry),
        Command::File(a) => commands::file::run(a, db, dry),
        Command::Rpc(a) => commands::rpc::run(*a, db, dry),
        Command::Ffi(a) => commands::ffi::run(*a, db, dry),
        Command::Sys(a) => commands::sys::run(*a, db, dry),
        Command::Replicate(a) => commands::replicate::run(a, db, dry),
        Command::Atlas(a) => commands::atlas::run(a, db, dry),
        Command::Runs(a) => commands::runs::list(a, db),
        Command::Show(a) => commands::runs::show(a, db),
        Command::Report(a) => commands::report::run(a, db, dry),
        Command::Export(a) => commands::runs::export(a, db),
        Command::Import(a) => commands::runs::import(a, db, dry),
        Command::Rm(a) if dry => commands::runs::dry_remove(a, db),
        Command::Rm(a) => commands::runs::remove(a, db),
        Command::Compare(a) => commands::compare::run(a, db),
        Command::Predict(a) => commands::predict::run(a, db),
        Command::Board(a) => commands::board::run(a, db),
        Command::Push(a) => commands::board::push(a, db),
        Command::Doctor => commands::doctor::run(),
        Command::Completions(a) => commands::manual::completions(a),
        Command::Man(a) => commands::manual::man(a),
        Command::Agent => {
            // The agent also runs http loads for a coordinator (`toll http --remote`).
            use toll_families::http::agents::far_side::{FarSide, OPS};
            let mut http = FarSide::default();
            let code = toll_peers::agent::serve::run_with(OPS, &mut |op, cmd, stop| {
                http.handle(op, cmd, stop)
            });
            Ok(ExitCode::from(code as u8))
        }
        Command::Worker => Ok(ExitCode::from(toll_peers::worker::run() as u8)),
        Command::RpcServer => Ok(ExitCode::from(toll_families::rpc::server::run() as u8)),
    }
}

/// `toll runs | head` closing the pipe early is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
