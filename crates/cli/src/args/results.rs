//! The flags of the commands over stored results: replicate, runs, show,
//! report, export, import, rm, compare, predict, board and push.

use crate::parsers::{checked, whole_in};
use crate::usage::usage;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct ReplicateArgs {
    /// Which experiments: E1, E2, E3, E4, E5, all, or a comma-separated list (E1,E5).
    #[arg(value_name = "E1|E2|E3|E4|E5|all")]
    pub experiments: String,
    /// Smaller sizes and fewer trials: all five in about 5 minutes on a 2-vCPU machine.
    #[arg(long)]
    pub quick: bool,
    /// The tests' preset: the smallest run that still fills every row.
    #[arg(long, hide = true, conflicts_with = "quick")]
    pub test_preset: bool,
    /// Print the stored tables as JSON on stdout instead of the text tables.
    #[arg(long)]
    pub json: bool,
    /// E5's servers listen on 127.0.0.1 from this port up, one port each
    /// (default: free ports the system picks).
    #[arg(long, value_name = "PORT", value_parser = whole_in::<u16>(1, 65_535))]
    pub port: Option<u16>,
    /// Also write this run's tables as one self-contained page (the page
    /// `toll report` makes of them), partial tables too; checked before measuring.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Only runs of these families (comma-separated): transfer, spawn,
    /// ring, file, rpc, http, http-compare, http-sweep, exec, ffi, replicate,
    /// atlas.
    #[arg(long, value_name = "LIST")]
    pub family: Option<String>,
    /// Only runs in these states (comma-separated): running, complete,
    /// partial, failed.
    #[arg(long, value_name = "LIST")]
    pub status: Option<String>,
    /// Only runs measured on this host (its name, as `toll show` gives it).
    #[arg(long, value_name = "HOST")]
    pub host: Option<String>,
    /// At most this many runs, the newest first.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: Option<u64>,
    /// Print the list as JSON (the filters apply).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run id (default: the newest run).
    pub run: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run ids, or `last` (default: the newest run).
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    /// Write to this file (whole or not at all) instead of stdout
    /// (`--html FILE` is the same).
    #[arg(short, long, value_name = "FILE", alias = "html")]
    pub output: Option<PathBuf>,
    /// html (one self-contained page, plots inline) or md (GitHub Markdown,
    /// no plots). Default: md for an -o FILE.md, html otherwise.
    #[arg(long, value_name = "FORMAT", value_parser = ["html", "md"])]
    pub format: Option<String>,
    /// The plots' axes: log where the values span decades (auto), or
    /// linear or log throughout.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
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
#[command(args_conflicts_with_subcommands = true)]
pub struct BoardArgs {
    #[command(subcommand)]
    pub command: Option<BoardCommand>,
    /// Address to listen on: loopback unless told otherwise (port 0: any
    /// free port; the board prints its URL).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT")]
    pub listen: String,
    /// The largest run a push may send, e.g. 32Mi.
    #[arg(long, default_value = "32Mi", value_name = "SIZE", value_parser = checked(max_body))]
    pub max_body: usize,
    /// Pushes a token may make a minute (after a burst of up to 10).
    #[arg(long, default_value_t = 60, value_name = "N")]
    pub writes_per_minute: u32,
}

#[derive(Debug, Subcommand)]
pub enum BoardCommand {
    /// Write tokens: who may push runs to the board.
    #[command(subcommand)]
    Token(TokenCommand),
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Make a token for NAME and print it once (only its hash is stored).
    Add { name: String },
    /// Revoke NAME's token.
    Rm { name: String },
    /// List the tokens' names.
    List,
}

#[derive(Debug, Args)]
pub struct PushArgs {
    /// Run id, or `last`.
    pub run: String,
    /// The board's URL, as `toll board` printed it: http://HOST:PORT.
    #[arg(long, value_name = "URL")]
    pub to: String,
    /// The write token (default: $TOLL_TOKEN).
    #[arg(long, env = "TOLL_TOKEN", hide_env_values = true, value_name = "TOKEN")]
    pub token: Option<String>,
}

/// Exit status of `toll compare`, for a CI job to gate on.
const COMPARE_EXIT: &str =
    "Exit status: 0 the comparison ran and --fail-on (if given) found nothing; \
3 --fail-on found what it names; 2 a mistake in the arguments (a bad run id, \
runs of two families); 1 any other error (no such run, an unreadable database).";

#[derive(Debug, Args)]
#[command(after_help = COMPARE_EXIT)]
pub struct RunCompareArgs {
    /// The base run: a run id from `toll runs`, or `last`.
    #[arg(value_name = "RUN_A")]
    pub a: String,
    /// The run compared with it (changes are B against A).
    #[arg(value_name = "RUN_B")]
    pub b: String,
    /// The level every judgement is made at: points' Mann–Whitney and
    /// run-to-run p, and α and β, with Benjamini–Hochberg over all of them
    /// (so two runs of the same thing call any change in at most this share
    /// of comparisons); a point not called is "~".
    #[arg(long, default_value = "0.05", value_name = "P", value_parser = checked(alpha))]
    pub alpha: f64,
    /// Smallest change of a median that counts as slower or faster, e.g. 5%.
    #[arg(long, default_value = "0%", value_name = "PCT", value_parser = checked(threshold))]
    pub threshold: f64,
    /// Exit with status 3 when some point is slower (regression), faster
    /// (improvement) or either (change), beyond --threshold.
    #[arg(long, value_name = "WHAT")]
    pub fail_on: Option<String>,
    /// Compare http runs whose latencies end differently (at the kernel's
    /// arrival stamp in one, at the client's read in the other), which is
    /// refused otherwise.
    #[arg(long)]
    pub mixed_latency: bool,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the comparison as one self-contained HTML page (each
    /// point's change with its CI as a bar against 0) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// The family: transfer, spawn, ring, exec, file, rpc, ffi or sys.
    pub family: String,
    /// The n to predict t(n) at (items, units, bytes, iterations: the family's n), e.g. 100000 or 100k.
    #[arg(short = 'n', value_name = "N", allow_hyphen_values = true, value_parser = checked(one_n))]
    pub n: u64,
    /// The run to answer from (default: the newest complete run with the series).
    #[arg(long, value_name = "RUN")]
    pub run: Option<String>,
    /// The series by its label, as `toll show` prints it (rust/pipe, go/goroutine, …).
    #[arg(long, value_name = "LABEL")]
    pub series: Option<String>,
    /// transfer: the peer (rust, c, python, …).
    #[arg(long)]
    pub peer: Option<String>,
    /// transfer: the transport (pipe, unix, tcp, shm).
    #[arg(long)]
    pub via: Option<String>,
    /// transfer: the placement (same, split, none).
    #[arg(long)]
    pub pin: Option<String>,
    /// spawn, ring, file: the runtime (rust, go, java, …).
    #[arg(long)]
    pub runtime: Option<String>,
    /// spawn, ring: the unit (thread, process, goroutine, …).
    #[arg(long)]
    pub unit: Option<String>,
    /// file: the read method (read, pread, mmap-slice, …).
    #[arg(long)]
    pub method: Option<String>,
    /// file: the pattern (seq, random).
    #[arg(long)]
    pub pattern: Option<String>,
    /// file: the cache state (cold, warm).
    #[arg(long)]
    pub cache: Option<String>,
    /// exec: the command as written.
    #[arg(long)]
    pub command: Option<String>,
    /// rpc: the stack (raw, http1, h2, grpc).
    #[arg(long)]
    pub stack: Option<String>,
    /// rpc: the path (direct, broker-per-call, broker-once, haproxy, nginx).
    #[arg(long)]
    pub path: Option<String>,
    /// rpc: the call style (blocking, pipelined).
    #[arg(long)]
    pub mode: Option<String>,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// JSON files, each one run as `toll export RUN --format json` writes it.
    #[arg(required = true, value_name = "FILE.json")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RmArgs {
    /// Run ids to delete.
    #[arg(required = true)]
    pub runs: Vec<String>,
}

/// --max-body: one size from 1Ki to 4Gi (not capped at the largest message
/// `transfer` sends, as `--sizes` is).
fn max_body(flag: &str, text: &str) -> anyhow::Result<usize> {
    match toll_families::sizes::parse_bytes(text, flag).as_deref() {
        Ok([n]) if *n >= 1024 && *n <= (1 << 32) => Ok(*n as usize),
        _ => Err(usage(format!(
            "{flag} `{text}` is not one size from 1Ki to 4Gi: e.g. {flag} 32Mi"
        ))),
    }
}

/// compare's --alpha: above 0 and below 1.
fn alpha(flag: &str, text: &str) -> anyhow::Result<f64> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|v| *v > 0.0 && *v < 1.0)
        .ok_or_else(|| {
            usage(format!(
                "{flag} `{text}` is not a significance level above 0 and below 1: e.g. {flag} 0.05"
            ))
        })
}

