//! Requests per second over time: whether a load held steady, when a
//! server stalled, how a JIT server warmed up. Each series is a list of
//! (seconds since the start, requests per second) — a load's 100 ms
//! intervals, or a comparison's rounds — with hollow marks for rounds that
//! were only warm-up, and the target rate dashed when the load had one.
//! Both axes are linear from 0: a rate halved should look halved.

use super::axis::Axis;
use super::canvas::{err, on, Area, PlotError, Ticked, FONT, WIDTH};
use super::style::{draw_marker, MARKERS, PALETTE};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One load's rate over time.
#[derive(Debug, Clone, PartialEq)]
pub struct RateSeries {
    pub label: String,
    /// (seconds since the start, requests per second), in order of time.
    pub points: Vec<(f64, f64)>,
    /// Warm-up rounds, drawn hollow and not joined to the measured ones.
    pub warmup: Vec<(f64, f64)>,
}

/// A plot of request rates over time.
#[derive(Debug, Clone, PartialEq)]
pub struct RateChart {
    pub title: String,
    /// What one point is the rate of ("each 100 ms", "each round").
    pub per: String,
    pub series: Vec<RateSeries>,
    /// --rate: the rate the load was asked to hold.
    pub target: Option<f64>,
}

const HEIGHT: u32 = 440;
const LEGEND_W: u32 = 290;
/// Past this many points a series is a line without marks.
const MOST_MARKS: usize = 60;

impl RateChart {
    /// Whether there is a rate over time to draw: two points or more.
    pub fn drawable(&self) -> bool {
        self.series
            .iter()
            .map(|s| s.points.len() + s.warmup.len())
            .sum::<usize>()
            >= 2
    }

