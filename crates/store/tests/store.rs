//! The store keeps whole runs, survives reopening and crashes, and refuses
//! files that are not its own.

use serde_json::json;
use std::path::PathBuf;
use toll_measure::fit::{Fit, FitMethod};
use toll_measure::summary::Outliers;
use toll_measure::{Fingerprint, Sample, SeriesFit, Summary};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store, StoreError};

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toll-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.join("sub").join("toll.db")
}

fn new_run() -> NewRun {
    NewRun {
        family: "transfer".into(),
        config: json!({"sizes": [0, 10]}),
        env: Fingerprint {
            cpu_model: "Test CPU".into(),
            logical_cpus: 2,
            ..Default::default()
        },
        tool_version: "0.1.0".into(),
    }
}

fn summary(median: f64) -> Summary {
    Summary {
        count: 2,
        median,
        mean: median,
        stddev: 1.0,
        min: median - 1.0,
        max: median + 1.0,
        mad: 1.0,
        ci_low: median - 1.0,
        ci_high: median + 1.0,
        cv: 0.01,
        outliers: Outliers::default(),
        too_noisy: false,
    }
}

fn fit() -> SeriesFit {
    let f = Fit {
        method: FitMethod::TheilSen,
        alpha: 100.0,
        alpha_ci: (90.0, 110.0),
        beta: 2.0,
        beta_ci: (1.9, 2.1),
        r2: 0.99,
        n_half: Some(50.0),
    };
    SeriesFit {
        least_squares: Fit {
            method: FitMethod::LeastSquares,
            ..f.clone()
        },
        robust: f,
        nonlinear: false,
        weighted: None,
        check: None,
        run_to_run: None,
    }
}

