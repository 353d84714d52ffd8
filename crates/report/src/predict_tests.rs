use super::*;
use serde_json::json;
use toll_measure::model::{LackOfFit, ModelCheck, Piecewise, SmallEnd};
use toll_measure::{Fingerprint, Fit, FitMethod, SeriesFit};
use toll_store::Point;

fn fit(check: Option<ModelCheck>) -> SeriesFit {
    let f = Fit {
        method: FitMethod::WeightedLeastSquares,
        alpha: 8000.0,
        alpha_ci: (7500.0, 8500.0),
        beta: 1.5,
        beta_ci: (1.0, 2.0),
        r2: 0.99,
        n_half: None,
    };
    SeriesFit {
        least_squares: f.clone(),
        robust: f.clone(),
        weighted: Some(f),
        nonlinear: false,
        check,
        run_to_run: None,
        decision: None,
    }
}

fn series(peer: &str, via: &str, fit: Option<SeriesFit>) -> Series {
    Series {
        id: 1,
        label: format!("{peer}/{via}"),
        attrs: json!({"peer": peer, "transport": via, "unit": "items", "pin": "split"}),
        fit,
        points: [0u64, 1000, 100_000]
            .iter()
            .map(|&n| Point {
                n,
                status: PointStatus::Ok,
                error: None,
                summary: None,
                samples: vec![],
                extra: None,
            })
            .collect(),
    }
}

fn run(series: Vec<Series>) -> Run {
    Run {
        id: 7,
        family: "transfer".into(),
        started_at: "2025-01-01T00:00:00Z".into(),
        finished_at: None,
        status: RunStatus::Complete,
        summary: String::new(),
        error: None,
        config: json!({}),
        env: Fingerprint {
            hostname: "box".into(),
            cpu_model: "Test CPU".into(),
            ..Fingerprint::default()
        },
        tool_version: "0.1.0".into(),
        series,
    }
}

fn sel(pairs: &[(&str, &str, &str)]) -> Selector {
    Selector {
        label: None,
        attrs: pairs
            .iter()
            .map(|(f, k, v)| (f.to_string(), k.to_string(), v.to_string()))
            .collect(),
    }
}

#[test]
fn the_selected_series_answers_with_its_interval() {
    let r = run(vec![
        series("rust", "pipe", Some(fit(None))),
        series("python", "pipe", Some(fit(None))),
        series("python", "tcp", Some(fit(None))),
    ]);
    let s = pick(
        &r,
        "transfer",
        &sel(&[("--peer", "peer", "python"), ("--via", "transport", "pipe")]),
    )
    .unwrap();
    assert_eq!(s.label, "python/pipe");
    let a = answer(&r, s, 100_000).unwrap();
    assert_eq!(a.prediction.time_ns, 8000.0 + 150_000.0);
    assert_eq!(a.prediction.ci_ns, (107_500.0, 208_500.0));
    assert_eq!(a.measured, (0, 100_000));
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    let text = render(&a);
    assert!(
        text.starts_with("transfer python/pipe: t(100000) = 158 µs  95% CI [108 µs, 208 µs]"),
        "{text}"
    );
    assert!(
        text.contains("from run 7 (2025-01-01 00:00:00) on box (Test CPU)"),
        "{text}"
    );
    assert!(text.contains("conservative"), "{text}");
}

#[test]
fn outside_the_measured_range_or_off_the_line_is_warned_about() {
    let r = run(vec![series("rust", "pipe", Some(fit(None)))]);
    let s = &r.series[0];
    let a = answer(&r, s, 1_000_000).unwrap();
    assert!(
        a.warnings[0].contains("outside the measured range 0…100000"),
        "{:?}",
        a.warnings
    );
    let check = ModelCheck {
        rounds: 10,
        small_end: SmallEnd {
            n: 0.0,
            measured: 8000.0,
            measured_ci: (7900.0, 8100.0),
            predicted_ci: (7500.0, 8500.0),
            difference_ci: (-500.0, 500.0),
            agrees: true,
        },
        lack_of_fit: LackOfFit {
            chi2: 100.0,
            df: 1,
            p: 1e-9,
            worst_miss: 0.2,
            worst_at: 1000.0,
            largest: None,
            fits: false,
        },
        piecewise: Some(Piecewise {
            alpha: 8000.0,
            alpha_ci: (7900.0, 8100.0),
            beta_small: 1.0,
            beta: 2.0,
            beta_ci: (1.9, 2.1),
            break_n: 16_384.0,
            split: (10_000.0, 20_000.0),
        }),
        kept_line: Some(0.0),
    };
    let r = run(vec![series("rust", "pipe", Some(fit(Some(check))))]);
    let a = answer(&r, &r.series[0], 50_000).unwrap();
    assert_eq!(a.prediction.model, Model::PiecewiseLarge);
    assert!(
        a.warnings[0].contains("piecewise model answers (large-size segment; break ≈ 16384)"),
        "{:?}",
        a.warnings
    );
    assert!(render(&a).contains("the piecewise model, large-size segment"));
}

#[test]
fn a_selector_that_picks_none_or_many_says_which_there_are() {
    let r = run(vec![
        series("rust", "pipe", Some(fit(None))),
        series("rust", "tcp", Some(fit(None))),
        series("c", "pipe", None),
    ]);
    let e = pick(&r, "transfer", &sel(&[("--peer", "peer", "rust")])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--peer rust matches rust/pipe, rust/tcp in run 7: pick one with --series LABEL"
    );
    let e = pick(&r, "transfer", &sel(&[("--peer", "peer", "java")])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "run 7 has no series matching --peer java; its series: rust/pipe, rust/tcp, c/pipe"
    );
    let e = pick(&r, "transfer", &sel(&[("--peer", "peer", "c")])).unwrap_err();
    assert!(matches!(e, PickError::NoFit { sizes: 3, .. }), "{e:?}");
    // Sizes enough, yet no line: its family fits none (`toll sys`'s chase).
    assert!(
        e.to_string().contains("its family fits no line to it"),
        "{e}"
    );
    let e = pick(&r, "spawn", &Selector::default()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("run 7 is a transfer run, not spawn"),
        "{e}"
    );
    let by_label = Selector {
        label: Some("rust/tcp".into()),
        attrs: vec![],
    };
    assert_eq!(pick(&r, "transfer", &by_label).unwrap().label, "rust/tcp");
}

#[test]
fn among_many_only_the_series_with_a_model_are_offered() {
    // `toll sys` without --series: one-point figures beside fitted ones.
    let r = run(vec![
        series("syscall", "getppid", None),
        series("fault", "touch", Some(fit(None))),
        series("copy", "memcpy", Some(fit(None))),
    ]);
    let e = pick(&r, "transfer", &Selector::default()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "no selector matches fault/touch, copy/memcpy in run 7: pick one with --series LABEL"
    );
    // One with a model among them answers.
    let r = run(vec![
        series("syscall", "getppid", None),
        series("copy", "memcpy", Some(fit(None))),
    ]);
    let s = pick(&r, "transfer", &Selector::default()).unwrap();
    assert_eq!(s.label, "copy/memcpy");
}
