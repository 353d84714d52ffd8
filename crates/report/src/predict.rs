//! `toll predict`: the stored model as a design aid. Which series a user
//! means (by its label or by its attributes: peer, transport, runtime,
//! unit, method, …), the answer t(n) with its interval from that series'
//! fit (see `toll_measure::predict`), where it came from, and what to
//! distrust about it.
//!
//! Selectors are generic: each names a series attribute as the families
//! store it (`toll show --json` lists them), so every family with a fit
//! answers the same way and a new family needs no code here.

use crate::table::fmt_ns;
use serde::{Deserialize, Serialize};
use std::fmt::Write;
use toll_measure::predict::{predict, Model, Prediction, CI_METHOD};
use toll_store::{PointStatus, Run, RunStatus, Series};

/// The families whose series carry a t(n) fit.
pub const FITTED_FAMILIES: &[&str] = &[
    "transfer", "spawn", "ring", "exec", "file", "rpc", "ffi", "sys",
];

/// What picks a series: its label and/or attributes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selector {
    /// The whole label (`rust/pipe`, `go/goroutine`, …).
    pub label: Option<String>,
    /// (flag, attribute key, value): the series' attribute must read `value`.
    pub attrs: Vec<(String, String, String)>,
}

impl Selector {
    /// The selector as a user typed it: `--peer python --via pipe`.
    pub fn flags(&self) -> String {
        let mut out: Vec<String> = self.label.iter().map(|l| format!("--series {l}")).collect();
        out.extend(self.attrs.iter().map(|(f, _, v)| format!("{f} {v}")));
        out.join(" ")
    }

    /// Whether `s` is a series this selector means.
    pub fn matches(&self, s: &Series) -> bool {
        self.label.as_ref().is_none_or(|l| &s.label == l)
            && self.attrs.iter().all(|(_, key, value)| {
                s.attrs.get(key).is_some_and(|v| {
                    v.as_str().map_or_else(|| v.to_string(), str::to_string) == *value
                })
            })
    }
}

/// Why a run holds no answer.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PickError {
    /// The run is of another family.
    #[error("run {id} is a {found} run, not {wanted}: pick a {wanted} run from `toll runs`, or drop --run for the newest")]
    Family {
        id: i64,
        found: String,
        wanted: String,
    },
    /// No series of the run matches.
    #[error("run {id} has no series matching {flags}; its series: {labels}")]
    NoMatch {
        id: i64,
        flags: String,
        labels: String,
    },
    /// More than one does.
    #[error("{flags} matches {labels} in run {id}: pick one with --series LABEL")]
    Ambiguous {
        id: i64,
        flags: String,
        labels: String,
    },
    /// It matches, but has no fit: too few sizes, or a series its family
    /// does not fit (`toll sys`'s one-point figures and its chase).
    #[error("series {label} of run {id} has no t(n) model ({})", no_fit_why(*.sizes))]
    NoFit {
        id: i64,
        label: String,
        /// Sizes measured.
        sizes: usize,
    },
}

/// Why a series has no model, from the sizes it measured.
fn no_fit_why(sizes: usize) -> &'static str {
    match sizes {
        0 | 1 => "fewer than two sizes measured: measure it at two sizes or more",
        _ => "its family fits no line to it: `toll show` has its points",
    }
}

/// The one series of `run` that `sel` picks, with a fit.
pub fn pick<'r>(run: &'r Run, family: &str, sel: &Selector) -> Result<&'r Series, PickError> {
    if run.family != family {
        return Err(PickError::Family {
            id: run.id,
            found: run.family.clone(),
            wanted: family.into(),
        });
    }
    let mut hits: Vec<&Series> = run.series.iter().filter(|s| sel.matches(s)).collect();
    // Among several, only those with a model can answer (`toll sys`'s
    // one-point figures and its chase have none).
    if hits.len() > 1 && hits.iter().any(|s| s.fit.is_some()) {
        hits.retain(|s| s.fit.is_some());
    }
    let labels = |v: &[&Series]| {
        v.iter()
            .map(|s| s.label.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match hits.as_slice() {
        [] => Err(PickError::NoMatch {
            id: run.id,
            flags: sel.flags(),
            labels: labels(&run.series.iter().collect::<Vec<_>>()),
        }),
        [one] if one.fit.is_none() => Err(PickError::NoFit {
            id: run.id,
            label: one.label.clone(),
            sizes: one
                .points
                .iter()
                .filter(|p| p.status == PointStatus::Ok)
                .count(),
        }),
        [one] => Ok(one),
        many => Err(PickError::Ambiguous {
            id: run.id,
            flags: if sel.flags().is_empty() {
                "no selector".into()
            } else {
                sel.flags()
            },
            labels: labels(many),
        }),
    }
}

/// The answer to one `toll predict`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub family: String,
    pub run: i64,
    pub started_at: String,
    pub host: String,
    pub cpu_model: String,
    pub series: String,
    pub attrs: serde_json::Value,
    /// What t(n) is in this family (`a round trip of n items`, …).
    pub meaning: String,
    pub prediction: Prediction,
    /// How the interval was made.
    pub ci_method: String,
    /// The smallest and largest n measured.
    pub measured: (u64, u64),
    /// What to distrust, each with what to do about it.
    pub warnings: Vec<String>,
}