#[test]
fn a_whole_run_round_trips() {
    let path = temp_db("roundtrip");
    let store = Store::open(&path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    let s = store
        .add_series(id, "rust/pipe", &json!({"peer": "rust"}))
        .unwrap();
    for n in [10u64, 0] {
        let samples = vec![
            Sample {
                iters: 4,
                total_ns: 400 + n,
            },
            Sample {
                iters: 4,
                total_ns: 404,
            },
        ];
        store
            .add_point(
                s,
                &Point {
                    n,
                    status: PointStatus::Ok,
                    error: None,
                    summary: Some(summary(100.0)),
                    samples,
                    extra: None,
                },
            )
            .unwrap();
    }
    store
        .add_point(
            s,
            &Point {
                n: 20,
                status: PointStatus::Failed,
                error: Some("peer died".into()),
                summary: None,
                samples: vec![],
                extra: Some(json!({"mem_kb_per_unit": 2.5})),
            },
        )
        .unwrap();
    store.set_fit(s, &fit()).unwrap();
    store
        .set_series_attrs(s, &json!({"peer": "rust", "seen": 1}))
        .unwrap();
    store
        .finish_run(id, RunStatus::Partial, "1 series", Some("peer died"))
        .unwrap();
    drop(store);

    let store = Store::open(&path).unwrap();
    let run = store.load_run(id).unwrap();
    assert_eq!(
        (run.status, run.summary.as_str(), run.error.as_deref()),
        (RunStatus::Partial, "1 series", Some("peer died"))
    );
    assert_eq!(run.env.cpu_model, "Test CPU");
    assert_eq!(run.config, json!({"sizes": [0, 10]}));
    assert!(run.started_at.ends_with('Z') && run.finished_at.is_some());
    let series = &run.series[0];
    assert_eq!(series.attrs["seen"], 1);
    assert_eq!(series.fit, Some(fit()));
    let ns: Vec<u64> = series.points.iter().map(|p| p.n).collect();
    assert_eq!(ns, [0, 10, 20], "points come back by n");
    assert_eq!(series.points[0].extra, None);
    assert_eq!(
        series.points[2].extra,
        Some(json!({"mem_kb_per_unit": 2.5}))
    );
    assert_eq!(
        series.points[1].samples[0],
        Sample {
            iters: 4,
            total_ns: 410
        }
    );
    assert_eq!(series.points[2].status, PointStatus::Failed);
    let rows = store.list_runs().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(store.latest_run_id().unwrap(), Some(id));
}

#[test]
fn runs_are_listed_newest_first_and_removed_with_everything_under_them() {
    let path = temp_db("list-rm");
    let store = Store::open(&path).unwrap();
    let a = store.begin_run(&new_run()).unwrap();
    let b = store.begin_run(&new_run()).unwrap();
    let s = store.add_series(a, "x", &json!({})).unwrap();
    store
        .add_point(
            s,
            &Point {
                n: 1,
                status: PointStatus::Ok,
                error: None,
                summary: None,
                samples: vec![Sample {
                    iters: 1,
                    total_ns: 1,
                }],
                extra: None,
            },
        )
        .unwrap();
    let ids: Vec<i64> = store.list_runs().unwrap().iter().map(|r| r.id).collect();
    assert_eq!(ids, [b, a]);
    store.remove_run(a).unwrap();
    assert!(matches!(store.load_run(a), Err(StoreError::NoSuchRun(_))));
    assert!(matches!(store.remove_run(a), Err(StoreError::NoSuchRun(_))));
    assert_eq!(
        store.remove_run(999).unwrap_err().to_string(),
        "no run 999: see `toll runs`"
    );
}

#[test]
fn a_run_whose_process_died_becomes_partial_on_reopen() {
    let path = temp_db("stale");
    let store = Store::open(&path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    drop(store);
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE runs SET pid = ?1 WHERE id = ?2",
        rusqlite::params![dead, id],
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    let run = store.load_run(id).unwrap();
    assert_eq!(run.status, RunStatus::Partial);
    assert!(run.error.unwrap().contains("interrupted"));
}

#[test]
fn a_running_run_of_a_live_process_is_left_alone() {
    let path = temp_db("live");
    let store = Store::open(&path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    let again = Store::open(&path).unwrap();
    assert_eq!(again.load_run(id).unwrap().status, RunStatus::Running);
}

#[test]
fn foreign_files_are_refused() {
    let path = temp_db("foreign");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        "not a database at all, just some text that is long enough",
    )
    .unwrap();
    let e = Store::open(&path).err().expect("refused");
    assert!(matches!(e, StoreError::NotToll { .. }), "{e}");
    assert!(e
        .to_string()
        .contains("is not a toll database: pick another file with --db PATH or TOLL_DB"));

    let other = path.with_file_name("other.db");
    let conn = rusqlite::Connection::open(&other).unwrap();
    conn.execute_batch("CREATE TABLE recipes (name TEXT);")
        .unwrap();
    drop(conn);
    assert!(matches!(
        Store::open(&other),
        Err(StoreError::NotToll { .. })
    ));
    assert!(matches!(
        Store::open_read_only(&other),
        Err(StoreError::NotToll { .. })
    ));
}

#[test]
fn a_newer_schema_is_refused() {
    let path = temp_db("newer");
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("PRAGMA user_version = 99;").unwrap();
    drop(conn);
    let e = Store::open(&path).err().expect("refused");
    assert!(matches!(e, StoreError::TooNew { found: 99, .. }), "{e}");
}

#[test]
fn a_version_1_database_is_migrated_and_keeps_its_runs() {
    let path = temp_db("v1");
    let store = Store::open(&path).unwrap();
    let old = store.begin_run(&new_run()).unwrap();
    drop(store);
    // Make it what toll's first schema wrote: no per-point extras.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("ALTER TABLE points DROP COLUMN extra_json; PRAGMA user_version = 1;")
        .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert!(store.load_run(old).is_ok(), "the old run is still there");
    let id = store.begin_run(&new_run()).unwrap();
    let s = store.add_series(id, "x", &json!({})).unwrap();
    let extra = Some(json!({"mem_kb_per_unit": 1.0}));
    store
        .add_point(
            s,
            &Point {
                n: 1,
                status: PointStatus::Ok,
                error: None,
                summary: None,
                samples: vec![],
                extra: extra.clone(),
            },
        )
        .unwrap();
    assert_eq!(store.load_run(id).unwrap().series[0].points[0].extra, extra);
}

#[test]
fn read_only_connections_read_and_refuse_writes_with_a_clear_error() {
    let path = temp_db("ro");
    let store = Store::open(&path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    drop(store);
    let ro = Store::open_read_only(&path).unwrap();
    assert_eq!(ro.list_runs().unwrap().len(), 1);
    let e = ro.remove_run(id).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e}");
    assert!(e.to_string().contains("is read-only: make it writable"));
}

/// A run stored before the model's checks, the weighted fit, the busiest
/// process and the placement probe existed reads back, with those absent;
/// a run stored now keeps them and says they passed or failed.
#[test]
fn runs_stored_before_the_checks_still_read() {
    let path = temp_db("old-fit");
    let store = Store::open(&path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    let s = store.add_series(id, "rust/pipe", &json!({})).unwrap();
    drop(store);
    // What toll wrote before: a fit of two lines and a flag, and an
    // environment without the probe.
    let old_fit = r#"{"least_squares":{"method":"least_squares","alpha":100.0,"alpha_ci":[90.0,110.0],"beta":2.0,"beta_ci":[1.9,2.1],"r2":0.99,"n_half":50.0},"robust":{"method":"theil_sen","alpha":101.0,"alpha_ci":[91.0,111.0],"beta":2.0,"beta_ci":[1.9,2.1],"r2":0.99,"n_half":50.5},"nonlinear":false}"#;
    let old_env = r#"{"hostname":"h","cpu_model":"Test CPU","logical_cpus":2,"physical_cores":2,"governor":null,"kernel":"6","distribution":"d","memory_bytes":1,"virtualization":null,"load_average":[0.0,0.0,0.0],"busy_fraction":0.0,"toolchains":[]}"#;
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE series SET fit_json = ?1 WHERE id = ?2",
        rusqlite::params![old_fit, s],
    )
    .unwrap();
    conn.execute(
        "UPDATE runs SET env_json = ?1 WHERE id = ?2",
        rusqlite::params![old_env, id],
    )
    .unwrap();
    drop(conn);
    let run = Store::open(&path).unwrap().load_run(id).unwrap();
    let fit = run.series[0].fit.as_ref().unwrap();
    assert!(fit.weighted.is_none() && fit.check.is_none());
    assert_eq!(
        fit.primary().alpha,
        101.0,
        "the robust line is the old model"
    );
    assert!(fit.line_fits(), "an old run cannot say otherwise");
    assert_eq!(run.env.wakeup, None);
    assert_eq!(run.env.busiest, None);
}

/// Issue 17: a run stored with serde's `{"secs", "nanos"}` durations and
/// float seconds (export schema 2) reads back with whole `_ns` nanoseconds,
/// the stored text untouched; a run stored now is written that way.
#[test]
fn durations_stored_the_old_way_read_back_as_nanoseconds() {
    let path = temp_db("durations");
    let store = Store::open(&path).unwrap();
    let old = store.begin_run(&new_run()).unwrap();
    drop(store);
    let old_config = r#"{"sizes":[0,10],"engine":{"trials":10,"warmup":{"secs":0,"nanos":100000000},"batch_time":{"secs":0,"nanos":10000000},"max_iters":10000000},"max_time_s":60.0}"#;
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute(
        "UPDATE runs SET config_json = ?1 WHERE id = ?2",
        rusqlite::params![old_config, old],
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    let run = store.load_run(old).unwrap();
    assert_eq!(run.config["engine"]["warmup_ns"], 100_000_000);
    assert_eq!(run.config["engine"]["batch_time_ns"], 10_000_000);
    assert_eq!(run.config["max_time_ns"], 60_000_000_000_u64);
    assert!(run.config["engine"].get("warmup").is_none());
    assert!(run.config.get("max_time_s").is_none());
    // Stored now: EngineConfig writes nanoseconds itself.
    let mut fresh = new_run();
    fresh.config = json!({"engine": toll_measure::EngineConfig::default()});
    let id = store.begin_run(&fresh).unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let text: String = conn
        .query_row("SELECT config_json FROM runs WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(text.contains(r#""warmup_ns":100000000"#), "{text}");
    assert!(!text.contains("secs"), "{text}");
    let stored: String = conn
        .query_row("SELECT config_json FROM runs WHERE id = ?1", [old], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(stored, old_config, "the stored text is left as written");
}
