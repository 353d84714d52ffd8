//! `toll replicate` (issue 19): each seed experiment of docs/EXPERIMENTS.md
//! re-run as it was designed, with the families that exist, and its table:
//! the original figure (originals.rs), this machine's with its 95% CI, and
//! the ratio, then the seed's lessons judged on the measured figures
//! (findings.rs). One module per experiment (e1.rs … e5.rs) builds its
//! families' configs, runs them, and turns their outcomes into rows.
//!
//! Every family run is tagged `"replicate": "E1"` in its stored config (the
//! store merges the tag into each run begun while it is set), and each
//! experiment's table is stored as a run of its own (family `replicate`)
//! whose config holds the rows, the findings and the ids of the runs they
//! came from — so `toll show`, `toll report` and the tests read it back.
//! A row the tree cannot measure (a runtime missing, a server not built
//! yet) is kept with the reason, never dropped.

pub mod e1;
pub mod e2;
pub mod e3;
pub mod e4;
pub mod e5;
pub mod e5_server_load;
pub mod e5_start_up_loop;
pub mod findings;
pub mod originals;
pub mod web;

use crate::observer::Observer;
use findings::{Figure, Finding};
use originals::Original;
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use toll_measure::Fingerprint;
use toll_store::{NewRun, RunStatus, Store, StoreError};

/// One of the five seed experiments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Experiment {
    E1,
    E2,
    E3,
    E4,
    E5,
}

impl Experiment {
    pub const ALL: [Experiment; 5] = [
        Experiment::E1,
        Experiment::E2,
        Experiment::E3,
        Experiment::E4,
        Experiment::E5,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Experiment::E1 => "E1",
            Experiment::E2 => "E2",
            Experiment::E3 => "E3",
            Experiment::E4 => "E4",
            Experiment::E5 => "E5",
        }
    }

    /// The experiment's title in docs/EXPERIMENTS.md.
    pub fn title(self) -> &'static str {
        match self {
            Experiment::E1 => "transfer time over a link (MathLink, ~1999–2004)",
            Experiment::E2 => "process spawn and the process ring (Erlang, Squeak, Haskell, 2007)",
            Experiment::E3 => "null-RPC overhead (Ninf, NetSolve, Condor MW, early 2000s)",
            Experiment::E4 => {
                "many sequential and random reads: plain reads or mmap? (Python, 2010)"
            }
            Experiment::E5 => "web server throughput with ab, and a C vs JVM loop (2004)",
        }
    }
}

/// An experiment name that is none of E1…E5 or all.
#[derive(Debug, thiserror::Error)]
#[error("unknown experiment `{0}`: valid ones are E1, E2, E3, E4, E5, all (or a comma-separated list, e.g. E1,E5)")]
pub struct UnknownExperiment(pub String);

/// `E1`, `e5`, `all`, or a comma-separated list of them, in E1…E5 order
/// without repeats.
pub fn parse_experiments(text: &str) -> Result<Vec<Experiment>, UnknownExperiment> {
    let mut out = Vec::new();
    let names: Vec<&str> = text.split(',').map(str::trim).collect();
    for name in &names {
        let picked: Vec<Experiment> = match name.to_ascii_uppercase().as_str() {
            "ALL" => Experiment::ALL.to_vec(),
            "E1" => vec![Experiment::E1],
            "E2" => vec![Experiment::E2],
            "E3" => vec![Experiment::E3],
            "E4" => vec![Experiment::E4],
            "E5" => vec![Experiment::E5],
            _ => return Err(UnknownExperiment(name.to_string())),
        };
        out.extend(picked);
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// How much of each design to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// The experiment's own sizes and trials.
    Full,
    /// `--quick`: smaller sizes and fewer trials; all five in about 5 minutes.
    Quick,
    /// The tests': the smallest run that still exercises every row.
    Test,
}

impl Preset {
    pub fn name(self) -> &'static str {
        match self {
            Preset::Full => "full",
            Preset::Quick => "quick",
            Preset::Test => "test",
        }
    }

    /// Pick the value for this preset.
    pub fn pick<T>(self, full: T, quick: T, test: T) -> T {
        match self {
            Preset::Full => full,
            Preset::Quick => quick,
            Preset::Test => test,
        }
    }
}

