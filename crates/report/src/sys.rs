//! `toll sys`'s tables, from the stored run: each crossing's figure with its
//! interval (a time per call, per round trip, per handoff), the fitted ones
//! as α + β·n (faults: β per page; memcpy: β per byte and GB/s), the core
//! to core handoffs as a matrix, and the memory staircase beside the cache
//! sizes the kernel reports.

use crate::decided;
use crate::table::{fmt_ns, sig3, Table};
use serde_json::Value;
use std::fmt::Write;
use toll_measure::run_to_run::Figure;
use toll_store::{Run, Series};

/// Bytes as a person reads them: 48 KiB, 2 MiB.
fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} B"),
    }
}

fn attr<'a>(s: &'a Series, k: &str) -> Option<&'a Value> {
    s.attrs.get(k)
}

/// A one-point series' figure with its run-to-run term, when stored.
fn figure(s: &Series) -> Option<Figure> {
    serde_json::from_value(attr(s, "figure")?.clone()).ok()
}

/// The one-point series: the figure, its interval, what one is. The
/// interval holds the run-to-run term where the series carries its figure
/// (`*`, said under the table).
fn figures(run: &Run) -> (Table, bool) {
    let one: Vec<&Series> = run.series.iter().filter(|s| s.points.len() == 1).collect();
    let widened = one.iter().any(|s| figure(s).is_some());
    let heading = decided::ci_heading("", widened);
    let mut t = Table::new(&["crossing", "series", "one is a", "median", heading.trim()]);
    for s in one {
        let crossing = attr(s, "crossing").and_then(Value::as_str).unwrap_or("");
        let per = attr(s, "per").and_then(Value::as_str).unwrap_or("op");
        let p = &s.points[0];
        let (median, ci) = match (&p.summary, figure(s)) {
            // Widened from an interval of a lower level (few rounds): said.
            (Some(sm), Some(f)) if f.level_within < 0.95 - 1e-9 => (
                fmt_ns(sm.median),
                format!(
                    "[{}, {}] ({})",
                    fmt_ns(f.ci.0),
                    fmt_ns(f.ci.1),
                    decided::level_words(f.level_within)
                ),
            ),
            (Some(sm), Some(f)) => (
                fmt_ns(sm.median),
                format!("[{}, {}]", fmt_ns(f.ci.0), fmt_ns(f.ci.1)),
            ),
            (Some(sm), _) => (fmt_ns(sm.median), decided::median_interval(sm, fmt_ns)),
            (None, _) => ("–".into(), p.error.clone().unwrap_or_default()),
        };
        let name = s.label.split_once('/').map_or(s.label.as_str(), |x| x.1);
        t.row(vec![crossing.into(), name.into(), per.into(), median, ci]);
    }
    (t, widened)
}

/// The fitted series: α and β with their intervals and what β is.
fn models(run: &Run) -> Option<Table> {
    let fitted: Vec<&Series> = run
        .series
        .iter()
        .filter(|s| s.points.len() > 1 && attr(s, "levels").is_none())
        .collect();
    if fitted.is_empty() {
        return None;
    }
    let mut t = Table::new(&["series", "α", "α 95% CI", "β", "β 95% CI", "fit"]);
    for s in fitted {
        let beta_unit = if s.label.starts_with("copy") {
            "ns/B"
        } else {
            "ns/page"
        };
        match decided::of(s) {
            Some(d) => {
                let (a, aci) = decided::cells(&d.alpha, fmt_ns);
                let (b, bci) = decided::cells(&d.beta, |v| format!("{} {beta_unit}", sig3(v)));
                let b = if s.label.starts_with("copy") && d.beta.value > 0.0 {
                    format!("{b} ({:.1} GB/s)", 1.0 / d.beta.value)
                } else {
                    b
                };
                t.row(vec![s.label.clone(), a, aci, b, bci, d.words()]);
            }
            None => t.row(vec![
                s.label.clone(),
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
                decided::verdict(s),
            ]),
        }
    }
    Some(t)
}

