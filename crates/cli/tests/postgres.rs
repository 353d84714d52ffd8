//! `--db postgres://…` and `toll import` as a user runs them: a real
//! transfer stored in a real PostgreSQL server (the store's test server,
//! started once for this binary), read back with `runs`, `show` and
//! `export`, carried to a SQLite file and back with `import`; and the
//! mistakes — a URL that does not parse, a server that is down, a
//! database that is not toll's, a file that is not a toll run or is from
//! a newer toll — each one line, non-zero, nothing written.

mod common;
#[path = "../../store/tests/pg/mod.rs"]
mod pg;

use common::{assert_one_line_error, stderr, stdout, Scratch, QUICK};
use serde_json::Value;
use std::process::{Command, Output};

/// `toll --db DB ARGS`.
fn toll_at(db: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(db)
        .args(args)
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        )
        .env_remove("TOLL_DB")
        .output()
        .expect("run toll")
}

fn ok(o: &Output, what: &str) -> String {
    assert!(o.status.success(), "{what}: {}", stderr(o));
    stdout(o)
}

/// The id in "… as run N in …".
fn imported_id(out: &str) -> String {
    out.split(" as run ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .unwrap_or_else(|| panic!("no new id in: {out}"))
        .to_string()
}

/// What must survive a trip between stores: everything but the id.
fn without_id(mut v: Value) -> Value {
    v.as_object_mut().unwrap().remove("id");
    for s in v["series"].as_array_mut().unwrap() {
        s.as_object_mut().unwrap().remove("id");
    }
    v
}

#[test]
#[cfg_attr(
    not(toll_pg),
    ignore = "needs PostgreSQL's server binaries: apt-get install postgresql (scripts/setup does)"
)]
fn a_transfer_stored_in_postgres_reads_back_and_travels_to_sqlite_and_back() {
    let url = pg::fresh_db("cli_e2e");
    let s = Scratch::new("pg-e2e");
    let mut args = vec![
        "transfer",
        "--peer",
        "rust",
        "--via",
        "pipe",
        "--sizes",
        "0,1000,4000",
        "--pin",
        "same",
    ];
    args.extend_from_slice(QUICK);
    let out = ok(&toll_at(&url, &args), "transfer");
    assert!(
        out.contains(&format!("stored (complete) in {url}")),
        "{out}"
    );

    // TOLL_DB names it as well as --db.
    let o = Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("runs")
        .env("TOLL_DB", &url)
        .output()
        .unwrap();
    let runs = ok(&o, "runs");
    assert!(
        runs.contains("transfer") && runs.contains("complete"),
        "{runs}"
    );
    let show = ok(&toll_at(&url, &["show", "last"]), "show");
    assert!(show.contains("rust") && show.contains("pipe"), "{show}");
    let csv = ok(
        &toll_at(&url, &["export", "last", "--format", "csv"]),
        "csv",
    );
    assert!(csv.lines().count() > 2 * 3, "a row per sample: {csv}");

    let file = s.0.join("run.json");
    let file_s = file.to_str().unwrap();
    ok(
        &toll_at(&url, &["export", "last", "--format", "json", "-o", file_s]),
        "export",
    );
    let original: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();

    // Into a SQLite file: the same run, a new id, and where it came from.
    let sqlite = s.db();
    let sqlite_s = sqlite.to_str().unwrap();
    let out = ok(&toll_at(sqlite_s, &["import", file_s]), "import to sqlite");
    let id = imported_id(&out);
    let show = ok(&toll_at(sqlite_s, &["show", &id]), "show imported");
    assert!(
        show.contains("imported from") && show.contains("run.json"),
        "{show}"
    );
    let back = ok(&toll_at(sqlite_s, &["export", &id]), "export imported");
    let back: Value = serde_json::from_str(&back).unwrap();
    assert_eq!(without_id(back.clone()), without_id(original.clone()));

    // And from there into PostgreSQL again, beside the original.
    let again = s.0.join("again.json");
    std::fs::write(&again, serde_json::to_vec(&back).unwrap()).unwrap();
    let out = ok(
        &toll_at(&url, &["import", again.to_str().unwrap()]),
        "import to postgres",
    );
    let new_id = imported_id(&out);
    assert_ne!(new_id, original["id"].to_string());
    let runs: Value =
        serde_json::from_str(&ok(&toll_at(&url, &["runs", "--json"]), "runs --json")).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 2);
    let twice = ok(&toll_at(&url, &["export", &new_id]), "export again");
    let twice: Value = serde_json::from_str(&twice).unwrap();
    assert_eq!(without_id(twice), without_id(original));

    // History is read back from PostgreSQL too: the same series measured
    // again learns how far this machine moves between runs from the two
    // stored — one of them imported, which counts only when asked for
    // (TOLL_HISTORY_IMPORTED=1). Its own runs, not the machine's share
    // from another placement, which counts a series only where its α or β
    // stands clear of its noise (on a busy machine, with QUICK's few
    // rounds, it may not).
    let mut args = vec![
        "--db",
        &url,
        "transfer",
        "--peer",
        "rust",
        "--via",
        "pipe",
        "--sizes",
        "0,1000,4000",
        "--pin",
        "same",
    ];
    args.extend_from_slice(QUICK);
    let o = Command::new(env!("CARGO_BIN_EXE_toll"))
        .args(&args)
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        )
        .env("TOLL_HISTORY_IMPORTED", "1")
        .env("TOLL_RUN_RECORD", "off")
        .env_remove("TOLL_DB")
        .output()
        .unwrap();
    ok(&o, "transfer --pin same");
    let run: Value =
        serde_json::from_str(&ok(&toll_at(&url, &["export", "last"]), "export")).unwrap();
    let r = &run["series"][0]["fit"]["run_to_run"];
    assert_eq!(
        (&r["earlier_runs"], &r["source"]),
        (&2.into(), &"history".into()),
        "{r}"
    );
}

