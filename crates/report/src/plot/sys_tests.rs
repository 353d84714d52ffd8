use super::*;
use crate::plot::heatmap::BAR_STEPS;
use serde_json::json;
use toll_measure::summary::Summary;
use toll_measure::Fingerprint;
use toll_store::{Point, RunStatus};

fn point(n: u64, ns: f64) -> Point {
    Point {
        n,
        status: PointStatus::Ok,
        error: None,
        summary: Some(Summary::of(&[ns * 0.97, ns, ns * 1.02, ns * 1.05])),
        samples: vec![],
        extra: None,
    }
}

fn failed(n: u64, why: &str) -> Point {
    Point {
        n,
        status: PointStatus::Failed,
        error: Some(why.into()),
        summary: None,
        samples: vec![],
        extra: None,
    }
}

fn series(label: &str, attrs: Value, points: Vec<Point>) -> Series {
    Series {
        id: 1,
        label: label.into(),
        attrs,
        fit: None,
        points,
    }
}

fn one(label: &str, per: &str, ns: f64) -> Series {
    let crossing = label.split('/').next().unwrap();
    series(
        label,
        json!({"crossing": crossing, "per": per}),
        vec![point(0, ns)],
    )
}

fn chase() -> Series {
    let points = (12..=22)
        .map(|k| point(1 << k, if k <= 15 { 1.5 } else { 6.0 }))
        .collect();
    series(
        "memory/chase",
        json!({
            "crossing": "memory", "per": "load",
            "levels": [{"fits": 32768, "ns": 1.5}, {"fits": 4194304, "ns": 6.0}],
            "caches": [
                {"level": 1, "kind": "Data", "bytes": 49152},
                {"level": 2, "kind": "Unified", "bytes": 2097152},
                {"level": 3, "kind": "Unified", "bytes": 272629760}
            ]
        }),
        points,
    )
}

fn run(series: Vec<Series>) -> Run {
    Run {
        id: 3,
        family: "sys".into(),
        started_at: String::new(),
        finished_at: None,
        status: RunStatus::Complete,
        summary: String::new(),
        error: None,
        config: json!({}),
        env: Fingerprint::default(),
        tool_version: "0".into(),
        series,
    }
}

/// A handoff series per ordered pair of `k` CPUs.
fn handoffs(k: usize) -> Vec<Series> {
    let mut out = Vec::new();
    for a in 0..k {
        for b in (0..k).filter(|&b| b != a) {
            out.push(one(&format!("handoff/{a}-{b}"), "handoff", 50.0 + a as f64));
        }
    }
    out
}

fn everything(k: usize) -> Run {
    let mut s = vec![
        one("syscall/getppid", "call", 110.0),
        one("syscall/vdso-clock", "call", 26.0),
        one("wake/futex-thread/cross-core", "round trip", 40_000.0),
    ];
    s.extend(handoffs(k));
    s.push(chase());
    s.push(series(
        "copy/memcpy",
        json!({"crossing": "copy", "per": "copy"}),
        vec![point(64, 10.0), point(4096, 60.0), point(65536, 900.0)],
    ));
    run(s)
}

/// Whether `svg` has a text element reading `t`.
fn text(svg: &str, t: &str) -> bool {
    svg.contains(&format!(">\n{t}\n</text>"))
}

/// The nested part of `svg` marked `class`, up to its end.
fn part<'a>(svg: &'a str, class: &str) -> Option<&'a str> {
    let at = svg.find(&format!("<svg class=\"{class}\""))?;
    let len = svg[at..].find("</svg>")?;
    Some(&svg[at..at + len])
}

#[test]
fn every_part_of_a_whole_run_is_drawn() {
    let svg = SysCharts::for_run(&everything(2))
        .unwrap()
        .svg(Scale::Log)
        .unwrap();
    for class in ["dots", "heatmap", "staircase", "lines"] {
        assert!(part(&svg, class).is_some(), "{class} missing");
    }
    assert_eq!(svg.matches("<svg").count(), 5);
    assert_eq!(svg.matches("</svg>").count(), 5);
}

#[test]
fn the_heat_map_has_a_rect_per_cell() {
    for k in [2, 3, 8] {
        let svg = SysCharts::for_run(&everything(k))
            .unwrap()
            .svg(Scale::Log)
            .unwrap();
        let map = part(&svg, "heatmap").unwrap();
        // The background, k × k cells (the diagonal blank), the frame, the bar.
        assert_eq!(map.matches("<rect").count(), 1 + k * k + 1 + BAR_STEPS);
    }
}

