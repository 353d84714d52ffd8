//! The command line (clap): `Cli` and its commands here, each family's flags
//! in a file of their own. Every number, time and list is typed and checked
//! against its range as clap parses it (crate::values), its range written
//! once beside its help; a command's `config()` checks only what needs two
//! flags together, and what needs the machine (toolchains, files, ports).

mod atlas;
mod exec;
mod ffi;
mod file;
mod http;
mod plot_scale;
mod results;
mod rpc;
mod sys;
mod transfer;
mod units;

pub use atlas::AtlasArgs;
pub use exec::{ExecArgs, MOST_RUNS};
pub use ffi::FfiArgs;
pub use file::FileArgs;
pub use http::{
    AgentArgs, CompareArgs, HttpArgs, HttpCommand, IoArg, LoadArgs, LoadPlotArgs, PickArg,
    SweepArgs,
};
pub use results::{
    BoardArgs, BoardCommand, ExportArgs, ImportArgs, PredictArgs, PushArgs, ReplicateArgs,
    ReportArgs, RmArgs, RunCompareArgs, RunsArgs, ShowArgs, TokenCommand,
};
pub use rpc::RpcArgs;
pub use sys::SysArgs;
pub use transfer::TransferArgs;
pub use units::{RingArgs, SpawnArgs, UnitArgs};

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Measure what it costs to cross a boundary, as t(n) = α + β·n.
#[derive(Debug, Parser)]
#[command(name = "toll", version, about, max_term_width = 100)]
pub struct Cli {
    /// Results database: a SQLite file, or a postgres://USER@HOST/DB URL for a
    /// shared store (default: $TOLL_DB, else the user's data directory).
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub db: Option<PathBuf>,

    /// Check the arguments and the toolchains, say what would be measured,
    /// and exit without measuring or storing anything.
    #[arg(long, global = true)]
    pub dry_run: bool,

    /// Print tables and notes at their full width, unwrapped (by default
    /// every line fits a terminal of 100 columns).
    #[arg(long, global = true)]
    pub wide: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Send n int32 items to a peer process over pipes, sockets or shared memory (E1).
    Transfer(TransferArgs),
    /// Make N units (processes, threads, tasks) that wait: µs and memory per unit (E2).
    Spawn(SpawnArgs),
    /// Pass a token M times round a ring of N units: ns per hop (E2).
    Ring(RingArgs),
    /// Load an HTTP server: ab's report and flags, wrk's speed, HDR percentiles (E5).
    Http(Box<HttpArgs>),
    /// Time whole programs, as hyperfine does: start-up vs per-iteration cost, user/sys/RSS (E5).
    Exec(Box<ExecArgs>),
    /// Read a file by read, pread, mmap or io_uring; sequential or random; cold or warm (E4).
    File(FileArgs),
    /// Call into C from each language inside one process: ctypes, cffi, dlopen…; α per call, β per byte.
    Ffi(Box<FfiArgs>),
    /// The crossings under every other one: syscall, page fault, signal, wake-up, core-to-core handoff, memory by working set, memcpy.
    Sys(Box<SysArgs>),
    /// Time null remote calls: raw, HTTP/1.1, h2c, gRPC; direct or via a broker; blocking or pipelined (E3).
    Rpc(Box<RpcArgs>),
    /// Re-run the seed experiments E1–E5 as they were designed: the original figures beside this machine's, and what still holds.
    Replicate(ReplicateArgs),
    /// Latency numbers every programmer should know, measured here: every crossing from ~1 ns to ~100 ms, each with its interval.
    Atlas(AtlasArgs),
    /// List stored runs, newest first.
    Runs(RunsArgs),
    /// Show one stored run in full (default: the newest).
    Show(ShowArgs),
    /// Stored runs as one self-contained HTML page with plots, or Markdown for an issue.
    Report(ReportArgs),
    /// Export a stored run as JSON or CSV (every sample).
    Export(ExportArgs),
    /// Load runs exported elsewhere (`toll export --format json`, `--json`) into this store.
    Import(ImportArgs),
    /// Delete stored runs.
    Rm(RmArgs),
    /// Compare two stored runs of one family: each point's change with its CI and Mann–Whitney p.
    Compare(RunCompareArgs),
    /// Predict t(n) with its CI from the newest stored model of a series.
    Predict(PredictArgs),
    /// Serve a results board over the store: machines side by side, runs, compare, seeds; an API to push to.
    Board(BoardArgs),
    /// Send a stored run to a results board (`toll board`), with a write token.
    Push(PushArgs),
    /// Which runtimes this machine has, what each can do, and how to add the rest.
    Doctor,
    /// Print a shell completion script: `toll completions bash > /etc/bash_completion.d/toll`.
    Completions(CompletionsArgs),
    /// Print toll's manual page (roff), or write one per command to a directory.
    Man(ManArgs),
    /// The far end of --remote: serve toll's control protocol on stdin/stdout
    /// (`ssh HOST toll agent` starts it; so can any launcher).
    Agent,
    /// Run the built-in Rust worker on stdin/stdout (toll starts it itself).
    #[command(hide = true)]
    Worker,
    /// Run the built-in Rust RPC server on stdin/stdout (spec/rpc.md; toll starts it itself).
    #[command(hide = true)]
    RpcServer,
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;
    use toll_peers::Runtime;