/// compare's --threshold, `5%` (or `5`), as a share, 0.05: from 0 to 100%.
fn threshold(flag: &str, text: &str) -> anyhow::Result<f64> {
    text.trim()
        .trim_end_matches('%')
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && (0.0..=100.0).contains(v))
        .map(|v| v / 100.0)
        .ok_or_else(|| {
            usage(format!(
                "{flag} `{text}` is not a percentage from 0 to 100: give the smallest change that counts, e.g. {flag} 5%"
            ))
        })
}

/// predict's -n: one count.
fn one_n(flag: &str, text: &str) -> anyhow::Result<u64> {
    let ns = toll_families::sizes::parse_counts(text, flag, 0).map_err(usage)?;
    match ns.as_slice() {
        [n] => Ok(*n),
        _ => Err(usage(format!(
            "{flag} {text}: give one n to predict at, e.g. {flag} 100000"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_and_levels_are_checked() {
        let threshold = |t| threshold("--threshold", t);
        let alpha = |t| alpha("--alpha", t);
        assert_eq!(threshold("5%").unwrap(), 0.05);
        assert_eq!(threshold("0").unwrap(), 0.0);
        assert_eq!(threshold(" 12.5 % ").unwrap(), 0.125);
        for bad in ["-1%", "101%", "five", "NaN%", ""] {
            assert!(threshold(bad).is_err(), "{bad}");
        }
        assert_eq!(alpha("0.01").unwrap(), 0.01);
        for bad in ["0", "1", "-0.5", "x"] {
            assert!(alpha(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn one_n_in_the_sizes_syntax() {
        let one_n = |t| one_n("-n", t);
        assert_eq!(one_n("100k").unwrap(), 100_000);
        assert_eq!(one_n("0").unwrap(), 0);
        assert!(one_n("1,2").is_err());
        assert!(one_n("x").is_err());
        assert!(one_n("-5").is_err());
    }
}
