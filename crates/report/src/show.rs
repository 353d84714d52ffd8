//! `toll show`: one stored run, in full, for a person.

use crate::family_reports::is_table_key;
use crate::http_compare::CompareReport;
use crate::table::{fmt_ns, sig3, Table};
use std::fmt::Write;
use toll_measure::decision::ModelKind;
use toll_measure::run_to_run::RunToRun;
use toll_measure::{Fingerprint, SeriesFit};
use toll_store::{PointStatus, Run, Series};

/// The run as text: header, machine, config, then each series' model and points.
pub fn render_run(run: &Run) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "run {} — {} — {}",
        run.id,
        run.family,
        run.status.as_str()
    );
    let _ = writeln!(
        s,
        "started {}  finished {}  toll {}",
        run.started_at,
        run.finished_at.as_deref().unwrap_or("–"),
        run.tool_version
    );
    if let Some(e) = &run.error {
        let _ = writeln!(s, "stopped: {e}");
    }
    let _ = writeln!(s, "\nmachine");
    let machine = machine_rows(&run.env);
    let width = machine
        .iter()
        .map(|(k, _)| k.chars().count() + 1)
        .max()
        .unwrap_or(11)
        .max(11);
    for (k, v) in machine {
        let _ = writeln!(s, "  {k:<width$}{v}");
    }
    let _ = writeln!(s, "\nconfig");
    let replicate = run.family == "replicate";
    if let Some(o) = run.config.as_object() {
        // At least one space after the longest key (http-compare's are long).
        let rows: Vec<(String, String)> = o
            .iter()
            .filter(|(k, _)| !is_table_key(run, k))
            .map(|(k, v)| config_row(k, v))
            .collect();
        let width = rows
            .iter()
            .map(|(k, _)| k.chars().count() + 1)
            .max()
            .unwrap_or(0)
            .max(11);
        for (k, v) in rows {
            let _ = writeln!(s, "  {k:<width$}{v}");
        }
    }
    if replicate {
        let _ = writeln!(s);
        s.push_str(&crate::replicate::render(&run.config));
    }
    if run.family == "atlas" {
        let _ = writeln!(s);
        s.push_str(&crate::atlas::render(&run.config));
    }
    // `toll http compare` keeps its whole report with the first server.
    let comparison = run
        .series
        .first()
        .and_then(|x| x.points.first())
        .and_then(|p| p.extra.as_ref()?.get("comparison"))
        .and_then(|c| serde_json::from_value::<CompareReport>(c.clone()).ok());
    if let Some(c) = comparison {
        let _ = writeln!(s, "\ncomparison");
        for line in crate::http_compare::render(&c).lines() {
            let _ = writeln!(s, "{}", format!("  {line}").trim_end());
        }
    }
    for series in &run.series {
        let _ = writeln!(s, "\n{}", series.label);
        let mut shown = series.attrs.clone();
        if let Some(o) = shown.as_object_mut() {
            // ffi's row beside a link is in the family's table below; a
            // one-point figure has its own line.
            o.remove("vs_link");
            o.remove("figure");
        }
        let attrs = attr_words(&shown);
        if !attrs.is_empty() {
            let _ = writeln!(s, "  {attrs}");
        }
        // A sweep's steps are its own table (its report, below), not
        // points of a model in n.
        if run.family == "http-sweep" {
            continue;
        }
        match &series.fit {
            Some(fit) => {
                for line in fit_lines(fit) {
                    let _ = writeln!(s, "  {line}");
                }
            }
            None => match series
                .attrs
                .get("figure")
                .cloned()
                .map(serde_json::from_value)
            {
                Some(Ok(f)) => {
                    let _ = writeln!(s, "  {}", figure_line(&f));
                }
                _ => {
                    let _ = writeln!(s, "  no model (fewer than two sizes measured)");
                }
            },
        }
        let (t, notes) = points_table(series);
        for line in t.render().lines() {
            let _ = writeln!(s, "  {line}");
        }
        for n in notes {
            let _ = writeln!(s, "  ! {n}");
        }
    }
    // The family's own report, as its command printed it (replicate's
    // table and http compare's comparison are above).
    for (title, text) in crate::family_reports::family_reports(run) {
        if matches!(title.as_str(), "replicate" | "atlas" | "comparison") {
            continue;
        }
        let _ = writeln!(s, "\n{title}: as the command reported it");
        for line in text.lines() {
            let _ = writeln!(s, "{}", format!("  {line}").trim_end());
        }
    }
    s
}

