//! The HTML page checked as text: escaping, sections, tables, badges.

use super::*;

#[test]
fn escapes_everything_that_could_open_markup() {
    assert_eq!(
        escape(r#"<script>alert("x")</script> & 'y'"#),
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
    );
    assert_eq!(escape("rust/pipe µs α"), "rust/pipe µs α");
}

fn http_run(rate: Option<f64>) -> Run {
    use serde_json::json;
    let ps: Vec<(f64, f64)> = [50.0, 90.0, 99.0, 99.9, 100.0]
        .iter()
        .enumerate()
        .map(|(i, &p)| (p, 0.2 * (1 + i) as f64))
        .collect();
    let report = crate::http::HttpReport {
        complete_requests: 2000,
        uncorrected_percentiles: rate.map(|_| ps.clone()),
        percentiles: ps,
        target_rate: rate,
        ..Default::default()
    };
    let point = toll_store::Point {
        n: 2000,
        status: toll_store::PointStatus::Ok,
        error: None,
        summary: None,
        samples: vec![],
        extra: Some(json!({
            "report": report,
            "per_interval": {"ends_ns": [100_000_000, 200_000_000, 300_000_000], "requests": [600, 700, 700]},
        })),
    };
    Run {
        id: 4,
        family: "http".into(),
        started_at: String::new(),
        finished_at: None,
        status: toll_store::RunStatus::Complete,
        summary: "http://x/ 6000 req/s".into(),
        error: None,
        config: json!({"url": "http://x/"}),
        env: toll_measure::Fingerprint::default(),
        tool_version: "0".into(),
        series: vec![toll_store::Series {
            id: 1,
            label: "GET http://x/".into(),
            attrs: json!({}),
            fit: None,
            points: vec![point],
        }],
    }
}

#[test]
fn an_http_run_shows_its_load_not_a_model() {
    for rate in [None, Some(500.0)] {
        let page = render(&[http_run(rate)], Scale::Auto, "0");
        assert!(!page.contains("t(n) = α + β·n"), "{page}");
        assert!(page.contains("HTTP load: latency by percentile"));
        assert_eq!(page.matches("<svg").count(), 2, "two pictures");
        // `toll show`'s text, folded at the end, is its own.
        let shown = page.split("<details>").next().unwrap();
        for gone in ["No plot", "no model", "--trials", "<h3>Models</h3>"] {
            assert!(!shown.contains(gone), "{gone} on an http run's page");
        }
        for want in [
            "99.9%",
            "Requests per second over time",
            "<h3>Percentiles</h3>",
        ] {
            assert!(page.contains(want), "{want} missing");
        }
        assert_eq!(page.contains("uncorrected: from the send"), rate.is_some());
    }
}

#[test]
fn ratio_bars_sit_about_1() {
    let b = ratio_bar(1.1, 1.05, 1.15, 0.2);
    assert!(b.contains("#009E73"), "faster: green");
    assert!(ratio_bar(0.9, 0.85, 0.95, 0.2).contains("#D55E00"));
    assert!(ratio_bar(1.0, 0.95, 1.05, 0.2).contains("#5b6570"));
}

#[test]
fn verdicts_get_their_badges() {
    assert_eq!(verdict_class("ok"), "v-ok");
    assert_eq!(verdict_class("curve, break ≈ 16384"), "v-curve");
    assert_eq!(verdict_class("busy; ok"), "v-busy");
    assert_eq!(verdict_class("noisy"), "v-noisy");
}
