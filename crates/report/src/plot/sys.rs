//! `toll sys`'s picture, from the stored run: every figure of one point
//! (a system call, a signal, a wake-up, the median core-to-core pair) and
//! the fitted α and β of faults and memcpy as dots with their intervals on
//! one log axis of time, grouped by crossing — they span six decades, a
//! vDSO call at 20 ns to a wake-up across cores at 50 µs, and their
//! ratios are what a reader compares; the handoff matrix as a heat map;
//! the memory staircase with the kernel's cache sizes marked; and the
//! fitted series' t(n). A part is left out when the run has nothing for
//! it (`--only syscall` has no matrix), and `--plot` stacks the rest in one
//! SVG, each part's root marked with its class (`dots`, `heatmap`,
//! `staircase`, `lines`).

use super::canvas::{err, PlotError};
use super::compose::stack_marked;
use super::dots::{DotChart, DotRow};
use super::heatmap::HeatMap;
use super::staircase::{Load, Staircase, Step};
use super::{plot_series_from_run, Chart, Scale};
use serde_json::Value;
use std::path::Path;
use toll_store::{PointStatus, Run, Series};

/// How near a level's time a size's must be to be drawn on its step: the
/// factor the chase takes for a step up.
const NEAR: f64 = 1.5;

/// The dots' one axis.
pub const NS_AXIS: &str = "ns per operation (each row says what one is)";

/// Every picture of a sys run; a part is None (or empty) when the run has
/// nothing for it.
#[derive(Debug, Clone)]
pub struct SysCharts {
    /// The one-point figures and the fitted α and β, by crossing.
    pub dots: DotChart,
    /// The handoff between every ordered pair of CPUs.
    pub matrix: Option<HeatMap>,
    /// The pointer chase.
    pub staircase: Option<Staircase>,
    /// t(n) of the fitted crossings, one chart each (faults, memcpy).
    pub lines: Vec<Chart>,
}

fn str_attr<'a>(s: &'a Series, k: &str) -> Option<&'a str> {
    s.attrs.get(k).and_then(Value::as_str)
}

/// A series' crossing: its attribute, else its label's first word.
fn crossing(s: &Series) -> &str {
    str_attr(s, "crossing").unwrap_or_else(|| s.label.split('/').next().unwrap_or(""))
}

