//! `toll`: parse the arguments, run the command, print one clean line on error.

mod args;
mod commands;
mod progress;
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
    let result = match cli.command {
        Command::Transfer(a) => commands::transfer::run(a, cli.db.as_deref()),
        Command::Spawn(a) => commands::units::spawn(a, cli.db.as_deref()),
        Command::Ring(a) => commands::units::ring(a, cli.db.as_deref()),
        Command::Http(a) => commands::http::run(*a, cli.db.as_deref()),
        Command::Runs(a) => commands::runs::list(a, cli.db.as_deref()),
        Command::Show(a) => commands::runs::show(a, cli.db.as_deref()),
        Command::Export(a) => commands::runs::export(a, cli.db.as_deref()),
        Command::Rm(a) => commands::runs::remove(a, cli.db.as_deref()),
        Command::Doctor => commands::doctor::run(),
        Command::Worker => return ExitCode::from(toll_peers::worker::run() as u8),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("toll: {e:#}");
            if e.downcast_ref::<Usage>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}

/// `toll runs | head` closing the pipe early is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
