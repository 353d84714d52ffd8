//! The models of a run at a glance: one row per series with its measured
//! small end, α and β with their 95% CIs, n½, R², the verdict on the line
//! and the run-to-run term — what `toll report` puts above the details.
//!
//! Every figure and verdict is the series' stored decision
//! ([`crate::decided`]), the one the measuring command printed: `curve`
//! where a straight line does not describe the points (α and β are then
//! the two-segment model's), `flat` where β's interval reaches 0 (`noisy`
//! for spawn and ring, whose β is a cost per unit), `noisy` where a
//! point's spread is too wide to trust, `busy` first where other processes
//! used over a quarter of the CPUs while it was measured.

use crate::decided;
use crate::show::run_to_run_source;
use crate::table::{fmt_ns, sig3, Table};
use toll_store::{Run, Series};

/// The verdict on a series' model: the one decided when it was stored.
pub fn verdict(_family: &str, series: &Series) -> String {
    decided::verdict(series)
}

/// One row per series of `run` (see the module).
pub fn models_table(run: &Run) -> Table {
    let widened = run.series.iter().filter_map(decided::of).any(|d| d.widened);
    let (a_ci, b_ci) = decided::ci_headings(widened);
    let mut t = Table::new(&[
        "series",
        "measured t(n₀)",
        "α",
        &a_ci,
        "β ns/n",
        &b_ci,
        "n½",
        "R²",
        "fit",
        "run to run σ(α), σ(β)",
    ]);
    for s in &run.series {
        let mut row = vec![s.label.clone()];
        let first = s
            .points
            .iter()
            .find_map(|p| Some((p.n as f64, p.summary.as_ref()?.median)));
        let small = s
            .fit
            .as_ref()
            .and_then(|f| f.check.as_ref())
            .map(|c| (c.small_end.n, c.small_end.measured))
            .or(first);
        row.push(
            small
                .map(|(n, t)| format!("{} at n = {n}", fmt_ns(t)))
                .unwrap_or_else(|| "–".into()),
        );
        let (Some(fit), Some(d)) = (&s.fit, decided::of(s)) else {
            row.extend(["–"; 6].map(String::from));
            row.push(decided::verdict(s));
            row.push("–".into());
            t.row(row);
            continue;
        };
        let (alpha, alpha_ci) = decided::cells(&d.alpha, fmt_ns);
        let (beta, beta_ci) = decided::cells(&d.beta, sig3);
        row.extend([
            alpha,
            alpha_ci,
            beta,
            beta_ci,
            d.n_half
                .map(|n| format!("{n:.0}"))
                .unwrap_or_else(|| "–".into()),
            format!("{:.4}", fit.primary().r2),
            d.words(),
            fit.run_to_run
                .as_ref()
                .map(|r| {
                    format!(
                        "{}, {} ({})",
                        fmt_ns(r.alpha_sd),
                        sig3(r.beta_sd),
                        match r.earlier_runs {
                            0 if r.machine.is_some() => "machine".to_string(),
                            0 => "floor".to_string(),
                            1 => "1 run".to_string(),
                            k => format!("{k} runs"),
                        }
                    )
                })
                .unwrap_or_else(|| "–".into()),
        ]);
        t.row(row);
    }
    t
}

/// What the models table's `fit` and `run to run` columns mean.
pub fn legend(run: &Run) -> Vec<String> {
    let mut out = vec![
        "fit: ok = one line fits every size within its noise; curve = it does not (α and β are then the two-segment model's: α from the small sizes, β from the large, break where they meet); flat = β not above 0; noisy = a spread too wide to trust; busy = other processes used over a quarter of the CPUs while it was measured; k sizes: no model = a line needs three sizes or more".to_string(),
        decided::NEAR_ZERO_LEGEND.to_string(),
    ];
    if let Some(r) = run
        .series
        .iter()
        .filter_map(|s| s.fit.as_ref()?.run_to_run.as_ref())
        .max_by_key(|r| r.earlier_runs)
    {
        out.push(format!(
            "run to run: the CIs marked * hold the between-run term, learnt from {} (earlier runs only; the per-series details give this run's own intervals)",
            run_to_run_source(r).replace("this series", "a series")
        ));
    }
    out
}