/// The machine a run was measured on, as (what, value) rows: host, CPU,
/// system, memory, load, the placement probe's wake-ups and each toolchain.
pub fn machine_rows(e: &Fingerprint) -> Vec<(String, String)> {
    let mut rows = machine_rows_before_platform(e);
    if let Some(p) = &e.platform {
        rows.extend(p.rows());
    }
    rows
}

fn machine_rows_before_platform(e: &Fingerprint) -> Vec<(String, String)> {
    let mut rows = vec![
        ("host".to_string(), e.hostname.clone()),
        (
            "cpu".into(),
            format!(
                "{} ({} logical, {} physical)",
                e.cpu_model, e.logical_cpus, e.physical_cores
            ),
        ),
        (
            "governor".into(),
            e.governor.clone().unwrap_or_else(|| "–".into()),
        ),
        (
            "system".into(),
            format!(
                "{} / {} ({})",
                e.distribution,
                e.kernel,
                e.virtualization.as_deref().unwrap_or("bare metal")
            ),
        ),
        (
            "memory".into(),
            format!("{:.1} GiB", e.memory_bytes as f64 / (1u64 << 30) as f64),
        ),
        (
            "load".into(),
            format!(
                "{:.2} {:.2} {:.2} (other processes: {:.0}% of the CPUs just before the run{})",
                e.load_average[0],
                e.load_average[1],
                e.load_average[2],
                e.busy_fraction * 100.0,
                e.busiest
                    .as_ref()
                    .map(|(name, share)| format!(
                        "; busiest {name}, {:.0}% of a CPU",
                        share * 100.0
                    ))
                    .unwrap_or_default()
            ),
        ),
    ];
    if let Some(w) = &e.wakeup {
        rows.push((
            "wake-up".into(),
            format!(
                "{} on one core, {} across cores (a pipe round trip between two threads{})",
                fmt_ns(w.same_core_ns),
                w.cross_core_ns.map(fmt_ns).unwrap_or_else(|| "–".into()),
                w.probed_at
                    .map(|t| format!(", probed {}", toll_store::rfc3339(t as i64)))
                    .unwrap_or_default()
            ),
        ));
    }
    for (tool, version) in &e.toolchains {
        rows.push(("toolchain".into(), format!("{tool}: {version}")));
    }
    rows
}

