use super::*;

fn pts(k: f64, xs: &[f64], slope: f64) -> Vec<PlotPoint> {
    xs.iter()
        .map(|&x| {
            let y = k + slope * x;
            PlotPoint {
                x,
                y,
                y_low: y * 0.95,
                y_high: y * 1.05,
            }
        })
        .collect()
}

fn chart(series: Vec<PlotSeries>) -> Chart {
    Chart {
        title: "test".into(),
        x_label: "n".into(),
        y_label: "µs".into(),
        per_unit: false,
        series,
    }
}

/// The SVG's text labels, trimmed.
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
fn draws_points_bars_lines_and_legend() {
    let xs = [0.0, 10.0, 20.0, 30.0, 40.0];
    let c = chart(vec![
        PlotSeries {
            label: "rust/pipe".into(),
            points: pts(5.0, &xs, 0.1),
            model: Some(Model::line(5.0, 0.1)),
        },
        PlotSeries {
            label: "c/tcp".into(),
            points: pts(20.0, &xs, 0.1),
            model: None,
        },
    ]);
    let svg = c.svg(Scale::Auto).unwrap();
    assert!(svg.starts_with("<svg"));
    let t = texts(&svg);
    assert!(t.contains(&"rust/pipe".to_string()) && t.contains(&"c/tcp".to_string()));
    assert!(svg.contains("<polyline"), "the fitted line");
    assert!(svg.matches("<circle").count() >= 5, "the points");
    // Both colours of the palette's first two, and no yellow.
    assert!(svg.contains("#0072B2") && svg.contains("#D55E00"), "{svg}");
    assert!(!svg.contains("#F0E442"));
    assert!(t.contains(&"95% CI of the median".to_string()));
}

/// E1 as a new user saw it: Rust and C flat under Python on a linear axis.
#[test]
fn series_decades_apart_go_log_log_with_round_ticks() {
    let xs = [0.0, 1.0, 10.0, 100.0, 1000.0, 10_000.0, 100_000.0];
    let c = chart(vec![
        PlotSeries {
            label: "rust/pipe".into(),
            points: pts(8.0, &xs, 0.0015),
            model: Some(Model::line(8.0, 0.0015)),
        },
        PlotSeries {
            label: "python/pipe".into(),
            points: pts(40.0, &xs, 0.1),
            model: Some(Model::line(40.0, 0.1)),
        },
    ]);
    let t = texts(&c.svg(Scale::Auto).unwrap());
    for tick in ["0", "1", "10", "100", "1k", "10k", "100k"] {
        assert!(t.contains(&tick.to_string()), "x tick {tick}: {t:?}");
    }
    assert!(t.iter().any(|l| l.contains("log scale")));
    assert!(t.iter().any(|l| l.contains("a log axis has no 0")), "{t:?}");
    // Forced linear: ticks at round steps, no note about 0.
    let t = texts(&c.svg(Scale::Linear).unwrap());
    for tick in ["0", "20k", "40k", "100k"] {
        assert!(t.contains(&tick.to_string()), "x tick {tick}: {t:?}");
    }
    assert!(!t.iter().any(|l| l.contains("log scale")));
}

#[test]
fn a_curve_draws_the_two_segment_model_and_the_line_dashed() {
    let xs = [0.0, 1000.0, 16_000.0, 32_000.0, 64_000.0];
    let model = Model {
        alpha: 8.0,
        beta: 0.002,
        line_fits: false,
        knee: Some(Knee {
            alpha: 8.0,
            beta_small: 0.001,
            alpha_large: 8.0 + 16.384 - 0.003 * 16_384.0,
            beta: 0.003,
            break_n: 16_384.0,
        }),
    };
    let c = chart(vec![PlotSeries {
        label: "rust/pipe".into(),
        points: pts(8.0, &xs, 0.002),
        model: Some(model),
    }]);
    let svg = c.svg(Scale::Linear).unwrap();
    let t = texts(&svg);
    assert!(
        t.contains(&"model: line, or two segments".to_string()),
        "{t:?}"
    );
    assert!(t.contains(&"a line, where it does not fit".to_string()));
    // The knee is a vertex of the drawn model: α + β_small · break.
    assert_eq!(model.knee.unwrap().at(16_384.0), 8.0 + 16.384);
    assert_eq!(model.knee.unwrap().at(20_384.0), 8.0 + 16.384 + 12.0);
}

#[test]
fn per_unit_plots_draw_the_model_divided_by_n() {
    let xs = [1000.0, 10_000.0, 100_000.0];
    let points = xs
        .iter()
        .map(|&x| {
            let y = 50.0 / x + 2.0;
            PlotPoint {
                x,
                y,
                y_low: y * 0.9,
                y_high: y * 1.1,
            }
        })
        .collect();
    let mut c = chart(vec![PlotSeries {
        label: "go/goroutine".into(),
        points,
        model: Some(Model::line(50.0, 2.0)),
    }]);
    c.per_unit = true;
    let svg = c.svg(Scale::Auto).unwrap();
    let t = texts(&svg);
    assert!(t.contains(&"go/goroutine".to_string()));
    for tick in ["1k", "10k", "100k"] {
        assert!(t.contains(&tick.to_string()), "decade label {tick}: {t:?}");
    }
    assert!(t.contains(&"model (α + β·N) / N".to_string()));
    assert!(svg.matches("<circle").count() >= 3, "the points");
}

#[test]
fn labels_are_escaped_in_the_svg() {
    let c = chart(vec![PlotSeries {
        label: "<b>&x</b>".into(),
        points: pts(1.0, &[1.0, 2.0], 1.0),
        model: None,
    }]);
    let svg = c.svg(Scale::Auto).unwrap();
    assert!(!svg.contains("<b>") && svg.contains("&lt;b&gt;&amp;x&lt;/b&gt;"));
}

#[test]
fn nothing_to_plot_is_an_error() {
    let e = chart(Vec::new()).svg(Scale::Auto).unwrap_err();
    assert_eq!(e.to_string(), "no measured points to plot");
}

#[test]
fn scaled_series_divide_points_and_models() {
    let s = PlotSeries {
        label: "x".into(),
        points: pts(1000.0, &[0.0], 0.0),
        model: Some(Model::line(1000.0, 10.0)),
    }
    .scaled(1e3);
    assert_eq!(s.points[0].y, 1.0);
    assert_eq!(s.model.unwrap().beta, 0.01);
}

#[test]
fn odd_figures_draw_without_panicking_and_say_what_was_left_out() {
    let odd = |x: f64, y: f64| PlotPoint {
        x,
        y,
        y_low: y - 1.0,
        y_high: y + 1.0,
    };
    let c = chart(vec![PlotSeries {
        label: "odd".into(),
        points: vec![
            odd(0.0, 0.0),
            odd(1.0, f64::NAN),
            odd(10.0, 5.0),
            odd(1e6, 1e9),
        ],
        model: Some(Model::line(-50.0, 1e-3)),
    }]);
    for scale in [Scale::Auto, Scale::Linear, Scale::Log] {
        let svg = c.svg(scale).unwrap();
        assert!(svg.starts_with("<svg"));
    }
    let t = texts(&c.svg(Scale::Log).unwrap());
    assert!(t.iter().any(|l| l.contains("left out")), "{t:?}");
    let mut per_unit = c.clone();
    per_unit.per_unit = true;
    assert!(per_unit.svg(Scale::Auto).is_ok());
}
