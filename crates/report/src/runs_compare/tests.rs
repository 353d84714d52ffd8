use super::text::render;
use super::*;
use serde_json::json;
use toll_measure::{Fingerprint, Fit, FitMethod, Sample, SeriesFit};
use toll_store::{Point, PointStatus, RunStatus};

/// Ten trials around `centre` ns, ±0.5% in a fixed pattern.
fn tight(centre: f64) -> Vec<Sample> {
    (0..10)
        .map(|i| Sample {
            iters: 1000,
            total_ns: (1000.0 * centre * (1.0 + 0.001 * ((i * 7 % 11) as f64 - 5.0))).round()
                as u64,
        })
        .collect()
}

fn point(n: u64, centre: f64) -> Point {
    Point {
        n,
        status: PointStatus::Ok,
        error: None,
        summary: None,
        samples: tight(centre),
        extra: None,
    }
}

fn fit(alpha: f64, beta: f64) -> SeriesFit {
    let f = Fit {
        method: FitMethod::WeightedLeastSquares,
        alpha,
        alpha_ci: (alpha * 0.99, alpha * 1.01),
        beta,
        beta_ci: (beta * 0.99, beta * 1.01),
        r2: 0.999,
        n_half: None,
    };
    SeriesFit {
        least_squares: f.clone(),
        robust: f.clone(),
        weighted: Some(f),
        nonlinear: false,
        check: None,
        run_to_run: None,
        decision: None,
    }
}

/// A transfer run whose rust/pipe series costs `scale` × (1000 + n) ns.
fn run(id: i64, host: &str, scale: f64) -> Run {
    let series = Series {
        id,
        label: "rust/pipe".into(),
        attrs: json!({"peer": "rust", "transport": "pipe", "pin": "split", "rounds": id,
                      "levels": [{"fits": 32768 * id, "ns": 2.0}]}),
        fit: Some(fit(1000.0 * scale, scale)),
        points: [0u64, 1000, 10_000]
            .iter()
            .map(|&n| point(n, scale * (1000.0 + n as f64)))
            .collect(),
    };
    let mut run = Run {
        id,
        family: "transfer".into(),
        started_at: "2025-01-01T00:00:00Z".into(),
        finished_at: None,
        status: RunStatus::Complete,
        summary: String::new(),
        error: None,
        config: json!({"sizes": [0, 1000, 10000], "pin": "split", "clock": {"resolution_ns": id}}),
        env: Fingerprint {
            hostname: host.into(),
            cpu_model: "Test CPU".into(),
            logical_cpus: 2,
            ..Fingerprint::default()
        },
        tool_version: "0.1.0".into(),
        series: vec![series],
    };
    // Decided as the store decides every run it writes or reads.
    toll_store::upgrade::decide(&mut run);
    run
}

fn rules(threshold: f64) -> Rules {
    Rules {
        alpha: 0.05,
        threshold,
        mixed_latency: false,
    }
}

#[test]
fn a_ten_percent_change_with_tight_samples_is_slower_and_a_regression() {
    let c = RunComparison::of(&run(1, "h", 1.0), &run(2, "h", 1.1), rules(0.05)).unwrap();
    assert!(!c.cross_machine);
    assert_eq!(c.counts.slower, 3, "{:?}", c.counts);
    let p = &c.series[0].points[0];
    assert_eq!(p.verdict, Some(Verdict::Slower));
    let ch = p.change.as_ref().unwrap();
    assert!((ch.change - 0.1).abs() < 1e-3, "{ch:?}");
    assert!(ch.change_ci.0 > 0.05 && ch.change_ci.1 < 0.15, "{ch:?}");
    assert!(c.fails(FailOn::Regression) && c.fails(FailOn::Change));
    assert!(!c.fails(FailOn::Improvement));
    // α rose 10% with 1% intervals: a change; so did β.
    let f = c.series[0].fit.as_ref().unwrap();
    assert!(f.alpha_ns.significant && f.alpha_ns.difference > 0.0);
    let text = render(&c);
    assert!(text.contains("slower"), "{text}");
    assert!(text.contains("+10.0%"), "{text}");
    assert!(text.contains("higher"), "{text}");
    // Read the other way round it is faster, an improvement.
    let back = RunComparison::of(&run(2, "h", 1.1), &run(1, "h", 1.0), rules(0.05)).unwrap();
    assert_eq!(back.counts.faster, 3);
    assert!(back.fails(FailOn::Improvement) && !back.fails(FailOn::Regression));
}