/// A series' model in words, one line each: the primary line with its CIs,
/// the other fits, the small end, the lack-of-fit test, the two-segment
/// model, the run-to-run term, and a warning when the line does not fit.
pub fn fit_lines(fit: &SeriesFit) -> Vec<String> {
    let mut out = Vec::new();
    // The decision first: what every other view of this run prints.
    if let Some(d) = &fit.decision {
        let (alpha, alpha_ci) = crate::decided::cells(&d.alpha, fmt_ns);
        let (beta, beta_ci) = crate::decided::cells(&d.beta, sig3);
        out.push(format!(
            "model: {} — fit {}; α = {alpha} {alpha_ci}, β = {beta} ns/n {beta_ci}{}",
            match d.model {
                ModelKind::Line => "the line",
                ModelKind::TwoSegments => "two segments",
            },
            d.words(),
            if d.widened {
                " (95% CIs for the next run on this machine)"
            } else {
                " (95% CIs)"
            }
        ));
    }
    let f = fit.primary();
    let name = match f.method {
        toll_measure::FitMethod::WeightedLeastSquares => "weighted least squares over the points",
        _ => "Theil–Sen",
    };
    out.push(format!(
        "t(n) = α + β·n  ({name})  α = {} [{}, {}]  β = {} ns/n [{}, {}]  R² = {:.4}  n½ = {}",
        fmt_ns(f.alpha),
        fmt_ns(f.alpha_ci.0),
        fmt_ns(f.alpha_ci.1),
        sig3(f.beta),
        sig3(f.beta_ci.0),
        sig3(f.beta_ci.1),
        f.r2,
        f.n_half
            .map(|n| format!("{n:.0}"))
            .unwrap_or_else(|| "–".into())
    ));
    for (label, l) in [
        ("Theil–Sen", &fit.robust),
        ("least squares", &fit.least_squares),
    ] {
        if std::ptr::eq(l, f) {
            continue;
        }
        out.push(format!(
            "{label}: α = {} [{}, {}]  β = {} ns/n [{}, {}]",
            fmt_ns(l.alpha),
            fmt_ns(l.alpha_ci.0),
            fmt_ns(l.alpha_ci.1),
            sig3(l.beta),
            sig3(l.beta_ci.0),
            sig3(l.beta_ci.1),
        ));
    }
    if let Some(c) = &fit.check {
        let e = &c.small_end;
        // The verdict is the paired difference's (round by round, which
        // sees more than the two intervals side by side): shown with it.
        let (lo, hi) = e.difference_ci;
        let signed = |v: f64| {
            if v < 0.0 {
                format!("−{}", fmt_ns(-v))
            } else {
                format!("+{}", fmt_ns(v))
            }
        };
        out.push(format!(
            "small end: t({}) measured {} [{}, {}], the line gives {} [{}, {}]; measured − line, paired round by round, {} [{}, {}]: {}",
            e.n,
            fmt_ns(e.measured),
            fmt_ns(e.measured_ci.0),
            fmt_ns(e.measured_ci.1),
            fmt_ns(0.5 * (e.predicted_ci.0 + e.predicted_ci.1)),
            fmt_ns(e.predicted_ci.0),
            fmt_ns(e.predicted_ci.1),
            signed(0.5 * (lo + hi)),
            signed(lo),
            signed(hi),
            if e.agrees {
                "it holds 0, they agree"
            } else {
                "it excludes 0, they disagree"
            }
        ));
        let l = &c.lack_of_fit;
        // The size the line misses most, as a share beside the point's own
        // noise; older runs stored only the miss beyond that noise.
        let miss = match l.largest {
            Some(m) => format!(
                "the line misses n = {} most, by {:+.1}% (its own noise ±{:.1}%{})",
                m.at,
                m.share * 100.0,
                m.noise * 100.0,
                if m.share.abs() > m.noise {
                    format!(", {:.1}% beyond it", (m.share.abs() - m.noise) * 100.0)
                } else {
                    ": within it".to_string()
                }
            ),
            None => format!(
                "worst miss beyond its noise {:.1}% at n = {}",
                l.worst_miss * 100.0,
                l.worst_at
            ),
        };
        out.push(format!(
            "lack of fit: χ² = {:.1} on {} df, p = {:.2e}; {miss}: {} ({} rounds)",
            l.chi2,
            l.df,
            l.p,
            if l.fits {
                "the line fits"
            } else {
                "the line does not fit"
            },
            c.rounds
        ));
        if let Some(p) = &c.piecewise {
            out.push(format!(
                "piecewise: α = {} [{}, {}] and {} ns/n up to n = {}, then β = {} ns/n [{}, {}] from n = {}; break ≈ {:.0}",
                fmt_ns(p.alpha),
                fmt_ns(p.alpha_ci.0),
                fmt_ns(p.alpha_ci.1),
                sig3(p.beta_small),
                p.split.0,
                sig3(p.beta),
                sig3(p.beta_ci.0),
                sig3(p.beta_ci.1),
                p.split.1,
                p.break_n
            ));
        }
        if let Some(k) = c.kept_line {
            out.push(format!(
                "model choice: {:.0}% of the bootstrap's resamples kept the line, {:.0}% chose two segments{}",
                k * 100.0,
                (1.0 - k) * 100.0,
                if (0.05..=0.95).contains(&k) {
                    "; the intervals shown span both choices"
                } else {
                    ""
                }
            ));
        }
    }
    if let Some(r) = &fit.run_to_run {
        out.push(format!(
            "run to run: σ(α) = {}, σ(β) = {} ns/n{}, from {}; the CIs above hold it; this run alone: α [{}, {}], β [{}, {}]",
            fmt_ns(r.alpha_sd),
            sig3(r.beta_sd),
            if r.df > 0 {
                format!(" ({} degrees of freedom: Student's t, not 1.96, past the floor)", r.df)
            } else {
                String::new()
            },
            run_to_run_source(r),
            fmt_ns(r.alpha_ci_within.0),
            fmt_ns(r.alpha_ci_within.1),
            sig3(r.beta_ci_within.0),
            sig3(r.beta_ci_within.1),
        ));
    }
    let checks_keep_line = fit.check.as_ref().is_none_or(|c| c.line_fits());
    if !fit.line_fits() {
        out.push(if checks_keep_line {
            "warning: a straight line does not describe these points: the slope changes along the sizes (the knee rule), beyond the lack-of-fit test's noise".into()
        } else {
            "warning: a straight line does not describe these points (a knee or curve)".into()
        });
    }
    out
}

