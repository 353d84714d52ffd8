//! A series' stored decision as every view prints it.
//!
//! The model, verdict and figures of a series are decided once, when it is
//! stored (`toll_measure::decision`); the families' tables, `toll show`,
//! the report's models table, the board and `toll compare` all print them
//! through the functions here, so one run reads the same everywhere.

use toll_measure::decision::{Decision, Figure, Sign};
use toll_measure::summary::Summary;
use toll_store::Series;

/// The stored decision of a series, if it has a model.
pub fn of(series: &Series) -> Option<&Decision> {
    series.fit.as_ref()?.decision.as_ref()
}

/// Sizes measured (points with a summary).
fn measured(series: &Series) -> usize {
    series.points.iter().filter(|p| p.summary.is_some()).count()
}

/// The verdict in the tables' words: the decision's, or why there is no
/// model (`2 sizes: no model`).
pub fn verdict(series: &Series) -> String {
    match of(series) {
        Some(d) => d.words(),
        None => no_model(measured(series)),
    }
}

/// The words for a series with no model, from how many sizes it has.
pub fn no_model(sizes: usize) -> String {
    match sizes {
        1 => "1 size: no model".into(),
        k => format!("{k} sizes: no model"),
    }
}

/// A figure's value and interval cells, each through `fmt`: `≈ 0` with
/// its interval from 0 where it cannot be told from 0, `< 0` and no
/// interval where the model does not reach that end.
pub fn cells(f: &Figure, fmt: impl Fn(f64) -> String) -> (String, String) {
    match f.sign {
        Sign::Positive => (fmt(f.value), format!("[{}, {}]", fmt(f.ci.0), fmt(f.ci.1))),
        Sign::NearZero => ("≈ 0".into(), format!("[0, {}]", fmt(f.ci.1))),
        Sign::BelowZero => ("< 0".into(), "–".into()),
    }
}

/// The interval column's heading: `α 95% CI`, or with the run-to-run term
/// `α 95% CI*`, for intervals that say where the figure will be on this
/// machine next time ([`WIDENED_LEGEND`] says so under the table).
pub fn ci_heading(name: &str, widened: bool) -> String {
    if widened {
        format!("{name} 95% CI*")
    } else {
        format!("{name} 95% CI")
    }
}

/// A point's median interval with its level where the level is not 95%:
/// `[1.02, 1.10] (75%)`; `no interval` from one value.
pub fn median_interval(s: &Summary, fmt: impl Fn(f64) -> String) -> String {
    match s.ci_level {
        Some(l) if l <= 0.0 => "no interval (1 value)".into(),
        Some(l) if l < 0.95 - 1e-9 => format!(
            "[{}, {}] ({})",
            fmt(s.ci_low),
            fmt(s.ci_high),
            level_words(l)
        ),
        None => format!("[{}, {}] (level unknown)", fmt(s.ci_low), fmt(s.ci_high)),
        Some(_) => format!("[{}, {}]", fmt(s.ci_low), fmt(s.ci_high)),
    }
}

/// A level as a percentage to the precision it has: `75%`, `93.8%`.
pub fn level_words(l: f64) -> String {
    let p = l * 100.0;
    if (p - p.round()).abs() < 0.05 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// A model table's legend lines: what the `fit` words mean, and what the
/// `*` on widened CIs does.
pub fn legend(widened: bool) -> String {
    let mut out = format!("{FIT_LEGEND}\n");
    if widened {
        out.push_str(WIDENED_LEGEND);
        out.push('\n');
    }
    out
}

/// The two interval headings of a model table (see [`ci_heading`]).
pub fn ci_headings(widened: bool) -> (String, String) {
    (ci_heading("α", widened), ci_heading("β", widened))
}

/// What the `fit` column's words mean.
pub const FIT_LEGEND: &str = "fit: ok = one line fits every size within its noise; curve = it does not (α from the small sizes, β from the large); flat = β not above 0; noisy = a size's spread is too wide to trust; busy = others used over a quarter of the CPUs";

/// The legend line under a table whose CIs hold the run-to-run term.
pub const WIDENED_LEGEND: &str = "* 95% CI*: where this machine's figure lies across runs, its mean (this run's own interval widened by the run-to-run term, learnt from earlier runs only; the next run's own figure may fall further out); `toll show` has this run's own";

/// The legend line for figures printed `≈ 0` or `< 0`.
pub const NEAR_ZERO_LEGEND: &str = "≈ 0: the interval reaches 0, so the figure cannot be told from 0 (shown from 0: a cost is never negative); < 0: the whole interval lies below 0, the model does not reach that end";

#[cfg(test)]
mod tests {
    use super::*;
    use toll_measure::decision::FIT_LEVEL;

    fn fig(value: f64, ci: (f64, f64), sign: Sign) -> Figure {
        Figure {
            value,
            ci,
            within_ci: ci,
            level: FIT_LEVEL,
            sign,
        }
    }

    #[test]
    fn figures_never_print_below_zero() {
        let f = |v: f64| format!("{v:.1}");
        assert_eq!(
            cells(&fig(5.0, (4.0, 6.0), Sign::Positive), f),
            ("5.0".into(), "[4.0, 6.0]".into())
        );
        assert_eq!(
            cells(&fig(-1.0, (0.0, 3.0), Sign::NearZero), f),
            ("≈ 0".into(), "[0, 3.0]".into())
        );
        assert_eq!(
            cells(&fig(-9.0, (0.0, 0.0), Sign::BelowZero), f),
            ("< 0".into(), "–".into())
        );
    }

    #[test]
    fn a_median_interval_says_its_level_when_it_is_not_95() {
        let f = |v: f64| format!("{v:.0}");
        assert_eq!(
            median_interval(&Summary::of(&[1.0, 2.0, 3.0]), f),
            "[1, 3] (75%)"
        );
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(median_interval(&Summary::of(&ten), f), "[2, 9]");
        assert_eq!(
            median_interval(&Summary::of(&[4.0]), f),
            "no interval (1 value)"
        );
        let old = Summary {
            ci_level: None,
            ..Summary::of(&ten)
        };
        assert!(median_interval(&old, f).ends_with("(level unknown)"));
        assert_eq!(level_words(0.9375), "93.8%");
    }
}