/// What t(n) is, in the words of `family`.
fn meaning(family: &str, s: &Series) -> String {
    let attr = |k: &str| s.attrs.get(k).and_then(|v| v.as_str()).unwrap_or("");
    match family {
        "transfer" => format!("a round trip of n {} to the peer", attr("unit")),
        "spawn" => format!("making n {} units (all of them)", attr("unit")),
        "ring" => "one round of the token round a ring of n units".into(),
        "file" => "one read of n bytes".into(),
        "rpc" => "one call carrying n payload bytes".into(),
        "ffi" if attr("pass") == "callback" => format!(
            "one call from {} into C ({}) that calls back n times",
            attr("runtime"),
            attr("binding"),
        ),
        "ffi" => format!(
            "one call from {} into C ({}) passing n bytes {}",
            attr("runtime"),
            attr("binding"),
            // Runs from before the ways passed every binding's bytes pinned.
            match attr("pass") {
                "" => "pinned",
                way => way,
            }
        ),
        "sys" => attr("probe").to_string(),
        "exec" => match s.attrs.get("parameter").and_then(|v| v.as_str()) {
            Some(p) => format!("one run of the command with {p} = n"),
            None => "one run of the command".into(),
        },
        _ => "t(n)".into(),
    }
}

/// Answer t(`n`) from series `s` of `run`.
pub fn answer(run: &Run, s: &Series, n: u64) -> Option<Answer> {
    let fit = s.fit.as_ref()?;
    let prediction = predict(fit, n as f64);
    let ns: Vec<u64> = s
        .points
        .iter()
        .filter(|p| p.status == PointStatus::Ok)
        .map(|p| p.n)
        .collect();
    let measured = (
        ns.iter().copied().min().unwrap_or(0),
        ns.iter().copied().max().unwrap_or(0),
    );
    let mut warnings = Vec::new();
    if n < measured.0 || n > measured.1 {
        warnings.push(format!(
            "n = {n} lies outside the measured range {}…{}: the model is extrapolated; measure at that size to know",
            measured.0, measured.1
        ));
    }
    let piecewise = fit.check.as_ref().and_then(|c| c.piecewise.as_ref());
    match (prediction.model, piecewise) {
        (Model::Line, _) if !prediction.line_fits => warnings.push(
            "a straight line does not describe this series' points and no piecewise model is stored: read the figure with care (`toll show`)".into(),
        ),
        (Model::PiecewiseSmall | Model::PiecewiseLarge, Some(p)) => warnings.push(format!(
            "a straight line does not describe this series' points: the piecewise model answers ({} segment; break ≈ {:.0})",
            if prediction.model == Model::PiecewiseSmall { "small-size" } else { "large-size" },
            p.break_n
        )),
        _ => {}
    }
    if run.status != RunStatus::Complete {
        warnings.push(format!(
            "run {} is {}: its model rests on the points it measured",
            run.id,
            run.status.as_str()
        ));
    }
    Some(Answer {
        family: run.family.clone(),
        run: run.id,
        started_at: run.started_at.clone(),
        host: run.env.hostname.clone(),
        cpu_model: run.env.cpu_model.clone(),
        series: s.label.clone(),
        attrs: s.attrs.clone(),
        meaning: meaning(&run.family, s),
        prediction,
        ci_method: CI_METHOD.into(),
        measured,
        warnings,
    })
}

/// The answer as text for a person (the warnings are the caller's to
/// print, on stderr).
pub fn render(a: &Answer) -> String {
    let mut s = String::new();
    let p = &a.prediction;
    let model = match p.model {
        Model::Line => "t(n) = α + β·n",
        Model::PiecewiseSmall => "the piecewise model, small-size segment",
        Model::PiecewiseLarge => "the piecewise model, large-size segment",
    };
    let _ = writeln!(
        s,
        "{} {}: t({}) = {}  95% CI [{}, {}]",
        a.family,
        a.series,
        p.n,
        fmt_ns(p.time_ns),
        fmt_ns(p.ci_ns.0),
        fmt_ns(p.ci_ns.1)
    );
    let _ = writeln!(s, "  t(n): {}; from {model}", a.meaning);
    let _ = writeln!(
        s,
        "  from run {} ({}) on {} ({}); measured n = {}…{}",
        a.run,
        a.started_at.replace('T', " ").trim_end_matches('Z'),
        a.host,
        a.cpu_model,
        a.measured.0,
        a.measured.1
    );
    let _ = writeln!(s, "  CI: {}", a.ci_method);
    s
}

#[cfg(test)]
#[path = "predict_tests.rs"]
mod tests;
