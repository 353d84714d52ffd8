//! `toll exec`'s report, in hyperfine's shape so its users read it without
//! a manual: per command `Time (mean ± σ)` with user and system time,
//! `Range (min … max)` and the run count; then toll's own lines (median
//! with its CI, peak memory, cycles and instructions), the warnings with
//! their remedies, the ratio of each command to the first with its CI and
//! Mann–Whitney U's verdict, and with a numeric parameter the fitted
//! start-up (α) and cost per iteration (β).

use crate::table::{fmt_ns, sig3, Table};
use serde::{Deserialize, Serialize};
use std::fmt::{self, Write};

/// Something the user should know about a benchmark, with its remedy.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Warning {
    /// The first run was much slower than the rest.
    FirstRunSlow { ratio: f64 },
    /// The first `runs` runs were slower than the settled ones.
    SettledAfter {
        runs: usize,
        first_mean_ns: f64,
        settled_mean_ns: f64,
    },
    /// Runs past Tukey's severe fences.
    Outliers { count: u32, of: usize },
    /// The spread is too wide to trust the figures.
    WideSpread { cv: f64 },
    /// The program takes about as long as the shell it is started by.
    ShellDominates { shell_ns: f64 },
    /// Failing runs were timed anyway (-i).
    FailuresIgnored { count: usize, code: i32 },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::FirstRunSlow { ratio } => write!(
                f,
                "the first run was {ratio:.1}× slower than the rest (caches were cold): try --warmup 1, or --prepare to reset the state each run"
            ),
            Warning::SettledAfter {
                runs,
                first_mean_ns,
                settled_mean_ns,
            } => write!(
                f,
                "the first {runs} runs took {} on average, the settled ones {} (a JIT or cache warming up): try --warmup {runs}",
                fmt_ns(*first_mean_ns),
                fmt_ns(*settled_mean_ns)
            ),
            Warning::Outliers { count, of } => write!(
                f,
                "{count} of {of} runs were far slower than the others (noise: other programs or interrupts): use a quiet machine, --pin a CPU, or more runs"
            ),
            Warning::WideSpread { cv } => write!(
                f,
                "the spread is too wide to trust (σ is {:.0}% of the mean: noise): quiet the machine, --pin a CPU, or let --ci add runs",
                cv * 100.0
            ),
            Warning::ShellDominates { shell_ns } => write!(
                f,
                "the command takes less than the shell's own start-up ({}, subtracted): -N runs it without a shell",
                fmt_ns(*shell_ns)
            ),
            Warning::FailuresIgnored { count, code } => write!(
                f,
                "{count} runs failed (exit status {code}) and were timed anyway (-i)"
            ),
        }
    }
}

/// An estimate with its 95% CI.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

fn level_95() -> f64 {
    0.95
}

/// ` (93.7%)` after an interval whose level is below 95%.
fn level_note(level: f64) -> String {
    if level <= 0.0 {
        " (no interval)".into()
    } else if level < 0.95 - 1e-9 {
        format!(" ({:.1}%)", (level * 1000.0).floor() / 10.0)
    } else {
        String::new()
    }
}

/// A command's time against another's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ratio {
    /// median(this) / median(reference), with its CI.
    pub ratio: Interval,
    /// The CI's level: 95% where the runs allow it, less where they do not
    /// (said beside it); 0 with no interval.
    #[serde(default = "level_95")]
    pub level: f64,
    /// Mann–Whitney U's two-sided p-value.
    pub p: f64,
    /// "faster", "slower" or "within noise".
    pub verdict: String,
}

/// One benchmark's figures (times in ns).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchFigures {
    pub label: String,
    pub command: String,
    pub params: Vec<(String, String)>,
    pub runs: usize,
    pub mean: Interval,
    pub median: Interval,
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    pub user_mean: f64,
    pub sys_mean: f64,
    /// Peak resident set, KiB: median over the runs, and the largest.
    pub max_rss_kb_median: f64,
    pub max_rss_kb_max: u64,
    pub cycles_mean: Option<f64>,
    pub instructions_mean: Option<f64>,
    pub warnings: Vec<Warning>,
    /// Against the first command at the same parameter values.
    pub vs_first: Option<Ratio>,
    /// Against the stored baseline (`--baseline`).
    pub vs_baseline: Option<Ratio>,
}

/// A fitted t(n) = α + β·n of one command.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FitFigures {
    pub label: String,
    pub parameter: String,
    pub alpha: Interval,
    pub beta: Interval,
    /// "ok", "curve" (a line does not fit), "flat" (β not above 0).
    pub verdict: String,
}

/// The whole report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExecReport {
    pub benches: Vec<BenchFigures>,
    pub fits: Vec<FitFigures>,
    /// The shell's start-up subtracted from every run, ns (None with -N).
    pub shell: Option<(String, f64)>,
    pub counters_missing: Option<String>,
    /// toll's own peak resident set, KiB: the kernel counts it as the
    /// program's at exec, so a maximum RSS at or below it only bounds the
    /// program's.
    #[serde(default)]
    pub rss_floor_kb: u64,
    /// The stored run compared against, if any.
    pub baseline: Option<i64>,
    pub notes: Vec<String>,
}

