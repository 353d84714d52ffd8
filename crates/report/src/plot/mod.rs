//! SVG plots a person wants to look at: each series' medians with their
//! 95% CIs and its model drawn through them, on axes that show every series.
//!
//! - **Scales**: times that span decades (a Rust peer at 10 µs beside a
//!   Python one at 10 ms) squash the fast series flat on a linear axis, so
//!   `auto` turns an axis logarithmic when its values span decades (see
//!   [`axis::log_axes`]); `--plot-scale linear|log` forces either. Ticks sit
//!   at round values (1, 10, 100, 1k…), and a 0 on a log axis is drawn past
//!   a break (see [`axis`]).
//! - **Colours**: Okabe and Ito's palette for colour-blind readers
//!   (*Color Universal Design*, 2008) less its yellow, which vanishes on
//!   white; each series also has its own marker shape, so two series never
//!   differ by colour alone.
//! - **Models**: the fitted line `t(n) = α + β·n` solid where it describes
//!   the points; where it does not, the two-segment model solid and the
//!   line dashed. Families whose points are a cost per unit (spawn, ring)
//!   draw the model as t(N)/N = α/N + β.
//! - **Legend** to the right of the plot area, never over the data.
//! - **Loads** (`toll http`, `toll http compare`) are not sweeps over n:
//!   they are drawn as latency by percentile ([`latency`]) and requests per
//!   second over time ([`rate`]), from the stored run by [`load`].
//! - **Dot plots** ([`dots`]): figures of different kinds side by side on
//!   a log axis, the original's beside this machine's (`toll replicate`);
//!   `toll ffi`'s α per binding above its t(n) lines ([`ffi`]).
//! - **Scaling** ([`scaling`]): a cost per unit against N on log–log axes,
//!   a line per runtime (E2's spawn and ring); **servers** ([`servers`]):
//!   requests per second per server with CIs (E5's comparison).

pub mod axis;
mod canvas;
mod chart;
pub mod dots;
pub mod ffi;
pub mod latency;
pub mod load;
pub mod rate;
pub mod scaling;
mod series;
pub mod servers;
mod style;
pub mod trend;

pub use axis::{Axis, Scale};
pub use canvas::PlotError;
use canvas::{err, Ticked, FONT, WIDTH};
pub use chart::Chart;
pub use dots::{DotChart, DotGroup, DotRow};
pub use ffi::FfiCharts;
pub use load::{is_load, LoadCharts};
pub use series::{plot_series_from_run, Knee, Model, PlotPoint, PlotSeries};
pub use style::PALETTE;

use plotters::prelude::*;
use std::path::Path;
use style::{draw_legend, draw_marker, legend_label, style_keys, MARKERS};
use toll_store::Run;

impl Chart {
    /// The plot of a stored run, as its family's `--plot` draws it: times
    /// in µs (ms for `toll exec`), n labelled in the family's words.
    pub fn for_run(run: &Run) -> Chart {
        let series = plot_series_from_run(run);
        let param = || {
            run.series
                .first()
                .and_then(|s| s.attrs.get("parameter"))
                .and_then(|p| p.as_str())
                .unwrap_or("n")
                .to_string()
        };
        let (x, y, per_unit, series) = match run.family.as_str() {
            "transfer" => (
                "items per message (n)".to_string(),
                "round trip (µs)",
                false,
                series,
            ),
            "spawn" => ("units (N)".into(), "µs per unit", true, series),
            "ring" => ("units in the ring (N)".into(), "µs per hop", true, series),
            "file" => ("bytes per read".into(), "µs per read", false, series),
            "ffi" => ("bytes per call (n)".into(), "µs per call", false, series),
            "rpc" => (
                "payload bytes per call".into(),
                "µs per call",
                false,
                series,
            ),
            "exec" => (
                param(),
                "time per run (ms)",
                false,
                series.into_iter().map(|s| s.scaled(1e3)).collect(),
            ),
            _ => ("n".into(), "time (µs)", false, series),
        };
        Chart {
            title: format!("toll {} — run {}", run.family, run.id),
            x_label: x,
            y_label: y.into(),
            per_unit,
            series,
        }
    }

    /// The same chart under another title.
    pub fn titled(mut self, title: impl Into<String>) -> Chart {
        self.title = title.into();
        self
    }

    /// Whether there is anything to draw: some series with two points or more.
    pub fn has_lines(&self) -> bool {
        self.series.iter().any(|s| s.points.len() >= 2)
    }

    /// The chart as an SVG document.
    pub fn svg(&self, scale: Scale) -> Result<String, PlotError> {
        let mut out = String::new();
        draw(&mut out, self, scale)?;
        Ok(out)
    }

    /// Write the chart to `path` as SVG: to a temporary file beside it,
    /// renamed into place, so a failure leaves nothing half-written.
    pub fn write(&self, path: &Path, scale: Scale) -> Result<(), PlotError> {
        let svg = self.svg(scale)?;
        crate::atomic::write(path, svg.as_bytes()).map_err(err)
    }
}