/// The handoffs as a matrix, from row CPU to column CPU (one way, ns).
fn matrix(run: &Run) -> Option<String> {
    let cells: Vec<(usize, usize, f64)> = run
        .series
        .iter()
        .filter_map(|s| {
            let (x, y) = s.label.strip_prefix("handoff/")?.split_once('-')?;
            let m = s.points.first()?.summary.as_ref()?.median;
            Some((x.parse().ok()?, y.parse().ok()?, m))
        })
        .collect();
    if cells.is_empty() {
        return None;
    }
    let mut cpus: Vec<usize> = cells.iter().flat_map(|c| [c.0, c.1]).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let mut head = vec!["from \\ to".to_string()];
    head.extend(cpus.iter().map(|c| format!("CPU {c}")));
    let refs: Vec<&str> = head.iter().map(String::as_str).collect();
    let mut t = Table::new(&refs);
    for &x in &cpus {
        let mut row = vec![format!("CPU {x}")];
        for &y in &cpus {
            row.push(match cells.iter().find(|c| c.0 == x && c.1 == y) {
                Some(c) => fmt_ns(c.2),
                None => "–".into(),
            });
        }
        t.row(row);
    }
    let mut ms: Vec<f64> = cells.iter().map(|c| c.2).collect();
    ms.sort_by(f64::total_cmp);
    let median = ms[ms.len() / 2];
    Some(format!(
        "{}one way: median {}, from {} to {} over {} ordered pairs\n",
        t.render(),
        fmt_ns(median),
        fmt_ns(ms[0]),
        fmt_ns(ms[ms.len() - 1]),
        ms.len()
    ))
}

/// The chase: ns per load by working set, its steps, and the kernel's caches.
fn staircase(run: &Run) -> Option<String> {
    let s = run.series.iter().find(|s| attr(s, "levels").is_some())?;
    let mut t = Table::new(&["working set", "ns per load", "95% CI"]);
    for p in &s.points {
        let (m, ci) = match &p.summary {
            Some(sm) => (fmt_ns(sm.median), decided::median_interval(sm, fmt_ns)),
            None => ("–".into(), p.error.clone().unwrap_or_default()),
        };
        t.row(vec![bytes(p.n), m, ci]);
    }
    let mut out = t.render();
    let steps: Vec<String> = attr(s, "levels")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|l| {
            let level = format!(
                "{} up to {}",
                fmt_ns(l["ns"].as_f64().unwrap_or(f64::NAN)),
                bytes(l["fits"].as_u64().unwrap_or(0))
            );
            match l["next"].as_u64() {
                Some(next) => format!("{level} (slower from {})", bytes(next)),
                None => level,
            }
        })
        .collect();
    let _ = writeln!(out, "steps found: {}", steps.join("; "));
    let caches: Vec<String> = attr(s, "caches")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "L{} {}",
                c["level"].as_u64().unwrap_or(0),
                bytes(c["bytes"].as_u64().unwrap_or(0))
            )
        })
        .collect();
    if !caches.is_empty() {
        let _ = writeln!(out, "the kernel reports: {}", caches.join(", "));
    }
    Some(out)
}

/// The whole report of a `toll sys` run.
pub fn render(run: &Run) -> String {
    let mut out = String::new();
    if run.series.iter().any(|s| s.points.len() == 1) {
        let (table, widened) = figures(run);
        out.push_str(&table.render());
        out.push_str("median: per operation over the rounds, its 95% CI (order statistics); how each is\nmeasured: `toll show` (each series' probe) and docs/guide/sys.md\n");
        if widened {
            out.push_str(decided::WIDENED_LEGEND);
            out.push('\n');
        }
        out.push('\n');
    }
    if let Some(t) = models(run) {
        out.push_str("t(n) = α + β·n, n pages per mapping (faults) or bytes per copy:\n");
        out.push_str(&t.render());
        out.push_str(&decided::legend(false));
        out.push('\n');
    }
    if let Some(m) = matrix(run) {
        out.push_str("a cache line handed between cores (compare-and-swap), one way:\n");
        out.push_str(&m);
        out.push('\n');
    }
    if let Some(s) = staircase(run) {
        out.push_str("a pointer chase: the time per dependent load by working set:\n");
        out.push_str(&s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::bytes;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes(48 << 10), "48 KiB");
        assert_eq!(bytes(2 << 20), "2 MiB");
        assert_eq!(bytes(100), "100 B");
        assert_eq!(bytes(3 << 30), "3 GiB");
    }
}