/// Time with σ, hyperfine's way: both in the unit of the mean.
fn unit_of(ns: f64) -> (f64, &'static str) {
    match ns.abs() {
        a if a < 1e3 => (1.0, "ns"),
        a if a < 1e6 => (1e3, "µs"),
        a if a < 1e9 => (1e6, "ms"),
        _ => (1e9, "s"),
    }
}

fn t(ns: f64, scale: f64, unit: &str) -> String {
    format!("{} {unit}", sig3(ns / scale))
}

fn mem(kb: f64) -> String {
    if kb >= 1024.0 * 1024.0 {
        format!("{} GiB", sig3(kb / 1024.0 / 1024.0))
    } else if kb >= 1024.0 {
        format!("{} MiB", sig3(kb / 1024.0))
    } else {
        format!("{kb:.0} KiB")
    }
}

fn count(v: f64) -> String {
    match v {
        v if v >= 1e9 => format!("{} G", sig3(v / 1e9)),
        v if v >= 1e6 => format!("{} M", sig3(v / 1e6)),
        v if v >= 1e3 => format!("{} k", sig3(v / 1e3)),
        v => format!("{v:.0}"),
    }
}

/// The report as text for the terminal.
pub fn render(r: &ExecReport) -> String {
    let mut s = String::new();
    if let Some((sh, ns)) = &r.shell {
        let _ = writeln!(
            s,
            "shell: {sh}, start-up {} measured and subtracted from every run (-N: no shell)",
            fmt_ns(*ns)
        );
    }
    if let Some(why) = &r.counters_missing {
        let _ = writeln!(s, "cycles and instructions: not counted ({why})");
    }
    for (i, b) in r.benches.iter().enumerate() {
        let (scale, unit) = unit_of(b.mean.value);
        let _ = writeln!(s, "\nBenchmark {}: {}", i + 1, b.label);
        let _ = writeln!(
            s,
            "  Time (mean ± σ):     {} ± {}    [User: {}, System: {}]",
            t(b.mean.value, scale, unit),
            t(b.stddev, scale, unit),
            fmt_ns(b.user_mean),
            fmt_ns(b.sys_mean)
        );
        let _ = writeln!(
            s,
            "  Range (min … max):   {} … {}    {} runs",
            t(b.min, scale, unit),
            t(b.max, scale, unit),
            b.runs
        );
        let _ = writeln!(
            s,
            "  Median [95% CI]:     {} [{}, {}]    mean 95% CI [{}, {}]",
            t(b.median.value, scale, unit),
            sig3(b.median.lo / scale),
            sig3(b.median.hi / scale),
            sig3(b.mean.lo / scale),
            sig3(b.mean.hi / scale)
        );
        let mut extra = if b.max_rss_kb_max as f64 <= r.rss_floor_kb as f64 * 1.02 {
            format!(
                "  Max RSS:             below {0} (not measurable here: the kernel counts the spawning toll's {0} until exec, so a smaller program reads as that)",
                mem(r.rss_floor_kb as f64)
            )
        } else {
            format!(
                "  Max RSS:             {} (largest {})",
                mem(b.max_rss_kb_median),
                mem(b.max_rss_kb_max as f64)
            )
        };
        if let (Some(c), Some(i)) = (b.cycles_mean, b.instructions_mean) {
            let ipc = if c > 0.0 { i / c } else { 0.0 };
            let _ = write!(
                extra,
                "    cycles {}  instructions {}  (IPC {ipc:.2})",
                count(c),
                count(i)
            );
        }
        let _ = writeln!(s, "{extra}");
        if let Some(v) = &b.vs_baseline {
            let _ = writeln!(
                s,
                "  vs baseline run {}:   {:.3}× [{:.3}, {:.3}]{}  p = {}  {}",
                r.baseline.unwrap_or(0),
                v.ratio.value,
                v.ratio.lo,
                v.ratio.hi,
                level_note(v.level),
                p_text(v.p),
                v.verdict
            );
        }
        for w in &b.warnings {
            let _ = writeln!(s, "  Warning: {w}");
        }
    }
    let ratios: Vec<&BenchFigures> = r.benches.iter().filter(|b| b.vs_first.is_some()).collect();
    if !ratios.is_empty() {
        let against = if r.benches[0].params.is_empty() {
            format!("`{}`", r.benches[0].label)
        } else {
            "the first command at the same parameter values".into()
        };
        let _ = writeln!(
            s,
            "\nSummary: median time against {against} (CI 95% unless said; Mann–Whitney U)"
        );
        let mut tb = Table::new(&["command", "ratio", "CI", "p", "verdict"]);
        for b in ratios {
            let v = b.vs_first.as_ref().expect("filtered");
            tb.row(vec![
                b.label.clone(),
                format!("{:.3}", v.ratio.value),
                format!(
                    "[{:.3}, {:.3}]{}",
                    v.ratio.lo,
                    v.ratio.hi,
                    level_note(v.level)
                ),
                p_text(v.p),
                v.verdict.clone(),
            ]);
        }
        s.push_str(&indent(&tb.render()));
    }
    if !r.fits.is_empty() {
        let _ = writeln!(
            s,
            "\nStart-up vs per-iteration: t(n) = α + β·n over the parameter (α: start-up, β: cost per unit of n)"
        );
        let mut tb = Table::new(&["command", "n", "α", "α 95% CI", "β", "β 95% CI", "fit"]);
        for f in &r.fits {
            let (scale, unit) = unit_of(f.alpha.value);
            tb.row(vec![
                f.label.clone(),
                f.parameter.clone(),
                t(f.alpha.value, scale, unit),
                format!(
                    "[{}, {}] {unit}",
                    sig3(f.alpha.lo / scale),
                    sig3(f.alpha.hi / scale)
                ),
                fmt_ns(f.beta.value),
                format!("[{}, {}]", fmt_ns(f.beta.lo), fmt_ns(f.beta.hi)),
                f.verdict.clone(),
            ]);
        }
        s.push_str(&indent(&tb.render()));
    }
    for n in &r.notes {
        let _ = writeln!(s, "note: {n}");
    }
    s
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

/// A p-value as benchstat prints it.
pub fn p_text(p: f64) -> String {
    if p < 0.001 {
        "<0.001".into()
    } else {
        format!("{p:.3}")
    }
}

/// hyperfine's JSON export (times in seconds), with toll's figures beside.
pub fn hyperfine_json(
    r: &ExecReport,
    times: &[Vec<f64>],
    exit_codes: &[Vec<i32>],
) -> serde_json::Value {
    let results: Vec<serde_json::Value> = r
        .benches
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let params: serde_json::Map<String, serde_json::Value> = b
                .params
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                .collect();
            serde_json::json!({
                "command": b.label,
                "mean": b.mean.value / 1e9, "stddev": b.stddev / 1e9,
                "median": b.median.value / 1e9,
                "user": b.user_mean / 1e9, "system": b.sys_mean / 1e9,
                "min": b.min / 1e9, "max": b.max / 1e9,
                "times": times[i].iter().map(|t| t / 1e9).collect::<Vec<_>>(),
                "exit_codes": exit_codes[i],
                "parameters": params,
                "toll": b,
            })
        })
        .collect();
    serde_json::json!({ "results": results, "fits": r.fits, "shell": r.shell })
}

