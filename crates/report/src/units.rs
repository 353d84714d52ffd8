//! `toll spawn`'s and `toll ring`'s table: one row per (runtime, unit, N)
//! with the cost per unit made or per hop, then the model t(N) = α + β·N of
//! each series with the notes its rows call for. The family fills a
//! [`UnitsView`] (`toll_families::units::report`); this module renders it.

use crate::table::Table;
use crate::{decided, legend};
use toll_measure::decision::{Sign, Verdict};
use toll_measure::{SeriesFit, Summary};

/// Which experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Make N units.
    Spawn,
    /// Pass a token round a ring of N units, `m` times.
    Ring { m: u64 },
}

impl Op {
    /// What one timed operation is: a unit made, or a hop.
    fn per(self) -> &'static str {
        match self {
            Op::Spawn => "unit",
            Op::Ring { .. } => "hop",
        }
    }
}

/// What a spawn or ring run's table shows.
#[derive(Debug, Clone)]
pub struct UnitsView {
    pub op: Op,
    /// The Ns swept.
    pub ns: Vec<u64>,
    pub trials: u32,
    /// The time ceiling per point, seconds.
    pub ceiling_s: f64,
    /// The memory ceiling per point, MiB.
    pub ceiling_mib: u64,
    pub series: Vec<UnitsSeries>,
    /// The legend of a spawn's KB/unit column: how memory was measured.
    pub memory_legend: String,
    /// Stopped by a signal: a point's missing trials were cut by the stop,
    /// not by its time ceiling.
    pub stopped: bool,
}

/// One (runtime, unit) series.
#[derive(Debug, Clone)]
pub struct UnitsSeries {
    /// `runtime/unit`.
    pub label: String,
    pub runtime: String,
    pub unit: String,
    /// The unit's class (`thread`, `process`…).
    pub class: String,
    pub points: Vec<UnitsPoint>,
    /// t(N) = α + β·N over the measured points.
    pub fit: Option<SeriesFit>,
    /// (N, ratio) where the cost per unit first reached its knee factor.
    pub knee: Option<(f64, f64)>,
    /// Share of all CPUs other processes kept busy meanwhile.
    pub others_busy: f64,
    /// The busiest of those processes.
    pub busiest: Option<String>,
}

/// One N of a series: its figures, or why it failed.
#[derive(Debug, Clone)]
pub struct UnitsPoint {
    pub n: u64,
    pub result: Result<UnitsFigures, String>,
}

/// A measured point's figures.
#[derive(Debug, Clone)]
pub struct UnitsFigures {
    /// ns per unit made or per hop.
    pub per_op: Summary,
    /// ns of a whole trial.
    pub total: Summary,
    /// Memory per unit, kB (spawn only; None when not measured).
    pub mem_kb_per_unit: Option<f64>,
}

