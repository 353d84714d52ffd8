//! Raw command-line arguments (clap). Nothing below the CLI sees these types:
//! each command turns them into a validated config first.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Measure what it costs to cross a boundary, as t(n) = α + β·n.
#[derive(Debug, Parser)]
#[command(name = "toll", version, about, max_term_width = 100)]
pub struct Cli {
    /// Results database (default: $TOLL_DB, else the user's data directory).
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Send n int32 items to a peer process over pipes, sockets or shared memory (E1).
    Transfer(TransferArgs),
    /// List stored runs, newest first.
    Runs(RunsArgs),
    /// Show one stored run in full (default: the newest).
    Show(ShowArgs),
    /// Export a stored run as JSON or CSV (every sample).
    Export(ExportArgs),
    /// Delete stored runs.
    Rm(RmArgs),
    /// Which runtimes this machine has, what each can do, and how to add the rest.
    Doctor,
    /// Run the built-in Rust worker on stdin/stdout (toll starts it itself).
    #[command(hide = true)]
    Worker,
}

#[derive(Debug, Args)]
pub struct TransferArgs {
    /// Items per message: a list and/or ranges, e.g. 0:100000:10000 or 1k,64Ki,1Mi.
    #[arg(
        long,
        default_value = "0:100000:10000",
        value_name = "LIST",
        allow_hyphen_values = true
    )]
    pub sizes: String,
    /// Peers, comma-separated: rust, c, python, node, or all.
    #[arg(long, default_value = "rust", value_name = "LIST")]
    pub peer: String,
    /// Transports, comma-separated: pipe, unix, tcp, shm (default: all the peer supports).
    #[arg(long, value_name = "LIST")]
    pub via: Option<String>,
    /// Placement: same (one core), split (two cores) or none (the scheduler's choice).
    #[arg(long, default_value = "split", value_name = "WHERE")]
    pub pin: String,
    /// Busy-wait instead of sleeping on a futex in the shm transport.
    #[arg(long)]
    pub spin: bool,
    /// Timed trials per size.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub trials: u32,
    /// Warm-up per size, in milliseconds.
    #[arg(long, default_value_t = 100, value_name = "MS")]
    pub warmup_ms: u64,
    /// Target length of one timed batch, in milliseconds.
    #[arg(long, default_value_t = 10, value_name = "MS")]
    pub batch_ms: u64,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw the points with their CIs and the fitted lines to an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Print the list as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run id (default: the newest run).
    pub run: Option<String>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Run id, or `last`.
    pub run: String,
    /// json or csv.
    #[arg(long, default_value = "json")]
    pub format: String,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RmArgs {
    /// Run ids to delete.
    #[arg(required = true)]
    pub runs: Vec<String>,
}