    /// The chart as an SVG document of its own.
    pub fn svg(&self) -> Result<String, PlotError> {
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            self.draw(&root)?;
            root.present().map_err(err)?;
        }
        Ok(out)
    }

    /// Draw on `area` (a panel of a larger picture, or the whole of one).
    pub(super) fn draw(&self, area: &Area) -> Result<(), PlotError> {
        if !self.drawable() {
            return Err(PlotError(
                "no rate over time to draw: the load was shorter than two intervals".into(),
            ));
        }
        let all = || {
            self.series
                .iter()
                .flat_map(|s| s.points.iter().chain(&s.warmup))
        };
        let mut xs: Vec<f64> = all().map(|p| p.0).collect();
        xs.push(0.0);
        let mut ys: Vec<f64> = all().map(|p| p.1).collect();
        ys.push(0.0);
        ys.extend(self.target);
        let (xa, ya) = (Axis::new(&xs, false), Axis::new(&ys, false));
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
        let x_fmt = |t: &f64| xa.label(*t);
        let y_fmt = |t: &f64| ya.label(*t);
        cc.configure_mesh()
            .x_desc("seconds since the start")
            .y_desc(format!("requests per second, {}", self.per))
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .axis_desc_style((FONT, 16))
            .label_style((FONT, 15))
            .bold_line_style(BLACK.mix(0.14))
            .light_line_style(BLACK.mix(0.05))
            .axis_style(BLACK.mix(0.6))
            .draw()
            .map_err(err)?;
        if let Some(t) = self.target {
            cc.draw_series(DashedLineSeries::new(
                [(xa.lo, t), (xa.hi, t)],
                6,
                4,
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(err)?;
        }
        for (i, s) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let marker = MARKERS[i % MARKERS.len()];
            cc.draw_series(LineSeries::new(
                s.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(err)?;
            if s.points.len() <= MOST_MARKS {
                for p in &s.points {
                    let at = on(area, cc.backend_coord(p));
                    draw_marker(area, marker, at, color)?;
                }
            }
            for p in &s.warmup {
                let at = on(area, cc.backend_coord(p));
                area.draw(&Circle::new(at, 4, color.stroke_width(1)))
                    .map_err(err)?;
            }
        }
        drop(cc);
        self.legend(&legend)
    }

    fn legend(&self, area: &Area) -> Result<(), PlotError> {
        let text = |s: &str, y: i32, c: RGBAColor| {
            Text::new(
                s.to_string(),
                (44, y),
                (FONT, 15)
                    .into_font()
                    .color(&c)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            )
        };
        let mut y = 22;
        for (i, s) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            area.draw(&PathElement::new(
                vec![(6, y), (34, y)],
                color.stroke_width(2),
            ))
            .map_err(err)?;
            draw_marker(area, MARKERS[i % MARKERS.len()], (20, y), color)?;
            area.draw(&text(
                &super::style::legend_label(&s.label),
                y,
                BLACK.to_rgba(),
            ))
            .map_err(err)?;
            y += 24;
        }
        let grey = BLACK.mix(0.6);
        if self.series.iter().any(|s| !s.warmup.is_empty()) {
            area.draw(&Circle::new((20, y), 4, grey.stroke_width(1)))
                .map_err(err)?;
            area.draw(&text("warm-up round (not measured)", y, grey))
                .map_err(err)?;
            y += 24;
        }
        if let Some(t) = self.target {
            area.draw(&DashedPathElement::new(
                vec![(6, y), (34, y)],
                6,
                4,
                grey.stroke_width(1),
            ))
            .map_err(err)?;
            area.draw(&text(&format!("target rate {t}/s"), y, grey))
                .map_err(err)?;
        }
        Ok(())
    }
}

/// Rates over intervals as points at each interval's middle: `ends_ns`
/// are the intervals' ends since the start, `requests` what completed in
/// each. An interval of no length is left out.
pub fn from_intervals(ends_ns: &[u64], requests: &[u64]) -> Vec<(f64, f64)> {
    let mut from = 0u64;
    let mut out = Vec::new();
    for (&end, &n) in ends_ns.iter().zip(requests) {
        if end > from {
            let (a, b) = (from as f64 / 1e9, end as f64 / 1e9);
            out.push((0.5 * (a + b), n as f64 / (b - a)));
        }
        from = from.max(end);
    }
    out
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

    #[test]
    fn intervals_become_rates_at_their_middles() {
        let p = from_intervals(&[100_000_000, 200_000_000, 250_000_000], &[50, 40, 10]);
        assert_eq!(p.len(), 3);
        assert!((p[0].0 - 0.05).abs() < 1e-12 && (p[0].1 - 500.0).abs() < 1e-9);
        assert!((p[1].1 - 400.0).abs() < 1e-9);
        assert!((p[2].0 - 0.225).abs() < 1e-12 && (p[2].1 - 200.0).abs() < 1e-9);
        assert!(from_intervals(&[0], &[5]).is_empty());
    }

    #[test]
    fn draws_the_rate_the_target_and_warm_up_rounds() {
        let chart = RateChart {
            title: "rate".into(),
            per: "each 100 ms".into(),
            series: vec![RateSeries {
                label: "GET /".into(),
                points: (1..=20)
                    .map(|k| (k as f64 * 0.1, 400.0 + k as f64))
                    .collect(),
                warmup: vec![(0.0, 120.0)],
            }],
            target: Some(400.0),
        };
        let svg = chart.svg().unwrap();
        let t = texts(&svg);
        for want in [
            "GET /",
            "target rate 400/s",
            "warm-up round (not measured)",
            "seconds since the start",
            "requests per second, each 100 ms",
        ] {
            assert!(t.iter().any(|x| x == want), "{want} missing: {t:?}");
        }
        // A dashed line is drawn as many short ones.
        let lines = |svg: &str| svg.matches("<polyline").count();
        let plain = RateChart {
            target: None,
            ..chart.clone()
        };
        assert!(
            lines(&svg) > lines(&plain.svg().unwrap()) + 5,
            "the target is dashed"
        );
    }

    #[test]
    fn one_point_is_not_a_rate_over_time() {
        let chart = RateChart {
            title: "rate".into(),
            per: "each 100 ms".into(),
            series: vec![RateSeries {
                label: "x".into(),
                points: vec![(0.05, 100.0)],
                warmup: vec![],
            }],
            target: None,
        };
        assert!(!chart.drawable());
        assert!(chart
            .svg()
            .unwrap_err()
            .to_string()
            .contains("two intervals"));
    }
}