/// A one-point figure with its run-to-run term, in words.
fn figure_line(f: &toll_measure::run_to_run::Figure) -> String {
    let from = match (f.earlier_runs, f.elsewhere) {
        (0, _) => "the floor and the machine's share (no earlier runs of this series)".into(),
        (k, 0) => format!("{k} earlier runs of this series on this machine"),
        (k, e) => format!("{k} earlier runs on this machine ({e} from toll's record of runs)"),
    };
    format!(
        "figure {}, 95% CI* [{}, {}]; this run alone [{}, {}] ({}); run to run: sd {} from {from}",
        fmt_ns(f.value),
        fmt_ns(f.ci.0),
        fmt_ns(f.ci.1),
        fmt_ns(f.ci_within.0),
        fmt_ns(f.ci_within.1),
        crate::decided::level_words(f.level_within),
        fmt_ns(f.sd)
    )
}

/// Where a run-to-run term came from, in words.
pub fn run_to_run_source(r: &RunToRun) -> String {
    let machine = r.machine.map(|m| {
        format!(
            "the machine's share ({} between runs of {} other series here)",
            m.words(),
            m.series
        )
    });
    let runs = match (r.earlier_runs, r.elsewhere) {
        (k, 0) => format!("{k} earlier runs of this series on this machine"),
        (k, e) if e == k => format!(
            "{k} earlier runs of this series on this machine (in other stores, from toll's record of runs)"
        ),
        (k, e) => format!(
            "{k} earlier runs of this series on this machine ({e} in other stores, from toll's record of runs)"
        ),
    };
    match (r.earlier_runs, machine) {
        (0, None) => "the floor (no earlier runs on this machine)".to_string(),
        (0, Some(m)) => format!("{m}; no earlier runs of this series"),
        (_, None) => runs,
        (_, Some(m)) => format!("{runs} and {m}"),
    }
}