/// hyperfine's CSV export: command, mean, stddev, median, user, system,
/// min, max (seconds), then `parameter_NAME` columns.
pub fn hyperfine_csv(r: &ExecReport) -> String {
    let names: Vec<&String> = r
        .benches
        .first()
        .map(|b| b.params.iter().map(|(k, _)| k).collect())
        .unwrap_or_default();
    let mut s = String::from("command,mean,stddev,median,user,system,min,max");
    for n in &names {
        let _ = write!(s, ",parameter_{n}");
    }
    s.push('\n');
    for b in &r.benches {
        let q = if b.label.contains([',', '"', '\n']) {
            format!("\"{}\"", b.label.replace('"', "\"\""))
        } else {
            b.label.clone()
        };
        let _ = write!(
            s,
            "{q},{},{},{},{},{},{},{}",
            b.mean.value / 1e9,
            b.stddev / 1e9,
            b.median.value / 1e9,
            b.user_mean / 1e9,
            b.sys_mean / 1e9,
            b.min / 1e9,
            b.max / 1e9
        );
        for (_, v) in &b.params {
            let _ = write!(s, ",{v}");
        }
        s.push('\n');
    }
    s
}

/// hyperfine's `--export-markdown` table: Command, Mean, Min, Max (in the
/// first command's unit), Relative (to the fastest, ± its propagated error).
pub fn hyperfine_markdown(r: &ExecReport) -> String {
    let Some(first) = r.benches.first() else {
        return String::new();
    };
    let (scale, unit) = unit_of(first.mean.value);
    let fastest = r
        .benches
        .iter()
        .min_by(|a, b| a.mean.value.total_cmp(&b.mean.value))
        .expect("non-empty");
    let mut s = format!(
        "| Command | Mean [{unit}] | Min [{unit}] | Max [{unit}] | Relative |\n|:---|---:|---:|---:|---:|\n"
    );
    for b in &r.benches {
        let rel = b.mean.value / fastest.mean.value;
        let rel_err = rel
            * ((b.stddev / b.mean.value).powi(2) + (fastest.stddev / fastest.mean.value).powi(2))
                .sqrt();
        let relative = if std::ptr::eq(b, fastest) {
            "1.00".to_string()
        } else {
            format!("{rel:.2} ± {rel_err:.2}")
        };
        let _ = writeln!(
            s,
            "| `{}` | {:.1} ± {:.1} | {:.1} | {:.1} | {relative} |",
            b.label.replace('|', "\\|"),
            b.mean.value / scale,
            b.stddev / scale,
            b.min / scale,
            b.max / scale
        );
    }
    s
}