/// The results: one row per (runtime, unit, N), then the fitted models.
pub fn render(v: &UnitsView) -> String {
    let ns: Vec<String> = v.ns.iter().map(u64::to_string).collect();
    let mut s = match v.op {
        Op::Spawn => format!("toll spawn: N = {}", ns.join(", ")),
        Op::Ring { m } => format!("toll ring: N = {}, M = {m} rounds", ns.join(", ")),
    };
    s.push_str(&format!(
        "; {} rounds (every N once a round, shuffled); ceilings per point {} s, {} MiB\n\n",
        v.trials, v.ceiling_s, v.ceiling_mib
    ));
    let mut t = match v.op {
        Op::Spawn => Table::new(&[
            "runtime", "unit", "class", "N", "µs/unit", "95% CI", "KB/unit", "total ms",
        ]),
        Op::Ring { .. } => Table::new(&[
            "runtime", "unit", "class", "N", "ns/hop", "95% CI", "total ms", "95% CI",
        ]),
    };
    let mut notes = Vec::new();
    for series in &v.series {
        for p in &series.points {
            let mut cells = vec![
                series.runtime.clone(),
                series.unit.clone(),
                series.class.clone(),
                p.n.to_string(),
            ];
            match &p.result {
                Ok(f) => match v.op {
                    Op::Spawn => cells.extend([
                        format!("{:.3}", f.per_op.median / 1e3),
                        ci(&f.per_op, 1e3, 3),
                        f.mem_kb_per_unit
                            .map(|k| format!("{k:.2}"))
                            .unwrap_or_else(|| "–".into()),
                        format!("{:.1}", f.total.median / 1e6),
                    ]),
                    Op::Ring { .. } => cells.extend([
                        format!("{:.0}", f.per_op.median),
                        ci(&f.per_op, 1.0, 0),
                        format!("{:.1}", f.total.median / 1e6),
                        ci(&f.total, 1e6, 1),
                    ]),
                },
                Err(why) => {
                    let word = if why.starts_with("not tried") {
                        "not tried"
                    } else {
                        "failed"
                    };
                    cells.extend([word.into(), "–".into(), "–".into(), "–".into()]);
                }
            }
            t.row(cells);
            if let Ok(f) = &p.result {
                if f.per_op.count < v.trials as usize {
                    let cut = if v.stopped {
                        "were measured before the stop"
                    } else {
                        "fitted in the time ceiling"
                    };
                    notes.push(format!(
                        "{} at N = {}: {} of {} trials {cut}",
                        series.label, p.n, f.per_op.count, v.trials
                    ));
                }
            }
        }
        series_notes(v.op, series, &mut notes);
    }
    s.push_str(&t.render());
    s.push_str(&models(v.op, &v.series));
    if v.op == Op::Spawn {
        s.push_str(&v.memory_legend);
    }
    for n in notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

/// A median's 95% CI scaled by `scale`, or a dash where one trial gave no
/// spread to speak of.
fn ci(m: &Summary, scale: f64, digits: usize) -> String {
    if m.count < 2 {
        return "–".into();
    }
    format!(
        "[{:.*}, {:.*}]",
        digits,
        m.ci_low / scale,
        digits,
        m.ci_high / scale
    )
}

fn series_notes(op: Op, series: &UnitsSeries, notes: &mut Vec<String>) {
    let label = &series.label;
    let first_failure = series
        .points
        .iter()
        .find_map(|p| p.result.as_ref().err().map(|e| (p.n, e)));
    if let Some((n, reason)) = first_failure {
        notes.push(format!("{label} failed at N = {n}: {reason}"));
    }
    if let Some((n, ratio)) = series.knee {
        notes.push(format!(
            "{label}: a knee: the cost per {} rises {ratio:.1}× by N = {n:.0}",
            op.per()
        ));
    }
}

/// The model t(N) = α + β·N of each series.
fn models(op: Op, series: &[UnitsSeries]) -> String {
    let fitted: Vec<_> = series
        .iter()
        .filter_map(|s| s.fit.as_ref().map(|f| (s, f)))
        .collect();
    if fitted.is_empty() {
        return String::new();
    }
    let (what, beta) = match op {
        Op::Spawn => ("t(N) = α + β·N, the time to make N units", "β µs/unit"),
        Op::Ring { .. } => ("t(N) = α + β·N, the time of one round", "β ns/hop"),
    };
    let widened = fitted
        .iter()
        .filter_map(|(_, f)| f.decision.as_ref())
        .any(|d| d.widened);
    let (a_ci, b_ci) = decided::ci_headings(widened);
    let mut t = Table::new(&["runtime", "unit", "α µs", &a_ci, beta, &b_ci, "fit"]);
    let (scale, digits) = match op {
        Op::Spawn => (1e3, 3),
        Op::Ring { .. } => (1.0, 1),
    };
    let mut below_zero = Vec::new();
    let (mut noisy_rows, mut busy_rows) = (Vec::new(), Vec::new());
    let mut near_zero = false;
    for (s, f) in fitted {
        // The stored decision: its model, verdict and figures.
        let Some(d) = f.decision.as_ref() else {
            continue;
        };
        if d.verdict == Verdict::Noisy {
            noisy_rows.push(s.label.clone());
        }
        if d.busy {
            busy_rows.push(format!(
                "{} ({:.0}%{})",
                s.label,
                s.others_busy * 100.0,
                s.busiest
                    .as_ref()
                    .map(|name| format!(", busiest {name}"))
                    .unwrap_or_default()
            ));
        }
        match d.alpha.sign {
            Sign::BelowZero => below_zero.push(s.label.clone()),
            Sign::NearZero => near_zero = true,
            Sign::Positive => {}
        }
        near_zero |= d.beta.sign != Sign::Positive;
        let (a_cell, a_ci) = decided::cells(&d.alpha, |v| format!("{:.1}", v / 1e3));
        let (b_cell, b_ci) = decided::cells(&d.beta, |v| format!("{:.*}", digits, v / scale));
        t.row(vec![
            s.runtime.clone(),
            s.unit.clone(),
            a_cell,
            a_ci,
            b_cell,
            b_ci,
            d.words(),
        ]);
    }
    let mut out = format!("\nmodel {what}:\n{}", t.render());
    out.push_str("fit: ok = one line fits every N within its noise; curve = it does not (α and β from the two segments of a broken line); noisy = an N's spread is too wide to trust, or β's CI reaches 0; busy = other processes used over a quarter of the CPUs while it was measured\n");
    out.push_str(&legend::run_to_run(
        series.iter().filter_map(|s| s.fit.as_ref()),
    ));
    if !noisy_rows.is_empty() {
        out.push_str(&format!(
            "note: noisy rows: {}: more --trials or a quieter machine would narrow them\n",
            noisy_rows.join(", ")
        ));
    }
    if !busy_rows.is_empty() {
        out.push_str(&format!(
            "note: busy rows (share of all CPUs others used): {}; let that work finish and run again\n",
            busy_rows.join(", ")
        ));
    }
    if near_zero {
        out.push_str(decided::NEAR_ZERO_LEGEND);
        out.push('\n');
    }
    if !below_zero.is_empty() {
        out.push_str(&format!(
            "note: α below 0 for {}: the line describes the Ns measured, not the fixed cost near N = 0 (add smaller Ns to measure it)\n",
            below_zero.join(", ")
        ));
    }
    out
}