/// The pair of CPUs of a handoff series (`handoff/0-1`).
fn pair(s: &Series) -> Option<(usize, usize)> {
    let (a, b) = s.label.strip_prefix("handoff/")?.split_once('-')?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

fn is_chase(s: &Series) -> bool {
    s.attrs.get("levels").is_some() || crossing(s) == "memory"
}

/// A point's median and interval, ns, where it was measured.
fn measured(s: &Series) -> Option<(f64, f64, f64)> {
    let p = s.points.first()?;
    let m = p.summary.as_ref().filter(|_| p.status == PointStatus::Ok)?;
    Some((m.median, m.ci_low, m.ci_high))
}

/// A group's heading: the crossing and what its rows time.
fn heading(crossing: &str) -> String {
    let what = match crossing {
        "syscall" => "a null system call beside a vDSO call",
        "fault" => "mmap, touch, munmap: α + β·n fitted, n pages",
        "signal" => "a signal delivered to a handler",
        "wake" => "a thread or process woken, and back",
        "handoff" => "a cache line handed between two cores, one way",
        "copy" => "memcpy: α + β·n fitted, n bytes",
        _ => "",
    };
    match what {
        "" => crossing.to_string(),
        w => format!("{crossing}: {w}"),
    }
}

/// A one-point series' row: its figure, or why there is none.
fn figure_row(s: &Series) -> DotRow {
    let name = s.label.split_once('/').map_or(s.label.as_str(), |x| x.1);
    let per = str_attr(s, "per").unwrap_or("op");
    match measured(s) {
        Some(m) => DotRow {
            label: format!("{name} (per {per})"),
            measured: Some(m),
            original: None,
        },
        None => {
            // The reason's first clause: its label has a column's room,
            // and `toll show` has the rest.
            let why = s.points.first().and_then(|p| p.error.as_deref());
            let why = why.unwrap_or("no point").split([',', ';', ':']).next();
            DotRow {
                label: format!("{name}: not measured ({})", why.unwrap_or("").trim()),
                measured: None,
                original: None,
            }
        }
    }
}

/// A fitted series' rows: α per operation and β per unit, or why not.
fn fitted_rows(s: &Series) -> Vec<DotRow> {
    let name = s.label.split_once('/').map_or(s.label.as_str(), |x| x.1);
    let per = str_attr(s, "per").unwrap_or("op");
    let unit = if crossing(s) == "copy" {
        "byte"
    } else {
        "page"
    };
    let Some(d) = crate::decided::of(s) else {
        return vec![DotRow {
            label: format!("{name}: {}", crate::decided::verdict(s)),
            measured: None,
            original: None,
        }];
    };
    let row = |label: String, f: &toll_measure::decision::Figure| DotRow {
        label,
        measured: Some((f.value, f.ci.0, f.ci.1)),
        original: None,
    };
    vec![
        row(format!("{name}: α, per {per}"), &d.alpha),
        row(format!("{name}: β, per {unit}"), &d.beta),
    ]
}

/// The handoff pairs' row: the median pair's own figure with its interval.
fn handoff_row(pairs: &[(&Series, (f64, f64, f64))]) -> Option<DotRow> {
    let mut sorted: Vec<&(&Series, (f64, f64, f64))> = pairs.iter().collect();
    sorted.sort_by(|a, b| a.1 .0.total_cmp(&b.1 .0));
    let (s, m) = sorted.get(sorted.len().checked_sub(1)? / 2)?;
    let (a, b) = pair(s)?;
    Some(DotRow {
        label: format!("the median pair of {}: CPU {a} → {b}", pairs.len()),
        measured: Some(*m),
        original: None,
    })
}

fn dots(run: &Run) -> DotChart {
    let mut rows: Vec<(String, DotRow)> = Vec::new();
    let mut pairs: Vec<(&Series, (f64, f64, f64))> = Vec::new();
    // The pairs make one row, where the first of them stood.
    let mut pairs_at = None;
    for s in &run.series {
        let c = crossing(s);
        if pair(s).is_some() {
            if let Some(m) = measured(s) {
                pairs_at.get_or_insert(rows.len());
                pairs.push((s, m));
            }
        } else if is_chase(s) {
            continue;
        } else if s.points.len() == 1 {
            rows.push((heading(c), figure_row(s)));
        } else if s.points.len() > 1 {
            for r in fitted_rows(s) {
                rows.push((heading(c), r));
            }
        }
    }
    if let (Some(i), Some(row)) = (pairs_at, handoff_row(&pairs)) {
        rows.insert(i, (heading("handoff"), row));
    }
    DotChart::grouped(
        format!("toll sys — run {}: each crossing, 95% CIs", run.id),
        "",
        rows,
    )
    .on_one_ns_axis(NS_AXIS)
}

fn matrix(run: &Run) -> Option<HeatMap> {
    let handoffs: Vec<(&Series, (usize, usize))> = run
        .series
        .iter()
        .filter_map(|s| Some((s, pair(s)?)))
        .collect();
    if handoffs.is_empty() {
        return None;
    }
    let mut cpus: Vec<usize> = handoffs.iter().flat_map(|(_, (a, b))| [*a, *b]).collect();
    cpus.sort_unstable();
    cpus.dedup();
    let cells = handoffs
        .iter()
        .filter_map(|(s, (a, b))| Some((*a, *b, measured(s)?.0)))
        .collect();
    let map = HeatMap {
        title: format!("toll sys — run {}: a cache line from core to core", run.id),
        cpus,
        cells,
    };
    map.has_cells().then_some(map)
}

/// A cache's name as the hardware manuals write it: L1d, L2, L3.
fn cache_name(c: &Value) -> Option<(String, f64)> {
    let level = c.get("level")?.as_u64()?;
    let bytes = c.get("bytes")?.as_u64()? as f64;
    let data = c.get("kind").and_then(Value::as_str) == Some("Data");
    let name = format!("L{level}{}", if data { "d" } else { "" });
    (bytes > 0.0).then_some((name, bytes))
}

fn staircase(run: &Run) -> Option<Staircase> {
    let s = run.series.iter().find(|s| is_chase(s))?;
    let mut loads: Vec<Load> = s
        .points
        .iter()
        .filter(|p| p.status == PointStatus::Ok)
        .filter_map(|p| {
            let m = p.summary.as_ref()?;
            Some(Load {
                bytes: p.n as f64,
                ns: m.median,
                low: m.ci_low,
                high: m.ci_high,
            })
        })
        .collect();
    loads.sort_by(|a, b| a.bytes.total_cmp(&b.bytes));
    let caches_of = |v: Option<&Value>| -> Vec<(String, f64)> {
        v.and_then(Value::as_array)
            .map(|a| a.iter().filter_map(cache_name).collect())
            .unwrap_or_default()
    };
    let mut caches = caches_of(s.attrs.get("caches"));
    if caches.is_empty() {
        caches = caches_of(run.config.get("caches"));
    }
    // A level stores its last size and its time; it is drawn back from
    // there across the sizes next below whose times lie near its own (the
    // climb between two levels is not part of either).
    let mut steps = Vec::new();
    let mut below = 0.0;
    for l in s
        .attrs
        .get("levels")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(fits), Some(ns)) = (l["fits"].as_f64(), l["ns"].as_f64()) else {
            continue;
        };
        let mut first = fits;
        for load in loads
            .iter()
            .rev()
            .filter(|l| l.bytes > below && l.bytes < fits)
        {
            if load.ns > ns * NEAR || load.ns < ns / NEAR {
                break;
            }
            first = load.bytes;
        }
        steps.push(Step {
            first,
            last: fits,
            ns,
        });
        below = fits;
    }
    let stairs = Staircase {
        title: format!(
            "toll sys — run {}: the time per load by working set",
            run.id
        ),
        loads,
        caches,
        steps,
    };
    stairs.has_loads().then_some(stairs)
}

