//! The exporters write what the committed schema and the CSV header promise.

use serde_json::{json, Value};
use toll_measure::fit::{Fit, FitMethod};
use toll_measure::summary::Outliers;
use toll_measure::{Fingerprint, Sample, SeriesFit, Summary};
use toll_report::export::{exporter, Format};
use toll_store::{Point, PointStatus, Run, RunStatus, Series};

fn run() -> Run {
    let summary = Summary {
        count: 2,
        median: 1500.0,
        mean: 1510.0,
        stddev: 14.0,
        min: 1500.0,
        max: 1520.0,
        mad: 10.0,
        ci_low: 1500.0,
        ci_high: 1520.0,
        ci_level: Some(0.95),
        cv: 0.009,
        outliers: Outliers::default(),
        too_noisy: false,
    };
    let f = Fit {
        method: FitMethod::TheilSen,
        alpha: 1000.0,
        alpha_ci: (900.0, 1100.0),
        beta: 0.5,
        beta_ci: (0.4, 0.6),
        r2: 0.98,
        n_half: Some(2000.0),
    };
    Run {
        id: 7,
        family: "transfer".into(),
        started_at: "2026-11-22T10:00:00Z".into(),
        finished_at: Some("2026-11-22T10:01:00Z".into()),
        status: RunStatus::Complete,
        summary: "1 series".into(),
        error: None,
        config: json!({"sizes": [0, 1000]}),
        env: Fingerprint {
            cpu_model: "Test, \"quoted\" CPU".into(),
            toolchains: vec![("cc".into(), "gcc 12".into())],
            ..Default::default()
        },
        tool_version: "0.1.0".into(),
        series: vec![Series {
            id: 1,
            label: "c/pipe".into(),
            attrs: json!({"peer": "c", "transport": "pipe", "peer_cpu": 1, "note": "a, b"}),
            fit: Some(SeriesFit {
                least_squares: Fit {
                    method: FitMethod::LeastSquares,
                    ..f.clone()
                },
                robust: f,
                nonlinear: false,
                weighted: None,
                check: None,
                run_to_run: None,
                decision: None,
            }),
            points: vec![
                Point {
                    n: 0,
                    status: PointStatus::Ok,
                    error: None,
                    summary: Some(summary.clone()),
                    samples: vec![
                        Sample {
                            iters: 10,
                            total_ns: 15000,
                        },
                        Sample {
                            iters: 10,
                            total_ns: 15200,
                        },
                    ],
                    extra: Some(serde_json::json!({"mem_kb_per_unit": 1.5})),
                },
                Point {
                    n: 1000,
                    status: PointStatus::Failed,
                    error: Some("peer c exited".into()),
                    summary: None,
                    samples: vec![],
                    extra: None,
                },
            ],
        }],
    }
}

/// A small check of `value` against the schema: required keys and types, recursively.
fn check(schema: &Value, defs: &Value, value: &Value, at: &str) {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => &defs[r.trim_start_matches("#/$defs/")],
        None => schema,
    };
    if let Some(c) = schema.get("const") {
        assert_eq!(value, c, "{at}: not the schema's constant");
    }
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let ok = types.contains(&actual) || (actual == "integer" && types.contains(&"number"));
        assert!(ok, "{at}: {actual} is not one of {types:?}");
    }
    if let (Some(req), Some(obj)) = (
        schema.get("required").and_then(Value::as_array),
        value.as_object(),
    ) {
        for k in req {
            assert!(
                obj.contains_key(k.as_str().unwrap()),
                "{at}: missing required `{k}`"
            );
        }
    }
    if let (Some(props), Some(obj)) = (
        schema.get("properties").and_then(Value::as_object),
        value.as_object(),
    ) {
        for (k, sub) in props {
            if let Some(v) = obj.get(k) {
                check(sub, defs, v, &format!("{at}.{k}"));
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            check(items, defs, v, &format!("{at}[{i}]"));
        }
    }
}

#[test]
fn json_export_matches_the_committed_schema() {
    let mut out = Vec::new();
    exporter(Format::Json).export(&run(), &mut out).unwrap();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let schema: Value = serde_json::from_str(include_str!("../schema.json")).unwrap();
    check(&schema, &schema["$defs"], &v, "$");
    assert_eq!(v["schema_version"], 5);
    assert_eq!(v["series"][0]["points"][0]["samples"][1]["total_ns"], 15200);
}

