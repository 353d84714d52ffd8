//! `toll ffi --callback` end to end: C calling each runtime back n times a
//! call, measured on the real workers with the count of upcalls checked, or
//! a row giving the reason; the callback table saying β is per upcall; a
//! wrong count failing its point. No figure is asserted.

mod common;
use common::*;
use serde_json::Value;

/// Small counts and quick settings: a run takes seconds.
const RUN: &[&str] = &[
    "ffi",
    "--sizes",
    "0,64,256",
    "--trials",
    "3",
    "--warmup-ms",
    "5",
    "--batch-ms",
    "2",
    "--callback",
];

fn callbacks(run: &Value) -> Vec<&Value> {
    run["series"]
        .as_array()
        .expect("series")
        .iter()
        .filter(|sr| sr["attrs"]["pass"] == "callback")
        .collect()
}

#[test]
fn every_runtime_calls_back_or_says_why_not() {
    let s = Scratch::new("ffi-callback");
    let plot = s.0.join("ffi.svg");
    let mut args = RUN.to_vec();
    args.extend(["--runtime", "all", "--plot", plot.to_str().unwrap()]);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // The picture: β per upcall on an axis of its own, below α.
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("β per binding and way"), "{svg}");
    assert!(svg.contains("β: ns per upcall (callbacks)"), "{svg}");
    assert!(out.contains("β ns/upcall"), "{out}");
    assert!(out.contains("β: ns per upcall"), "{out}");
    assert!(
        out.contains("(upcalls per call for the callbacks)"),
        "{out}"
    );
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "complete", "{}", run["error"]);
    let cbs = callbacks(&run);
    // One callback series per binding of every runtime with bindings.
    assert_eq!(
        cbs.len(),
        15,
        "{:?}",
        cbs.iter().map(|s| &s["label"]).collect::<Vec<_>>()
    );
    let mut measured = Vec::new();
    for sr in &cbs {
        let label = sr["label"].as_str().unwrap();
        assert!(label.ends_with("/callback"), "{label}");
        assert_eq!(sr["attrs"]["unit"], "upcalls", "{label}");
        match (&sr["fit"], sr["attrs"]["unavailable"].as_str()) {
            (Value::Null, Some(why)) => assert!(
                why.starts_with("not available here") || why.contains(" does not call back: "),
                "{label}: {why}"
            ),
            (Value::Null, None) => panic!("{label} has neither a fit nor a reason: {sr}"),
            (fit, _) => {
                assert!(fit["decision"].is_object(), "{label}: {fit}");
                for p in sr["points"].as_array().unwrap() {
                    assert_eq!(p["status"], "ok", "{label}: {p}");
                }
                measured.push(label);
            }
        }
    }
    for l in [
        "c/direct/callback",
        "c/dlopen/callback",
        "rust/direct/callback",
        "rust/dlopen/callback",
    ] {
        assert!(measured.contains(&l), "{l} not measured: {measured:?}");
    }
    // Haskell's unsafe call cannot call back: a row that says so, where
    // GHC is here; an Erlang NIF's messages are said to be messages.
    if let Some(sr) = cbs
        .iter()
        .find(|sr| sr["label"] == "haskell/unsafe/callback")
    {
        let why = sr["attrs"]["unavailable"].as_str().unwrap_or("");
        assert!(
            why.contains("does not call back") || why.starts_with("not available"),
            "{why}"
        );
    }
    if measured.contains(&"erlang/nif/callback") {
        assert!(
            out.contains("erlang/nif/callback: not a call: a NIF cannot call Erlang code"),
            "{out}"
        );
    }
}

/// A library whose callback skips an upcall fails every point above n = 0:
/// the count is checked, not trusted.
#[test]
fn a_wrong_count_fails_the_point() {
    let s = Scratch::new("ffi-wrong-count");
    let cache = s.0.join("cache");
    let env = [("TOLL_CACHE_DIR", cache.to_str().unwrap())];
    let mut args = RUN.to_vec();
    args.extend(["--runtime", "c", "--binding", "dlopen"]);
    let o = s.toll_env(&args, &env);
    assert!(o.status.success(), "{}", stderr(&o));
    let dir = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .map(|d| d.path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("ffi-c-")
        })
        .expect("the C runtime's ffi directory");
    let src = s.0.join("liar.c");
    std::fs::write(
        &src,
        "#include <stdint.h>\n#include <stddef.h>\nvoid toll_ffi_null(void) {}\n\
         uint64_t toll_ffi_sum(const uint8_t *p, size_t n) { uint64_t s = 0; for (size_t i = 0; i < n; i++) s += p[i]; return s; }\n\
         uint64_t toll_ffi_receipt(const uint8_t *p, size_t n) { return n ? (uint64_t)n << 24 | (uint64_t)p[0] << 16 | (uint64_t)p[n / 2] << 8 | p[n - 1] : 0; }\n\
         void toll_ffi_callback(void (*f)(void *), void *ctx, uint64_t n) { for (uint64_t i = 1; i < n; i++) f(ctx); }\n",
    )
    .unwrap();
    let lib = dir.join("libtoll_ffi.so");
    std::fs::remove_file(&lib).unwrap();
    let cc = std::process::Command::new("cc")
        .args(["-O2", "-fPIC", "-shared", "-o"])
        .arg(&lib)
        .arg(&src)
        .status()
        .unwrap();
    assert!(cc.success());
    let o = s.toll_env(&args, &env);
    assert!(!o.status.success(), "a wrong count passed: {}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("c/dlopen/callback counted 63 upcalls for 64"),
        "{err}"
    );
    let run = export_json(&s, "last");
    let cb = callbacks(&run)[0];
    let points = cb["points"].as_array().unwrap();
    assert_eq!(points[0]["status"], "ok", "n = 0: nothing to count");
    for p in &points[1..] {
        assert_eq!(p["status"], "failed", "{p}");
        assert!(
            p["error"]
                .as_str()
                .unwrap()
                .contains("not every callback arrived"),
            "{p}"
        );
    }
    // The pinned series beside it still proves its receipts.
    let pinned = &run["series"][0];
    assert_eq!(pinned["label"], "c/dlopen");
    assert!(pinned["points"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["status"] == "ok"));
}

#[test]
fn callback_is_a_flag_not_a_way_of_passing() {
    let s = Scratch::new("ffi-callback-bad");
    assert_usage_errors(
        &s,
        &[(
            &["ffi", "--pass", "callback"],
            "--pass callback: a callback passes no bytes: give --callback beside --pass",
        )],
    );
    assert!(!s.db().exists(), "nothing stored");
}