/// The value the model gives at `n` in the plot's terms.
fn curve(per_unit: bool, f: impl Fn(f64) -> f64, n: f64) -> Option<f64> {
    if per_unit {
        (n > 0.0).then(|| f(n) / n)
    } else {
        Some(f(n))
    }
}

/// `k` values of n from `lo` to `hi`, evenly spread on the axis.
fn samples(lo: f64, hi: f64, log: bool, k: usize) -> Vec<f64> {
    (0..k)
        .map(|i| {
            let f = i as f64 / (k - 1) as f64;
            if log {
                10f64.powf(lo.log10() + f * (hi.log10() - lo.log10()))
            } else {
                lo + f * (hi - lo)
            }
        })
        .collect()
}

/// A model's curves over a series' range of n: (values, solid), each a
/// list of (n, t) in data terms.
type Curves = Vec<(Vec<(f64, f64)>, bool)>;

fn model_curves(s: &PlotSeries, per_unit: bool, log_x: bool) -> Curves {
    let Some(m) = s.model else {
        return Vec::new();
    };
    let xs = s.points.iter().map(|p| p.x);
    let lo = if log_x || per_unit {
        xs.clone().filter(|x| *x > 0.0).fold(f64::MAX, f64::min)
    } else {
        xs.clone().fold(f64::MAX, f64::min)
    };
    let hi = xs.fold(f64::MIN, f64::max);
    // One point, or none above 0 on a log axis: nothing to draw a line over.
    if hi.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) {
        return Vec::new();
    }
    let mut ns = samples(lo, hi, log_x, 97);
    if let Some(k) = m.knee {
        if k.break_n > lo && k.break_n < hi {
            ns.push(k.break_n);
            ns.sort_by(f64::total_cmp);
        }
    }
    let trace = |f: &dyn Fn(f64) -> f64| -> Vec<(f64, f64)> {
        ns.iter()
            .filter_map(|&n| curve(per_unit, f, n).map(|t| (n, t)))
            .collect()
    };
    let mut out = Vec::new();
    match (m.line_fits, m.knee) {
        (true, _) | (false, None) => out.push((trace(&|n| m.line_at(n)), true)),
        (false, Some(k)) => {
            out.push((trace(&|n| k.at(n)), true));
            out.push((trace(&|n| m.line_at(n)), false));
        }
    }
    out
}

