//! The store keeps whole runs, survives reopening and crashes, and refuses
//! files that are not its own — on SQLite and on a real PostgreSQL server
//! (tests/pg: started once for this binary; the PostgreSQL tests are
//! ignored, not passed, where its binaries are missing).

mod pg;

use serde_json::json;
use std::path::{Path, PathBuf};
use toll_measure::fit::{Fit, FitMethod};
use toll_measure::summary::Outliers;
use toll_measure::{Fingerprint, Sample, SeriesFit, Summary};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store, StoreError};

/// A store's path in a directory of its own, removed when the test is done
/// (a failing test's panic removes it too: nothing is left in the system's
/// temporary directory).
struct TempDb {
    dir: PathBuf,
    db: PathBuf,
}

impl std::ops::Deref for TempDb {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.db
    }
}

impl AsRef<std::path::Path> for TempDb {
    fn as_ref(&self) -> &std::path::Path {
        &self.db
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn temp_db(name: &str) -> TempDb {
    let dir = std::env::temp_dir().join(format!("toll-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let db = dir.join("sub").join("toll.db");
    TempDb { dir, db }
}

/// Each test below, once on a SQLite file and once on a database of its
/// own on the test PostgreSQL server.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(&super::temp_db(stringify!($name)));
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                #[cfg_attr(not(toll_pg), ignore = "needs PostgreSQL's server binaries: apt-get install postgresql (scripts/setup does)")]
                fn $name() {
                    super::$name(std::path::Path::new(&super::pg::fresh_db(stringify!($name))));
                }
            )*
        }
    };
}

on_both_backends!(
    a_whole_run_round_trips,
    runs_are_listed_newest_first_and_removed_with_everything_under_them,
    a_run_whose_process_died_becomes_partial_on_reopen,
    a_killed_run_ends_at_its_last_point_not_when_it_is_swept,
    a_running_run_of_a_live_process_is_left_alone,
    a_newer_schema_is_refused,
    a_version_1_database_is_migrated_and_keeps_its_runs,
    runs_stored_before_the_checks_still_read,
    writers_at_once_get_distinct_ids_and_every_point_lands,
    an_imported_run_keeps_everything_gets_a_new_id_and_says_where_from,
    an_outline_holds_no_samples_and_reads_them_a_chunk_at_a_time,
    reading_never_creates_a_store,
    a_tag_goes_into_every_run_begun_while_it_is_set,
);

/// Run SQL on the store at `db` behind its back (to make it look old or
/// tampered with): rusqlite on a file, a client on a URL.
fn raw_sql(db: &Path, sql: &str) {
    if toll_store::is_postgres_url(db) {
        let mut c = ::postgres::Client::connect(&db.to_string_lossy(), ::postgres::NoTls).unwrap();
        c.batch_execute(sql).unwrap();
    } else {
        rusqlite::Connection::open(db)
            .unwrap()
            .execute_batch(sql)
            .unwrap();
    }
}

/// Set the schema version the store at `db` says it has.
fn set_schema_version(db: &Path, v: i64) {
    if toll_store::is_postgres_url(db) {
        raw_sql(db, &format!("UPDATE toll_schema SET version = {v}"));
    } else {
        raw_sql(db, &format!("PRAGMA user_version = {v};"));
    }
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
        ci_level: Some(0.95),
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
        decision: None,
    }
}

