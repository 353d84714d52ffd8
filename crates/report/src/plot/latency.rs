//! Latency by percentile on HdrHistogram's axis: x is 1/(1−q) on a log
//! scale, so 90%, 99%, 99.9% and 99.99% sit a decade apart and the tail a
//! load test is run for gets as much room as the median (Gil Tene's
//! HdrHistogram plots, wrk2's and oha's). At a constant rate the corrected
//! latencies (timed from each request's intended start) and the
//! uncorrected ones (from its actual send) are drawn together: the gap
//! between them is the wait that coordinated omission would hide.
//!
//! The axis ends where the requests do: with N requests the longest is the
//! 1 − 1/N quantile, so the maximum is drawn at x = N and percentiles past
//! it (they equal the maximum) are left out rather than drawn as a flat
//! line nobody measured.

use super::axis::{self, Axis, Scale};
use super::canvas::{err, on, Area, PlotError, Ticked, FONT, WIDTH};
use super::style::{draw_marker, MARKERS, PALETTE};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One latency distribution.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyCurve {
    pub label: String,
    /// (percent, ms) as the run stored them, 50 … 100 (100: the longest).
    pub percentiles: Vec<(f64, f64)>,
    /// The whole histogram where it was stored: (value in ms, count) per
    /// recorded bucket, in order of value; drawn as steps between the marks.
    pub buckets: Vec<(f64, u64)>,
    /// Requests the distribution is of.
    pub count: u64,
    /// Drawn dashed (the uncorrected latencies beside the corrected ones).
    pub dashed: bool,
    /// The legend's second line under the label (how many requests).
    pub detail: String,
}

/// A plot of one or more distributions on one percentile axis.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyChart {
    pub title: String,
    pub curves: Vec<LatencyCurve>,
}

/// Where quantile `q` sits: log10 of 1/(1−q); None past what `count`
/// requests can show.
fn position(q: f64, count: u64) -> Option<f64> {
    let end = (count.max(2) as f64).log10();
    if q >= 1.0 {
        return Some(end);
    }
    let x = (1.0 / (1.0 - q)).log10();
    (x.is_finite() && x <= end + 1e-9).then_some(x)
}

/// The tick at `k` decades: 90%, 99%, 99.9% …
pub fn percent_label(k: i32) -> String {
    if k <= 0 {
        return "0%".into();
    }
    let digits = (k - 2).max(0) as usize;
    format!("{:.*}%", digits, 100.0 * (1.0 - 10f64.powi(-k)))
}

impl LatencyCurve {
    /// (position, ms) of the stored percentiles that this many requests reach.
    fn marks(&self) -> Vec<(f64, f64)> {
        self.percentiles
            .iter()
            .filter(|(_, ms)| ms.is_finite())
            .filter_map(|&(p, ms)| Some((position(p / 100.0, self.count)?, ms)))
            .collect()
    }

    /// The histogram as steps: each bucket's value from the quantile where
    /// it starts to where it ends.
    fn steps(&self) -> Vec<(f64, f64)> {
        let total: u64 = self.buckets.iter().map(|b| b.1).sum();
        if total < 2 {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(2 * self.buckets.len());
        let mut below = 0u64;
        for &(ms, n) in &self.buckets {
            if n == 0 {
                continue;
            }
            let from = position(below as f64 / total as f64, total);
            below += n;
            let to = position(below as f64 / total as f64, total);
            if let (Some(a), Some(b)) = (from, to) {
                out.push((a, ms));
                out.push((b, ms));
            }
        }
        out
    }
}

impl LatencyChart {
    /// Whether there is a distribution to draw: some curve of two requests
    /// or more with a value.
    pub fn drawable(&self) -> bool {
        self.curves
            .iter()
            .any(|c| c.count >= 2 && !c.marks().is_empty())
    }

