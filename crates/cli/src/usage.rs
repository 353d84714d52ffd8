//! Usage errors: a user's mistake, reported in one line with exit status 2.

use std::fmt;
use std::process::ExitCode;

/// A mistake in the command line, with the fix in its message.
#[derive(Debug)]
pub struct Usage(pub String);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// Shorthand for a usage error.
pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    Usage(msg.into()).into()
}

/// The usage error a value parser of toll's own gave clap, if this is one.
fn own(e: &clap::Error) -> Option<&Usage> {
    std::error::Error::source(e)?.downcast_ref::<Usage>()
}

/// Print a clap error: help and version as clap renders them; every other
/// error as one line that points at `--help`.
pub fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    // A value toll's own parsers refused (crate::values): the message names
    // the flag, the range and the fix already, as one line.
    if let Some(u) = own(&e) {
        eprintln!("toll: {u}");
        return ExitCode::from(2);
    }
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            ExitCode::SUCCESS
        }
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand => {
            let _ = e.print();
            ExitCode::from(2)
        }
        _ => {
            let rendered = e.render().to_string();
            let mut lines = rendered.lines();
            let mut first = lines
                .next()
                .unwrap_or("bad arguments")
                .trim_start_matches("error: ")
                .to_string();
            // "the following required arguments were not provided:" names
            // them on the indented lines below: keep them on the one line.
            if first.ends_with(':') {
                let named: Vec<&str> = lines
                    .take_while(|l| !l.trim().is_empty())
                    .map(str::trim)
                    .collect();
                first = format!("{first} {}", named.join(", "));
            }
            let cmd = std::env::args().skip(1).find(|a| {
                [
                    "transfer",
                    "spawn",
                    "ring",
                    "http",
                    "exec",
                    "file",
                    "rpc",
                    "ffi",
                    "runs",
                    "show",
                    "report",
                    "export",
                    "rm",
                    "compare",
                    "predict",
                    "completions",
                    "man",
                    "doctor",
                ]
                .contains(&a.as_str())
            });
            // `toll http compare` has its own flags and help.
            let compare =
                cmd.as_deref() == Some("http") && std::env::args().skip(2).any(|a| a == "compare");
            let help = match cmd {
                Some(_) if compare => "toll http compare --help".into(),
                Some(c) => format!("toll {c} --help"),
                None => "toll --help".into(),
            };
            eprintln!("toll: {first}: see `{help}`");
            ExitCode::from(2)
        }
    }
}
