//! How a cost per unit scales with the number of units, on log–log axes:
//! one line per runtime joining its medians, each with its 95% CI, and no
//! model drawn through them (E2's spawn µs per unit and ring ns per hop
//! against N). Log–log because N spans decades and so do the runtimes (a
//! green thread at 40 ns a hop beside a Squeak process at 1 µs); a flat
//! line is a cost that does not grow with N, a rising one a knee. The
//! fitted t(N)/N of [`super::Chart`] is left to each run's own report: a
//! two-segment model can dip below 0 per unit, which a log axis cannot
//! show and a reader should not have to discount.

use super::axis::Axis;
use super::canvas::{err, PlotError, Ticked, FONT, WIDTH};
use super::series::PlotPoint;
use super::style::{draw_marker, legend_label, MARKERS, PALETTE};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One runtime's points: N, and the median cost per unit with its CI.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingSeries {
    pub label: String,
    pub points: Vec<PlotPoint>,
}

/// A whole log–log plot.
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub series: Vec<ScalingSeries>,
}

const HEIGHT: u32 = 460;
const LEGEND_W: u32 = 250;

impl ScalingChart {
    /// Whether some series has a point above 0 on both axes.
    pub fn drawable(&self) -> bool {
        self.series
            .iter()
            .flat_map(|s| &s.points)
            .any(|p| p.x > 0.0 && p.y > 0.0)
    }

    /// The chart as an SVG document; an error when nothing can be drawn.
    pub fn svg(&self) -> Result<String, PlotError> {
        if !self.drawable() {
            return Err(PlotError("no point above 0 to plot".into()));
        }
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, HEIGHT)).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            let (plot, legend) = root.split_horizontally(WIDTH - LEGEND_W);
            let shown = |p: &&PlotPoint| p.x > 0.0 && p.y > 0.0;
            let xs: Vec<f64> = self
                .series
                .iter()
                .flat_map(|s| s.points.iter().filter(shown).map(|p| p.x))
                .collect();
            // Each interval's ends within a decade of its median: a wide one
            // runs to the edge rather than squashing every line.
            let ys: Vec<f64> = self
                .series
                .iter()
                .flat_map(|s| s.points.iter().filter(shown))
                .flat_map(|p| {
                    [p.y, p.y_low, p.y_high]
                        .into_iter()
                        .filter(move |v| *v > p.y / 10.0 && *v < p.y * 10.0)
                })
                .collect();
            let (xa, ya) = (Axis::new(&xs, true), Axis::new(&ys, true));
            let mut cc = ChartBuilder::on(&plot)
                .caption(&self.title, (FONT, 20))
                .margin(12)
                .x_label_area_size(50)
                .y_label_area_size(70)
                .build_cartesian_2d(Ticked(&xa), Ticked(&ya))
                .map_err(err)?;
            let (xf, yf) = (|t: &f64| xa.label(*t), |t: &f64| ya.label(*t));
            cc.configure_mesh()
                .x_label_formatter(&xf)
                .y_label_formatter(&yf)
                .x_desc(format!("{}, log scale", self.x_label))
                .y_desc(format!("{}, log scale", self.y_label))
                .axis_desc_style((FONT, 15))
                .label_style((FONT, 14))
                .bold_line_style(BLACK.mix(0.14))
                .light_line_style(BLACK.mix(0.05))
                .axis_style(BLACK.mix(0.6))
                .draw()
                .map_err(err)?;
            let clamp = |v: f64| ya.map_clamped(v);
            for (k, s) in self.series.iter().enumerate() {
                let color = PALETTE[k % PALETTE.len()];
                let pts: Vec<(f64, f64, f64, f64)> = s
                    .points
                    .iter()
                    .filter(shown)
                    .filter_map(|p| {
                        Some((
                            xa.map(p.x)?,
                            ya.map(p.y)?,
                            clamp(p.y_low.min(p.y)),
                            clamp(p.y_high.max(p.y)),
                        ))
                    })
                    .collect();
                cc.draw_series(std::iter::once(PathElement::new(
                    pts.iter().map(|p| (p.0, p.1)).collect::<Vec<_>>(),
                    color.stroke_width(2),
                )))
                .map_err(err)?;
                for &(x, _, lo, hi) in &pts {
                    cc.draw_series(std::iter::once(PathElement::new(
                        vec![(x, lo), (x, hi)],
                        color.mix(0.8).stroke_width(1),
                    )))
                    .map_err(err)?;
                }
                for &(x, y, _, _) in &pts {
                    let at = cc.backend_coord(&(x, y));
                    draw_marker(&root, MARKERS[k % MARKERS.len()], at, color)?;
                }
            }
            // The legend beside the plot: each runtime, then the key.
            let text = |s: &str, x: i32, y: i32, c: RGBAColor| {
                Text::new(
                    s.to_string(),
                    (x, y),
                    (FONT, 14)
                        .into_font()
                        .color(&c)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                )
            };
            let mut y = 60;
            for (k, s) in self.series.iter().enumerate() {
                let color = PALETTE[k % PALETTE.len()];
                legend
                    .draw(&PathElement::new(
                        vec![(8, y), (34, y)],
                        color.stroke_width(2),
                    ))
                    .map_err(err)?;
                draw_marker(&legend, MARKERS[k % MARKERS.len()], (21, y), color)?;
                legend
                    .draw(&text(&legend_label(&s.label), 42, y, BLACK.to_rgba()))
                    .map_err(err)?;
                y += 22;
            }
            y += 10;
            legend
                .draw(&PathElement::new(
                    vec![(21, y - 7), (21, y + 7)],
                    BLACK.mix(0.7),
                ))
                .map_err(err)?;
            legend
                .draw(&text("95% CI of the median", 42, y, BLACK.mix(0.7)))
                .map_err(err)?;
            legend
                .draw(&text("lines join the medians", 42, y + 22, BLACK.mix(0.7)))
                .map_err(err)?;
            root.present().map_err(err)?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(x: f64, y: f64) -> PlotPoint {
        PlotPoint {
            x,
            y,
            y_low: y * 0.9,
            y_high: y * 1.2,
        }
    }

    #[test]
    fn runtimes_share_log_log_axes() {
        let c = ScalingChart {
            title: "ring".into(),
            x_label: "units in the ring (N)".into(),
            y_label: "ns per hop".into(),
            series: vec![
                ScalingSeries {
                    label: "erlang/process".into(),
                    points: vec![p(100.0, 170.0), p(1000.0, 160.0), p(10000.0, 210.0)],
                },
                ScalingSeries {
                    label: "haskell/forkio".into(),
                    points: vec![p(1000.0, 38.0)],
                },
            ],
        };
        let svg = c.svg().unwrap();
        for want in [
            "ns per hop, log scale",
            "units in the ring (N), log scale",
            "erlang/process",
            "haskell/forkio",
            "95% CI of the median",
        ] {
            assert!(svg.contains(want), "{want}");
        }
    }

    #[test]
    fn nothing_above_zero_is_an_error_not_an_empty_picture() {
        let c = ScalingChart {
            title: "x".into(),
            x_label: "N".into(),
            y_label: "µs".into(),
            series: vec![ScalingSeries {
                label: "a".into(),
                points: vec![p(0.0, 1.0), p(10.0, -1.0)],
            }],
        };
        assert!(!c.drawable());
        assert!(c.svg().is_err());
        let empty = ScalingChart {
            series: Vec::new(),
            ..c
        };
        assert!(empty.svg().is_err());
    }
}