/// One row of an experiment's table.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// What was measured: a series, a server, a runtime.
    pub subject: String,
    /// Which figure of it: `t(100000)`, `µs/unit at N = 1000`.
    pub figure: String,
    pub unit: String,
    /// The seed's figure, or why the seed has none for this row.
    pub original: Result<Original, String>,
    /// This machine's figure, or why it is missing (with the fix).
    pub measured: Result<Figure, String>,
    /// The stored run the figure comes from.
    pub run_id: Option<i64>,
}

impl Row {
    /// This machine's figure ÷ the original, with its interval (the
    /// original is exact); Err(why) when either is missing.
    pub fn ratio(&self) -> Result<Figure, String> {
        match (&self.original, &self.measured) {
            (Ok(o), Ok(m)) if o.value > 0.0 => Ok(m.scaled(1.0 / o.value)),
            (Ok(_), Ok(_)) => Err("the original is 0".into()),
            (Err(_), _) => Err("no original".into()),
            (_, Err(_)) => Err("not measured".into()),
        }
    }

    /// The row as stored: every cell, or the reason it is empty.
    fn stored(&self) -> serde_json::Value {
        let ratio = self.ratio();
        json!({
            "subject": self.subject, "figure": self.figure, "unit": self.unit,
            "original": self.original.as_ref().ok(),
            "original_missing": self.original.as_ref().err(),
            "measured": self.measured.as_ref().ok(),
            "measured_missing": self.measured.as_ref().err(),
            "ratio": ratio.as_ref().ok(),
            "ratio_missing": ratio.as_ref().err(),
            "run": self.run_id,
        })
    }
}

/// An experiment's result: its table, its findings, and where it is stored.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub experiment: Experiment,
    /// What was run, in one line (sizes, trials, runtimes).
    pub design: String,
    pub rows: Vec<Row>,
    pub findings: Vec<Finding>,
    /// The family runs behind the rows.
    pub runs: Vec<i64>,
    /// Failures of a family, each in one line; the rest went on.
    pub errors: Vec<String>,
    /// Interrupted, or a family failed: the table is incomplete.
    pub partial: bool,
    /// The run that stores this table.
    pub run_id: Option<i64>,
}

impl Report {
    fn new(experiment: Experiment, design: String) -> Report {
        Report {
            experiment,
            design,
            rows: vec![],
            findings: vec![],
            runs: vec![],
            errors: vec![],
            partial: false,
            run_id: None,
        }
    }

    /// A family failed: said once, the rest goes on, the table is partial.
    fn failed(&mut self, what: &str, e: impl std::fmt::Display) {
        self.errors.push(format!("{what}: {e}"));
        self.partial = true;
    }

    /// A row with its figure measured or missing.
    #[allow(clippy::too_many_arguments)]
    fn row(
        &mut self,
        subject: impl Into<String>,
        figure: impl Into<String>,
        unit: &str,
        original: Result<Original, String>,
        measured: Result<Figure, String>,
        run_id: Option<i64>,
    ) {
        self.rows.push(Row {
            subject: subject.into(),
            figure: figure.into(),
            unit: unit.to_string(),
            original,
            measured,
            run_id,
        });
    }

    /// The measured figure of the first row matching `subject` and `figure`.
    pub fn figure(&self, subject: &str, figure: &str) -> Result<Figure, String> {
        self.rows
            .iter()
            .find(|r| r.subject == subject && r.figure == figure)
            .map(|r| r.measured.clone())
            .unwrap_or_else(|| Err(format!("{subject} {figure} was not measured")))
    }
}

/// What every experiment runs with.
pub struct Ctx<'a> {
    pub store: &'a Store,
    pub observer: &'a mut dyn Observer,
    pub stop: &'a Arc<AtomicBool>,
    pub preset: Preset,
    /// A directory of toll's for generated files (configs, the loop's
    /// binaries), removed by the caller.
    pub scratch: PathBuf,
    /// The first loopback port of E5's servers (`--port`); None: free
    /// ports the system picks.
    pub port: Option<u16>,
}

impl Ctx<'_> {
    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// The reason of a row not measured because the run was interrupted.
pub const INTERRUPTED: &str = "not measured: interrupted";

/// The CPUs this thread may use, put back when dropped: a family that pins
/// toll (`--pin`) leaves it pinned, and the next family in the same
/// process would inherit one CPU (and its workers with it).
pub struct KeepAffinity(Option<nix::sched::CpuSet>);

