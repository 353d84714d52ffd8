//! What a fitted series holds: the lines ([`Fit`], by [`FitMethod`]) and the
//! whole [`SeriesFit`] as stored, with its checks ([`crate::model`]), its
//! between-run term (`run_to_run`) and its decision (`decision`).
//!
//! Plain data with the two readings every view shares (the primary line,
//! whether the line fits), below the code that makes it
//! ([`crate::fit::fit_series`]), widens it ([`crate::run_to_run::widen`])
//! and decides it ([`crate::decision::decide`]); each of those imports this
//! module and none is imported by it. Its public items are reached where
//! they always were: `toll_measure::fit::…` (and the crate's root),
//! `toll_measure::decision::…` and `toll_measure::run_to_run::…`.

pub(crate) mod decision;
pub(crate) mod run_to_run;

use crate::model::ModelCheck;
use decision::Decision;
use run_to_run::RunToRun;
use serde::{Deserialize, Serialize};

/// How a line was fitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FitMethod {
    /// Ordinary least squares over every sample.
    LeastSquares,
    /// Theil–Sen: median of pairwise slopes, median intercept.
    TheilSen,
    /// Least squares over the per-`n` centres (20% trimmed means), weighted
    /// by their precision.
    WeightedLeastSquares,
}

/// One fitted line with 95% confidence intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The estimator that produced this line.
    pub method: FitMethod,
    /// Fixed cost per crossing, α (the intercept), ns.
    pub alpha: f64,
    /// 95% confidence interval of α: α ± t·(its bootstrap standard error).
    pub alpha_ci: (f64, f64),
    /// Cost per unit of `n`, β (the slope), ns.
    pub beta: f64,
    /// 95% confidence interval of β: β ± t·(its bootstrap standard error).
    pub beta_ci: (f64, f64),
    /// 1 − SS_res/SS_tot of this line over every sample (0 when SS_tot is 0).
    pub r2: f64,
    /// α/β when α is positive and β's whole CI is above 0.
    pub n_half: Option<f64>,
}

impl Fit {
    /// Predicted time at `n`.
    pub fn predict(&self, n: f64) -> f64 {
        self.alpha + self.beta * n
    }
}

/// Both fits of one series, plus a flag when a straight line does not fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesFit {
    /// Ordinary least squares over every sample.
    pub least_squares: Fit,
    /// Theil–Sen over the per-`n` centres (20% trimmed means).
    pub robust: Fit,
    /// Least squares over the per-`n` centres, each weighted by the inverse
    /// of its replicate variance (absent in runs stored before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weighted: Option<Fit>,
    /// Set when the line fits poorly (a knee or curve); see [`crate::fit::is_nonlinear`]
    /// and [`ModelCheck::line_fits`].
    pub nonlinear: bool,
    /// The small end, the lack-of-fit test and the piecewise model (absent
    /// in runs stored before they existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<ModelCheck>,
    /// The between-run term the CIs were widened by, with the within-run
    /// CIs (absent in runs stored before it existed, whose CIs are
    /// within-run): see [`crate::run_to_run`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_to_run: Option<RunToRun>,
    /// The model, verdict and figures every view shows, decided once when
    /// the series was stored (absent in runs stored before it existed,
    /// which are decided as they are read): see [`crate::decision`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Decision>,
}

impl SeriesFit {
    /// The model the tables print: the weighted line over the centres, or
    /// Theil–Sen in runs stored before the weighted fit existed.
    pub fn primary(&self) -> &Fit {
        self.weighted.as_ref().unwrap_or(&self.robust)
    }

    /// The straight line describes the points (true for runs stored before
    /// the checks existed, which cannot tell).
    pub fn line_fits(&self) -> bool {
        !self.nonlinear && self.check.as_ref().is_none_or(ModelCheck::line_fits)
    }
}