/// A series' points as a table (n, median, CI, mean, stddev, min, cv,
/// outliers, trials, a `!` for a spread too wide to trust), with a note
/// for each such point and each failed one.
pub fn points_table(series: &Series) -> (Table, Vec<String>) {
    let mut t = Table::new(&[
        "n",
        "median",
        "median CI",
        "mean",
        "stddev",
        "min",
        "cv",
        "outliers",
        "trials",
        "",
    ]);
    let mut notes = Vec::new();
    let mut noisy = Vec::new();
    for p in &series.points {
        match (&p.status, &p.summary) {
            (PointStatus::Ok, Some(m)) => {
                t.row(vec![
                    p.n.to_string(),
                    fmt_ns(m.median),
                    crate::decided::median_interval(m, fmt_ns),
                    fmt_ns(m.mean),
                    fmt_ns(m.stddev),
                    fmt_ns(m.min),
                    format!("{:.3}", m.cv),
                    m.outliers.total().to_string(),
                    p.samples.len().to_string(),
                    if m.too_noisy {
                        "!".into()
                    } else {
                        String::new()
                    },
                ]);
                if m.too_noisy {
                    noisy.push(p.n.to_string());
                }
            }
            // Measured, but too briefly for a summary of its own (an http
            // run shorter than one reporting interval): its report says it.
            (PointStatus::Ok, None) => {
                t.row(vec![
                    p.n.to_string(),
                    "measured, no interval summary".into(),
                ]);
            }
            _ => {
                let word = match &p.error {
                    Some(e) if e.starts_with("not tried") => "not tried",
                    _ => "failed",
                };
                t.row(vec![p.n.to_string(), word.into()]);
                notes.push(format!(
                    "n = {}: {}",
                    p.n,
                    p.error.as_deref().unwrap_or("failed")
                ));
            }
        }
    }
    // One line for every size it concerns.
    if !noisy.is_empty() {
        notes.push(format!(
            "n = {}: spread too wide to trust, or one trial (more rounds, a quieter machine)",
            noisy.join(", ")
        ));
    }
    (t, notes)
}

/// A config entry as a person reads it: a time's key without its `_ns`
/// (`timeout`, `30.0 s`), every other key as stored.
pub fn config_row(key: &str, v: &serde_json::Value) -> (String, String) {
    (display_key(key, v).to_string(), keyed_value(key, v))
}

/// `key` without the `_ns` its value's unit now says.
fn display_key<'a>(key: &'a str, v: &serde_json::Value) -> &'a str {
    match key.strip_suffix("_ns") {
        Some(bare) if v.is_number() || v.is_null() => bare,
        _ => key,
    }
}

/// A series' attributes as `key: value` words with their units (`others
/// busy: 12% of the CPUs; busiest: java, 24% of a CPU`), not raw JSON.
pub fn attr_words(attrs: &serde_json::Value) -> String {
    use serde_json::Value;
    let Some(o) = attrs.as_object() else {
        return match attrs {
            Value::Null => String::new(),
            other => config_value(other),
        };
    };
    o.iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| {
            let value = match (k.as_str(), v) {
                ("others_busy", Value::Number(n)) => {
                    format!("{:.0}% of the CPUs", n.as_f64().unwrap_or(0.0) * 100.0)
                }
                ("busiest", Value::Array(a)) if a.len() == 2 => format!(
                    "{}, {:.0}% of a CPU",
                    config_value(&a[0]),
                    a[1].as_f64().unwrap_or(0.0) * 100.0
                ),
                (k, Value::Number(n)) if k.ends_with("_bytes") => format!("{n} B"),
                (k, v) => keyed_value(k, v),
            };
            format!("{}: {value}", display_key(k, v).replace('_', " "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A config value under `key`: whole nanoseconds under a `_ns` name as a
/// time (`100 ms`), anything else as [`config_value`] writes it.
pub fn keyed_value(key: &str, v: &serde_json::Value) -> String {
    match v.as_f64() {
        Some(ns) if key.ends_with("_ns") => fmt_ns(ns),
        _ => config_value(v),
    }
}

/// A config value as a person writes it: strings bare, lists with commas,
/// durations (`_ns` keys, or serde's `{"secs":…,"nanos":…}` in a run not yet
/// upgraded) as times, objects as key=value.
pub fn config_value(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "–".into(),
        Value::String(t) => t.clone(),
        Value::Array(items) => items
            .iter()
            .map(config_value)
            .collect::<Vec<_>>()
            .join(", "),
        Value::Object(o) => {
            let secs = o.get("secs").and_then(Value::as_u64);
            let nanos = o.get("nanos").and_then(Value::as_u64);
            if let (2, Some(secs), Some(nanos)) = (o.len(), secs, nanos) {
                return fmt_ns(secs as f64 * 1e9 + nanos as f64);
            }
            o.iter()
                .map(|(k, v)| format!("{}={}", display_key(k, v), keyed_value(k, v)))
                .collect::<Vec<_>>()
                .join(", ")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
#[path = "show_tests.rs"]
mod tests;
