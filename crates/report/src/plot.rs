//! SVG plots: each series' points with 95% CI error bars and its fitted line.

use plotters::prelude::*;
use std::path::Path;
use toll_store::{PointStatus, Run};

/// One point: a median with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotPoint {
    pub x: f64,
    pub y: f64,
    pub y_low: f64,
    pub y_high: f64,
}

/// One line of the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct PlotSeries {
    pub label: String,
    pub points: Vec<PlotPoint>,
    /// The fitted line (α, β) in the plot's units.
    pub line: Option<(f64, f64)>,
}

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PlotError(String);

fn err<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError(e.to_string())
}

/// Draw `series` to an SVG file at `path`: points with their CIs and each
/// series' fitted line.
pub fn series_svg(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[PlotSeries],
) -> Result<(), PlotError> {
    draw(path, title, x_label, y_label, series, false)
}

/// Draw a cost per unit against counts that span decades (`toll spawn`,
/// `toll ring`): x on a log scale, each series' points joined, no fit line.
pub fn per_unit_svg(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[PlotSeries],
) -> Result<(), PlotError> {
    let logged: Vec<PlotSeries> = series
        .iter()
        .map(|s| PlotSeries {
            label: s.label.clone(),
            points: s
                .points
                .iter()
                .filter(|p| p.x > 0.0)
                .map(|p| PlotPoint {
                    x: p.x.log10(),
                    ..*p
                })
                .collect(),
            line: None,
        })
        .collect();
    draw(path, title, x_label, y_label, &logged, true)
}

fn draw(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[PlotSeries],
    log_x: bool,
) -> Result<(), PlotError> {
    let pts = || series.iter().flat_map(|s| s.points.iter());
    if pts().next().is_none() {
        return Err(PlotError("no measured points to plot".into()));
    }
    let x_max = pts().map(|p| p.x).fold(f64::MIN, f64::max).max(1.0);
    let x_min = if log_x {
        pts().map(|p| p.x).fold(f64::MAX, f64::min).floor()
    } else {
        0.0
    };
    let y_max = pts().map(|p| p.y_high.max(p.y)).fold(f64::MIN, f64::max);
    let y_max = series
        .iter()
        .filter_map(|s| s.line.map(|(a, b)| a + b * x_max))
        .fold(y_max, f64::max)
        .max(1e-9)
        * 1.08;
    let root = SVGBackend::new(path, (960, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(x_min..x_max * 1.02, 0.0..y_max)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .x_label_formatter(&|x| {
            if log_x {
                // Two significant digits between the decades.
                let v = 10f64.powf(*x);
                let step = 10f64.powf((v.log10().floor() - 1.0).max(0.0));
                format!("{:.0}", (v / step).round() * step)
            } else {
                format!("{x:.0}")
            }
        })
        .draw()
        .map_err(err)?;
    for (i, s) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(
                s.points.iter().map(|p| {
                    ErrorBar::new_vertical(p.x, p.y_low, p.y, p.y_high, color.filled(), 8)
                }),
            )
            .map_err(err)?;
        if log_x {
            chart
                .draw_series(LineSeries::new(
                    s.points.iter().map(|p| (p.x, p.y)),
                    color.stroke_width(1),
                ))
                .map_err(err)?;
        }
        let drawn = chart
            .draw_series(
                s.points
                    .iter()
                    .map(|p| Circle::new((p.x, p.y), 3, color.filled())),
            )
            .map_err(err)?;
        if s.line.is_none() {
            drawn
                .label(&s.label)
                .legend(move |(x, y)| Circle::new((x + 10, y), 3, color.filled()));
        }
        if let Some((a, b)) = s.line {
            chart
                .draw_series(LineSeries::new(
                    [(0.0, a), (x_max, a + b * x_max)],
                    color.stroke_width(2),
                ))
                .map_err(err)?
                .label(&s.label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(err)?;
    root.present().map_err(err)
}

/// Each series of a stored run as plot data in µs: medians with their CIs,
/// and the robust fit's line.
pub fn plot_series_from_run(run: &Run) -> Vec<PlotSeries> {
    run.series
        .iter()
        .map(|s| PlotSeries {
            label: s.label.clone(),
            points: s
                .points
                .iter()
                .filter(|p| p.status == PointStatus::Ok)
                .filter_map(|p| {
                    p.summary.as_ref().map(|m| PlotPoint {
                        x: p.n as f64,
                        y: m.median / 1e3,
                        y_low: m.ci_low / 1e3,
                        y_high: m.ci_high / 1e3,
                    })
                })
                .collect(),
            line: s
                .fit
                .as_ref()
                .map(|f| (f.primary().alpha / 1e3, f.primary().beta / 1e3)),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_points_bars_lines_and_legend() {
        let path = std::env::temp_dir().join(format!("toll-plot-{}.svg", std::process::id()));
        let pts = |k: f64| {
            (0..5)
                .map(|i| PlotPoint {
                    x: i as f64 * 10.0,
                    y: k + i as f64,
                    y_low: k + i as f64 - 0.5,
                    y_high: k + i as f64 + 0.5,
                })
                .collect()
        };
        let series = [
            PlotSeries {
                label: "rust/pipe".into(),
                points: pts(5.0),
                line: Some((5.0, 0.1)),
            },
            PlotSeries {
                label: "c/tcp".into(),
                points: pts(20.0),
                line: None,
            },
        ];
        series_svg(&path, "test", "n", "µs", &series).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(svg.starts_with("<svg"));
        assert!(
            svg.contains("rust/pipe") && svg.contains("c/tcp"),
            "legend labels"
        );
        assert!(svg.contains("<polyline"), "the fitted line");
        assert!(svg.matches("<circle").count() >= 10, "the points");
    }

    #[test]
    fn per_unit_plots_join_points_on_a_log_axis() {
        let path = std::env::temp_dir().join(format!("toll-plot-log-{}.svg", std::process::id()));
        let points = [1e3, 1e4, 1e5]
            .iter()
            .map(|&x| PlotPoint {
                x,
                y: 2.0,
                y_low: 1.9,
                y_high: 2.1,
            })
            .collect();
        let series = [PlotSeries {
            label: "go/goroutine".into(),
            points,
            line: Some((1.0, 1.0)),
        }];
        per_unit_svg(&path, "spawn", "N", "µs per unit", &series).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(svg.contains("go/goroutine"));
        let labels: Vec<&str> = svg.lines().map(str::trim).collect();
        assert!(
            labels.contains(&"100000") && labels.contains(&"1000"),
            "decade labels"
        );
        assert!(svg.matches("<circle").count() >= 3, "the points");
    }

    #[test]
    fn nothing_to_plot_is_an_error() {
        let e = series_svg(Path::new("/tmp/never.svg"), "t", "x", "y", &[]).unwrap_err();
        assert_eq!(e.to_string(), "no measured points to plot");
    }
}
