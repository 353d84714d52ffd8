//! `show`'s words: attributes and config as a person writes them, and
//! the fit's check lines agreeing with the figures they print.

use super::config_value;
use serde_json::json;

#[test]
fn series_attributes_read_as_words_with_units() {
    let attrs = json!({
        "peer": "rust", "item_bytes": 4, "others_busy": 0.12,
        "busiest": ["java", 0.2421], "warmup_ns": 100_000_000, "far": null,
    });
    let words = super::attr_words(&attrs);
    assert_eq!(
        words,
        "busiest: java, 24% of a CPU; item bytes: 4 B; others busy: 12% of the CPUs; \
         peer: rust; warmup: 100 ms"
    );
    assert!(!words.contains('{') && !words.contains('"'));
}

#[test]
fn config_values_read_as_a_person_writes_them() {
    assert_eq!(config_value(&json!("split")), "split");
    assert_eq!(config_value(&json!(10)), "10");
    assert_eq!(config_value(&json!(["pipe", "tcp"])), "pipe, tcp");
    assert_eq!(
        config_value(&json!({"secs": 0, "nanos": 10_000_000})),
        "10.0 ms"
    );
    assert_eq!(config_value(&json!({"secs": 60, "nanos": 0})), "60.0 s");
    assert_eq!(
        config_value(&json!({"op": "ring", "m": 1000})),
        "m=1000, op=ring"
    );
    assert_eq!(config_value(&json!(null)), "–");
    assert_eq!(
        config_value(&json!({"trials": 10, "warmup_ns": 100_000_000})),
        "trials=10, warmup=100 ms"
    );
    assert_eq!(
        super::config_row("timeout_ns", &json!(30_000_000_000_u64)),
        ("timeout".to_string(), "30.0 s".to_string())
    );
    assert_eq!(
        super::keyed_value("max_time_ns", &json!(60_000_000_000_u64)),
        "60.0 s"
    );
    assert_eq!(super::keyed_value("sizes", &json!(60)), "60");
    assert_eq!(config_value(&json!([1, 10, 100])), "1, 10, 100");
}

/// A series whose line misses one size inside that size's noise: what the
/// check lines say must agree with the figures they print.
fn a_fit() -> toll_measure::SeriesFit {
    let mut points = Vec::new();
    for round in 0..10 {
        let wobble = if round % 2 == 0 { 1.0 } else { -1.0 };
        for (n, t) in [
            (0.0, 30_000.0),
            (1000.0, 43_700.0),
            (2000.0, 50_000.0),
            (4000.0, 70_000.0),
        ] {
            let noise = if n == 1000.0 { 4_000.0 } else { 300.0 };
            points.push((n, vec![t + wobble * noise * (1.0 + round as f64 / 10.0)]));
        }
    }
    toll_measure::fit::fit_series(&points).expect("four sizes fit")
}

#[test]
fn the_lack_of_fit_line_names_the_size_missed_most_with_its_noise() {
    let fit = a_fit();
    let c = fit.check.as_ref().expect("a check");
    let m = c.lack_of_fit.largest.expect("the largest miss");
    let lines = super::fit_lines(&fit);
    let line = lines
        .iter()
        .find(|l| l.starts_with("lack of fit"))
        .expect("a lack-of-fit line");
    assert!(
        line.contains(&format!(
            "the line misses n = {} most, by {:+.1}%",
            m.at,
            m.share * 100.0
        )),
        "{line}"
    );
    assert!(
        line.contains(&format!("its own noise ±{:.1}%", m.noise * 100.0)),
        "{line}"
    );
    assert_eq!(
        line.contains("within it"),
        m.share.abs() <= m.noise,
        "{line}"
    );
    assert!(!line.contains("0.0% at"), "{line}");
}

#[test]
fn the_small_end_says_agree_exactly_when_its_paired_interval_holds_0() {
    let fit = a_fit();
    let e = &fit.check.as_ref().expect("a check").small_end;
    let lines = super::fit_lines(&fit);
    let line = lines
        .iter()
        .find(|l| l.starts_with("small end"))
        .expect("a small-end line");
    assert!(line.contains("paired round by round"), "{line}");
    let holds = e.difference_ci.0 <= 0.0 && 0.0 <= e.difference_ci.1;
    assert_eq!(holds, e.agrees);
    assert_eq!(line.ends_with("it holds 0, they agree"), holds, "{line}");
    assert_eq!(
        line.ends_with("it excludes 0, they disagree"),
        !holds,
        "{line}"
    );
}
