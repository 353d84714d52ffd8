//! A sweep's picture (`toll http --sweep`): latency percentiles against
//! offered rate — the hockey stick — above achieved against offered, the
//! knee's interval shaded in both and the SLO dashed. Offered rate is on a
//! log axis when the sweep spans a factor of four or more (its steps are a
//! constant factor apart); latency on a log axis, as it spans decades
//! past the knee; achieved on a linear one from 0, with offered = achieved
//! dashed: a step that kept up sits on it.

use super::axis::Axis;
use super::canvas::{err, Area, PlotError, Ticked, FONT, WIDTH};
use super::style::PALETTE;
use crate::http_sweep::{StepFigures, SweepReport};
use plotters::prelude::*;
use std::path::Path;

const TOP: u32 = 520;
/// The knee's interval, shaded; its rate, a line.
const BAND: RGBColor = RGBColor(255, 170, 0);
const BOTTOM: u32 = 420;

/// The percentiles drawn, each with its name and how it reads off a step.
type Pick = fn(&StepFigures) -> f64;
const CURVES: [(&str, Pick); 4] = [
    ("p50", |s| s.p50.median),
    ("p90", |s| s.p90.median),
    ("p99", |s| s.p99.median),
    ("p99.9", |s| s.p999.median),
];

/// Draw `r` to `path` as one SVG, atomically.
pub fn write(r: &SweepReport, title: &str, path: &Path) -> Result<(), PlotError> {
    let svg = svg(r, title)?;
    crate::atomic::write(path, svg.as_bytes()).map_err(err)
}

/// The picture as an SVG document.
pub fn svg(r: &SweepReport, title: &str) -> Result<String, PlotError> {
    if r.steps.len() < 2 {
        return Err(PlotError(
            "a sweep of fewer than two steps has no curve to draw".into(),
        ));
    }
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, TOP + BOTTOM)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (top, bottom) = root.split_vertically(TOP);
        let offered: Vec<f64> = r.steps.iter().map(|s| s.offered).collect();
        let lo = offered.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = offered.iter().copied().fold(0.0, f64::max);
        let xa = Axis::new(&offered, hi >= 4.0 * lo);
        latency(r, title, &xa, &top)?;
        achieved(r, &xa, &bottom)?;
        root.present().map_err(err)?;
    }
    Ok(out)
}

/// The knee's interval as a band over `ya`'s range, and its rate as a line.
fn knee_band<DB: DrawingBackend>(
    r: &SweepReport,
    xa: &Axis,
    ya: &Axis,
    cc: &mut ChartContext<'_, DB, Cartesian2d<Ticked<'_>, Ticked<'_>>>,
) -> Result<(), PlotError> {
    let Some(k) = &r.knee else { return Ok(()) };
    let x0 = k.lo.map_or(xa.lo, |v| xa.map_clamped(v));
    let x1 = k.hi.map_or(xa.hi, |v| xa.map_clamped(v));
    cc.draw_series([Rectangle::new(
        [(x0, ya.lo), (x1, ya.hi)],
        BAND.mix(0.15).filled(),
    )])
    .map_err(err)?;
    if let Some(v) = k.rate {
        let x = xa.map_clamped(v);
        cc.draw_series(LineSeries::new(
            [(x, ya.lo), (x, ya.hi)],
            RGBColor(200, 110, 0).stroke_width(2),
        ))
        .map_err(err)?;
    }
    Ok(())
}