#[test]
fn postgres_urls_that_cannot_work_are_one_line_errors() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = format!("postgres://toll:hunter2@127.0.0.1:{port}/toll");
    for (url, needle) in [
        (
            "postgres://toll@localhost:notaport/toll",
            "not a PostgreSQL URL toll can use",
        ),
        (
            "postgres://toll@localhost/toll?sslmode=require",
            "without TLS",
        ),
        (down.as_str(), "cannot reach PostgreSQL at"),
    ] {
        for args in [
            &["runs"][..],
            &["show", "last"],
            &["transfer", "--sizes", "0"],
        ] {
            let o = toll_at(url, args);
            assert_one_line_error(&o, needle);
            assert!(!stderr(&o).contains("hunter2"), "{}", stderr(&o));
        }
    }
}

#[test]
#[cfg_attr(
    not(toll_pg),
    ignore = "needs PostgreSQL's server binaries: apt-get install postgresql (scripts/setup does)"
)]
fn a_postgres_database_that_is_not_tolls_is_refused_and_left_alone() {
    let url = pg::fresh_db("cli_foreign");
    pg::server().sql(
        url.rsplit('/').next().unwrap(),
        "CREATE TABLE recipes (name TEXT)",
    );
    for args in [&["runs"][..], &["transfer", "--sizes", "0"]] {
        assert_one_line_error(&toll_at(&url, args), "is not toll's");
    }
    // An empty database is nothing stored yet, and reading creates nothing.
    let empty = pg::fresh_db("cli_empty");
    let runs = ok(&toll_at(&empty, &["runs"]), "runs");
    assert!(runs.contains("no runs stored yet"), "{runs}");
    assert_one_line_error(&toll_at(&empty, &["show", "last"]), "no runs stored yet");
    let mut c = ::postgres::Client::connect(&empty, ::postgres::NoTls).unwrap();
    let tables: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(tables, 0);
}

