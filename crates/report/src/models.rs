//! The models of a run at a glance: one row per series with its measured
//! small end, α and β with their 95% CIs, n½, R², the verdict on the line
//! and the run-to-run term — what `toll report` puts above the details.
//!
//! The verdicts are the measuring commands' own: `curve` where a straight
//! line does not describe the points (α and β are then the two-segment
//! model's, as the families' tables print them), `flat` where β's interval
//! reaches 0 (`noisy` for spawn and ring, whose β is a cost per unit),
//! `noisy` where a point's spread is too wide to trust, `busy` first where
//! other processes used over a quarter of the CPUs while it was measured.

use crate::show::run_to_run_source;
use crate::table::{fmt_ns, sig3, Table};
use toll_measure::env::BUSY_SHARE;
use toll_store::{Run, Series};

/// The verdict on a series' model, in the measuring commands' words.
pub fn verdict(family: &str, series: &Series) -> String {
    let Some(fit) = &series.fit else {
        return "no model".into();
    };
    let piece = (!fit.line_fits())
        .then(|| fit.check.as_ref().and_then(|c| c.piecewise.as_ref()))
        .flatten();
    let beta_low = piece.map_or(fit.primary().beta_ci.0, |p| p.beta_ci.0);
    let noisy_point = series
        .points
        .iter()
        .any(|p| p.summary.as_ref().is_some_and(|m| m.too_noisy));
    let per_unit = matches!(family, "spawn" | "ring");
    let word = if !fit.line_fits() {
        match piece {
            Some(p) => format!("curve, break ≈ {:.0}", p.break_n),
            None => "curve".into(),
        }
    } else if beta_low <= 0.0 {
        if per_unit { "noisy" } else { "flat" }.into()
    } else if noisy_point {
        "noisy".into()
    } else {
        "ok".into()
    };
    let busy = series
        .attrs
        .get("others_busy")
        .and_then(|b| b.as_f64())
        .is_some_and(|b| b > BUSY_SHARE);
    if busy {
        format!("busy; {word}")
    } else {
        word
    }
}

/// One row per series of `run` (see the module).
pub fn models_table(run: &Run) -> Table {
    let mut t = Table::new(&[
        "series",
        "measured t(n₀)",
        "α",
        "α 95% CI",
        "β ns/n",
        "β 95% CI",
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
        let Some(fit) = &s.fit else {
            row.extend(["–"; 6].map(String::from));
            row.push(verdict(&run.family, s));
            row.push("–".into());
            t.row(row);
            continue;
        };
        let f = fit.primary();
        let piece = (!fit.line_fits())
            .then(|| fit.check.as_ref().and_then(|c| c.piecewise.as_ref()))
            .flatten();
        let (alpha, alpha_ci, beta, beta_ci) = match piece {
            Some(p) => (p.alpha, p.alpha_ci, p.beta, p.beta_ci),
            None => (f.alpha, f.alpha_ci, f.beta, f.beta_ci),
        };
        let n_half = (beta > 0.0 && alpha > 0.0).then(|| alpha / beta);
        row.extend([
            fmt_ns(alpha),
            format!("[{}, {}]", fmt_ns(alpha_ci.0), fmt_ns(alpha_ci.1)),
            sig3(beta),
            format!("[{}, {}]", sig3(beta_ci.0), sig3(beta_ci.1)),
            n_half
                .map(|n| format!("{n:.0}"))
                .unwrap_or_else(|| "–".into()),
            format!("{:.4}", f.r2),
            verdict(&run.family, s),
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
        "fit: ok = one line fits every size within its noise; curve = it does not (α and β are then the two-segment model's: α from the small sizes, β from the large, break where they meet); flat = β not above 0; noisy = a spread too wide to trust; busy = other processes used over a quarter of the CPUs while it was measured".to_string(),
    ];
    if let Some(r) = run
        .series
        .iter()
        .filter_map(|s| s.fit.as_ref()?.run_to_run.as_ref())
        .max_by_key(|r| r.earlier_runs)
    {
        out.push(format!(
            "run to run: the between-run term every CI above holds, from {} (the per-series details give this run's own intervals)",
            run_to_run_source(r).replace("this series", "a series")
        ));
    }
    out
}
