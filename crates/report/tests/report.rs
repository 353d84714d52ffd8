//! `toll report`'s page and Markdown for a run whose every outside string
//! is hostile: host name, label, command, URL and error message arrive as
//! text, never as markup, and the structure around them holds.

use serde_json::json;
use toll_measure::fit::{Fit, FitMethod};
use toll_measure::summary::Outliers;
use toll_measure::{Fingerprint, SeriesFit, Summary};
use toll_report::plot::Scale;
use toll_store::{Point, PointStatus, Run, RunStatus, Series};

const EVIL: &str = "<script>alert('x')</script>|\"><img src=http://evil/x>";

fn point(n: u64, median: f64) -> Point {
    Point {
        n,
        status: PointStatus::Ok,
        error: None,
        summary: Some(Summary {
            count: 3,
            median,
            mean: median,
            stddev: median * 0.01,
            min: median * 0.99,
            max: median * 1.01,
            mad: median * 0.01,
            ci_low: median * 0.98,
            ci_high: median * 1.02,
            ci_level: Some(0.95),
            cv: 0.01,
            outliers: Outliers::default(),
            too_noisy: false,
        }),
        samples: vec![],
        extra: None,
    }
}

fn run() -> Run {
    let mut run = undecided();
    // Decided as the store decides every run it writes or reads.
    toll_store::upgrade::decide(&mut run);
    run
}

fn undecided() -> Run {
    let f = Fit {
        method: FitMethod::WeightedLeastSquares,
        alpha: 5000.0,
        alpha_ci: (4900.0, 5100.0),
        beta: 2.0,
        beta_ci: (1.9, 2.1),
        r2: 0.999,
        n_half: Some(2500.0),
    };
    Run {
        id: 3,
        family: "transfer".into(),
        started_at: "2026-11-22T10:00:00Z".into(),
        finished_at: None,
        status: RunStatus::Partial,
        summary: format!("1 series {EVIL}"),
        error: Some(format!("peer died: {EVIL}")),
        config: json!({"url": EVIL, "sizes": [0, 100, 10000, 100000]}),
        env: Fingerprint {
            hostname: EVIL.into(),
            cpu_model: "Test CPU".into(),
            toolchains: vec![("cc".into(), EVIL.into())],
            ..Default::default()
        },
        tool_version: "0.1.0".into(),
        series: vec![Series {
            id: 1,
            label: EVIL.into(),
            attrs: json!({"peer": "c"}),
            fit: Some(SeriesFit {
                least_squares: Fit {
                    method: FitMethod::LeastSquares,
                    ..f.clone()
                },
                robust: Fit {
                    method: FitMethod::TheilSen,
                    ..f.clone()
                },
                weighted: Some(f),
                nonlinear: false,
                check: None,
                run_to_run: None,
                decision: None,
            }),
            points: [0u64, 100, 10_000, 100_000]
                .iter()
                .map(|&n| point(n, 5000.0 + 2.0 * n as f64))
                .collect(),
        }],
    }
}

#[test]
fn the_page_escapes_every_outside_string_and_keeps_its_structure() {
    let html = toll_report::html::render(&[run()], Scale::Auto, "0.1.0");
    assert!(!html.contains("<script"), "a label became a script");
    assert!(!html.contains("<img"), "a label became an image");
    let escaped =
        "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;|&quot;&gt;&lt;img src=http://evil/x&gt;";
    // Host, toolchain, config, summary, error, label (models table, series
    // heading, and `toll show`'s text in the details).
    assert!(html.matches(escaped).count() >= 6, "{html}");
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"));
    // Machine, config, models, points: four tables; one plot.
    assert_eq!(html.matches("<table").count(), 4);
    assert_eq!(html.matches("<svg").count(), 1);
    assert!(html.contains("Stopped: peer died"));
    assert!(html.ends_with("</html>\n"));
}

#[test]
fn markdown_cells_stay_cells() {
    let md = toll_report::markdown::render(&[run()], "0.1.0");
    assert!(!md.contains("<script") && !md.contains("<img"));
    // Every row of a table has as many unescaped `|` as its header.
    let pipes = |l: &str| l.replace("\\|", "").matches('|').count();
    let mut header = None;
    for line in md.lines() {
        if !line.starts_with('|') {
            header = None;
            continue;
        }
        let h = *header.get_or_insert(pipes(line));
        assert_eq!(pipes(line), h, "a cell broke out: {line}");
    }
    assert!(md.contains("| series | measured t(n₀) | α |"), "{md}");
    assert!(
        md.contains("| 5.00 µs | [4.90 µs, 5.10 µs] | 2.00 |"),
        "{md}"
    );
    assert!(md.contains("> **Stopped:** peer died"));
}