/// The fitted crossings' t(n), one chart each, in µs.
fn lines(run: &Run) -> Vec<Chart> {
    let all = plot_series_from_run(run);
    let mut charts = Vec::new();
    for (c, x, y, what) in [
        ("fault", "pages per mapping (n)", "µs per mapping", "faults"),
        ("copy", "bytes per copy (n)", "µs per copy", "memcpy"),
    ] {
        let series = run
            .series
            .iter()
            .zip(&all)
            .filter(|(s, _)| crossing(s) == c && s.points.len() > 1 && !is_chase(s))
            .map(|(_, p)| p.clone())
            .collect();
        let chart = Chart {
            title: format!("toll sys — run {}: {what}, t(n) = α + β·n", run.id),
            x_label: x.into(),
            y_label: y.into(),
            per_unit: false,
            series,
        };
        if chart.has_lines() {
            charts.push(chart);
        }
    }
    charts
}

impl SysCharts {
    /// The pictures of a stored sys run; None for another family's.
    pub fn for_run(run: &Run) -> Option<SysCharts> {
        (run.family == "sys").then(|| SysCharts {
            dots: dots(run),
            matrix: matrix(run),
            staircase: staircase(run),
            lines: lines(run),
        })
    }

    /// The words under the picture: what each part drawn shows, from the top.
    pub fn caption(&self) -> String {
        let mut parts = Vec::new();
        if self.dots.has_marks() {
            parts.push("each crossing's median with its 95% CI on one log axis of time, grouped by crossing (faults and memcpy by their fitted α and β)");
        }
        if self.matrix.is_some() {
            parts
                .push("the core-to-core handoffs as a heat map, each cell a pair's one-way median");
        }
        if self.staircase.is_some() {
            parts.push("the time per load by working set on log–log axes, with the steps toll found and the cache sizes the kernel reports");
        }
        if !self.lines.is_empty() {
            parts.push("the fitted series' medians with their CIs and t(n)");
        }
        match parts.len() {
            0 => String::new(),
            1 => format!("{}{}.", parts[0][..1].to_uppercase(), &parts[0][1..]),
            _ => format!("From the top: {}.", parts.join("; ")),
        }
    }

    /// Every part in one SVG, one above the other: the dots, the heat map,
    /// the staircase, then t(n); an error when none has anything to draw.
    pub fn svg(&self, scale: Scale) -> Result<String, PlotError> {
        let mut parts: Vec<(String, &str)> = Vec::new();
        if self.dots.has_marks() {
            parts.push((self.dots.svg()?, "dots"));
        }
        if let Some(m) = &self.matrix {
            parts.push((m.svg()?, "heatmap"));
        }
        if let Some(s) = &self.staircase {
            parts.push((s.svg()?, "staircase"));
        }
        for c in &self.lines {
            parts.push((c.svg(scale)?, "lines"));
        }
        if parts.is_empty() {
            return Err(PlotError("no crossing measured: nothing to plot".into()));
        }
        let refs: Vec<(&str, &str)> = parts.iter().map(|(p, c)| (p.as_str(), *c)).collect();
        stack_marked(&refs)
    }

    /// Write every part to `path` as one SVG, atomically.
    pub fn write(&self, path: &Path, scale: Scale) -> Result<(), PlotError> {
        let svg = self.svg(scale)?;
        crate::atomic::write(path, svg.as_bytes()).map_err(err)
    }
}

#[cfg(test)]
#[path = "sys_tests.rs"]
mod tests;