impl KeepAffinity {
    pub fn now() -> KeepAffinity {
        KeepAffinity(nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).ok())
    }
}

impl Drop for KeepAffinity {
    fn drop(&mut self) {
        if let Some(set) = &self.0 {
            let _ = nix::sched::sched_setaffinity(nix::unistd::Pid::from_raw(0), set);
        }
    }
}

/// Run one experiment, its family runs tagged with its name, and store its
/// table as a `replicate` run.
pub fn run(experiment: Experiment, ctx: &mut Ctx) -> Result<Report, StoreError> {
    ctx.store
        .tag_runs("replicate", Some(json!(experiment.name())));
    let keep = KeepAffinity::now();
    let mut report = match experiment {
        Experiment::E1 => e1::run(ctx),
        Experiment::E2 => e2::run(ctx),
        Experiment::E3 => e3::run(ctx),
        Experiment::E4 => e4::run(ctx),
        Experiment::E5 => e5::run(ctx),
    };
    drop(keep);
    ctx.store.tag_runs("replicate", None);
    if ctx.stopped() {
        report.partial = true;
    }
    report.run_id = Some(store(ctx.store, ctx.preset, &report)?);
    Ok(report)
}

/// Store the table: family `replicate`, the rows and findings in its config.
fn store(store: &Store, preset: Preset, r: &Report) -> Result<i64, StoreError> {
    let id = store.begin_run(&NewRun {
        family: "replicate".into(),
        config: json!({
            "replicate": r.experiment.name(), "title": r.experiment.title(),
            "preset": preset.name(), "design": r.design, "runs": r.runs,
            "rows": r.rows.iter().map(Row::stored).collect::<Vec<_>>(),
            "findings": r.findings, "errors": r.errors,
            "originals": originals::SOURCE,
        }),
        env: Fingerprint::capture(vec![]),
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let measured = r.rows.iter().filter(|x| x.measured.is_ok()).count();
    let summary = format!(
        "{}: {measured} of {} figures measured, {} findings still hold",
        r.experiment.name(),
        r.rows.len(),
        r.findings
            .iter()
            .filter(|f| f.verdict == findings::Verdict::Holds)
            .count()
    );
    let status = if r.partial {
        RunStatus::Partial
    } else {
        RunStatus::Complete
    };
    let error = (!r.errors.is_empty()).then(|| r.errors.join("; "));
    store.finish_run(id, status, &summary, error.as_deref())?;
    Ok(id)
}

/// A summary's median with its CI, scaled into a row's unit.
pub fn of_summary(s: &toll_measure::Summary, k: f64) -> Figure {
    Figure::new(s.median, s.ci_low, s.ci_high)
        .at_level(s.ci_level)
        .scaled(k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lists_and_all_parse_in_order() {
        assert_eq!(parse_experiments("all").unwrap(), Experiment::ALL);
        assert_eq!(
            parse_experiments("e5, E1,e5").unwrap(),
            [Experiment::E1, Experiment::E5]
        );
        let e = parse_experiments("E6").unwrap_err().to_string();
        assert!(
            e.contains("`E6`") && e.contains("E1, E2, E3, E4, E5, all"),
            "{e}"
        );
        assert!(parse_experiments("").is_err());
    }

    #[test]
    fn a_ratio_needs_both_figures_and_says_which_is_missing() {
        let o = Original {
            value: 2.0,
            text: "2 s",
        };
        let mut r = Row {
            subject: "c".into(),
            figure: "t".into(),
            unit: "s".into(),
            original: Ok(o),
            measured: Ok(Figure::new(1.0, 0.5, 1.5)),
            run_id: None,
        };
        assert_eq!(r.ratio().unwrap(), Figure::new(0.5, 0.25, 0.75));
        r.measured = Err("haskell not installed: apt-get install ghc".into());
        assert_eq!(r.ratio().unwrap_err(), "not measured");
        let stored = r.stored();
        assert_eq!(
            stored["measured_missing"],
            "haskell not installed: apt-get install ghc"
        );
        assert!(stored["measured"].is_null() && stored["ratio"].is_null());
        r.original = Err("not in the seed".into());
        assert_eq!(r.ratio().unwrap_err(), "no original");
    }
}
