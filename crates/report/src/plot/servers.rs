//! Requests per second per server, with CIs: one bar per server from 0 to
//! its median rate, its 95% CI as a whisker across the bar's end (E5's
//! `toll http compare`). A linear axis from 0: rates are read as "how many
//! times as much", and a bar that starts at 0 shows that by its length.

use super::axis::Axis;
use super::canvas::{err, PlotError, Ticked, FONT, WIDTH};
use super::style::PALETTE;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One server: its name and its rate's median with the CI.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerBar {
    pub label: String,
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
}

/// A whole bar chart.
#[derive(Debug, Clone, PartialEq)]
pub struct ServersChart {
    pub title: String,
    /// The axis' words: `requests per second (median of rounds)`.
    pub unit: String,
    pub bars: Vec<ServerBar>,
}

const LABEL_W: u32 = 330;
const ROW_H: u32 = 30;
/// Characters of a label that fit its column.
const LABEL_CHARS: usize = 44;

fn short(label: &str) -> String {
    if label.chars().count() <= LABEL_CHARS {
        return label.to_string();
    }
    let head: String = label.chars().take(LABEL_CHARS - 1).collect();
    format!("{head}…")
}

impl ServersChart {
    /// The chart as an SVG document; an error when no server has a rate.
    pub fn svg(&self) -> Result<String, PlotError> {
        let bars: Vec<&ServerBar> = self
            .bars
            .iter()
            .filter(|b| b.median.is_finite() && b.median > 0.0)
            .collect();
        if bars.is_empty() {
            return Err(PlotError("no server has a rate to plot".into()));
        }
        let height = 60 + ROW_H * bars.len() as u32 + 60;
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            let values: Vec<f64> = bars
                .iter()
                .flat_map(|b| [b.median, b.lo, b.hi])
                .filter(|v| v.is_finite() && *v >= 0.0)
                .collect();
            let xa = Axis::new(&values, false);
            let n = bars.len() as f64;
            let mut cc = ChartBuilder::on(&root)
                .caption(&self.title, (FONT, 20))
                .margin(12)
                .margin_right(30)
                .x_label_area_size(46)
                .y_label_area_size(LABEL_W)
                .build_cartesian_2d(Ticked(&xa), 0.0..n)
                .map_err(err)?;
            let xf = |t: &f64| xa.label(*t);
            cc.configure_mesh()
                .disable_y_mesh()
                .y_labels(0)
                .x_label_formatter(&xf)
                .x_desc(&self.unit)
                .axis_desc_style((FONT, 15))
                .label_style((FONT, 14))
                .bold_line_style(BLACK.mix(0.14))
                .light_line_style(BLACK.mix(0.05))
                .axis_style(BLACK.mix(0.6))
                .draw()
                .map_err(err)?;
            let color = PALETTE[0];
            let clamp = |v: f64| v.clamp(xa.lo, xa.hi);
            for (i, b) in bars.iter().enumerate() {
                let y = n - i as f64 - 0.5;
                cc.draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y - 0.3), (b.median, y + 0.3)],
                    color.mix(0.55).filled(),
                )))
                .map_err(err)?;
                let (lo, hi) = (clamp(b.lo.min(b.median)), clamp(b.hi.max(b.median)));
                let ink = BLACK.mix(0.85).stroke_width(2);
                cc.draw_series([
                    PathElement::new(vec![(lo, y), (hi, y)], ink),
                    PathElement::new(vec![(lo, y - 0.18), (lo, y + 0.18)], ink),
                    PathElement::new(vec![(hi, y - 0.18), (hi, y + 0.18)], ink),
                ])
                .map_err(err)?;
                let (_, ly) = cc.backend_coord(&(xa.lo, y));
                root.draw(&Text::new(
                    short(&b.label),
                    (14, ly),
                    (FONT, 14)
                        .into_font()
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                ))
                .map_err(err)?;
            }
            root.present().map_err(err)?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(label: &str, median: f64) -> ServerBar {
        ServerBar {
            label: label.into(),
            median,
            lo: median * 0.9,
            hi: median * 1.1,
        }
    }

    #[test]
    fn every_server_with_a_rate_gets_a_bar_and_its_name() {
        let c = ServersChart {
            title: "92 B page".into(),
            unit: "requests per second".into(),
            bars: vec![
                bar("nginx", 21000.0),
                bar("tomcat", 12000.0),
                bar("gone", 0.0),
            ],
        };
        let svg = c.svg().unwrap();
        assert!(svg.contains("nginx") && svg.contains("tomcat"));
        assert!(!svg.contains("gone"), "no rate, no bar");
        assert!(svg.contains("requests per second"));
    }

    #[test]
    fn no_rate_is_an_error_not_an_empty_picture() {
        let c = ServersChart {
            title: "x".into(),
            unit: "req/s".into(),
            bars: vec![bar("a", f64::NAN)],
        };
        assert!(c.svg().is_err());
    }
}