#[test]
fn a_two_percent_change_passes_a_five_percent_gate() {
    let c = RunComparison::of(&run(1, "h", 1.0), &run(2, "h", 1.02), rules(0.05)).unwrap();
    assert_eq!(c.counts.under_threshold, 3, "{:?}", c.counts);
    assert!(!c.fails(FailOn::Regression) && !c.fails(FailOn::Change));
    assert!(render(&c).contains("under 5%"), "{}", render(&c));
    // With no threshold the same 2% counts.
    let c = RunComparison::of(&run(1, "h", 1.0), &run(2, "h", 1.02), rules(0.0)).unwrap();
    assert!(c.fails(FailOn::Regression));
}

#[test]
fn identical_distributions_are_not_told_apart() {
    let c = RunComparison::of(&run(1, "h", 1.0), &run(2, "h", 1.0), rules(0.0)).unwrap();
    assert_eq!(c.counts.same, 3);
    assert!(!c.fails(FailOn::Change));
    for p in &c.series[0].points {
        assert_eq!(p.verdict, Some(Verdict::Same));
        assert_eq!(p.change.as_ref().unwrap().test.p, 1.0);
    }
    let text = render(&c);
    assert!(text.contains(" ~\n"), "{text}");
    // Volatile attributes (rounds, the steps a chase found) and measured
    // config (clock) are no differences.
    assert!(c.differences.is_empty(), "{:?}", c.differences);
    assert!(text.contains("same machine, toolchains, toll, config and placement"));
}

#[test]
fn a_pair_from_two_machines_says_so_first() {
    let c = RunComparison::of(&run(1, "alpha", 1.0), &run(2, "beta", 1.0), rules(0.05)).unwrap();
    assert!(c.cross_machine);
    assert_eq!(c.differences[0].what, "host");
    assert_eq!(
        (c.differences[0].a.as_str(), c.differences[0].b.as_str()),
        ("alpha", "beta")
    );
    let text = render(&c);
    let loud = text.find("!! ACROSS MACHINES").expect(&text);
    assert!(loud < text.find("rust/pipe").unwrap(), "{text}");
    assert!(cross_machine_warning(&c).unwrap().contains("alpha"));
}

#[test]
fn placement_toolchains_and_one_sided_series_are_listed() {
    let a = run(1, "h", 1.0);
    let mut b = run(2, "h", 1.0);
    b.series[0].attrs["pin"] = json!("same");
    b.env.toolchains = vec![("python".into(), "3.12".into())];
    b.series[0].points.pop();
    let mut extra = b.series[0].clone();
    extra.label = "c/pipe".into();
    b.series.push(extra);
    let c = RunComparison::of(&a, &b, rules(0.05)).unwrap();
    let what: Vec<&str> = c.differences.iter().map(|d| d.what.as_str()).collect();
    assert!(what.contains(&"rust/pipe pin"), "{what:?}");
    assert!(what.contains(&"toolchain python"), "{what:?}");
    assert_eq!(c.only_in_b, vec!["c/pipe".to_string()]);
    assert_eq!(c.series[0].only_in_a, vec![10_000]);
    let text = render(&c);
    assert!(text.contains("only in B: c/pipe"), "{text}");
    assert!(text.contains("measured in A only: n = 10000"), "{text}");
}

#[test]
fn a_platform_that_differs_is_named_with_the_machine() {
    let mut a = run(1, "h", 1.0);
    let mut b = run(2, "h", 1.0);
    let p = toll_measure::platform::Platform {
        mitigations: vec![("meltdown".into(), "Mitigation: PTI".into())],
        ..Default::default()
    };
    a.env.platform = Some(p.clone());
    b.env.platform = Some(toll_measure::platform::Platform {
        mitigations: vec![("meltdown".into(), "Not affected".into())],
        kernel_flags: vec!["mitigations=off".into()],
        ..p.clone()
    });
    let c = RunComparison::of(&a, &b, rules(0.05)).unwrap();
    let what: Vec<&str> = c.differences.iter().map(|d| d.what.as_str()).collect();
    assert!(what.contains(&"mitigations"), "{what:?}");
    assert!(what.contains(&"kernel flags"), "{what:?}");
    // A row only the later run has (read since the other was stored) is
    // not a difference; a row both have and that differs is.
    b.env.platform = Some(toll_measure::platform::Platform {
        reclaim: Some(vec!["DAMON pageout".into()]),
        ..p.clone()
    });
    let c = RunComparison::of(&a, &b, rules(0.05)).unwrap();
    assert!(c.differences.iter().all(|d| d.what != "memory reclaim"));
    a.env.platform = Some(toll_measure::platform::Platform {
        reclaim: Some(vec![]),
        ..p.clone()
    });
    let c = RunComparison::of(&a, &b, rules(0.05)).unwrap();
    assert!(
        c.differences.iter().any(|d| d.what == "memory reclaim"),
        "{:?}",
        c.differences
    );
    // A run stored before the platform was read differs in nothing here.
    b.env.platform = None;
    let c = RunComparison::of(&a, &b, rules(0.05)).unwrap();
    assert!(c.differences.iter().all(|d| d.what != "mitigations"));
}