fn latency(r: &SweepReport, title: &str, xa: &Axis, area: &Area) -> Result<(), PlotError> {
    let mut ys: Vec<f64> = r
        .steps
        .iter()
        .flat_map(|s| CURVES.iter().map(|c| c.1(s)).chain([s.p99.lo, s.p99.hi]))
        .filter(|v| *v > 0.0)
        .collect();
    ys.push(r.slo_ms);
    let ya = Axis::new(&ys, true);
    let body = area
        .titled(title, (FONT, 20).into_font().color(&BLACK))
        .map_err(err)?;
    let mut cc = ChartBuilder::on(&body)
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(Ticked(xa), Ticked(&ya))
        .map_err(err)?;
    let (xf, yf) = (|t: &f64| xa.label(*t), |t: &f64| ya.label(*t));
    cc.configure_mesh()
        .x_desc("offered, requests per second")
        .y_desc("latency, ms (corrected)")
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 15))
        .bold_line_style(BLACK.mix(0.14))
        .light_line_style(BLACK.mix(0.05))
        .draw()
        .map_err(err)?;
    knee_band(r, xa, &ya, &mut cc)?;
    if let Some(k) = &r.knee {
        let level = if k.passes < 2 {
            "one pass".to_string()
        } else {
            format!("≥{:.0}%", (k.level * 100.0 + 1e-9).floor())
        };
        cc.draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
            .map_err(err)?
            .label(format!("knee: interval of the capacity ({level})"))
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], BAND.mix(0.3).filled()));
    }
    let slo = ya.map_clamped(r.slo_ms);
    cc.draw_series(DashedLineSeries::new(
        [(xa.lo, slo), (xa.hi, slo)],
        6,
        4,
        BLACK.mix(0.5).stroke_width(1),
    ))
    .map_err(err)?
    .label(format!("SLO, p99 ≤ {:.3} ms", r.slo_ms))
    .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.5)));
    for (i, (name, pick)) in CURVES.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let pts: Vec<(f64, f64)> = r
            .steps
            .iter()
            .map(|s| (xa.map_clamped(s.offered), ya.map_clamped(pick(s))))
            .collect();
        cc.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(err)?
            .label(*name)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        cc.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(err)?;
    }
    // p99's range over the passes.
    let color = PALETTE[2 % PALETTE.len()];
    cc.draw_series(r.steps.iter().filter(|s| s.runs > 1).map(|s| {
        let x = xa.map_clamped(s.offered);
        PathElement::new(
            [(x, ya.map_clamped(s.p99.lo)), (x, ya.map_clamped(s.p99.hi))],
            color.stroke_width(1),
        )
    }))
    .map_err(err)?;
    cc.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .draw()
        .map_err(err)
}

fn achieved(r: &SweepReport, xa: &Axis, area: &Area) -> Result<(), PlotError> {
    let ys: Vec<f64> = r
        .steps
        .iter()
        .flat_map(|s| [s.offered, s.achieved.hi])
        .collect();
    let ya = Axis::new(&ys, false);
    let mut cc = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(Ticked(xa), Ticked(&ya))
        .map_err(err)?;
    let (xf, yf) = (|t: &f64| xa.label(*t), |t: &f64| ya.label(*t));
    cc.configure_mesh()
        .x_desc("offered, requests per second")
        .y_desc("achieved, requests per second")
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 15))
        .bold_line_style(BLACK.mix(0.14))
        .light_line_style(BLACK.mix(0.05))
        .draw()
        .map_err(err)?;
    knee_band(r, xa, &ya, &mut cc)?;
    // Achieved = offered, along the steps' offered rates.
    let diagonal: Vec<(f64, f64)> = r
        .steps
        .iter()
        .map(|s| (xa.map_clamped(s.offered), s.offered))
        .collect();
    cc.draw_series(DashedLineSeries::new(
        diagonal,
        6,
        4,
        BLACK.mix(0.5).stroke_width(1),
    ))
    .map_err(err)?;
    let color = PALETTE[0];
    let pts: Vec<(f64, f64)> = r
        .steps
        .iter()
        .map(|s| (xa.map_clamped(s.offered), s.achieved.median))
        .collect();
    cc.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
        .map_err(err)?;
    cc.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
        .map_err(err)?;
    cc.draw_series(r.steps.iter().filter(|s| s.runs > 1).map(|s| {
        let x = xa.map_clamped(s.offered);
        PathElement::new(
            [(x, s.achieved.lo), (x, s.achieved.hi)],
            color.stroke_width(1),
        )
    }))
    .map_err(err)?;
    Ok(())
}