/// The main job (`toll replicate … --html`, as scripts/run runs it) with
/// its results in PostgreSQL: a new database gets toll's tables, and a
/// second run's page shows its own experiments only.
#[test]
#[cfg_attr(
    not(toll_pg),
    ignore = "needs PostgreSQL's server binaries: apt-get install postgresql (scripts/setup does)"
)]
fn the_main_job_keeps_its_page_with_a_postgres_store() {
    let url = pg::fresh_db("cli_main_job");
    let s = Scratch::new("pg-main-job");
    let tmp = s.0.to_str().unwrap().to_string();
    for (experiments, name) in [("E4", "first.html"), ("E1", "replicate.html")] {
        let page = s.0.join(name);
        let o = Command::new(env!("CARGO_BIN_EXE_toll"))
            .args(["replicate", experiments, "--test-preset", "--html"])
            .arg(&page)
            .env("TOLL_DB", &url)
            .env("TMPDIR", &tmp)
            .env(
                "TOLL_CACHE_DIR",
                std::env::temp_dir().join("toll-e2e-cache"),
            )
            .output()
            .expect("run toll");
        assert!(o.status.success(), "{experiments}: {}", stderr(&o));
        let html = std::fs::read_to_string(&page).expect("the page is written");
        let titles: Vec<&str> = html
            .split("<section class=\"run experiment\"")
            .skip(1)
            .filter_map(|s| s.split("<h2>").nth(1)?.split_whitespace().next())
            .collect();
        assert_eq!(titles, [experiments], "{name}");
    }
    let runs = ok(&toll_at(&url, &["runs"]), "runs");
    assert!(runs.contains("replicate"), "{runs}");
}

#[test]
fn import_refuses_what_is_not_a_toll_run_and_writes_nothing() {
    let s = Scratch::new("import-bad");
    let write = |name: &str, text: &str| {
        let p = s.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let other = write(
        "package.json",
        r#"{"name": "left-pad", "version": "1.3.0"}"#,
    );
    let text = write("notes.json", "these are notes");
    let newer = write(
        "newer.json",
        r#"{"schema_version": 999, "family": "transfer", "series": []}"#,
    );
    let family = write(
        "family.json",
        r#"{"schema_version": 1, "id": 1, "family": "teleport", "started_at": "x", "status": "complete",
            "summary": "", "config": {}, "tool_version": "9", "series": [],
            "env": {"hostname": "h", "cpu_model": "c", "logical_cpus": 1, "physical_cores": 1, "kernel": "k",
                    "distribution": "d", "memory_bytes": 1, "load_average": [0, 0, 0], "busy_fraction": 0, "toolchains": []}}"#,
    );
    let missing = write(
        "missing.json",
        r#"{"schema_version": 1, "family": "transfer", "series": [], "id": 3}"#,
    );
    let db = s.db();
    let db_s = db.to_str().unwrap();
    for (file, needle) in [
        (other.as_str(), "not a toll run"),
        (text.as_str(), "not JSON"),
        (newer.as_str(), "written by a newer toll (export schema 999"),
        (family.as_str(), "family `teleport`"),
        (missing.as_str(), "is missing"),
        ("/nonexistent/run.json", "cannot read /nonexistent/run.json"),
    ] {
        let o = toll_at(db_s, &["import", file]);
        assert_one_line_error(&o, needle);
        assert_eq!(o.status.code(), Some(2), "{file}");
    }
    assert!(!db.exists(), "a refused import creates nothing");

    // One bad file among good ones: nothing is imported.
    let t = Scratch::new("import-bad-src");
    let mut args = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0",
    ];
    args.extend_from_slice(QUICK);
    assert!(t.toll(&args).status.success());
    let good = s.0.join("good.json");
    assert!(t
        .toll(&["export", "last", "-o", good.to_str().unwrap()])
        .status
        .success());
    let o = toll_at(db_s, &["import", good.to_str().unwrap(), &newer]);
    assert_one_line_error(&o, "newer toll");
    assert!(!db.exists(), "nothing imported");
    let o = toll_at(db_s, &["--dry-run", "import", good.to_str().unwrap()]);
    assert!(stdout(&o).contains("would import run"), "{}", stdout(&o));
    assert!(!db.exists(), "a dry run imports nothing");
}