#[test]
fn runs_of_two_families_are_refused_with_the_fix() {
    let mut b = run(2, "h", 1.0);
    b.family = "spawn".into();
    let e = RunComparison::of(&run(1, "h", 1.0), &b, rules(0.05)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "run 1 is a transfer run and run 2 a spawn run: compare two runs of one family (see `toll runs`)"
    );
    assert!(RunComparison::of(
        &run(1, "h", 1.0),
        &run(2, "h", 1.0),
        Rules {
            alpha: 0.0,
            threshold: 0.0,
            mixed_latency: false,
        }
    )
    .is_err());
}

#[test]
fn three_trials_a_side_are_warned_about() {
    let mut a = run(1, "h", 1.0);
    let mut b = run(2, "h", 2.0);
    for r in [&mut a, &mut b] {
        for p in &mut r.series[0].points {
            p.samples.truncate(3);
        }
    }
    let c = RunComparison::of(&a, &b, rules(0.05)).unwrap();
    assert_eq!(
        c.counts.same, 3,
        "twice as slow, yet 3 trials cannot show it"
    );
    assert!(c.warnings[0].contains("more trials"), "{:?}", c.warnings);
}

/// The bar's band and tick, px from its left: (band x, band width, tick x).
fn bar_parts(svg: &str) -> (f64, f64, f64) {
    let num = |s: &str, key: &str| -> f64 {
        let v = s.split(key).nth(1).unwrap().split('"').next().unwrap();
        v.parse().unwrap()
    };
    let rects: Vec<&str> = svg.split("<rect").skip(1).collect();
    (
        num(rects[0], "x=\""),
        num(rects[0], "width=\""),
        num(rects[1], "x=\""),
    )
}

#[test]
fn the_html_page_is_a_table_with_bars_badges_and_no_terminal_text() {
    let a = run(1, "h", 1.0);
    let mut b = run(2, "<b>", 1.1);
    b.series[0].label = "rust/pipe".into();
    let c = RunComparison::of(&a, &b, rules(0.05)).unwrap();
    let page = html::page(&c, "9.9.9");
    assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
    assert!(
        !page.contains("<pre") && !page.contains("<script"),
        "{page}"
    );
    // A host name from a run is escaped, and the pair is said loudly.
    assert!(
        page.contains("&lt;b&gt;") && !page.contains("<b>h"),
        "{page}"
    );
    assert!(page.contains("<p class=\"warn\">ACROSS MACHINES"), "{page}");
    // A row per point and one per fit parameter, each with its bar.
    let rows = page.split("<tbody>").nth(2).expect("the series' rows");
    for n in ["0", "1000", "10000", "α", "β"] {
        assert!(rows.contains(&format!("<td class=\"num\">{n}</td>")), "{n}");
    }
    assert_eq!(rows.matches("<svg").count(), 5, "{rows}");
    assert_eq!(rows.matches("badge v-busy\">slower").count(), 3, "{rows}");
    assert!(rows.contains("+10.0%"), "{rows}");
    // +10% sits right of 0 (the middle), its band around the tick.
    let svg = rows.split("<svg").nth(1).unwrap();
    let (band, width, tick) = bar_parts(svg);
    assert!(
        band > html_mid() && tick > band && tick < band + width,
        "{svg}"
    );
    assert!(page.contains("3 slower, 0 faster"), "{page}");
}

#[test]
fn a_faster_point_is_drawn_left_of_zero_and_under_the_threshold_says_its_threshold() {
    let c = RunComparison::of(&run(2, "h", 1.1), &run(1, "h", 1.0), rules(0.05)).unwrap();
    let mut h = String::new();
    html::body(&mut h, &c);
    let svg = h.split("<svg").nth(1).unwrap();
    let (band, width, _) = bar_parts(svg);
    assert!(band + width < html_mid(), "{svg}");
    assert!(h.contains("badge v-ok\">faster"), "{h}");
    let c = RunComparison::of(&run(1, "h", 1.0), &run(2, "h", 1.02), rules(0.05)).unwrap();
    let mut h = String::new();
    html::body(&mut h, &c);
    assert!(h.contains("badge v-noisy\">under 5%"), "{h}");
}

/// The bar's 0, px from its left.
fn html_mid() -> f64 {
    let svg = html::bar(0.0, (0.0, 0.0), 1.0, Verdict::Same);
    svg.split("x1=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}
