//! What one experiment's run gives back: its rows (the original figure
//! beside this machine's, with its CI and the family run behind it), its
//! findings, and its errors.

use super::experiment::Experiment;
use super::findings::{Figure, Finding};
use super::originals::Original;
use serde::Serialize;
use serde_json::json;

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
    pub(super) fn stored(&self) -> serde_json::Value {
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
    pub(super) fn new(experiment: Experiment, design: String) -> Report {
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
    pub(super) fn failed(&mut self, what: &str, e: impl std::fmt::Display) {
        self.errors.push(format!("{what}: {e}"));
        self.partial = true;
    }

    /// A row with its figure measured or missing.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn row(
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

/// A summary's median with its CI, scaled into a row's unit.
pub fn of_summary(s: &toll_measure::Summary, k: f64) -> Figure {
    Figure::new(s.median, s.ci_low, s.ci_high)
        .at_level(s.ci_level)
        .scaled(k)
}