    /// The chart as an SVG document of its own.
    pub fn svg(&self, scale: Scale) -> Result<String, PlotError> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            self.draw(&root, scale)?;
            root.present().map_err(err)?;
        }
        Ok(out)
    }

    /// Draw on `area` (a panel of a larger picture, or the whole of one).
    pub(super) fn draw(&self, area: &Area, scale: Scale) -> Result<(), PlotError> {
        if !self.drawable() {
            return Err(PlotError(
                "no latency distribution to draw: no request completed, or only one".into(),
            ));
        }
        let marks: Vec<Vec<(f64, f64)>> = self.curves.iter().map(|c| c.marks()).collect();
        let steps: Vec<Vec<(f64, f64)>> = self.curves.iter().map(|c| c.steps()).collect();
        let end = marks
            .iter()
            .chain(&steps)
            .flatten()
            .map(|p| p.0)
            .fold(1.0, f64::max);
        let ys: Vec<f64> = marks.iter().chain(&steps).flatten().map(|p| p.1).collect();
        let (_, log_y) = axis::log_axes(scale, 0.0, axis::decades(ys.iter().copied()));
        let ya = if log_y {
            Axis::new(&ys, true)
        } else {
            // Latency from 0: a person reads a tail's height against it.
            let mut with_zero = ys.clone();
            with_zero.push(0.0);
            Axis::new(&with_zero, false)
        };
        let xa = percentile_axis(end);
        let (w, _) = area.dim_in_pixel();
        let body = area
            .titled(&self.title, (FONT, 20).into_font().color(&BLACK))
            .map_err(err)?;
        let (plot, legend) = body.split_horizontally(w - LEGEND_W);
        let mut cc = ChartBuilder::on(&plot)
            .margin_top(8)
            .margin_left(12)
            .margin_right(16)
            .margin_bottom(8)
            .x_label_area_size(52)
            .y_label_area_size(72)
            .build_cartesian_2d(Ticked(&xa), Ticked(&ya))
            .map_err(err)?;
        let x_fmt = |t: &f64| tick_label(*t);
        let y_fmt = |t: &f64| ya.label(*t);
        cc.configure_mesh()
            .x_desc("percentile, on 1/(1 − q): each step right is ten times rarer")
            .y_desc(format!(
                "latency (ms){}",
                if log_y { ", log scale" } else { "" }
            ))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .axis_desc_style((FONT, 16))
            .label_style((FONT, 15))
            .bold_line_style(BLACK.mix(0.14))
            .light_line_style(BLACK.mix(0.05))
            .axis_style(BLACK.mix(0.6))
            .draw()
            .map_err(err)?;
        let inside = |pts: &[(f64, f64)]| -> Vec<(f64, f64)> {
            pts.iter()
                .filter_map(|&(x, v)| Some((x, ya.map(v)?)))
                .collect()
        };
        for (i, c) in self.curves.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            // Steps where the histogram is kept, the marks joined otherwise.
            let line = if steps[i].is_empty() {
                inside(&marks[i])
            } else {
                inside(&steps[i])
            };
            if c.dashed {
                cc.draw_series(DashedLineSeries::new(line, 6, 4, color.stroke_width(2)))
                    .map_err(err)?;
            } else {
                cc.draw_series(LineSeries::new(line, color.stroke_width(2)))
                    .map_err(err)?;
            }
            for (x, y) in inside(&marks[i]) {
                let p = on(area, cc.backend_coord(&(x, y)));
                draw_marker(area, MARKERS[i % MARKERS.len()], p, color)?;
            }
        }
        drop(cc);
        self.legend(&legend)
    }

    fn legend(&self, area: &Area) -> Result<(), PlotError> {
        let mut y = 22;
        let text = |s: String, y: i32, c: RGBAColor| {
            Text::new(
                s,
                (44, y),
                (FONT, 15)
                    .into_font()
                    .color(&c)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            )
        };
        for (i, c) in self.curves.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let style = color.stroke_width(2);
            if c.dashed {
                area.draw(&DashedPathElement::new(vec![(6, y), (34, y)], 6, 4, style))
                    .map_err(err)?;
            } else {
                area.draw(&PathElement::new(vec![(6, y), (34, y)], style))
                    .map_err(err)?;
            }
            draw_marker(area, MARKERS[i % MARKERS.len()], (20, y), color)?;
            area.draw(&text(
                super::style::legend_label(&c.label),
                y,
                BLACK.to_rgba(),
            ))
            .map_err(err)?;
            y += 20;
            area.draw(&text(c.detail.clone(), y, BLACK.mix(0.6)))
                .map_err(err)?;
            y += 26;
        }
        Ok(())
    }
}

const HEIGHT: u32 = 520;
const LEGEND_W: u32 = 290;

/// The label of the percentile axis' tick at position `t`.
fn tick_label(t: f64) -> String {
    if (t - 2f64.log10()).abs() < 1e-9 {
        "50%".into()
    } else {
        percent_label(t.round() as i32)
    }
}

