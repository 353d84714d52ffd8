//! `toll atlas` as a user runs it: every group end to end at the tests'
//! preset against a private database — each group present with its rows,
//! every row a figure or its reason, every figure the one its family's own
//! stored run gives for the same crossing — then SIGTERM's partial atlas,
//! `--dry-run`, and a bad group as one line. No timing is asserted: the
//! suite passes on a busy machine.

mod common;
use common::*;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::Value;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const GROUPS: [&str; 7] = [
    "hardware",
    "links",
    "threads",
    "languages",
    "files",
    "programs",
    "rpc",
];

/// The stored atlas runs, oldest first, as `toll export` gives them.
fn atlases(s: &Scratch) -> Vec<Value> {
    let o = s.toll(&["runs", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let list: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let mut out: Vec<Value> = list
        .iter()
        .filter(|r| r["family"] == "atlas")
        .map(|r| export_json(s, &r["id"].to_string()))
        .collect();
    out.reverse();
    out
}

/// (value, lo, hi) of an interval-bearing JSON figure.
fn bounds(f: &Value, v: &str, lo: &str, hi: &str) -> (f64, f64, f64) {
    let g = |k: &str| {
        f[k].as_f64()
            .unwrap_or_else(|| panic!("{k} missing in {f}"))
    };
    (g(v), g(lo), g(hi))
}

/// The same crossing as its family's own run has it: (value, lo, hi) in
/// the atlas row's unit, or None for a figure the atlas derives (n½).
fn family_figure(run: &Value, source: &Value) -> Option<(f64, f64, f64)> {
    let label = source["series"].as_str().unwrap();
    let series = run["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == label)
        .unwrap_or_else(|| panic!("series {label} not in run {}", run["id"]));
    let decided = |k: &str| {
        let d = &series["fit"]["decision"][k];
        let ci = d["ci"].as_array().unwrap();
        (
            d["value"].as_f64().unwrap(),
            ci[0].as_f64().unwrap(),
            ci[1].as_f64().unwrap(),
        )
    };
    match source["take"].as_str().unwrap() {
        "point" => {
            let p = series["points"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["n"] == source["n"])
                .expect("the row's point");
            Some(bounds(&p["summary"], "median", "ci_low", "ci_high"))
        }
        "alpha" => Some(decided("alpha")),
        "beta" => Some(decided("beta")),
        "rate" => {
            let b = source["bytes"].as_f64().unwrap() * 1e9;
            let (v, lo, hi) = decided("beta");
            Some((b / v, b / hi, b / lo))
        }
        _ => None,
    }
}

/// `a` and `b` agree: each lies within the wider of the two intervals
/// around the other.
fn agree(a: (f64, f64, f64), b: (f64, f64, f64)) -> bool {
    let width = (a.2 - a.1).max(b.2 - b.1).max(1e-9 * a.0.abs());
    (a.0 - b.0).abs() <= width
}

#[test]
fn every_group_is_present_and_each_row_agrees_with_its_family_run() {
    let s = Scratch::new("atlas-all");
    let tmp = s.0.to_str().unwrap();
    let o = s.toll_env(&["atlas", "--test-preset"], &[("TMPDIR", tmp)]);
    let out = stdout(&o);
    assert!(o.status.success(), "stdout: {out}\nstderr: {}", stderr(&o));
    assert!(out.contains("toll atlas:") && out.contains("── "), "{out}");
    let runs = atlases(&s);
    assert_eq!(runs.len(), 1);
    let atlas = &runs[0];
    assert_eq!(atlas["status"], "complete", "{}", atlas["error"]);
    let config = &atlas["config"];
    assert_eq!(config["preset"], "test");
    let rows = config["rows"].as_array().unwrap();
    for g in GROUPS {
        assert!(
            rows.iter().any(|r| r["group"] == g),
            "group {g} has no row: {config}"
        );
    }
    let mut checked = 0;
    for row in rows {
        let reason = row["missing"]
            .as_str()
            .is_some_and(|r| !r.trim().is_empty());
        assert!(
            row["figure"].is_null() == reason,
            "a row is a figure or its reason: {row}"
        );
        if row["figure"].is_null() {
            continue;
        }
        let run_id = row["run"].as_i64().expect("a measured row names its run");
        let run = export_json(&s, &run_id.to_string());
        assert_eq!(run["config"]["atlas"], true, "run {run_id} is tagged");
        let f = &row["figure"];
        let mine = bounds(f, "value", "lo", "hi");
        if let Some(theirs) = family_figure(&run, &row["source"]) {
            assert!(agree(mine, theirs), "{row} against {theirs:?}");
            checked += 1;
        }
    }
    assert!(checked > 10, "{checked} rows checked");
    // A row whose figure depends on a size the preset picks names it.
    for r in rows {
        let c = r["crossing"].as_str().unwrap();
        let want = if c.starts_with("spawn:") {
            Some("n = 50")
        } else if c.starts_with("ring hop:") {
            Some("n = 10")
        } else if c.starts_with("4 KiB ") {
            Some("a 1 MB file")
        } else {
            None
        };
        assert_eq!(r["at"].as_str(), want, "{r}");
    }
    // The rows toll added for issue 50's list: the C program by fork+exec,
    // nginx at one connection (where nginx is here), the knee's reason.
    let row = |c: &str| {
        rows.iter()
            .find(|r| r["crossing"] == c)
            .unwrap_or_else(|| panic!("no row {c}"))
    };
    assert!(
        row("start-up of a program that does nothing (c), by fork+exec")["figure"]["value"]
            .as_f64()
            .is_some_and(|v| v > 0.0)
    );
    let nginx = row("HTTP request to a local nginx, one keep-alive connection");
    if std::path::Path::new("/usr/sbin/nginx").exists() {
        assert!(nginx["figure"]["value"].as_f64().is_some(), "{nginx}");
    } else {
        eprintln!("nginx is not installed here: its row's figure is not checked");
    }
    // The knee: a sweep of the same nginx, its own run; at the tests'
    // preset a figure or why not (every step kept up), naming its run.
    let knee = row("HTTP requests a second from a local nginx, at its rate's knee");
    if std::path::Path::new("/usr/sbin/nginx").exists() {
        let sweep = config["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["family"] == "http-sweep")
            .unwrap_or_else(|| panic!("no sweep among {}", config["runs"]));
        let id = sweep["run"].to_string();
        match knee["figure"]["value"].as_f64() {
            Some(v) => {
                assert!(v >= 1000.0 && knee["unit"] == "req/s", "{knee}");
                assert_eq!(knee["run"].to_string(), id, "{knee}");
            }
            None => assert!(
                knee["missing"]
                    .as_str()
                    .unwrap()
                    .contains(&format!("(run {id})")),
                "{knee}"
            ),
        }
    } else {
        assert!(
            knee["missing"].as_str().unwrap().contains("nginx"),
            "{knee}"
        );
    }
    // Every family run is listed and tagged.
    for r in config["runs"].as_array().unwrap() {
        let run = export_json(&s, &r["run"].to_string());
        assert_eq!(run["family"], r["family"]);
        assert_eq!(run["config"]["atlas"], true);
    }
    // `toll show` prints the same atlas.
    let id = atlas["id"].to_string();
    let shown = s.toll(&["show", &id]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    assert!(stdout(&shown).contains("toll atlas:"));
    let md = s.toll(&["report", &id, "--format", "md"]);
    assert!(md.status.success(), "{}", stderr(&md));
}

#[test]
fn the_atlas_fits_100_columns() {
    let s = Scratch::new("atlas-narrow");
    let o = s.toll_fitted(&["atlas", "--test-preset", "--only", "hardware"], &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.lines().all(|l| l.chars().count() <= 100), "{out}");
    let config = &atlases(&s)[0]["config"];
    let left: Vec<&str> = config["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|g| g["measured"] == false)
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(left, &GROUPS[1..], "the groups left out say so");
}

#[test]
fn sigterm_stores_a_partial_atlas_with_what_finished() {
    let s = Scratch::new("atlas-term");
    let child = Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args(["atlas", "--test-preset"])
        .env(
            "TOLL_CACHE_DIR",
            std::env::temp_dir().join("toll-e2e-cache"),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Stop it once its first family run is stored.
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(120) {
        let o = s.toll(&["runs", "--json"]);
        let n = serde_json::from_slice::<Vec<Value>>(&o.stdout).map_or(0, |l| l.len());
        if n > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    let runs = atlases(&s);
    assert_eq!(runs.len(), 1, "the atlas is stored");
    assert_eq!(runs[0]["status"], "partial");
    let rows = runs[0]["config"]["rows"].as_array().unwrap();
    assert!(
        rows.iter().any(|r| r["missing"]
            .as_str()
            .is_some_and(|m| m.contains("interrupted"))),
        "{rows:?}"
    );
}

#[test]
fn dry_run_says_each_group_and_its_time_and_measures_nothing() {
    let s = Scratch::new("atlas-dry");
    let o = s.toll(&["--dry-run", "atlas", "--skip", "rpc"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for g in &GROUPS[..6] {
        assert!(out.contains(&format!("  {g} (")), "{g}: {out}");
    }
    assert!(
        out.contains("rpc left out") && out.contains("in all"),
        "{out}"
    );
    assert!(!s.db().exists(), "a dry run stores nothing");
}

#[test]
fn an_unknown_group_is_one_line_and_nothing_is_measured() {
    let s = Scratch::new("atlas-bad");
    assert_usage_errors(
        &s,
        &[
            (&["atlas", "--only", "gpu"], "unknown group `gpu` in --only"),
            (
                &["atlas", "--skip", "links,disk"],
                "unknown group `disk` in --skip",
            ),
            (
                &["atlas", "--only", "rpc", "--skip", "rpc"],
                "leave no group",
            ),
            (
                &["atlas", "--html", "/no/such/dir/atlas.html"],
                "--html /no/such/dir/atlas.html: cannot write in /no/such/dir",
            ),
        ],
    );
}

/// Chromium on the PATH, which the build found (`cfg(toll_chromium)`).
fn chromium() -> std::path::PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser"]
        .iter()
        .find_map(|name| {
            std::env::split_paths(&path)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
        .expect("built with chromium (cfg toll_chromium) but none on the PATH now: apt-get install chromium")
}

/// The page's texts in one `<svg>`, each trimmed, in order.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>')?.1.split_once("</text>"))
        .map(|(t, _)| t.trim().to_string())
        .collect()
}

#[test]
#[cfg_attr(
    not(toll_chromium),
    ignore = "needs chromium to render the page: apt-get install chromium"
)]
fn the_atlas_page_is_one_log_picture_that_fits_1280_px_in_chromium() {
    let browser = chromium();
    let s = Scratch::new("atlas-page");
    let tmp = s.0.to_str().unwrap();
    let page = s.0.join("atlas.html");
    let o = s.toll_env(
        &[
            "atlas",
            "--test-preset",
            "--only",
            "hardware,programs",
            "--html",
            page.to_str().unwrap(),
        ],
        &[("TMPDIR", tmp)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let atlas = &atlases(&s)[0];
    // `toll report ATLAS --html FILE` writes the same page.
    let again = s.0.join("again.html");
    let id = atlas["id"].to_string();
    let o = s.toll(&["report", &id, "--html", again.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html, std::fs::read_to_string(&again).unwrap());
    assert!(!html.contains("<script") && !html.contains("src=\"http"));
    // The figures themselves span at least five orders of magnitude.
    let times: Vec<f64> = atlas["config"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["unit"] == "ns")
        .filter_map(|r| r["figure"]["value"].as_f64())
        .collect();
    let (lo, hi) = times
        .iter()
        .fold((f64::MAX, 0f64), |(a, b), &t| (a.min(t), b.max(t)));
    assert!((hi / lo).log10() >= 5.0, "{lo} ns to {hi} ns");
    // The quoted figures, each source named; the environment panel.
    for want in [
        "Main memory reference",
        "Dean/Norvig 2012",
        "napkin-math",
        "This machine",
        "system (hypervisor)",
        "container",
        "smt",
        "governor",
    ] {
        assert!(html.contains(want), "`{want}` not on the page");
    }
    // Rendered at 1280 px: a probe (added to a copy, the page has no
    // script) reads the layout's widths and the picture's size.
    let probe = s.0.join("probe.html");
    std::fs::write(
        &probe,
        html.replace(
            "</body>",
            "<script>var d=document.documentElement;var f=document.querySelectorAll('figure.atlas svg');\
             document.body.setAttribute('data-probe',d.scrollWidth+' '+d.clientWidth+' '+f.length+' '+\
             (f.length?Math.round(f[0].getBoundingClientRect().width):0));</script></body>",
        ),
    )
    .unwrap();
    let o = Command::new("timeout")
        .arg("120")
        .arg(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,2000",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", s.0.join("profile").display()))
        .arg(format!("file://{}", probe.display()))
        .output()
        .expect("run chromium");
    assert!(o.status.success(), "chromium: {}", stderr(&o));
    let dom = stdout(&o);
    let numbers: Vec<f64> = dom
        .split_once("data-probe=\"")
        .and_then(|(_, r)| r.split_once('"'))
        .map(|(p, _)| p.split(' ').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_else(|| panic!("no probe in the DOM: {dom}"));
    let [scroll, client, pictures, drawn] = numbers[..] else {
        panic!("probe: {numbers:?}")
    };
    assert!(
        client > 1000.0 && client <= 1280.0,
        "a 1280 px window: {client}"
    );
    assert!(scroll <= client, "horizontal overflow: {scroll} > {client}");
    assert_eq!(pictures, 1.0, "one picture");
    assert!(
        drawn > 600.0 && drawn <= client,
        "the picture drawn {drawn} px wide"
    );
    // Its one axis: every decade from 1 ns to 1 s.
    let svg = dom
        .split_once("<figure class=\"atlas\">")
        .and_then(|(_, r)| r.split_once("</figure>"))
        .map(|(f, _)| f)
        .expect("the picture in the DOM");
    let texts = svg_texts(svg);
    for tick in [
        "1 ns", "10 ns", "100 ns", "1 µs", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms", "1 s",
    ] {
        assert!(texts.iter().any(|t| t == tick), "tick {tick}: {texts:?}");
    }
    assert!(texts.iter().any(|t| t == "syscall (getppid)"), "{texts:?}");
}

#[test]
fn two_atlases_compare_crossing_by_crossing_and_another_family_is_refused() {
    let s = Scratch::new("atlas-compare");
    let tmp = s.0.to_str().unwrap();
    for _ in 0..2 {
        let o = s.toll_env(
            &["atlas", "--test-preset", "--only", "hardware"],
            &[("TMPDIR", tmp)],
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let runs = atlases(&s);
    let (a, b) = (runs[0]["id"].to_string(), runs[1]["id"].to_string());
    let o = s.toll(&["compare", &a, &b]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains(&format!("toll compare: atlas {a} (A: ")) && out.contains("B ÷ A"),
        "{out}"
    );
    assert!(out.contains("syscall (getppid)"), "{out}");
    // One machine, one toll, one preset: nothing differs but the time.
    assert!(out.contains("the same machine, toll and preset"), "{out}");
    let o = s.toll(&["compare", &a, &b, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    let crossings = c["crossings"].as_array().unwrap();
    let measured_in_a = runs[0]["config"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| !r["figure"].is_null())
        .count();
    // One preset: every sized row at one size, so none left unmatched.
    assert_eq!(c["unmatched"], serde_json::json!([]), "{c}");
    assert_eq!(
        crossings.len() + c["only_a"].as_array().unwrap().len(),
        measured_in_a,
        "every crossing A measured is compared or named"
    );
    let order = ["slower", "same", "faster", "unjudged"];
    let mut last = 0;
    for x in crossings {
        let r = x["ratio"].as_array().unwrap();
        let (v, lo, hi) = (
            r[0].as_f64().unwrap(),
            r[1].as_f64().unwrap(),
            r[2].as_f64().unwrap(),
        );
        assert!(lo <= v && v <= hi && lo > 0.0, "{x}");
        let at = order.iter().position(|o| *o == x["call"]).unwrap();
        assert!(at >= last, "sorted by call: {x}");
        last = at;
        match x["call"].as_str().unwrap() {
            "slower" => assert!(lo > 1.0, "{x}"),
            "faster" => assert!(hi < 1.0, "{x}"),
            "same" => assert!(lo <= 1.0 && hi >= 1.0, "{x}"),
            _ => assert!(x["level"].is_null() || x["unit"] == "B", "{x}"),
        }
        // B's time ÷ A's (a rate: A's ÷ B's, its time per byte).
        let (fa, fb) = (
            x["a"]["value"].as_f64().unwrap(),
            x["b"]["value"].as_f64().unwrap(),
        );
        let want = if x["unit"] == "B/s" { fa / fb } else { fb / fa };
        assert!((v - want).abs() <= 1e-9 * want, "{x}");
    }
    // An atlas against a run of another family: one line, exit 2.
    let sys = runs[0]["config"]["runs"][0]["run"].to_string();
    let o = s.toll(&["compare", &a, &sys]);
    assert_one_line_error(&o, "compare two runs of one family");
    assert_eq!(o.status.code(), Some(2));
    let o = s.toll(&["compare", &a, &b, "--html", "x.html"]);
    assert_one_line_error(&o, "--html is for two runs of one family");
}

#[test]
fn without_nginx_its_row_says_how_to_install_it() {
    let s = Scratch::new("atlas-no-nginx");
    let tmp = s.0.to_str().unwrap();
    let o = s.toll_env(
        &["atlas", "--test-preset", "--only", "rpc"],
        &[("TMPDIR", tmp), ("TOLL_NGINX", "/no/such/nginx")],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let atlas = &atlases(&s)[0];
    assert_eq!(atlas["status"], "complete", "{}", atlas["error"]);
    let rows = atlas["config"]["rows"].as_array().unwrap();
    let nginx = rows
        .iter()
        .find(|r| r["crossing"] == "HTTP request to a local nginx, one keep-alive connection")
        .expect("nginx's row");
    let why = nginx["missing"].as_str().unwrap_or_default();
    assert!(
        why.starts_with("nginx not installed: ") && why.contains("install nginx"),
        "{nginx}"
    );
    // The rest of the group is measured.
    assert!(rows
        .iter()
        .any(|r| r["crossing"] == "null RPC, gRPC" && r["figure"]["value"].is_number()));
}