fn draw(out: &mut String, chart: &Chart, scale: Scale) -> Result<(), PlotError> {
    let pts = || chart.series.iter().flat_map(|s| s.points.iter());
    if pts().next().is_none() {
        return Err(PlotError("no measured points to plot".into()));
    }
    let xs: Vec<f64> = pts().map(|p| p.x).collect();
    let medians = pts().map(|p| p.y);
    let (log_x, log_y) = axis::log_axes(
        scale,
        axis::decades(xs.iter().copied()),
        axis::decades(medians),
    );
    let xa = Axis::new(&xs, log_x);
    let curves: Vec<Curves> = chart
        .series
        .iter()
        .map(|s| model_curves(s, chart.per_unit, log_x))
        .collect();
    // The y axis holds the medians, the CIs (on a log axis only the part
    // within a decade of the median: a wide CI's far end runs off instead
    // of squashing every point) and the models.
    let mut ys: Vec<f64> = Vec::new();
    for p in pts() {
        ys.push(p.y);
        for end in [p.y_low, p.y_high] {
            if !log_y || (end > p.y / 10.0 && end < p.y * 10.0) {
                ys.push(end);
            }
        }
    }
    ys.extend(
        curves
            .iter()
            .flatten()
            .flat_map(|(c, _)| c.iter().map(|&(_, t)| t)),
    );
    let ya = Axis::new(&ys, log_y);
    let dropped = pts()
        .filter(|p| xa.map(p.x).is_none() || ya.map(p.y).is_none())
        .count();

    let keys = style_keys(chart);
    let legend_chars = chart
        .series
        .iter()
        .map(|s| legend_label(&s.label).chars().count())
        .chain(keys.iter().map(|(k, _)| k.chars().count()))
        .max()
        .unwrap_or(0);
    let legend_w = (legend_chars as u32 * 8 + 60).clamp(190, 360);
    let entries = chart.series.len() + keys.len() + 2;
    let height = (150 + 22 * entries as u32).max(600);
    let root = SVGBackend::with_string(out, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let body = root
        .titled(&chart.title, (FONT, 22).into_font().color(&BLACK))
        .map_err(err)?;
    let (plot_area, legend_area) = body.split_horizontally(WIDTH - legend_w);
    let mut notes = Vec::new();
    if xa.zero_at.is_some() {
        notes.push("0 sits left of the dashed break: a log axis has no 0".to_string());
    }
    if dropped > 0 {
        notes.push(format!(
            "{dropped} point(s) at or below 0 left out: a log axis cannot show them"
        ));
    }
    let plot_h = plot_area.dim_in_pixel().1;
    let notes_h = 20 * notes.len() as u32;
    let (plot_area, notes_area) = plot_area.split_vertically(plot_h - notes_h);
    let mut cc = ChartBuilder::on(&plot_area)
        .margin_top(8)
        .margin_left(12)
        .margin_right(16)
        .margin_bottom(8)
        .x_label_area_size(52)
        .y_label_area_size(72)
        .build_cartesian_2d(Ticked(&xa), Ticked(&ya))
        .map_err(err)?;
    let x_fmt = |t: &f64| xa.label(*t);
    let y_fmt = |t: &f64| ya.label(*t);
    cc.configure_mesh()
        .x_desc(format!(
            "{}{}",
            chart.x_label,
            if log_x { ", log scale" } else { "" }
        ))
        .y_desc(format!(
            "{}{}",
            chart.y_label,
            if log_y { ", log scale" } else { "" }
        ))
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .axis_desc_style((FONT, 17))
        .label_style((FONT, 16))
        .bold_line_style(BLACK.mix(0.14))
        .light_line_style(BLACK.mix(0.05))
        .axis_style(BLACK.mix(0.6))
        .draw()
        .map_err(err)?;
    if let Some(b) = xa.break_at {
        cc.draw_series(DashedLineSeries::new(
            [(b, ya.lo), (b, ya.hi)],
            4,
            4,
            BLACK.mix(0.4).stroke_width(1),
        ))
        .map_err(err)?;
    }
    let cap = (xa.hi - xa.lo) * 0.005;
    for (i, s) in chart.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let marker = MARKERS[i % MARKERS.len()];
        // Points in plot coordinates, in order of n.
        let mut at: Vec<(f64, f64, f64, f64)> = s
            .points
            .iter()
            .filter_map(|p| {
                Some((
                    xa.map(p.x)?,
                    ya.map(p.y)?,
                    ya.map_clamped(p.y_low.min(p.y)),
                    ya.map_clamped(p.y_high.max(p.y)),
                ))
            })
            .collect();
        at.sort_by(|a, b| a.0.total_cmp(&b.0));
        // Models first, so the points sit on top.
        let cs = &curves[i];
        for (line, solid) in cs {
            for seg in segments(line, &xa, &ya) {
                if *solid {
                    cc.draw_series(LineSeries::new(seg, color.stroke_width(2)))
                        .map_err(err)?;
                } else {
                    cc.draw_series(DashedLineSeries::new(
                        seg,
                        5,
                        5,
                        color.mix(0.55).stroke_width(1),
                    ))
                    .map_err(err)?;
                }
            }
        }
        // α at n = 0, where the axis has a 0 past its break.
        if let (Some(z), Some(m), false) = (xa.zero_at, s.model, chart.per_unit) {
            if let Some(t) = ya.map(m.knee.map_or(m.alpha, |k| k.alpha)) {
                if (ya.lo..=ya.hi).contains(&t) {
                    cc.draw_series(LineSeries::new(
                        [(z - 0.07, t), (z + 0.07, t)],
                        color.stroke_width(2),
                    ))
                    .map_err(err)?;
                }
            }
        }
        if cs.is_empty() && at.len() >= 2 {
            cc.draw_series(LineSeries::new(
                at.iter().map(|&(x, y, _, _)| (x, y)),
                color.mix(0.7).stroke_width(1),
            ))
            .map_err(err)?;
        }
        let bar = color.mix(0.75).stroke_width(1);
        cc.draw_series(at.iter().flat_map(|&(x, _, lo, hi)| {
            [
                PathElement::new(vec![(x, lo), (x, hi)], bar),
                PathElement::new(vec![(x - cap, lo), (x + cap, lo)], bar),
                PathElement::new(vec![(x - cap, hi), (x + cap, hi)], bar),
            ]
        }))
        .map_err(err)?;
        for &(x, y, _, _) in &at {
            let p = cc.backend_coord(&(x, y));
            draw_marker(&root, marker, p, color)?;
        }
    }
    for (k, note) in notes.iter().enumerate() {
        notes_area
            .draw(&Text::new(
                note.as_str(),
                (84, 4 + 20 * k as i32),
                (FONT, 15).into_font().color(&BLACK.mix(0.7)),
            ))
            .map_err(err)?;
    }
    draw_legend(&legend_area, chart, &keys)?;
    root.present().map_err(err)?;
    drop(cc);
    Ok(())
}

/// Runs of consecutive values the axes can show, in plot coordinates.
fn segments(line: &[(f64, f64)], xa: &Axis, ya: &Axis) -> Vec<Vec<(f64, f64)>> {
    let mut out = vec![Vec::new()];
    for &(n, t) in line {
        let shown = xa
            .map(n)
            .zip(ya.map(t))
            .filter(|(_, y)| (ya.lo..=ya.hi).contains(y));
        match shown {
            Some(p) => out.last_mut().expect("one segment at least").push(p),
            None => out.push(Vec::new()),
        }
    }
    out.retain(|s| s.len() >= 2);
    out
}

#[cfg(test)]
mod tests;