    /// The help's list of peers and runtimes is written out by hand: it must
    /// name every runtime of the registry.
    #[test]
    fn help_names_every_runtime_of_the_registry() {
        let mut cli = Cli::command();
        for (sub, flag) in [
            ("transfer", "peer"),
            ("spawn", "runtime"),
            ("ring", "runtime"),
        ] {
            let cmd = cli.find_subcommand_mut(sub).unwrap();
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_id() == flag)
                .unwrap_or_else(|| panic!("{sub} has --{flag}"));
            let help = arg.get_help().unwrap().to_string();
            // Squeak's worker spawns and rings only: transfer does not name it.
            for r in Runtime::ALL
                .into_iter()
                .filter(|r| sub != "transfer" || r.transfers())
            {
                assert!(
                    help.split([',', ' ', ':']).any(|w| w == r.name()),
                    "`toll {sub} --help` does not name {r}: {help}"
                );
            }
        }
    }

    /// `toll ffi --help` names every runtime with bindings and every binding.
    #[test]
    fn ffi_help_names_every_runtime_and_binding() {
        let mut cli = Cli::command();
        let cmd = cli.find_subcommand_mut("ffi").unwrap();
        let help = |flag: &str| {
            cmd.get_arguments()
                .find(|a| a.get_id() == flag)
                .and_then(|a| a.get_help())
                .unwrap()
                .to_string()
        };
        let (runtimes, bindings) = (help("runtime"), help("binding"));
        let ways = help("pass");
        for p in toll_peers::Pass::ALL {
            assert!(
                ways.contains(&format!("{p} (")),
                "--pass does not name {p}: {ways}"
            );
        }
        let words = |h: &str, w: &str| h.split([',', ' ', ':', '(', ')', ';']).any(|x| x == w);
        for r in Runtime::ALL
            .into_iter()
            .filter(|r| !r.bindings().is_empty())
        {
            assert!(
                words(&runtimes, r.name()),
                "--runtime does not name {r}: {runtimes}"
            );
            for b in r.bindings() {
                assert!(
                    words(&bindings, b.name),
                    "--binding does not name {r}'s {}: {bindings}",
                    b.name
                );
            }
        }
    }

    /// A range in a flag's help ("(1 to 1024)") is the range its parser
    /// keeps: both ends taken, one past either refused.
    #[test]
    fn ranges_in_the_help_are_the_ranges_parsed() {
        use clap::Parser;
        let cli = Cli::command();
        let mut checked = 0;
        for sub in ["transfer", "spawn", "ring", "file", "rpc"] {
            let cmd = cli.find_subcommand(sub).unwrap();
            for arg in cmd.get_arguments() {
                let (Some(long), Some(help)) = (arg.get_long(), arg.get_help()) else {
                    continue;
                };
                let help = help.to_string();
                let words: Vec<&str> = help
                    .split(|c: char| c.is_whitespace() || "(),;:.".contains(c))
                    .filter(|w| !w.is_empty())
                    .collect();
                let Some((lo, hi)) = words.windows(3).find_map(|w| match w {
                    [lo, "to", hi] => Some((lo.parse::<u64>().ok()?, hi.parse::<u64>().ok()?)),
                    _ => None,
                }) else {
                    continue;
                };
                let parses = |v: u64| {
                    Cli::try_parse_from(["toll", sub, &format!("--{long}"), &v.to_string()]).is_ok()
                };
                assert!(parses(lo) && parses(hi), "{sub} --{long}: {help}");
                assert!(!parses(hi + 1), "{sub} --{long} takes {}: {help}", hi + 1);
                if lo > 0 {
                    assert!(!parses(lo - 1), "{sub} --{long} takes {}: {help}", lo - 1);
                }
                checked += 1;
            }
        }
        // transfer 3, spawn 2, ring 2, file 2, rpc 4.
        assert!(checked >= 13, "only {checked} ranges found");
    }
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write toll.1 and one toll-COMMAND.1 per command here (made if missing)
    /// instead of printing toll.1.
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}
