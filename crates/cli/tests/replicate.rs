//! `toll replicate` as a user runs it: every experiment end to end at the
//! tests' preset against a private database, the stored tables read back
//! (every cell present or marked with why it is missing, every family run
//! tagged with its experiment), and each bad input as one line.

mod common;
use common::*;
use serde_json::Value;

/// The stored `replicate` runs, oldest first, as `toll export` gives them.
fn replicate_runs(s: &Scratch) -> Vec<Value> {
    let o = s.toll(&["runs", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let list: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let mut out: Vec<Value> = list
        .iter()
        .filter(|r| r["family"] == "replicate")
        .map(|r| export_json(s, &r["id"].to_string()))
        .collect();
    out.reverse();
    out
}

/// A cell is there, or its reason is: never both empty.
fn assert_cell(row: &Value, cell: &str) {
    let present = !row[cell].is_null();
    let reason = row[format!("{cell}_missing")]
        .as_str()
        .is_some_and(|r| !r.trim().is_empty());
    assert!(
        present != reason,
        "{cell} of {} {}: present {present}, reason {reason}: {row}",
        row["subject"],
        row["figure"]
    );
}

/// An interval the page may print (issue 46): it holds its figure, never
/// reaches 0 for a positive figure, spans at most 1000×, says its level
/// when below 95%, and an interval of p99 ÷ p50 (≥ 1 by definition) stays
/// at or above 1. A figure without an interval says why.
fn assert_possible(f: &Value, row: &Value) {
    if f.is_null() {
        return;
    }
    let g = |k: &str| f[k].as_f64();
    let (value, lo, hi) = (g("value").unwrap(), g("lo").unwrap(), g("hi").unwrap());
    if let Some(why) = f["no_interval"].as_str() {
        assert!(!why.is_empty(), "{row}");
        return;
    }
    assert!(lo <= value && value <= hi, "its figure outside: {row}");
    if value > 0.0 {
        assert!(lo > 0.0, "reaches 0: {row}");
    }
    if lo > 0.0 {
        assert!(hi / lo <= 1000.0, "spans more than 1000×: {row}");
    }
    if let Some(level) = g("level") {
        assert!((0.0..0.95).contains(&level), "{row}");
    }
    if row["figure"]
        .as_str()
        .is_some_and(|t| t.contains("p99 ÷ p50"))
        && f == &row["measured"]
    {
        assert!(lo >= 1.0, "p99 ÷ p50 below 1: {row}");
    }
}

#[test]
fn all_five_store_every_cell_or_why_it_is_missing() {
    let s = Scratch::new("replicate-all");
    // Its servers' directories go under the test's own, so the processes
    // left behind (none, it is checked) are this test's alone.
    let tmp = s.0.to_str().unwrap();
    let o = s.toll_env(&["replicate", "all", "--test-preset"], &[("TMPDIR", tmp)]);
    let out = stdout(&o);
    assert!(o.status.success(), "stdout: {out}\nstderr: {}", stderr(&o));
    let runs = replicate_runs(&s);
    let names: Vec<&str> = runs
        .iter()
        .map(|r| r["config"]["replicate"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["E1", "E2", "E3", "E4", "E5"]);
    for run in &runs {
        let cfg = &run["config"];
        let name = cfg["replicate"].as_str().unwrap();
        assert_eq!(run["status"], "complete", "{name}");
        assert_eq!(cfg["preset"], "test");
        // The printed table is the stored one.
        assert!(
            out.contains(&format!("{name} — {}", cfg["title"].as_str().unwrap())),
            "{name}'s table not printed"
        );
        let rows = cfg["rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{name} has no rows");
        for row in rows {
            for cell in ["original", "measured", "ratio"] {
                assert_cell(row, cell);
            }
            // A ratio exactly when both figures are there, and it is their quotient.
            let both = !row["original"].is_null() && !row["measured"].is_null();
            assert_eq!(!row["ratio"].is_null(), both, "{row}");
            if both {
                let q = row["measured"]["value"].as_f64().unwrap()
                    / row["original"]["value"].as_f64().unwrap();
                let r = row["ratio"]["value"].as_f64().unwrap();
                assert!((q - r).abs() <= 1e-9 * q.abs(), "{row}");
                let m = &row["measured"];
                assert!(
                    m["lo"].as_f64() <= m["value"].as_f64()
                        && m["value"].as_f64() <= m["hi"].as_f64(),
                    "{row}"
                );
                assert!(row["run"].is_i64(), "a measured row names its run: {row}");
            }
            for cell in ["measured", "ratio"] {
                assert_possible(&row[cell], row);
            }
        }
        // Every finding is judged, in words that say how.
        let findings = cfg["findings"].as_array().unwrap();
        assert!(!findings.is_empty(), "{name} has no findings");
        for f in findings {
            let text = f["text"].as_str().unwrap();
            let verdict = f["verdict"].as_str().unwrap();
            let words = match verdict {
                "holds" => "still holds: ",
                "no-longer-holds" => "no longer holds: ",
                "unclear" => "unclear: ",
                "partly" => "holds in part: ",
                "not-checked" => "not checked: ",
                v => panic!("unknown verdict {v}"),
            };
            assert!(text.starts_with(words), "{text}");
            assert!(out.contains(text), "finding not printed: {text}");
        }
        // Every family run behind the table carries the experiment's tag.
        for id in cfg["runs"].as_array().unwrap() {
            let family = export_json(&s, &id.to_string());
            assert_eq!(family["config"]["replicate"], name, "run {id}");
            assert_ne!(family["family"], "replicate");
        }
    }
    // The systems toll cannot run yet keep their rows, marked.
    let all_rows: Vec<&Value> = runs
        .iter()
        .flat_map(|r| r["config"]["rows"].as_array().unwrap())
        .collect();
    // A runtime this machine lacks is a marked row with its install command.
    let haskell = all_rows
        .iter()
        .find(|r| r["subject"] == "haskell/forkio")
        .unwrap();
    if toll_peers::Runtime::Haskell.detect().is_err() {
        assert_eq!(
            haskell["measured_missing"],
            "haskell not installed: apt-get install ghc"
        );
    }
    // Squeak's rows: measured where squeak-vm and scratch are, else marked
    // with the command that installs them.
    let squeak = toll_peers::Runtime::Squeak.detect().is_ok();
    for subject in ["squeak/fork", "squeak/process"] {
        let rows: Vec<_> = all_rows
            .iter()
            .filter(|r| r["subject"] == subject)
            .collect();
        assert!(!rows.is_empty(), "no row for {subject}");
        for row in rows {
            if squeak {
                assert!(!row["measured"].is_null(), "{row}");
            } else {
                assert_eq!(
                    row["measured_missing"],
                    "squeak not installed: apt-get install squeak-vm scratch"
                );
            }
        }
    }
    // E1, E2 and E5 measured their own rows here.
    for (exp, subject) in [
        ("E1", "rust/pipe"),
        ("E2", "erlang/process"),
        ("E5", "c, gcc -O3"),
    ] {
        let run = runs
            .iter()
            .find(|r| r["config"]["replicate"] == exp)
            .unwrap();
        let rows = run["config"]["rows"].as_array().unwrap();
        assert!(
            rows.iter()
                .any(|r| r["subject"] == subject && !r["measured"].is_null()),
            "{exp}: {subject} was not measured"
        );
    }
    // E5's servers, started by toll (scripts/setup installs them), each
    // measured; the lesson about configuration judged on the figures.
    let e5 = runs
        .iter()
        .find(|r| r["config"]["replicate"] == "E5")
        .unwrap();
    let e5_rows = e5["config"]["rows"].as_array().unwrap();
    for subject in [
        "apache prefork, recycled every 100 (E5's trap)",
        "apache prefork, tuned (E5's fix)",
        "tomcat",
        "nginx",
    ] {
        for figure in ["92 B req/s", "1 MiB req/s"] {
            let row = e5_rows
                .iter()
                .find(|r| r["subject"] == subject && r["figure"] == figure)
                .unwrap_or_else(|| panic!("no row for {subject} {figure}"));
            assert!(row["measured"]["value"].as_f64().unwrap() > 0.0, "{row}");
        }
    }
    let tuned = e5_rows
        .iter()
        .find(|r| {
            r["subject"] == "apache prefork, tuned (E5's fix)"
                && r["figure"] == "92 B rate ÷ the trap's (http compare)"
        })
        .unwrap();
    assert!(
        tuned["measured"]["value"].as_f64().unwrap() > 0.0,
        "{tuned}"
    );
    // The comparison behind it is a stored http-compare run of every server.
    let compare = export_json(&s, &tuned["run"].to_string());
    assert_eq!(compare["family"], "http-compare");
    assert_eq!(compare["config"]["urls"].as_array().unwrap().len(), 4);
    let findings = e5["config"]["findings"].as_array().unwrap();
    let config = findings
        .iter()
        .find(|f| {
            f["text"]
                .as_str()
                .unwrap()
                .contains("configuration decides the result")
        })
        .unwrap();
    assert_ne!(config["verdict"], "not-checked", "{config}");
    // Every server's processes are gone (Apache's children included).
    let left = std::process::Command::new("pgrep")
        .args(["-f", &format!("{tmp}/toll-replicate-")])
        .output()
        .unwrap();
    assert!(left.stdout.is_empty(), "left running: {}", stdout(&left));
    // E5's loop: each language's t(10^8) and α, measured or marked with its
    // install command; E5's *6 and /3 variant in C and Java; Python's
    // t(10^8) said to be extrapolated.
    let row = |subject: &str, figure: &str| {
        e5_rows
            .iter()
            .find(|r| r["subject"] == subject && r["figure"].as_str().unwrap().starts_with(figure))
            .unwrap_or_else(|| panic!("E5 has no row {subject} {figure}"))
    };
    for (subject, runtime) in [
        ("c, gcc -O3", Some(toll_peers::Runtime::C)),
        ("java, server VM", Some(toll_peers::Runtime::Java)),
        ("go, go build", Some(toll_peers::Runtime::Go)),
        ("rust, rustc -O", None),
        ("python (CPython)", Some(toll_peers::Runtime::Python)),
    ] {
        for figure in ["loop t(10^8)", "loop start-up α"] {
            let r = row(subject, figure);
            match r["measured_missing"].as_str() {
                None => assert!(r["run"].is_i64(), "{r}"),
                Some(why) => {
                    let installed = runtime.is_none_or(|rt| rt.detect().is_ok());
                    assert!(
                        why.contains("not installed: ") && !installed,
                        "{subject} {figure}: {why}"
                    );
                }
            }
        }
        if !subject.starts_with('c') && !subject.starts_with("java") {
            let r = row(subject, "loop t(10^8)");
            assert_eq!(r["original_missing"], "E5 did not run it", "{r}");
        }
    }
    assert!(
        row("python (CPython)", "loop t(10^8)")["figure"]
            .as_str()
            .unwrap()
            .contains("extrapolated from n ≤ "),
        "Python's t(10^8) says it is extrapolated"
    );
    let java63 = row("java, server VM, *6 and /3", "loop t(10^8)");
    assert_eq!(java63["original"]["value"], 32.5);
    assert_eq!(
        row("c, icc, *6 and /3", "loop t(10^8)")["original"]["value"],
        31.5
    );
    if toll_peers::Runtime::Java.detect().is_ok() {
        assert!(!java63["measured"].is_null(), "{java63}");
        assert!(!row("c, gcc -O3, *6 and /3", "loop t(10^8)")["measured"].is_null());
    }
    let e5_findings: Vec<&str> = e5["config"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["text"].as_str().unwrap())
        .collect();
    assert!(
        e5_findings
            .iter()
            .any(|f| f.contains("with *6 and /3") && f.contains("E5: 1.03×")),
        "{e5_findings:?}"
    );
    // `toll show` prints the stored table.
    let id = runs[0]["id"].to_string();
    let shown = stdout(&s.toll(&["show", &id]));
    assert!(
        shown.contains("ratio CI") && shown.contains("findings:"),
        "{shown}"
    );
}

#[test]
fn bad_input_is_one_line_and_stores_nothing() {
    let s = Scratch::new("replicate-bad");
    assert_usage_errors(
        &s,
        &[
            (
                &["replicate", "E6"],
                "unknown experiment `E6`: valid ones are E1, E2, E3, E4, E5, all",
            ),
            (&["replicate", "E1,x"], "unknown experiment `x`"),
            (&["replicate", ""], "unknown experiment ``"),
            (&["replicate", "E1", "--quick", "--test-preset"], "--quick"),
        ],
    );
    let o = s.toll(&["replicate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!s.db().exists());
}

#[test]
fn a_port_in_use_is_named_with_the_flag_before_anything_runs() {
    let s = Scratch::new("replicate-port");
    let held = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = held.local_addr().unwrap().port().to_string();
    let o = s.toll(&["replicate", "E5", "--test-preset", "--port", &port]);
    assert_one_line_error(
        &o,
        &format!("port {port} on 127.0.0.1 is in use: give another first port with --port"),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(!s.db().exists());
    assert_usage_errors(
        &s,
        &[
            (&["replicate", "E5", "--port", "0"], "--port"),
            (&["replicate", "E5", "--port", "http"], "--port"),
            (
                &["replicate", "E5", "--port", "65534"],
                "past 65535: give a lower first port",
            ),
        ],
    );
}

#[test]
fn a_server_package_missing_marks_its_rows_with_the_install_command() {
    let s = Scratch::new("replicate-missing");
    let o = s.toll_env(
        &["replicate", "E5", "--test-preset"],
        &[
            ("TOLL_APACHE2", "/nonexistent/apache2"),
            ("TOLL_TOMCAT_HOME", "/nonexistent/tomcat"),
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let runs = replicate_runs(&s);
    let rows = runs[0]["config"]["rows"].as_array().unwrap();
    let reason = |subject: &str| {
        rows.iter()
            .find(|r| r["subject"] == subject && r["figure"] == "92 B req/s")
            .unwrap()["measured_missing"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        reason("apache prefork, recycled every 100 (E5's trap)"),
        "apache2 not installed: apt-get install apache2"
    );
    assert!(reason("tomcat").ends_with(": apt-get install tomcat10"));
    // The rest went on: nginx was measured.
    let nginx = rows
        .iter()
        .find(|r| r["subject"] == "nginx" && r["figure"] == "92 B req/s")
        .unwrap();
    assert!(
        nginx["measured"]["value"].as_f64().unwrap() > 0.0,
        "{nginx}"
    );
    assert_eq!(runs[0]["status"], "complete");
}

#[test]
fn dry_run_says_what_would_run_and_measures_nothing() {
    let s = Scratch::new("replicate-dry");
    let o = s.toll(&["--dry-run", "replicate", "e5,E1", "--quick"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("would replicate E1 (") && lines[0].ends_with("quick preset"));
    assert!(lines[1].starts_with("would replicate E5 ("));
    assert!(!s.db().exists());
}

#[test]
fn ctrl_c_keeps_what_was_measured_marked_partial() {
    let s = Scratch::new("replicate-int");
    // E1's own design takes minutes: interrupted two seconds in.
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args(["replicate", "E1,E5"])
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_secs(2));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted: what was measured is stored"));
    let runs = replicate_runs(&s);
    assert_eq!(runs.len(), 2, "both tables stored");
    for run in &runs {
        assert_eq!(run["status"], "partial", "{}", run["config"]["replicate"]);
        for row in run["config"]["rows"].as_array().unwrap() {
            assert_cell(row, "measured");
        }
    }
    // E5 never began: each of its rows says so.
    let e5 = &runs[1]["config"];
    assert!(e5["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["subject"].as_str().unwrap().starts_with("nginx"))
        .all(|r| r["measured_missing"] == "not measured: interrupted"));
    // E1's transfer run is kept, partial, with the points it had.
    let first = runs[0]["config"]["runs"][0].to_string();
    let transfer = export_json(&s, &first);
    assert_eq!(transfer["status"], "partial");
    assert_eq!(transfer["config"]["replicate"], "E1");
}
