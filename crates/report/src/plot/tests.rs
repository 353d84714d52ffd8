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
            ..Default::default()
        },
        PlotSeries {
            label: "c/tcp".into(),
            points: pts(20.0, &xs, 0.1),
            model: None,
            ..Default::default()
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
            ..Default::default()
        },
        PlotSeries {
            label: "python/pipe".into(),
            points: pts(40.0, &xs, 0.1),
            model: Some(Model::line(40.0, 0.1)),
            ..Default::default()
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
        ..Default::default()
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
        ..Default::default()
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
        ..Default::default()
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
        ..Default::default()
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
        ..Default::default()
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

/// `peers` × `transports` series as `toll transfer --peer all` gives
/// them, less the last `missing`: each peer's α apart, every series a
/// model.
fn transfer_chart(peers: &[&str], transports: &[&str], missing: usize) -> Chart {
    let xs = [0.0, 1.0, 10.0, 100.0, 1000.0, 10_000.0, 100_000.0];
    let mut series = Vec::new();
    for (p, peer) in peers.iter().enumerate() {
        for (t, via) in transports.iter().enumerate() {
            let alpha = 5.0 * (p + 1) as f64 + t as f64;
            let beta = 0.001 * (t + 1) as f64;
            series.push(PlotSeries {
                label: format!("{peer}/{via}"),
                points: pts(alpha, &xs, beta),
                model: Some(Model::line(alpha, beta)),
                group: peer.to_string(),
            });
        }
    }
    series.truncate(series.len() - missing);
    chart(series)
}

/// Each nested panel of a picture, as its SVG text.
fn panels(svg: &str) -> Vec<&str> {
    svg.split("<svg class=\"panel\"")
        .skip(1)
        .map(|p| p.split_once("</svg>").map_or(p, |x| x.0))
        .collect()
}

/// The distinct colours of a panel's model lines (2 px wide; the grid's
/// lines are 1 px).
fn line_colours(panel: &str) -> std::collections::BTreeSet<&str> {
    panel
        .split("<polyline")
        .skip(1)
        .filter(|l| l.contains("stroke-width=\"2\""))
        .filter_map(|l| l.split_once("stroke=\"")?.1.split_once('"').map(|x| x.0))
        .collect()
}

/// 26 series on one panel repeated colours every seven: now a panel per
/// peer, a line per transport, each transport its colour in every panel.
#[test]
fn more_series_than_colours_draw_a_panel_per_peer_on_shared_axes() {
    let peers = ["rust", "c", "python", "node", "go", "java", "erlang"];
    let c = transfer_chart(&peers, &["pipe", "unix", "tcp", "shm"], 2);
    assert_eq!(c.series.len(), 26);
    let svg = c.svg(Scale::Auto).unwrap();
    let ps = panels(&svg);
    assert_eq!(ps.len(), peers.len(), "a panel per peer");
    let mut ticks = Vec::new();
    for (panel, peer) in ps.iter().zip(peers) {
        let t = texts(panel);
        assert_eq!(t[0], peer, "the panel's title: {t:?}");
        let want = if peer == "erlang" { 2 } else { 4 };
        let colours = line_colours(panel);
        assert_eq!(colours.len(), want, "{peer}: {colours:?}");
        // The same axes in every panel: the same tick labels.
        ticks.push(t[1..].to_vec());
    }
    assert!(ticks.windows(2).all(|w| w[0] == w[1]), "{ticks:?}");
    assert!(ticks[0].contains(&"100k".to_string()), "{:?}", ticks[0]);
    // One legend beside the panels names each transport once; the panels
    // name their peer, not the peer again in every line.
    let t = texts(&svg);
    for via in ["pipe", "unix", "tcp", "shm"] {
        assert_eq!(t.iter().filter(|l| *l == via).count(), 1, "{via}: {t:?}");
    }
    assert!(!t.iter().any(|l| l == "rust/pipe"), "{t:?}");
    assert!(t.iter().any(|l| l.contains("log scale")), "{t:?}");
    assert!(t.contains(&"95% CI of the median".to_string()));
    // A transport is one colour in every panel.
    let pipe = |p: &str| line_colours(p).into_iter().next().map(str::to_string);
    assert!(
        ps.iter().all(|p| line_colours(p).contains("#0072B2")),
        "pipe's blue"
    );
    assert!(pipe(ps[0]).is_some());
}

#[test]
fn a_few_series_stay_on_one_panel() {
    let c = transfer_chart(&["rust", "c"], &["pipe", "unix", "tcp"], 0);
    let svg = c.svg(Scale::Auto).unwrap();
    assert!(panels(&svg).is_empty());
    assert_eq!(
        line_colours(&svg).len(),
        6 + 1,
        "six series and the key's grey"
    );
}

/// A group larger than the palette (one runtime's many unit kinds) is
/// split, each panel's colours distinct, each with its own legend.
#[test]
fn a_group_larger_than_the_palette_is_split_and_never_repeats_a_colour() {
    let kinds: Vec<String> = (0..9).map(|k| format!("kind{k}")).collect();
    let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
    let mut c = transfer_chart(&["rust", "go"], &kinds, 0);
    c.series.truncate(11);
    let svg = c.svg(Scale::Linear).unwrap();
    let ps = panels(&svg);
    let titles: Vec<String> = ps.iter().map(|p| texts(p)[0].clone()).collect();
    assert_eq!(titles, ["rust, 1 of 2", "rust, 2 of 2", "go"]);
    let sizes: Vec<usize> = ps.iter().map(|p| line_colours(p).len()).collect();
    assert_eq!(sizes, [5, 4, 2], "every series its own colour in its panel");
    // Each panel names its own lines.
    assert!(
        texts(ps[1]).contains(&"kind5".to_string()),
        "{:?}",
        texts(ps[1])
    );
}

/// Series without a group (`toll exec`'s commands) split in order.
#[test]
fn series_without_a_group_split_in_order() {
    let mut c = transfer_chart(&["x"], &["a", "b", "c", "d", "e", "f", "g", "h"], 0);
    for s in &mut c.series {
        s.group.clear();
    }
    let ps = panels(&c.svg(Scale::Auto).unwrap())
        .iter()
        .map(|p| texts(p)[0].clone())
        .collect::<Vec<_>>();
    assert_eq!(ps, ["1 of 2", "2 of 2"]);
}