fn a_whole_run_round_trips(path: &Path) {
    let store = Store::open(path).unwrap();
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

    let store = Store::open(path).unwrap();
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
    // Stored without a decision (as an older toll stored fits), it is
    // decided as it is read; the rest comes back as written.
    let read = series.fit.clone().unwrap();
    assert!(read.decision.is_some());
    assert_eq!(
        Some(SeriesFit {
            decision: None,
            ..read
        }),
        Some(fit())
    );
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

fn runs_are_listed_newest_first_and_removed_with_everything_under_them(path: &Path) {
    let store = Store::open(path).unwrap();
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

fn a_run_whose_process_died_becomes_partial_on_reopen(path: &Path) {
    let store = Store::open(path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    drop(store);
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    raw_sql(
        path,
        &format!("UPDATE runs SET pid = {dead} WHERE id = {id}"),
    );
    let store = Store::open(path).unwrap();
    let run = store.load_run(id).unwrap();
    assert_eq!(run.status, RunStatus::Partial);
    assert!(run.error.unwrap().contains("interrupted"));
}

/// issue 34: a run left `running` by a killed toll is marked partial by the
/// next open, with its last point's time as its end (times are to the
/// second, hence the pauses).
fn a_killed_run_ends_at_its_last_point_not_when_it_is_swept(path: &Path) {
    let store = Store::open(path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    let empty = store.begin_run(&new_run()).unwrap();
    let series = store.add_series(id, "s", &json!({})).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    store.add_point(series, &ok_point(1, 3)).unwrap();
    let running = store.load_run(id).unwrap();
    assert_eq!(running.status, RunStatus::Running);
    assert_eq!(running.finished_at, None, "a running run has no end yet");
    drop(store);
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    raw_sql(
        path,
        &format!("UPDATE runs SET pid = {dead} WHERE id IN ({id}, {empty})"),
    );
    let store = Store::open(path).unwrap();
    let swept_at = store
        .load_run(store.begin_run(&new_run()).unwrap())
        .unwrap()
        .started_at;
    let run = store.load_run(id).unwrap();
    assert_eq!(run.status, RunStatus::Partial);
    let end = run.finished_at.unwrap();
    assert!(
        run.started_at < end && end < swept_at,
        "{} < {end} < {swept_at}",
        run.started_at
    );
    // Without a point, it ends when it started.
    let run = store.load_run(empty).unwrap();
    assert_eq!(run.finished_at, Some(run.started_at));
}

fn a_running_run_of_a_live_process_is_left_alone(path: &Path) {
    let store = Store::open(path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    let again = Store::open(path).unwrap();
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

fn a_newer_schema_is_refused(path: &Path) {
    drop(Store::open(path).unwrap());
    set_schema_version(path, 99);
    let e = Store::open(path).err().expect("refused");
    assert!(matches!(e, StoreError::TooNew { found: 99, .. }), "{e}");
}

fn a_version_1_database_is_migrated_and_keeps_its_runs(path: &Path) {
    let store = Store::open(path).unwrap();
    let old = store.begin_run(&new_run()).unwrap();
    drop(store);
    // Make it what toll's first schema wrote: no per-point extras, no
    // origins, no board tokens.
    raw_sql(
        path,
        "ALTER TABLE points DROP COLUMN extra_json; ALTER TABLE runs DROP COLUMN origin_json; \
         DROP TABLE board_tokens;",
    );
    set_schema_version(path, 1);
    let store = Store::open(path).unwrap();
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
fn runs_stored_before_the_checks_still_read(path: &Path) {
    let store = Store::open(path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    let s = store.add_series(id, "rust/pipe", &json!({})).unwrap();
    drop(store);
    // What toll wrote before: a fit of two lines and a flag, and an
    // environment without the probe.
    let old_fit = r#"{"least_squares":{"method":"least_squares","alpha":100.0,"alpha_ci":[90.0,110.0],"beta":2.0,"beta_ci":[1.9,2.1],"r2":0.99,"n_half":50.0},"robust":{"method":"theil_sen","alpha":101.0,"alpha_ci":[91.0,111.0],"beta":2.0,"beta_ci":[1.9,2.1],"r2":0.99,"n_half":50.5},"nonlinear":false}"#;
    let old_env = r#"{"hostname":"h","cpu_model":"Test CPU","logical_cpus":2,"physical_cores":2,"governor":null,"kernel":"6","distribution":"d","memory_bytes":1,"virtualization":null,"load_average":[0.0,0.0,0.0],"busy_fraction":0.0,"toolchains":[]}"#;
    raw_sql(
        path,
        &format!(
            "UPDATE series SET fit_json = '{old_fit}' WHERE id = {s}; UPDATE runs SET env_json = '{old_env}' WHERE id = {id};"
        ),
    );
    let run = Store::open(path).unwrap().load_run(id).unwrap();
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

fn ok_point(n: u64, samples: u64) -> Point {
    Point {
        n,
        status: PointStatus::Ok,
        error: None,
        summary: Some(summary(100.0 + n as f64)),
        samples: (0..samples)
            .map(|t| Sample {
                iters: 10,
                total_ns: 1000 + n * 7 + t,
            })
            .collect(),
        extra: None,
    }
}

/// Several writers at once (as several machines write a team's store):
/// every run gets its own id, and every point and sample of every run lands.
fn writers_at_once_get_distinct_ids_and_every_point_lands(path: &Path) {
    drop(Store::open(path).unwrap());
    const WRITERS: usize = 4;
    const RUNS: usize = 3;
    const POINTS: u64 = 12;
    let barrier = std::sync::Barrier::new(WRITERS);
    let ids: Vec<i64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..WRITERS)
            .map(|w| {
                let barrier = &barrier;
                scope.spawn(move || {
                    let store = Store::open(path).unwrap();
                    barrier.wait();
                    let mut ids = Vec::new();
                    for _ in 0..RUNS {
                        let id = store.begin_run(&new_run()).unwrap();
                        let s = store
                            .add_series(id, &format!("writer{w}"), &json!({"writer": w}))
                            .unwrap();
                        // Saved as a sweep saves them: every point again after each round.
                        let points: Vec<Point> = (0..POINTS).map(|n| ok_point(n, 3)).collect();
                        let mut saved: Vec<(Option<i64>, &Point)> =
                            points.iter().map(|p| (None, p)).collect();
                        for _round in 0..2 {
                            store.save_points(s, &mut saved).unwrap();
                        }
                        store
                            .finish_run(id, RunStatus::Complete, "done", None)
                            .unwrap();
                        ids.push(id);
                    }
                    ids
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let mut distinct = ids.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), WRITERS * RUNS, "ids: {ids:?}");
    let store = Store::open(path).unwrap();
    assert_eq!(store.list_runs().unwrap().len(), WRITERS * RUNS);
    for id in ids {
        let run = store.load_run(id).unwrap();
        assert_eq!(run.status, RunStatus::Complete);
        let points = &run.series[0].points;
        assert_eq!(
            points.len() as u64,
            POINTS,
            "run {id}: replaced, not added twice"
        );
        for (n, p) in points.iter().enumerate() {
            assert_eq!(p.samples, ok_point(n as u64, 3).samples, "run {id} n {n}");
        }
    }
}

/// A run imported from elsewhere keeps its machine, times, fits and every
/// sample, gets a new id, and records where it came from.
fn an_imported_run_keeps_everything_gets_a_new_id_and_says_where_from(path: &Path) {
    let store = Store::open(path).unwrap();
    let local = store.begin_run(&new_run()).unwrap();
    let mut run = store.load_run(local).unwrap();
    run.id = 41;
    run.env.hostname = "far-away".into();
    run.env.cpu_model = "Far CPU".into();
    run.status = RunStatus::Complete;
    run.finished_at = Some("2025-01-02T03:04:05Z".into());
    run.started_at = "2025-01-02T03:04:00Z".into();
    run.series = vec![toll_store::Series {
        id: 9,
        label: "c/unix".into(),
        attrs: json!({"peer": "c"}),
        fit: Some(fit()),
        points: vec![ok_point(0, 4), ok_point(1000, 2), {
            let mut p = ok_point(5, 0);
            p.status = PointStatus::Failed;
            p.error = Some("peer died".into());
            p.summary = None;
            p.extra = Some(json!({"x": 1}));
            p
        }],
    }];
    let origin = json!({"file": "/tmp/r.json", "run": 41});
    let id = store.import_run(&run, &origin).unwrap();
    assert_ne!(id, 41);
    assert_ne!(id, local);
    let back = store.load_run(id).unwrap();
    assert_eq!(back.env.hostname, "far-away");
    assert_eq!(back.env.cpu_model, "Far CPU");
    assert_eq!(back.started_at, run.started_at);
    assert_eq!(back.finished_at, run.finished_at);
    assert_eq!(back.status, RunStatus::Complete);
    let (a, b) = (&run.series[0], &back.series[0]);
    assert_eq!((&b.label, &b.attrs), (&a.label, &a.attrs));
    // An export without decisions is decided once, as it is imported.
    let read = b.fit.clone().unwrap();
    assert!(read.decision.is_some());
    assert_eq!(
        Some(SeriesFit {
            decision: None,
            ..read
        }),
        a.fit
    );
    let ns: Vec<u64> = b.points.iter().map(|p| p.n).collect();
    assert_eq!(ns, [0, 5, 1000]);
    assert_eq!(b.points[0].samples, a.points[0].samples);
    assert_eq!(b.points[2].samples, a.points[1].samples);
    assert_eq!(b.points[1].error.as_deref(), Some("peer died"));
    assert_eq!(b.points[1].extra, Some(json!({"x": 1})));
    let recorded = store.run_origin(id).unwrap().expect("an origin");
    assert_eq!(recorded["file"], "/tmp/r.json");
    assert_eq!(recorded["run"], 41);
    assert!(recorded["imported_at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(store.run_origin(local).unwrap(), None, "measured here");
    // Another machine's run is not this machine's history.
    assert!(store
        .earlier_fits("transfer", Some("c/unix"), "Far CPU", i64::MAX, 10)
        .unwrap()
        .is_empty());

    // A run exported while it was measured is stored partial.
    run.status = RunStatus::Running;
    let id = store.import_run(&run, &origin).unwrap();
    assert_eq!(store.load_run(id).unwrap().status, RunStatus::Partial);
}

/// A run's outline is the run without its samples; each point's samples
/// are read from where the outline says, a chunk at a time, in trial
/// order, and none once the run is removed.
fn an_outline_holds_no_samples_and_reads_them_a_chunk_at_a_time(path: &Path) {
    let store = Store::open(path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    let s = store.add_series(id, "rust/pipe", &json!({})).unwrap();
    for (n, k) in [(0, 2500), (10, 0), (100, 7)] {
        store.add_point(s, &ok_point(n, k)).unwrap();
    }
    store.set_fit(s, &fit()).unwrap();
    store.finish_run(id, RunStatus::Complete, "", None).unwrap();
    let whole = store.load_run(id).unwrap();
    let outline = store.load_outline(id).unwrap();
    let mut bare = whole.clone();
    for p in &mut bare.series[0].points {
        p.samples.clear();
    }
    assert_eq!(
        serde_json::to_value(&outline.run).unwrap(),
        serde_json::to_value(&bare).unwrap(),
        "the run, decided, without its samples"
    );
    let counts: Vec<u64> = outline.points[0].iter().map(|p| p.count).collect();
    assert_eq!(counts, [2500, 0, 7]);
    for (p, at) in whole.series[0].points.iter().zip(&outline.points[0]) {
        let mut read = Vec::new();
        loop {
            let chunk = store.samples(*at, read.len() as u64, 1000).unwrap();
            assert!(chunk.len() <= 1000);
            if chunk.is_empty() {
                break;
            }
            read.extend(chunk);
        }
        assert_eq!(read, p.samples, "n = {}", p.n);
    }
    assert!(store
        .samples(outline.points[0][0], 2500, 10)
        .unwrap()
        .is_empty());
    store.remove_run(id).unwrap();
    assert!(store
        .samples(outline.points[0][0], 0, 10)
        .unwrap()
        .is_empty());
    assert!(matches!(
        store.load_outline(id),
        Err(StoreError::NoSuchRun(_))
    ));
}

/// Opening to read finds nothing where nothing was stored, and creates
/// nothing: no file, no tables.
fn reading_never_creates_a_store(path: &Path) {
    assert!(Store::open_if_present(path).unwrap().is_none());
    assert!(
        Store::open_if_present(path).unwrap().is_none(),
        "still nothing"
    );
    let store = Store::open(path).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    drop(store);
    let store = Store::open_if_present(path).unwrap().expect("now there is");
    assert_eq!(store.latest_run_id().unwrap(), Some(id));
}

/// `toll replicate` tags each family's runs with its experiment.
fn a_tag_goes_into_every_run_begun_while_it_is_set(path: &Path) {
    let store = Store::open(path).unwrap();
    store.tag_runs("replicate", Some(json!("E1")));
    let tagged = store.begin_run(&new_run()).unwrap();
    store.tag_runs("replicate", None);
    let plain = store.begin_run(&new_run()).unwrap();
    let config = |id| store.load_run(id).unwrap().config;
    assert_eq!(config(tagged)["replicate"], "E1");
    assert!(config(plain).get("replicate").is_none());
    // The run's own keys are kept beside the tag.
    let own = new_run().config;
    for (k, v) in own.as_object().unwrap() {
        assert_eq!(&config(tagged)[k], v, "{k}");
    }
}

#[test]
fn postgres_urls_that_cannot_work_are_named_in_one_line() {
    for (url, needle) in [
        (
            "postgres://toll@localhost:notaport/db",
            "not a PostgreSQL URL toll can use",
        ),
        ("postgres://toll@localhost:5432/", "no database name"),
        (
            "postgresql://toll@localhost/db?sslmode=require",
            "sslmode=require cannot be met",
        ),
        (
            "postgres://toll:pw@localhost/db?nonsense=1",
            "not a PostgreSQL URL toll can use",
        ),
    ] {
        let e = Store::open(Path::new(url)).err().expect(url).to_string();
        assert!(e.contains(needle), "{url}: {e}");
        assert!(!e.contains('\n'), "{e}");
        assert!(!e.contains(":pw@"), "the password is hidden: {e}");
    }
}

#[test]
fn a_postgres_server_that_is_down_is_named_with_the_fix() {
    // A loopback port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://toll:secret@127.0.0.1:{port}/toll");
    let e = Store::open(Path::new(&url)).err().expect("refused");
    assert!(matches!(e, StoreError::Unreachable { .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("cannot reach PostgreSQL at"), "{text}");
    assert!(text.contains("start the server"), "{text}");
    assert!(!text.contains("secret"), "{text}");
}

#[test]
#[cfg_attr(
    not(toll_pg),
    ignore = "needs PostgreSQL's server binaries: apt-get install postgresql (scripts/setup does)"
)]
fn postgres_databases_that_are_not_tolls_are_refused_untouched() {
    let url = pg::fresh_db("foreign");
    raw_sql(Path::new(&url), "CREATE TABLE recipes (name TEXT);");
    for open in [Store::open, Store::open_read_only] {
        let e = open(Path::new(&url)).err().expect("refused");
        assert!(matches!(e, StoreError::NotTollDatabase { .. }), "{e}");
        assert!(e.to_string().contains("createdb toll"), "{e}");
    }
    let mut c = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
    let tables: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 1, "nothing was created beside it");

    // A toll_schema that is someone else's is not toll's either.
    let url = pg::fresh_db("foreign_mark");
    raw_sql(
        Path::new(&url),
        "CREATE TABLE toll_schema (application TEXT, version BIGINT); INSERT INTO toll_schema VALUES ('other', 1);",
    );
    assert!(matches!(
        Store::open(Path::new(&url)),
        Err(StoreError::NotTollDatabase { .. })
    ));
}

#[test]
#[cfg_attr(
    not(toll_pg),
    ignore = "needs PostgreSQL's server binaries: apt-get install postgresql (scripts/setup does)"
)]
fn postgres_missing_database_and_read_only_user_are_named() {
    let s = pg::server();
    let e = Store::open(Path::new(&s.url("no_such_db")))
        .err()
        .expect("refused");
    assert!(matches!(e, StoreError::Refused { .. }), "{e}");
    assert!(e.to_string().contains("no_such_db"), "{e}");

    let url = pg::fresh_db("reader");
    let store = Store::open(Path::new(&url)).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    store.finish_run(id, RunStatus::Complete, "", None).unwrap();
    drop(store);
    raw_sql(
        Path::new(&url),
        "DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;",
    );
    let reader = url.replacen("toll@", "reader@", 1);
    let ro = Store::open_if_present(Path::new(&reader)).unwrap().unwrap();
    assert_eq!(ro.list_runs().unwrap().len(), 1);
    assert_eq!(ro.load_run(id).unwrap().status, RunStatus::Complete);
    let e = ro.remove_run(id).unwrap_err();
    assert!(matches!(e, StoreError::ReadOnly { .. }), "{e}");
}

#[test]
#[cfg_attr(
    not(toll_pg),
    ignore = "needs PostgreSQL's server binaries: apt-get install postgresql (scripts/setup does)"
)]
fn postgres_over_the_unix_socket_is_the_same_store() {
    let s = pg::server();
    let tcp = pg::fresh_db("socket");
    let db = tcp.rsplit('/').next().unwrap().to_string();
    let store = Store::open(Path::new(&s.socket_url(&db))).unwrap();
    let id = store.begin_run(&new_run()).unwrap();
    drop(store);
    let store = Store::open(Path::new(&tcp)).unwrap();
    assert_eq!(store.latest_run_id().unwrap(), Some(id));
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
