//! A t(n) chart's lines, whether drawn on one panel or as small multiples:
//! the frame every panel shares — axes that hold every series' points,
//! CIs and models, so panels side by side read on one scale — and one
//! series drawn on a panel: its model, its CIs and its markers.

use super::axis::{self, Axis, Scale};
use super::canvas::{err, Area, PlotError, Ticked};
use super::chart::Chart;
use super::series::PlotSeries;
use super::style::{draw_marker, Marker};
use plotters::prelude::*;

/// A model's curves over a series' range of n: (values, solid), each a
/// list of (n, t) in data terms.
pub(super) type Curves = Vec<(Vec<(f64, f64)>, bool)>;

/// A panel of a t(n) chart, as plotters draws on it.
pub(super) type Plot<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<Ticked<'a>, Ticked<'a>>>;

/// What every panel of a chart shares: its axes, each series' model
/// curves, and how many points the axes cannot show.
pub(super) struct Frame {
    pub xa: Axis,
    pub ya: Axis,
    pub log_x: bool,
    pub log_y: bool,
    /// Per series of the chart, in its order.
    pub curves: Vec<Curves>,
    /// Points at or below 0 on a log axis.
    pub dropped: usize,
}

impl Frame {
    /// The frame of `chart` on `scale`; an error when it has no point.
    pub(super) fn of(chart: &Chart, scale: Scale) -> Result<Frame, PlotError> {
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
        Ok(Frame {
            xa,
            ya,
            log_x,
            log_y,
            curves,
            dropped,
        })
    }

    /// The lines under the plot that say what its axes could not show.
    pub(super) fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self.xa.zero_at.is_some() {
            notes.push("0 sits left of the dashed break: a log axis has no 0".to_string());
        }
        if self.dropped > 0 {
            notes.push(format!(
                "{} point(s) at or below 0 left out: a log axis cannot show them",
                self.dropped
            ));
        }
        notes
    }

    /// The axis' words, with the scale when it is logarithmic.
    pub(super) fn x_desc(&self, chart: &Chart) -> String {
        format!(
            "{}{}",
            chart.x_label,
            if self.log_x { ", log scale" } else { "" }
        )
    }

    pub(super) fn y_desc(&self, chart: &Chart) -> String {
        format!(
            "{}{}",
            chart.y_label,
            if self.log_y { ", log scale" } else { "" }
        )
    }

    /// The dashed break of a log x axis that has a 0.
    pub(super) fn draw_break(&self, cc: &mut Plot) -> Result<(), PlotError> {
        if let Some(b) = self.xa.break_at {
            cc.draw_series(DashedLineSeries::new(
                [(b, self.ya.lo), (b, self.ya.hi)],
                4,
                4,
                BLACK.mix(0.4).stroke_width(1),
            ))
            .map_err(err)?;
        }
        Ok(())
    }
}

/// How one series looks.
#[derive(Debug, Clone, Copy)]
pub(super) struct Look {
    pub color: RGBColor,
    pub marker: Marker,
}

/// Series `i` of `chart` on `cc`: its models first, so the points sit on
/// top, then its CIs and its markers (drawn on `root`, the panel's whole
/// picture).
pub(super) fn draw_series(
    cc: &mut Plot,
    root: &Area,
    frame: &Frame,
    chart: &Chart,
    i: usize,
    look: Look,
) -> Result<(), PlotError> {
    let (xa, ya) = (&frame.xa, &frame.ya);
    let s = &chart.series[i];
    let color = look.color;
    let cap = (xa.hi - xa.lo) * 0.005;
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
    let cs = &frame.curves[i];
    for (line, solid) in cs {
        for seg in segments(line, xa, ya) {
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
        draw_marker(root, look.marker, p, color)?;
    }
    Ok(())
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
