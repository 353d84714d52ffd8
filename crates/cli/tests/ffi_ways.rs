//! `toll ffi --pass` and `--touch` end to end: every way each binding
//! here offers, measured on the real workers with its receipt checked, or a
//! row giving the reason; the table saying what β measures under each
//! touch; a wrong receipt failing its point; and the bad input refused in
//! one line before anything is measured.

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

fn series(run: &Value) -> &Vec<Value> {
    run["series"].as_array().expect("series")
}

#[test]
fn every_way_each_binding_offers_is_measured_or_says_why_not() {
    let s = Scratch::new("ffi-ways");
    let mut args = RUN.to_vec();
    // Pinned is every binding's way before there were ways: the ffi test
    // measures it; here the copies and the strings, on every runtime.
    args.extend(["--runtime", "all", "--pass", "copied,string"]);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("β: ns per KiB passed (the C side proves receipt at constant cost"),
        "{out}"
    );
    assert!(
        out.contains("the C side reads n and three bytes (--touch receipt)"),
        "{out}"
    );
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "complete", "{}", run["error"]);
    assert_eq!(run["config"]["touch"], "receipt");
    let labels: Vec<&str> = series(&run)
        .iter()
        .map(|sr| sr["label"].as_str().unwrap())
        .collect();
    for l in [
        "c/direct/copied",
        "c/dlopen/string",
        "rust/direct/string",
        "python/ctypes/copied",
        "python/ext/string",
        "go/cgo/copied",
        "java/jni/string",
    ] {
        assert!(labels.contains(&l), "{l} not in {labels:?}");
    }
    let mut measured = Vec::new();
    for sr in series(&run) {
        let label = sr["label"].as_str().unwrap();
        assert_eq!(sr["attrs"]["touch"], "receipt", "{label}");
        let pass = sr["attrs"]["pass"].as_str().unwrap();
        assert!(label.ends_with(&format!("/{pass}")), "{label}: {pass}");
        match (&sr["fit"], sr["attrs"]["unavailable"].as_str()) {
            (Value::Null, Some(why)) => {
                assert!(
                    why.starts_with("not available here") || why.contains(" does not pass `"),
                    "{label}: {why}"
                );
            }
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
    // C and Rust are always here; their copies are measured, C's string
    // is a row saying why it does not apply.
    for l in [
        "c/direct/copied",
        "c/dlopen/copied",
        "rust/direct/copied",
        "rust/dlopen/string",
    ] {
        assert!(measured.contains(&l), "{l} not measured: {measured:?}");
    }
    let c_string = series(&run)
        .iter()
        .find(|sr| sr["label"] == "c/direct/string")
        .unwrap();
    let why = c_string["attrs"]["unavailable"].as_str().unwrap();
    assert!(why.contains("already a char *"), "{why}");
    let row = out
        .lines()
        .find(|l| l.starts_with("c ") && l.contains("direct") && l.contains("string"))
        .unwrap_or_else(|| panic!("no c/direct/string row:\n{out}"));
    assert!(row.contains("way not offered"), "{row}");
    assert!(
        out.contains("c/direct/string: direct does not pass `string`"),
        "{out}"
    );
}

#[test]
fn touch_all_says_beta_is_the_c_loops_and_checks_the_sum() {
    let s = Scratch::new("ffi-touch-all");
    let mut args = RUN.to_vec();
    args.extend([
        "--runtime",
        "c",
        "--pass",
        "pinned,copied",
        "--touch",
        "all",
    ]);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("β: ns per KiB passed in and summed by the C loop"),
        "{out}"
    );
    assert!(out.contains("every byte (--touch all)"), "{out}");
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "complete", "{}", run["error"]);
    assert_eq!(run["config"]["touch"], "all");
    let labels: Vec<&str> = series(&run)
        .iter()
        .map(|sr| sr["label"].as_str().unwrap())
        .collect();
    assert_eq!(
        labels,
        ["c/direct", "c/direct/copied", "c/dlopen", "c/dlopen/copied"]
    );
}

/// A library whose receipt is wrong (n alone, no bytes read) fails every
/// point above n = 0: the receipt is checked, not trusted.
#[test]
fn a_wrong_receipt_fails_the_point() {
    let s = Scratch::new("ffi-wrong-receipt");
    let cache = s.0.join("cache");
    let env = [("TOLL_CACHE_DIR", cache.to_str().unwrap())];
    let mut args = RUN.to_vec();
    args.extend(["--runtime", "c", "--binding", "dlopen"]);
    let o = s.toll_env(&args, &env);
    assert!(o.status.success(), "{}", stderr(&o));
    // The C worker's own copy of the library, replaced (not written through
    // its hard link to the shared build) by one that lies.
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
         uint64_t toll_ffi_sum(const uint8_t *p, size_t n) { (void)p; return n; }\n\
         uint64_t toll_ffi_receipt(const uint8_t *p, size_t n) { (void)p; return (uint64_t)n << 24; }\n\
         void toll_ffi_callback(void (*f)(void *), void *ctx, uint64_t n) { while (n--) f(ctx); }\n",
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
    assert!(
        !o.status.success(),
        "a wrong receipt passed: {}",
        stdout(&o)
    );
    let err = stderr(&o);
    assert!(err.contains("c/dlopen returned the receipt"), "{err}");
    let run = export_json(&s, "last");
    let points = series(&run)[0]["points"].as_array().unwrap().clone();
    assert_eq!(points[0]["status"], "ok", "n = 0: nothing to prove");
    for p in &points[1..] {
        assert_eq!(p["status"], "failed", "{p}");
        assert!(
            p["error"]
                .as_str()
                .unwrap()
                .contains("the bytes did not all arrive"),
            "{p}"
        );
    }
}

#[test]
fn bad_ways_and_touches_are_one_line_before_anything_is_measured() {
    let s = Scratch::new("ffi-ways-bad");
    assert_usage_errors(
        &s,
        &[
            (
                &["ffi", "--pass", "lent"],
                "--pass lent: unknown way of passing: the ways are pinned, copied, string",
            ),
            (&["ffi", "--pass", ","], "--pass is empty"),
            (&["ffi", "--touch", "some"], "--touch some: the C side reads `receipt` or `all`"),
            (
                &["ffi", "--runtime", "node", "--pass", "pinned,string", "--sizes", "0,512Mi"],
                "--sizes 536870912 is beyond what node/napi/string can pass in one call: at most 536870888 bytes (a V8 string",
            ),
        ],
    );
    assert!(!s.db().exists(), "nothing stored");
}