#[test]
fn csv_export_has_a_row_per_sample_and_quotes_fields() {
    let mut out = Vec::new();
    exporter(Format::Csv).export(&run(), &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "run_id,family,series,n,trial,iters,total_ns,ns_per_op,attr_note,attr_peer,attr_peer_cpu,attr_transport");
    assert_eq!(
        lines[1],
        "7,transfer,c/pipe,0,0,10,15000,1500.000,\"a, b\",c,1,pipe"
    );
    assert_eq!(lines.len(), 3, "two samples; the failed point has none");
}

#[test]
fn unknown_formats_list_the_valid_ones() {
    assert_eq!(
        "xml".parse::<Format>().unwrap_err(),
        "unknown export format `xml`: valid formats are json, csv"
    );
}

#[test]
fn show_renders_models_points_and_failures() {
    let text = toll_report::show::render_run(&run());
    assert!(text.starts_with("run 7 — transfer — complete"));
    assert!(text.contains("α = 1.00 µs [900 ns, 1.10 µs]"), "{text}");
    assert!(text.contains("n = 1000: peer c exited"), "{text}");
    assert!(text.contains("toolchain  cc: gcc 12"));
}

/// A run with every field the model's checks add — a fit that found a
/// staircase (so the piecewise model is there), the busiest process and the
/// placement probe — still matches the schema.
#[test]
fn a_run_with_the_checks_and_the_probe_matches_the_schema() {
    let mut r = run();
    let stair = |n: f64| 5000.0 + 2.5 * n + 15.0 * (n - 16_384.0).max(0.0);
    let points: Vec<(f64, Vec<f64>)> = [0.0, 1.0, 100.0, 1e3, 4e3, 1e4, 2e4, 4e4, 6e4, 1e5]
        .iter()
        .map(|&n| {
            (
                n,
                (0..6)
                    .map(|i| stair(n) * (1.0 + 0.003 * f64::from(i)))
                    .collect(),
            )
        })
        .collect();
    let fit = toll_measure::fit::fit_series(&points).unwrap();
    assert!(fit.check.as_ref().unwrap().piecewise.is_some(), "{fit:?}");
    r.series[0].fit = Some(fit);
    r.env.busiest = Some(("cargo".into(), 0.97));
    r.env.wakeup = Some(toll_measure::wakeup::WakeUp {
        same_core_ns: 5100.0,
        cross_core_ns: Some(48_000.0),
        probed_at: Some(1_764_000_000),
    });
    let mut out = Vec::new();
    exporter(Format::Json).export(&r, &mut out).unwrap();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let schema: Value = serde_json::from_str(include_str!("../schema.json")).unwrap();
    check(&schema, &schema["$defs"], &v, "$");
    assert!(v["series"][0]["fit"]["check"]["piecewise"]["break_n"].is_number());
    assert_eq!(v["env"]["wakeup"]["cross_core_ns"], 48_000.0);
    assert_eq!(v["env"]["wakeup"]["probed_at"], 1_764_000_000u64);
    let back: Run = serde_json::from_value(v).unwrap();
    assert_eq!(back.series[0].fit, r.series[0].fit);
}

/// What `toll export --format json` writes, `toll import` reads back whole;
/// a newer schema_version and JSON that is not a run are refused.
#[test]
fn an_exported_run_is_read_back_by_import_and_other_json_is_not() {
    use toll_report::import::{read_run, ImportError};
    let mut out = Vec::new();
    exporter(Format::Json).export(&run(), &mut out).unwrap();
    let back = read_run(std::str::from_utf8(&out).unwrap()).unwrap();
    assert_eq!(
        serde_json::to_value(&back).unwrap(),
        serde_json::to_value(run()).unwrap()
    );
    let mut v: Value = serde_json::from_slice(&out).unwrap();
    v["schema_version"] = (toll_report::export::SCHEMA_VERSION + 1).into();
    assert!(matches!(
        read_run(&v.to_string()),
        Err(ImportError::TooNew { .. })
    ));
    v["schema_version"] = toll_report::export::SCHEMA_VERSION.into();
    v["series"][0]["points"][0]["samples"][0]
        .as_object_mut()
        .unwrap()
        .remove("iters");
    let e = read_run(&v.to_string()).unwrap_err().to_string();
    assert!(
        e.contains("$.series[0].points[0].samples[0]: `iters` is missing"),
        "{e}"
    );
    for other in ["[1, 2]", r#"{"name": "x"}"#] {
        assert_eq!(read_run(other).err(), Some(ImportError::NotTollRun));
    }
}