/// The percentile axis up to position `end`: a labelled tick at 0%, 50%
/// and each decade (90%, 99% …) it reaches.
fn percentile_axis(end: f64) -> Axis {
    let decades = end.floor().max(1.0) as i32;
    let mut major = vec![0.0, 2f64.log10()];
    major.extend((1..=decades).map(f64::from));
    major.retain(|&t| t <= end + 1e-9);
    // Faint lines at 80%, 95%, 98%: the quantiles between the decades.
    let minor = (0..decades)
        .flat_map(|d| [2.0, 5.0].map(|m| f64::from(d) + f64::log10(m)))
        .filter(|&t| t > 2f64.log10() + 1e-9 && t < end)
        .collect();
    Axis {
        log: false,
        lo: 0.0,
        hi: end.max(1.0) + 0.05,
        zero_at: None,
        break_at: None,
        major,
        minor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                Some(
                    t.split_once('>')?
                        .1
                        .split_once("</text>")?
                        .0
                        .trim()
                        .to_string(),
                )
            })
            .collect()
    }

    fn curve(label: &str, scale: f64, count: u64, dashed: bool) -> LatencyCurve {
        let ps = [50.0, 90.0, 99.0, 99.9, 99.99, 100.0];
        LatencyCurve {
            label: label.into(),
            percentiles: ps
                .iter()
                .map(|&p| (p, scale * (1.0 + (100.0_f64 - p).recip().min(1e3))))
                .collect(),
            buckets: Vec::new(),
            count,
            dashed,
            detail: format!("{count} requests"),
        }
    }

    #[test]
    fn ticks_read_as_percentiles_up_to_what_the_requests_reach() {
        assert_eq!(percent_label(1), "90%");
        assert_eq!(percent_label(2), "99%");
        assert_eq!(percent_label(3), "99.9%");
        assert_eq!(percent_label(5), "99.999%");
        let chart = LatencyChart {
            title: "t".into(),
            curves: vec![curve("GET /", 0.2, 20_000, false)],
        };
        let svg = chart.svg(Scale::Auto).unwrap();
        let t = texts(&svg);
        for want in [
            "0%",
            "50%",
            "90%",
            "99%",
            "99.9%",
            "99.99%",
            "20000 requests",
        ] {
            assert!(t.iter().any(|x| x == want), "{want} missing: {t:?}");
        }
        assert!(
            !t.iter().any(|x| x == "99.999%"),
            "20k requests do not reach it"
        );
        // 1000 requests: 99.99% is the maximum, drawn at the end, not as a mark.
        let few = curve("x", 0.2, 1000, false);
        let m = few.marks();
        assert_eq!(m.len(), 5, "{m:?}");
        assert!((m.last().unwrap().0 - 3.0).abs() < 1e-9);
    }

    #[test]
    fn corrected_and_uncorrected_are_drawn_apart() {
        let chart = LatencyChart {
            title: "t".into(),
            curves: vec![
                curve("corrected", 1.0, 5000, false),
                curve("uncorrected", 0.3, 5000, true),
            ],
        };
        let svg = chart.svg(Scale::Auto).unwrap();
        let t = texts(&svg);
        assert!(t.iter().any(|x| x == "corrected") && t.iter().any(|x| x == "uncorrected"));
        // A dashed curve is drawn as many short lines.
        let mut solid = chart.clone();
        solid.curves[1].dashed = false;
        let lines = |svg: &str| svg.matches("<polyline").count();
        let solid = solid.svg(Scale::Auto).unwrap();
        assert!(
            lines(&svg) > lines(&solid) + 5,
            "the uncorrected curve is dashed"
        );
        assert!(
            svg.contains("#0072B2") && svg.contains("#D55E00"),
            "two colours"
        );
    }

    #[test]
    fn the_histogram_is_drawn_as_steps_to_its_longest_request() {
        let c = LatencyCurve {
            label: "h".into(),
            percentiles: vec![(50.0, 1.0), (100.0, 9.0)],
            buckets: vec![(1.0, 90), (2.0, 9), (9.0, 1)],
            count: 100,
            dashed: false,
            detail: String::new(),
        };
        let s = c.steps();
        assert_eq!(s.len(), 6);
        assert_eq!(s[0], (0.0, 1.0));
        assert!((s[1].0 - 1.0).abs() < 1e-9, "90% of them by 1 ms: {s:?}");
        assert!(
            (s[5].0 - 2.0).abs() < 1e-9 && s[5].1 == 9.0,
            "the longest at x = N"
        );
    }

    #[test]
    fn nothing_to_draw_is_an_error_not_an_empty_picture() {
        let chart = LatencyChart {
            title: "t".into(),
            curves: vec![curve("one", 1.0, 1, false)],
        };
        assert!(!chart.drawable());
        assert!(chart.svg(Scale::Auto).is_err());
    }
}
