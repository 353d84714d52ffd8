//! A series' decision as it is stored inside its fit: the model, the
//! verdict and the figures every view renders.
//!
//! Plain data, below both the fit that holds it ([`crate::fit::SeriesFit`])
//! and the code that decides it ([`crate::decision::decide`]).

use serde::{Deserialize, Serialize};

/// The level of the fits' intervals: the round bootstrap's spread times
/// Student's t on the rounds. What they earn is tested at 3, 5 and 10
/// rounds under uniform, log-normal and heavy-tailed noise
/// (`fit::tests::shown_intervals_earn_their_printed_level_at_3_5_and_10_rounds`):
/// at least this, at most 99%.
pub const FIT_LEVEL: f64 = 0.95;

/// Which model the shown figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// The weighted line `α + β·n` through every size.
    Line,
    /// Two segments: α from the small sizes, β from the large.
    TwoSegments,
}

/// The verdict on a series' model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// One line fits every size within its noise.
    Ok,
    /// A line does not fit (the checks, or the knee rule).
    Curve,
    /// β's interval reaches 0: no cost per unit can be told.
    Flat,
    /// A size's spread is too wide to trust (or, for a cost per unit, β's
    /// interval reaches 0).
    Noisy,
}

/// How a positive figure stands against zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sign {
    /// Its whole interval is above 0.
    Positive,
    /// Its interval reaches 0: it cannot be told from 0.
    NearZero,
    /// Its whole interval is below 0: the model does not reach this end.
    BelowZero,
}

/// One of the decided figures: the estimate, its interval (never below 0)
/// and that interval's level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// The estimate, ns (or ns per unit), as fitted.
    pub value: f64,
    /// Its interval, intersected with [0, ∞).
    pub ci: (f64, f64),
    /// The run's own interval (before the run-to-run term), likewise cut at 0.
    pub within_ci: (f64, f64),
    /// The coverage the interval claims.
    pub level: f64,
    /// Where it stands against 0.
    pub sign: Sign,
}

impl Figure {
    pub(crate) fn new(value: f64, ci: (f64, f64), within: (f64, f64)) -> Figure {
        let sign = if ci.1 < 0.0 {
            Sign::BelowZero
        } else if ci.0 <= 0.0 || value <= 0.0 {
            Sign::NearZero
        } else {
            Sign::Positive
        };
        let cut = |(lo, hi): (f64, f64)| (lo.max(0.0), hi.max(0.0));
        Figure {
            value,
            ci: cut(ci),
            within_ci: cut(within),
            level: FIT_LEVEL,
            sign,
        }
    }

    /// The estimate when it can be told from 0.
    pub fn shown(&self) -> Option<f64> {
        (self.sign == Sign::Positive).then_some(self.value)
    }
}

/// The decision on one series: its model, its verdict and its figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Which model the figures are from.
    pub model: ModelKind,
    /// The verdict on it.
    pub verdict: Verdict,
    /// Other processes used more than [`crate::env::BUSY_SHARE`] of the
    /// CPUs while it was measured.
    pub busy: bool,
    /// The fixed cost α.
    pub alpha: Figure,
    /// The cost per unit β.
    pub beta: Figure,
    /// Where the two segments meet (two segments only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_n: Option<f64>,
    /// n½ = α/β, when both are above 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n_half: Option<f64>,
    /// t at the largest size: the line's value there, or for two segments
    /// the time measured there — (n, ns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_largest: Option<(f64, f64)>,
    /// The sizes whose spread was too wide to trust.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub noisy_sizes: Vec<f64>,
    /// The intervals include the run-to-run term (they say where the
    /// machine's figure lies across runs — its mean — not only this run's).
    #[serde(default)]
    pub widened: bool,
}

impl Decision {
    /// The verdict in the tables' words: `ok`, `curve, break ≈ 4000`,
    /// `flat`, `noisy`, each after `busy; ` when the machine was busy.
    pub fn words(&self) -> String {
        let word = match (self.verdict, self.break_n) {
            (Verdict::Curve, Some(b)) => format!("curve, break ≈ {b:.0}"),
            (Verdict::Curve, None) => "curve".into(),
            (Verdict::Ok, _) => "ok".into(),
            (Verdict::Flat, _) => "flat".into(),
            (Verdict::Noisy, _) => "noisy".into(),
        };
        if self.busy {
            format!("busy; {word}")
        } else {
            word
        }
    }

    /// The model's value at `n`.
    pub fn predict(&self, n: f64) -> f64 {
        self.alpha.value + self.beta.value * n
    }
}
