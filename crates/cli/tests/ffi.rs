//! `toll ffi` end to end: every binding this machine has, measured on the
//! real workers with small sizes, stored, exported, plotted and compared;
//! a runtime the machine lacks as a row with its install command; and the
//! bad input refused in one line before anything is measured.

mod common;
use common::*;
use serde_json::Value;

/// Small sizes and quick settings: a run takes seconds.
const RUN: &[&str] = &[
    "ffi",
    "--sizes",
    "0,256,1Ki",
    "--trials",
    "3",
    "--warmup-ms",
    "5",
    "--batch-ms",
    "2",
];

/// The dots of `toll ffi --plot`'s upper picture (α), alone when no β is
/// above 0 to draw beneath it.
fn dots(svg: &str) -> usize {
    let upper = svg.split("<svg y=").nth(1).unwrap_or(svg);
    let circles = upper.matches("<circle").count();
    assert!(
        circles % 2 == 1,
        "a legend's circle and two per dot: {circles}"
    );
    (circles - 1) / 2
}

fn series(run: &Value) -> &Vec<Value> {
    run["series"].as_array().expect("series")
}

#[test]
fn every_binding_here_is_measured_stored_and_each_series_has_a_fit_or_says_why_not() {
    let s = Scratch::new("ffi-all");
    let plot = s.0.join("ffi.svg");
    let mut args = RUN.to_vec();
    args.extend(["--plot", plot.to_str().unwrap()]);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("α ns") && out.contains("β ns/KiB"), "{out}");
    let svg = std::fs::read_to_string(&plot).unwrap();
    let run = export_json(&s, "last");
    assert_eq!(run["family"], "ffi");
    assert_eq!(run["status"], "complete");
    // The picture: α per series as dots (each a filled circle and its
    // white rim, past the legend's one), above β per binding and way.
    let measured = series(&run)
        .iter()
        .filter(|sr| sr["points"][0]["status"] == "ok")
        .count();
    assert!(measured >= 4, "rust and c at least: {measured}");
    assert_eq!(dots(&svg), measured, "one dot per binding measured");
    assert!(svg.contains("α per series"), "{svg}");
    // The quoted figures on α, with their source.
    assert!(svg.contains("dyu/ffi-overhead README"), "{svg}");
    let labels: Vec<&str> = series(&run)
        .iter()
        .map(|sr| sr["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        [
            "rust/direct",
            "rust/dlopen",
            "c/direct",
            "c/dlopen",
            "python/ctypes",
            "python/cffi",
            "python/ext",
            "node/napi",
            "go/cgo",
            "java/jni",
            "java/ffm",
            "erlang/nif",
            "erlang/nif-dirty",
            "haskell/safe",
            "haskell/unsafe",
        ]
    );
    for sr in series(&run) {
        let label = sr["label"].as_str().unwrap();
        let why = sr["attrs"]["unavailable"].as_str();
        match (&sr["fit"], why) {
            (Value::Null, Some(why)) => {
                assert!(why.starts_with("not available here"), "{label}: {why}");
                assert!(
                    out.contains("missing: ") || out.contains("not available"),
                    "{out}"
                );
            }
            (Value::Null, None) => panic!("{label} has neither a fit nor a reason: {sr}"),
            (fit, _) => {
                assert!(fit["decision"].is_object(), "{label}: {fit}");
                for p in sr["points"].as_array().unwrap() {
                    assert_eq!(p["status"], "ok", "{label}: {p}");
                    assert_eq!(p["samples"].as_array().unwrap().len(), 3, "{label}");
                }
            }
        }
    }
    // Stored with the toolchains that built and ran the bindings.
    let tools: Vec<&str> = run["env"]["toolchains"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t[0].as_str().unwrap())
        .collect();
    for t in ["toll", "rustc", "cc"] {
        assert!(tools.contains(&t), "{t} not in {tools:?}");
    }
    // Each runtime measured, its own toolchain's version too.
    for sr in series(&run).iter().filter(|sr| !sr["fit"].is_null()) {
        let tool = match sr["attrs"]["runtime"].as_str().unwrap() {
            "rust" => "toll",
            "c" => "cc",
            "python" => "python3",
            "erlang" => "erl",
            "haskell" => "ghc",
            other => other,
        };
        assert!(tools.contains(&tool), "{tool} not in {tools:?}");
    }
    // A second run compares with the first, series by series.
    let o = s.toll(&[
        "ffi",
        "--runtime",
        "c",
        "--sizes",
        "0,256,1Ki",
        "--trials",
        "3",
        "--warmup-ms",
        "5",
        "--batch-ms",
        "2",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let second: Value = serde_json::from_slice(&o.stdout).expect("--json is JSON");
    assert_eq!(series(&second).len(), 2);
    let o = s.toll(&["compare", "1", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("c/dlopen"), "{}", stdout(&o));
    let o = s.toll(&["report", "1", "-o", s.0.join("r.html").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn vs_link_sets_each_runtimes_cheapest_binding_beside_its_cheapest_link() {
    let s = Scratch::new("ffi-vs-link");
    let mut args = RUN.to_vec();
    args.extend(["--runtime", "c,python", "--vs-link"]);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("binding or helper process?"), "{out}");
    assert!(out.contains("link ÷ call"), "{out}");
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "complete");
    assert_eq!(run["config"]["vs_link"], true);
    // `toll show` prints the link table as the command did, not the raw row.
    let shown = s.toll(&["show", "last"]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let text = stdout(&shown);
    assert!(text.contains("ffi: as the command reported it"), "{text}");
    assert!(text.contains("link ÷ call"), "{text}");
    assert!(!text.contains("vs link:"), "{text}");
    let rows: Vec<&Value> = series(&run)
        .iter()
        .filter_map(|sr| sr["attrs"].get("vs_link"))
        .collect();
    for runtime in ["c", "python"] {
        let row = rows
            .iter()
            .find(|r| r["runtime"] == runtime)
            .unwrap_or_else(|| panic!("no {runtime} row in {rows:?}"));
        let (Some(call), Some(trip), Some(ratio)) = (
            row["call_ns"].as_array(),
            row["trip_ns"].as_array(),
            row["ratio"].as_array(),
        ) else {
            // Python may be missing here: then its row says why.
            assert!(row["why"].is_string(), "{runtime}: {row}");
            assert_ne!(runtime, "c", "the c row has a ratio: {row}");
            continue;
        };
        let f = |v: &Vec<Value>, i: usize| v[i].as_f64().unwrap();
        // The cheapest binding: no other binding of the runtime has a lower null call.
        let binding = row["binding"].as_str().unwrap();
        for sr in series(&run)
            .iter()
            .filter(|sr| sr["attrs"]["runtime"] == runtime && sr["fit"].is_object())
        {
            let null = sr["points"][0]["summary"]["median"].as_f64().unwrap();
            assert!(
                null >= f(call, 0),
                "{runtime}/{binding} is not the cheapest: {sr}"
            );
        }
        // The link is one this run measured, on one core, for this runtime.
        let link = row["link"].as_str().unwrap();
        let stored = series(&run)
            .iter()
            .find(|sr| sr["label"] == format!("{runtime}/{link}"))
            .unwrap_or_else(|| panic!("no {runtime}/{link} series"));
        assert_eq!(stored["attrs"]["peer"], runtime);
        assert_eq!(stored["attrs"]["pin"], "same");
        assert_eq!(stored["points"][0]["n"], 0);
        assert_eq!(stored["points"][0]["samples"].as_array().unwrap().len(), 3);
        // The ratio is the medians' and lies in its interval.
        let r = f(ratio, 0);
        assert!((r - f(trip, 0) / f(call, 0)).abs() <= 1e-9 * r, "{row}");
        assert!(f(ratio, 1) <= r && r <= f(ratio, 2), "{row}");
        let line = out
            .lines()
            .rfind(|l| l.starts_with(&format!("{runtime} ")) && l.contains(link))
            .unwrap_or_else(|| panic!("no {runtime} row in the table:\n{out}"));
        assert!(line.contains(binding), "{line}");
    }
}

#[test]
fn a_runtime_this_machine_lacks_is_a_row_with_its_install_command() {
    let s = Scratch::new("ffi-missing");
    let mut args = RUN.to_vec();
    args.extend(["--runtime", "python"]);
    let o = s.toll_env(&args, &[("TOLL_PYTHON", "/nonexistent/python3")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let row = out
        .lines()
        .find(|l| l.starts_with("python") && l.contains("ctypes"))
        .unwrap_or_else(|| panic!("no python/ctypes row in:\n{out}"));
    assert!(row.contains("missing: apt-get install python3"), "{row}");
    let run = export_json(&s, "last");
    for sr in series(&run) {
        assert!(sr["fit"].is_null());
        assert!(sr["attrs"]["unavailable"].as_str().is_some(), "{sr}");
        for p in sr["points"].as_array().unwrap() {
            assert_eq!(p["status"], "failed");
            assert!(p["error"].as_str().unwrap().contains("python3"), "{p}");
        }
    }
}

#[test]
fn bad_input_is_one_line_before_anything_is_measured() {
    let s = Scratch::new("ffi-bad");
    assert_usage_errors(
        &s,
        &[
            (
                &["ffi", "--binding", "jna"],
                "unknown binding `jna`: known bindings are cffi, cgo, ctypes, direct, dlopen, ext, ffm, jni, napi, nif, nif-dirty, safe, unsafe",
            ),
            (
                &["ffi", "--runtime", "python", "--binding", "dlopen"],
                "python has no binding `dlopen`: its bindings are ctypes, cffi, ext",
            ),
            (
                &["ffi", "--runtime", "c", "--sizes", "0,9223372036854775808"],
                "--sizes 9223372036854775808 is beyond what c/direct can pass in one call",
            ),
            (
                &["ffi", "--runtime", "squeak"],
                "squeak has no ffi bindings yet: runtimes with bindings are rust, c, python, node, go, java, erlang, haskell",
            ),
            (
                &["ffi", "--runtime", "go", "--binding", "ctypes"],
                "go has no binding `ctypes`: its bindings are cgo",
            ),
            (
                &["ffi", "--runtime", "java", "--sizes", "0,4Gi"],
                "--sizes 4294967296 is beyond what java/jni can pass in one call: at most 2147483639 bytes",
            ),
            (&["ffi", "--binding", ","], "--binding is empty"),
            (&["ffi", "--sizes", "1k:10"], "bad range `1k:10`"),
            // A buffer no worker can hold: refused before any is measured.
            (
                &["ffi", "--runtime", "python", "--binding", "ctypes", "--sizes", "100Gi"],
                "--sizes 100 GiB: one call passes a buffer of that size, above --max-mem 4096 MiB",
            ),
            (
                &["ffi", "--runtime", "c", "--sizes", "0,4Ki,15360Gi", "--max-mem", "16777216"],
                "--sizes 15 TiB: one call passes a buffer of that size, and this machine has",
            ),
        ],
    );
    let o = s.toll_env(&["ffi", "--runtime", "c"], &[("CC", "/nonexistent/cc")]);
    assert_one_line_error(&o, "C compiler");
    assert!(!s.db().exists(), "nothing stored without a compiler");
}

/// GET `path` from a board at `addr`: (status, body).
fn get(addr: &str, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let status = raw.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, raw.split_once("\r\n\r\n").unwrap().1.to_string())
}

/// The table, the vs-link section and the picture of an ffi run.
fn assert_ffi_page(page: &str, what: &str) {
    for needle in [
        "toll ffi</code> reported it",
        "c/dlopen",
        "β ns/KiB",
        "binding or helper process?",
        "link ÷ call",
        "α per series",
        "dyu/ffi-overhead README",
    ] {
        assert!(page.contains(needle), "{what} lacks {needle:?}");
    }
    let figure = page.split_once("<figure>").expect("a figure").1;
    // c/direct and c/dlopen, and c's link.
    assert_eq!(
        dots(figure),
        3,
        "{what}: a dot per binding and one per link"
    );
}

#[test]
fn an_ffi_run_renders_on_the_board_and_in_the_report() {
    let s = Scratch::new("ffi-pages");
    let mut args = RUN.to_vec();
    args.extend(["--runtime", "c", "--vs-link"]);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = s.0.join("r.html");
    let o = s.toll(&["report", "last", "-o", html.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ffi_page(&std::fs::read_to_string(&html).unwrap(), "toll report");

    let mut board = std::process::Command::new(env!("CARGO_BIN_EXE_toll"))
        .arg("--db")
        .arg(s.db())
        .args(["board", "--listen", "127.0.0.1:0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start toll board");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(board.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let addr = line
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let (status, page) = get(&addr, "/runs/1");
    let _ = board.kill();
    let _ = board.wait();
    assert_eq!(status, 200, "{page}");
    assert_ffi_page(&page, "the board's run page");
}

/// The C library every binding calls is compiled once on first use, said
/// once, and cached once (each runtime's directory links to that build),
/// however many runtimes the first `toll ffi` starts.
#[test]
fn the_c_library_is_compiled_once_for_every_runtime() {
    let s = Scratch::new("ffi-one-build");
    let cache = s.0.join("cache");
    let cache_dir = cache.to_str().unwrap();
    let o = s.toll_env(
        &[
            "ffi",
            "--runtime",
            "c,python,rust",
            "--sizes",
            "0,8,16",
            "--trials",
            "1",
        ],
        &[("TOLL_CACHE_DIR", cache_dir)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let said = stderr(&o).matches("into libtoll_ffi.so").count();
    assert_eq!(said, 1, "{}", stderr(&o));
    use std::os::unix::fs::MetadataExt;
    let mut builds: Vec<(u64, u64)> = Vec::new();
    let mut copies = 0;
    for dir in std::fs::read_dir(&cache).unwrap().flatten() {
        let lib = dir.path().join("libtoll_ffi.so");
        if let Ok(m) = std::fs::metadata(&lib) {
            copies += 1;
            builds.push((m.dev(), m.ino()));
        }
    }
    builds.sort_unstable();
    builds.dedup();
    assert!(
        copies >= 3,
        "each runtime's directory has the library: {copies}"
    );
    assert_eq!(builds.len(), 1, "one build, linked: {builds:?}");
}
