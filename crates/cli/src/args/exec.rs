//! `toll exec CMD…`: hyperfine's flags with hyperfine's meaning.

use super::plot_scale::PlotScale;
use crate::parsers::{checked, ci_share, time_in, whole_in};
use crate::usage::usage;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;
use toll_families::exec::{Launch, Order, Output};

/// The most runs of one command.
pub const MOST_RUNS: u64 = 1_000_000;

/// `toll exec CMD…`: hyperfine's flags with hyperfine's meaning.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// The commands to time; `{name}` is replaced by each value of a parameter.
    #[arg(value_name = "CMD", required = true)]
    pub commands: Vec<String>,
    /// Untimed runs of each command before the timed ones.
    #[arg(short = 'w', long, value_name = "N", default_value = "0",
          value_parser = whole_in::<usize>(0, 100_000))]
    pub warmup: usize,
    /// Timed runs of each command, exactly (default: at least --min-runs, and enough for 3 s).
    #[arg(short = 'r', long, value_name = "N", value_parser = whole_in::<usize>(1, MOST_RUNS))]
    pub runs: Option<usize>,
    /// The fewest timed runs of each command.
    #[arg(short = 'm', long, value_name = "N", default_value = "10",
          value_parser = whole_in::<usize>(1, MOST_RUNS))]
    pub min_runs: usize,
    /// The most timed runs of each command.
    #[arg(short = 'M', long, value_name = "N", value_parser = whole_in::<usize>(1, MOST_RUNS))]
    pub max_runs: Option<usize>,
    /// Bound on the whole measurement, e.g. 30s, 10m: a run still going then is killed.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "10m",
        allow_hyphen_values = true,
        value_parser = time_in(Duration::from_millis(1), Duration::from_secs(86_400))
    )]
    pub max_time: Duration,
    /// Keep adding runs until every command's median has a 95% CI within
    /// this share of it, e.g. 2% (or until --max-time).
    #[arg(long, value_name = "PCT", allow_hyphen_values = true, value_parser = ci_share())]
    pub ci: Option<f64>,
    /// Run this before each timed run, untimed (e.g. to clear a cache).
    #[arg(short = 'p', long, value_name = "CMD")]
    pub prepare: Option<String>,
    /// Run this once before each command's runs.
    #[arg(short = 's', long, value_name = "CMD")]
    pub setup: Option<String>,
    /// Run this once after each command's runs.
    #[arg(short = 'c', long, value_name = "CMD")]
    pub cleanup: Option<String>,
    /// Run the command directly, without a shell (no start-up to subtract).
    #[arg(short = 'N', long = "shell-none")]
    pub no_shell: bool,
    /// The shell that reads each command; its own start-up is measured and subtracted.
    #[arg(short = 'S', long, value_name = "SHELL", default_value = "sh")]
    pub shell: String,
    /// A parameter and its values: -L n 1000,10000 runs every command once per value.
    #[arg(short = 'L', long = "parameter-list", value_names = ["NAME", "VALUES"], num_args = 2, action = clap::ArgAction::Append, allow_hyphen_values = true)]
    pub parameter_list: Vec<String>,
    /// A numeric parameter from LO to HI in steps of --step.
    #[arg(short = 'P', long, value_names = ["NAME", "LO", "HI"], num_args = 3, allow_hyphen_values = true)]
    pub parameter_scan: Vec<String>,
    /// The step of --parameter-scan (default 1).
    #[arg(
        short = 'D',
        long = "step",
        value_name = "STEP",
        requires = "parameter_scan",
        allow_hyphen_values = true
    )]
    pub step: Option<String>,
    /// Time a command even when it exits with a failing status.
    #[arg(short = 'i', long = "ignore-failure")]
    pub ignore_failure: bool,
    /// The file each run reads as its stdin (default: none, /dev/null).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Where each run's stdout goes: null (default), pipe, inherit, or a file.
    #[arg(long, value_name = "WHERE", default_value = "null", value_parser = checked(output))]
    pub output: Output,
    /// Run toll and the commands on this CPU.
    #[arg(long, value_name = "CPU", value_parser = whole_in::<usize>(0, 4095))]
    pub pin: Option<usize>,
    /// The order of each round: alternate (A B, B A, …) or shuffle.
    #[arg(long, value_name = "ORDER", default_value = "alternate", value_parser = checked(order))]
    pub order: Order,
    /// How each program is started: posix-spawn (default, as a shell and
    /// hyperfine do) or fork-exec (toll forks, the child execs).
    #[arg(long, value_name = "HOW", default_value = "posix-spawn", value_parser = checked(launch))]
    pub launch: Launch,
    /// Names for the commands in the report, in order.
    #[arg(short = 'n', long = "command-name", value_name = "NAME")]
    pub command_names: Vec<String>,
    /// Compare with a stored `toll exec` run (its id, or `last`).
    #[arg(long, value_name = "RUN")]
    pub baseline: Option<String>,
    /// Draw t(n) against the parameter, with the fitted lines, to an SVG file.
    #[arg(long, value_name = "FILE.svg", value_parser = crate::parsers::svg_file())]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub scale: PlotScale,
    /// Write hyperfine's JSON (times in seconds) with toll's figures to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write hyperfine's CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Write hyperfine's Markdown table to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Print the stored run as JSON instead of the report.
    #[arg(long)]
    pub json: bool,
}

/// --output: null, pipe, inherit, or a file.
fn output(flag: &str, text: &str) -> anyhow::Result<Output> {
    Ok(match text {
        "null" => Output::Null,
        "pipe" => Output::Pipe,
        "inherit" => Output::Inherit,
        "" => {
            return Err(usage(format!(
                "{flag} is empty: give null, pipe, inherit or a file"
            )))
        }
        file => Output::File(file.into()),
    })
}

/// --launch: posix-spawn or fork-exec.
fn launch(_flag: &str, text: &str) -> anyhow::Result<Launch> {
    match text {
        "posix-spawn" => Ok(Launch::PosixSpawn),
        "fork-exec" => Ok(Launch::ForkExec),
        l => Err(usage(format!(
            "unknown launch `{l}`: valid ones are posix-spawn, fork-exec"
        ))),
    }
}

/// --order: alternate or shuffle.
fn order(_flag: &str, text: &str) -> anyhow::Result<Order> {
    match text {
        "alternate" => Ok(Order::Alternate),
        "shuffle" => Ok(Order::Shuffle),
        o => Err(usage(format!(
            "unknown order `{o}`: valid orders are alternate, shuffle"
        ))),
    }
}