/// The export is written as its frame and each point's samples into their
/// gaps (so a run of millions of samples is never held whole as text or as
/// a Value): byte for byte what the whole run printed as one Value was; and
/// read back from a reader a piece at a time, it is the same run.
#[test]
fn the_streamed_export_is_the_whole_value_printed_and_reads_back_from_a_reader() {
    let r = run();
    let mut out = Vec::new();
    exporter(Format::Json).export(&r, &mut out).unwrap();
    let mut v = serde_json::to_value(&r).unwrap();
    v["schema_version"] = toll_report::export::SCHEMA_VERSION.into();
    let mut whole = serde_json::to_vec_pretty(&v).unwrap();
    whole.push(b'\n');
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        String::from_utf8(whole).unwrap()
    );
    /// A reader that gives a byte at a time.
    struct Trickle<'a>(&'a [u8]);
    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let Some((first, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            buf[0] = *first;
            self.0 = rest;
            Ok(1)
        }
    }
    let back = toll_report::import::read_run_from(Trickle(&out)).unwrap();
    assert_eq!(
        serde_json::to_value(&back).unwrap(),
        serde_json::to_value(&r).unwrap()
    );
    let cut = toll_report::import::read_run_from(Trickle(&out[..out.len() / 2]));
    assert!(
        matches!(cut, Err(toll_report::import::ImportError::NotJson(_))),
        "{cut:?}"
    );
}

/// Issue 17: durations in a run's config are whole nanoseconds under `_ns`
/// names — EngineConfig's own, and the families' json! configs — and the
/// schema says so.
#[test]
fn durations_are_exported_as_whole_nanoseconds() {
    let mut r = run();
    r.config = json!({
        "sizes": [0, 1000], "engine": toll_measure::EngineConfig::default(),
        "max_time_ns": 60_000_000_000_u64, "time_limit_ns": null,
    });
    let mut out = Vec::new();
    exporter(Format::Json).export(&r, &mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        !text.contains("\"secs\"") && !text.contains("\"nanos\""),
        "{text}"
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    let schema: Value = serde_json::from_str(include_str!("../schema.json")).unwrap();
    check(&schema, &schema["$defs"], &v, "$");
    assert_eq!(v["config"]["engine"]["warmup_ns"], 100_000_000);
    assert_eq!(v["config"]["engine"]["batch_time_ns"], 10_000_000);
    // A config still holding serde's shape is refused by the schema's types.
    let mut bad = v.clone();
    bad["config"]["engine"]["warmup_ns"] = json!({"secs": 0, "nanos": 1});
    let refused = std::panic::catch_unwind(|| check(&schema, &schema["$defs"], &bad, "$"));
    assert!(refused.is_err(), "the schema must refuse {{secs, nanos}}");
}

/// An export from an older toll (schema 2: serde's `{"secs", "nanos"}` and
/// float seconds in the config) imports, its config in today's shape.
#[test]
fn an_older_export_imports_with_its_durations_upgraded() {
    use toll_report::import::read_run;
    let mut out = Vec::new();
    exporter(Format::Json).export(&run(), &mut out).unwrap();
    let mut v: Value = serde_json::from_slice(&out).unwrap();
    v["schema_version"] = 2.into();
    v["config"] = json!({
        "sizes": [0, 1000],
        "engine": {"trials": 3, "warmup": {"secs": 0, "nanos": 100_000_000},
                   "batch_time": {"secs": 0, "nanos": 10_000_000}, "max_iters": 1000},
        "max_time_s": 60.0,
    });
    let back = read_run(&v.to_string()).unwrap();
    assert_eq!(back.config["engine"]["warmup_ns"], 100_000_000);
    assert_eq!(back.config["max_time_ns"], 60_000_000_000_u64);
    assert!(back.config["engine"].get("warmup").is_none());
}
