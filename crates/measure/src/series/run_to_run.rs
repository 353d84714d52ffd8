//! The between-run term as it is stored inside a series' fit: where it came
//! from, its standard deviations and the run's own intervals beside.
//!
//! Plain data, below both the fit that holds it ([`crate::fit::SeriesFit`])
//! and the code that computes it ([`crate::run_to_run::widen`]).

use serde::{Deserialize, Serialize};

/// Where a between-run term came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Earlier runs of the series on this machine (with the machine's share
    /// when there is one, and the floor beneath).
    History,
    /// No earlier runs of the series: the machine's share, learnt from the
    /// family's other series here (and the floor beneath).
    Machine,
    /// The floor alone: no earlier runs to learn from.
    Floor,
}

/// How far this machine moves between runs, as a share of an estimate:
/// the between-run standard deviation of α and of β over their means,
/// pooled over other series' earlier runs here.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MachineShare {
    /// α's between-run standard deviation over its mean.
    pub alpha: f64,
    /// β's between-run standard deviation over its mean.
    pub beta: f64,
    /// Series it pools, each with two runs or more.
    pub series: usize,
    /// Degrees of freedom behind it: Σ (runs − 1) over those series (α's,
    /// and β's where `beta_df` is absent).
    pub df: usize,
    /// Degrees of freedom behind β's share, where it pools other series
    /// than α's (a β that cannot be told from 0 is left out of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta_df: Option<usize>,
}

impl MachineShare {
    /// "4.1% of α, 2.3% of β", a share learnt from no run (no series'
    /// α, or β, clear of its own noise) said so rather than shown as 0%.
    pub fn words(&self) -> String {
        let share = |v: f64, df: usize, of: &str| {
            if df > 0 {
                format!("{:.1}% of {of}", v * 100.0)
            } else {
                format!("no {of} clear of its noise")
            }
        };
        format!(
            "{}, {}",
            share(self.alpha, self.df, "α"),
            share(self.beta, self.beta_df.unwrap_or(self.df), "β")
        )
    }
}

/// The between-run term of one fitted series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunToRun {
    /// Where it came from.
    pub source: Source,
    /// Earlier runs behind it (0 with the floor alone).
    pub earlier_runs: usize,
    /// Between-run standard deviation of α, ns.
    pub alpha_sd: f64,
    /// Between-run standard deviation of β, ns per unit.
    pub beta_sd: f64,
    /// Degrees of freedom behind the standard deviations: each interval
    /// half grew by t₀.₉₇₅(df)·sd, or by 1.96·sd where sd is the floor
    /// (0 for runs stored before it was kept: 1.96 throughout).
    #[serde(default)]
    pub df: usize,
    /// α's 95% CI from this run alone.
    pub alpha_ci_within: (f64, f64),
    /// β's 95% CI from this run alone.
    pub beta_ci_within: (f64, f64),
    /// How many of the earlier runs were made into other stores, read from
    /// the machine's record of runs (0: all from this store).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub elsewhere: usize,
    /// The machine's share it drew on, when the store had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<MachineShare>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A one-point figure (a system call, a wake-up, a handoff: one size, no
/// line) with its between-run term: its own run's interval, and that
/// interval widened by how far the figure moved between earlier runs of the
/// same series here, as a fitted α is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// The figure (the median over the rounds), ns.
    pub value: f64,
    /// Its interval from this run alone.
    pub ci_within: (f64, f64),
    /// The level of that interval (order statistics: at least 0.95 where
    /// the rounds allow it).
    pub level_within: f64,
    /// The degrees of freedom it is read back with (the rounds less one).
    pub df_within: usize,
    /// The interval widened by the between-run term: where the machine's
    /// figure lies, not only this run's.
    pub ci: (f64, f64),
    /// Where the term came from.
    pub source: Source,
    /// Earlier runs behind it.
    pub earlier_runs: usize,
    /// How many of them were read from toll's record of runs.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub elsewhere: usize,
    /// The between-run standard deviation, ns.
    pub sd: f64,
    /// Its degrees of freedom.
    pub df: usize,
}

#[cfg(test)]
mod tests {
    use super::MachineShare;

    #[test]
    fn a_share_learnt_from_no_run_is_said_so_not_shown_as_zero() {
        let m = MachineShare {
            alpha: 0.0,
            beta: 0.0412,
            series: 1,
            df: 0,
            beta_df: Some(2),
        };
        assert_eq!(m.words(), "no α clear of its noise, 4.1% of β");
        let both = MachineShare {
            df: 2,
            alpha: 0.023,
            ..m
        };
        assert_eq!(both.words(), "2.3% of α, 4.1% of β");
    }
}