#[test]
fn the_staircase_marks_each_cache_inside_its_sizes() {
    let svg = SysCharts::for_run(&everything(2))
        .unwrap()
        .svg(Scale::Log)
        .unwrap();
    let stairs = part(&svg, "staircase").unwrap();
    // The legend's dash, L1d's and L2's; L3 (260 MiB) is past 4 MiB.
    assert_eq!(crate::plot::staircase::dashed_columns(stairs), 3);
    assert!(text(stairs, "L1d 48 KiB") && text(stairs, "L2 2 MiB"));
    assert!(stairs.contains("L3 (260 MiB) lies above"));
    // The two steps, each with its time.
    assert!(text(stairs, "1.5 ns") && text(stairs, "6 ns"));
}

#[test]
fn a_dot_per_figure_and_one_for_the_handoff_pairs() {
    let c = SysCharts::for_run(&everything(4)).unwrap();
    let rows: Vec<&DotRow> = c.dots.groups.iter().flat_map(|g| &g.rows).collect();
    // getppid, vdso, the wake, the median pair of 12, and memcpy's row
    // saying it has no model (so no α or β).
    let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
    assert_eq!(rows.len(), 5, "{labels:?}");
    assert!(
        labels.contains(&"the median pair of 12: CPU 1 → 3"),
        "{labels:?}"
    );
    assert!(
        labels.iter().any(|l| l.starts_with("memcpy: 3 sizes")),
        "{labels:?}"
    );
    let svg = c.svg(Scale::Log).unwrap();
    let dots = part(&svg, "dots").unwrap();
    // The legend's, then a dot and its white edge per figure.
    assert_eq!(dots.matches("<circle").count(), 1 + 2 * 4);
    assert!(dots.contains("ns per operation"));
}

#[test]
fn a_run_of_system_calls_alone_has_only_dots() {
    let r = run(vec![
        one("syscall/getppid", "call", 110.0),
        one("syscall/vdso-clock", "call", 26.0),
    ]);
    let c = SysCharts::for_run(&r).unwrap();
    assert!(c.matrix.is_none() && c.staircase.is_none() && c.lines.is_empty());
    let svg = c.svg(Scale::Log).unwrap();
    assert!(part(&svg, "dots").is_some());
    assert!(part(&svg, "heatmap").is_none() && part(&svg, "staircase").is_none());
}

#[test]
fn broken_or_empty_runs_draw_what_they_can_and_never_panic() {
    assert!(SysCharts::for_run(&run(vec![]))
        .unwrap()
        .svg(Scale::Log)
        .is_err());
    let mut other = run(vec![]);
    other.family = "ffi".into();
    assert!(SysCharts::for_run(&other).is_none());
    let junk = run(vec![
        series(
            "handoff",
            json!({"crossing": "handoff"}),
            vec![failed(0, "a handoff needs two CPUs")],
        ),
        series("handoff/x-y", json!({}), vec![point(0, 5.0)]),
        series("handoff/0-1", json!({}), vec![failed(0, "stopped")]),
        series(
            "memory/chase",
            json!({"levels": [{"fits": "a"}, 3], "caches": "L2"}),
            vec![],
        ),
        series("syscall/getppid", json!(null), vec![]),
        series(
            "copy/memcpy",
            json!({"crossing": "copy"}),
            vec![failed(64, "x"), failed(128, "y")],
        ),
    ]);
    let c = SysCharts::for_run(&junk).unwrap();
    assert!(c.matrix.is_none() && c.staircase.is_none() && c.lines.is_empty());
    // A label that names no pair is a figure like any other.
    let svg = c.svg(Scale::Log).unwrap();
    assert!(part(&svg, "dots").unwrap().contains("x-y (per op)"));
    assert!(part(&svg, "heatmap").is_none() && part(&svg, "staircase").is_none());
    // One CPU: the handoff row says why, beside a figure that was measured.
    let mut one_cpu = junk.clone();
    one_cpu.series.push(one("signal/self", "signal", 1500.0));
    let svg = SysCharts::for_run(&one_cpu)
        .unwrap()
        .svg(Scale::Log)
        .unwrap();
    assert!(
        svg.contains("handoff: not measured (a handoff needs two CPUs)"),
        "{svg}"
    );
}

#[test]
fn a_step_starts_past_the_climb_to_it() {
    let mut c = chase();
    // 64 KiB on the way up from 1.5 ns to 6: on neither step.
    c.points[4] = point(1 << 16, 3.0);
    let s = staircase(&run(vec![c])).unwrap();
    let ends: Vec<(f64, f64)> = s.steps.iter().map(|s| (s.first, s.last)).collect();
    assert_eq!(ends, [(4096.0, 32768.0), (131072.0, 4194304.0)]);
}

#[test]
fn the_caption_names_the_parts_drawn() {
    let all = SysCharts::for_run(&everything(2)).unwrap().caption();
    assert!(all.starts_with("From the top: each crossing") && all.contains("heat map"));
    let r = run(vec![one("syscall/getppid", "call", 110.0)]);
    let alone = SysCharts::for_run(&r).unwrap().caption();
    assert!(
        alone.starts_with("Each crossing") && !alone.contains("heat map"),
        "{alone}"
    );
}
