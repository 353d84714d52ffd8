//! `toll spawn` and `toll ring` (E2): the counts, the runtimes and units,
//! and the ceilings a point may not pass.

use super::plot_scale::PlotScale;
use crate::parsers::{checked, Checked};
use crate::usage::usage;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;
use toll_families::sizes::parse_counts;

/// E2's own sizes (`-n e2`): the defaults are smaller, so a default run
/// takes about a minute.
const E2_SPAWN_NS: &str = "1000,10000,100000,300000";
const E2_RING_NS: &str = "100,1000,10000";

/// The longest --max-time accepted, in seconds.
const MAX_TIME_CEILING: f64 = 86_400.0;

/// What `toll spawn` and `toll ring` share.
#[derive(Debug, Args)]
pub struct UnitArgs {
    /// Runtimes, comma-separated: rust, c, python, node, go, java, erlang, haskell, squeak,
    /// or all (every one this machine has; `toll doctor` lists them).
    #[arg(long, default_value = "all", value_name = "LIST")]
    pub runtime: String,
    /// Unit kinds, comma-separated: a unit (thread, goroutine, …), a pair
    /// (java/virtual-thread) or a class (os-process, os-thread, green). Default: all.
    #[arg(long, value_name = "LIST")]
    pub unit: Option<String>,
    /// Rounds, every N timed once a round in shuffled order (1 to 10000).
    #[arg(long, default_value_t = 5, value_name = "K",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub trials: u32,
    /// Time ceiling per point, in seconds (more than 0, at most 86400): a
    /// point that takes longer is stopped and failed.
    #[arg(
        long,
        default_value = "60",
        value_name = "SECONDS",
        allow_hyphen_values = true,
        value_parser = checked(max_time)
    )]
    pub max_time: Duration,
    /// Memory ceiling per point, in MiB of the machine's memory (1 to
    /// 16777216): a point that takes more is stopped and failed.
    #[arg(long, default_value_t = 4096, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(1..=16_777_216))]
    pub max_mem: u64,
    /// The largest N accepted.
    #[arg(long, default_value_t = 1_000_000, value_name = "N")]
    pub max_units: u64,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw the cost per unit against N, one line per runtime and unit, to an SVG file.
    #[arg(long, value_name = "FILE.svg", value_parser = crate::parsers::svg_file())]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub scale: PlotScale,
}

#[derive(Debug, Args)]
pub struct SpawnArgs {
    /// How many units at each point: a list and/or ranges (1k, 10k,
    /// 1000:5000:1000); `e2` is E2's full range, 1000,10000,100000,300000.
    #[arg(
        short = 'n',
        long = "n",
        default_value = "100,1000,10000",
        value_name = "LIST",
        allow_hyphen_values = true,
        value_parser = counts(1, E2_SPAWN_NS)
    )]
    pub n: Counts,
    #[command(flatten)]
    pub common: UnitArgs,
}

#[derive(Debug, Args)]
pub struct RingArgs {
    /// Units in the ring at each point (at least 2); `e2` is E2's 100,1000,10000
    /// with M = 1000.
    #[arg(
        short = 'n',
        long = "n",
        default_value = "10,100,1000",
        value_name = "LIST",
        allow_hyphen_values = true,
        value_parser = counts(2, E2_RING_NS)
    )]
    pub n: Counts,
    /// Times the token goes round the ring (default 100; 1000 with -n e2).
    #[arg(short = 'm', long = "m", value_name = "M", allow_hyphen_values = true,
          value_parser = checked(rounds))]
    pub m: Option<u64>,
    /// The largest M accepted.
    #[arg(long, default_value_t = 1_000_000, value_name = "M")]
    pub max_rounds: u64,
    #[command(flatten)]
    pub common: UnitArgs,
}

/// The N of each point, and whether they are E2's own (`-n e2`).
#[derive(Debug, Clone)]
pub struct Counts {
    pub ns: Vec<u64>,
    pub e2: bool,
}

/// -n: counts of at least `min`, or `e2` for E2's own (`e2_ns`); `e1`, a
/// preset of another family, is named as such.
fn counts(min: u64, e2_ns: &'static str) -> Checked<Counts> {
    checked(move |flag, text| {
        let t = text.trim();
        if t.eq_ignore_ascii_case("e1") {
            return Err(usage(format!(
                "{flag} e1: `e1` is a preset of `toll transfer --sizes`; spawn and ring take `{flag} e2`, E2's own sizes"
            )));
        }
        let e2 = t.eq_ignore_ascii_case("e2");
        let ns = parse_counts(if e2 { e2_ns } else { text }, flag, min).map_err(usage)?;
        Ok(Counts { ns, e2 })
    })
}

/// -m: one number of rounds.
fn rounds(flag: &str, text: &str) -> anyhow::Result<u64> {
    match parse_counts(text, flag, 1).map_err(usage)?[..] {
        [m] => Ok(m),
        _ => Err(usage(format!("{flag} takes one number of rounds"))),
    }
}

/// --max-time: seconds above 0, at most a day.
fn max_time(flag: &str, text: &str) -> anyhow::Result<Duration> {
    text.trim()
        .parse::<f64>()
        .ok()
        .filter(|t| t.is_finite() && *t > 0.0 && *t <= MAX_TIME_CEILING)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| {
            usage(format!(
                "{flag} {text} is out of range: give seconds above 0 and at most {MAX_TIME_CEILING} (a day)"
            ))
        })
}
