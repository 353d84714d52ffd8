//! `toll file` end to end: every method of every runtime, both patterns and
//! both cache states on a small file, with what was stored checked against
//! what the reads and the page cache really were.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// A small file of toll's own (3 MiB) in the scratch directory.
fn small(s: &Scratch, extra: &[&str]) -> std::process::Output {
    let dir = s.0.join("files");
    let dir = dir.to_str().unwrap();
    let mut args = vec!["file", "--dir", dir, "--file-size", "3Mi"];
    args.extend_from_slice(extra);
    s.toll(&args)
}

fn ok(o: &std::process::Output) {
    assert!(
        o.status.success(),
        "toll failed:\n{}\n{}",
        stderr(o),
        stdout(o)
    );
}

fn attr<'a>(series: &'a Value, k: &str) -> &'a str {
    series["attrs"][k].as_str().unwrap_or_default()
}

#[test]
fn every_method_pattern_and_cache_of_every_runtime_reads_a_small_file() {
    let s = Scratch::new("file-all");
    let o = small(&s, &["--trials", "2", "--reads", "2000", "--json"]);
    ok(&o);
    let uring = !stderr(&o).contains("io_uring skipped");
    let run: Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    assert_eq!(run["family"], "file");
    assert_eq!(run["status"], "complete");
    let cfg = &run["config"];
    assert_eq!(cfg["file_size"], 3 << 20);
    assert_eq!(cfg["own_file"], true);
    assert!(
        !cfg["storage"]["fs_type"].as_str().unwrap().is_empty(),
        "the filesystem is recorded: {cfg}"
    );
    assert!(cfg["storage"]["dev"].as_str().unwrap().contains(':'));
    let series = run["series"].as_array().unwrap();
    let methods = [
        ("rust", "read"),
        ("rust", "pread"),
        ("rust", "mmap-copy"),
        ("rust", "mmap-slice"),
        ("rust", "io_uring"),
        ("c", "pread"),
        ("c", "mmap"),
        ("python", "read"),
        ("python", "mmap-read"),
        ("python", "mmap-slice"),
    ];
    let expected = methods.len() - usize::from(!uring);
    assert_eq!(series.len(), expected * 2 * 2, "method × pattern × cache");
    for (runtime, method) in methods {
        if method == "io_uring" && !uring {
            continue;
        }
        for pattern in ["seq", "random"] {
            for cache in ["cold", "warm"] {
                let label = format!("{runtime}/{method}/{pattern}/{cache}");
                let sr = series
                    .iter()
                    .find(|x| x["label"] == label.as_str())
                    .unwrap_or_else(|| panic!("no series {label}"));
                assert_eq!(attr(sr, "runtime"), runtime);
                assert_eq!(attr(sr, "method"), method);
                assert_eq!(attr(sr, "pattern"), pattern);
                assert_eq!(attr(sr, "cache"), cache);
                let want_sum = if runtime == "python" {
                    "last_byte"
                } else {
                    "bytes"
                };
                assert_eq!(attr(sr, "sum_of"), want_sum);
                let p = &sr["points"][0];
                assert_eq!(p["status"], "ok", "{label}: {p}");
                let (reads, n) = match pattern {
                    // 3 MiB in 50- and 450-byte reads: 6291 pairs, then one 50.
                    "seq" => (12_583, 250),
                    _ => (2000, 450),
                };
                assert_eq!(p["n"], n, "{label}");
                assert_eq!(p["extra"]["reads"], reads, "{label}");
                let samples = p["samples"].as_array().unwrap();
                assert_eq!(samples.len(), 2, "{label}: two trials");
                assert!(samples.iter().all(|x| x["iters"] == reads));
                // The page cache before each trial, as mincore counted it.
                let pages = p["extra"]["pages"].as_u64().unwrap();
                assert_eq!(pages, (3 << 20) / 4096, "{label}");
                for r in p["extra"]["resident_pages"].as_array().unwrap() {
                    match cache {
                        "cold" => assert_eq!(r, 0, "{label}: a cold trial began cold"),
                        _ => assert_eq!(r.as_u64(), Some(pages), "{label}: warm"),
                    }
                }
            }
        }
    }
}

#[test]
fn the_table_puts_e4s_figures_beside_e4s_cells() {
    let s = Scratch::new("file-e4");
    let o = small(
        &s,
        &[
            "--runtime",
            "python",
            "--cache",
            "cold",
            "--trials",
            "2",
            "--reads",
            "1000",
        ],
    );
    ok(&o);
    let out = stdout(&o);
    assert!(out.contains("made now"), "{out}");
    assert!(out.contains("E4 2010"), "{out}");
    for (method, figure) in [
        ("read ", "18.1 µs"),
        ("mmap-read ", "10.8 µs"),
        ("mmap-slice ", "10.3 µs"),
    ] {
        let row = out
            .lines()
            .find(|l| l.starts_with("python") && l.contains(method) && l.contains("random"))
            .unwrap_or_else(|| panic!("no random row for {method}: {out}"));
        assert!(row.contains(figure), "{row}");
        assert!(row.contains(" 0% "), "cold: {row}");
    }
    // E4's sequential totals are for its 100,000,000-byte file, not this one.
    assert!(!out.contains("501 ms"), "{out}");
    // The second run reuses the file.
    let again = small(
        &s,
        &[
            "--runtime",
            "c",
            "--trials",
            "1",
            "--reads",
            "100",
            "--pattern",
            "random",
        ],
    );
    ok(&again);
    assert!(!stdout(&again).contains("made now"));
    assert_eq!(
        std::fs::read_dir(s.0.join("files")).unwrap().count(),
        1,
        "one file, reused"
    );
}

#[test]
fn a_sweep_fits_a_cost_per_read_and_per_byte() {
    let s = Scratch::new("file-sweep");
    let svg = s.0.join("file.svg");
    let o = small(
        &s,
        &[
            "--sizes",
            "64,1Ki,16Ki,64Ki",
            "--runtime",
            "c,rust",
            "--method",
            "pread",
            "--pattern",
            "random",
            "--cache",
            "warm",
            "--reads",
            "300",
            "--trials",
            "3",
            "--plot",
            svg.to_str().unwrap(),
        ],
    );
    ok(&o);
    let out = stdout(&o);
    assert!(out.contains("model t(n) = α + β·n per read"), "{out}");
    assert!(svg.is_file(), "the plot");
    let run = export_json(&s, "last");
    for sr in run["series"].as_array().unwrap() {
        let ns: Vec<u64> = sr["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["n"].as_u64().unwrap())
            .collect();
        assert_eq!(ns, vec![64, 1024, 16384, 65536]);
        let fit = &sr["fit"]["weighted"];
        // Copying 64 KiB costs more than copying 64 bytes: β is above 0.
        assert!(fit["beta"].as_f64().unwrap() > 0.0, "{fit}");
    }
}

#[test]
fn a_users_file_is_read_and_never_written() {
    let s = Scratch::new("file-user");
    let path = s.0.join("mine.bin");
    let bytes: Vec<u8> = (0..200_000u32).map(|i| (i * 31 % 251) as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    let o = s.toll(&[
        "file",
        "--file",
        path.to_str().unwrap(),
        "--runtime",
        "rust,c,python",
        "--method",
        "pread,mmap-slice,read",
        "--cache",
        "warm",
        "--trials",
        "1",
        "--reads",
        "500",
    ]);
    ok(&o);
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "unchanged");
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
    let run = export_json(&s, "last");
    assert_eq!(run["config"]["own_file"], false);
    assert_eq!(run["config"]["file"], path.to_str().unwrap());
    let labels: Vec<&str> = run["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    // Each method on every chosen runtime that has it.
    for l in [
        "rust/read/seq/warm",
        "rust/pread/random/warm",
        "rust/mmap-slice/seq/warm",
        "c/pread/random/warm",
        "python/read/seq/warm",
        "python/mmap-slice/random/warm",
    ] {
        assert!(labels.contains(&l), "{l} in {labels:?}");
    }
    assert_eq!(labels.len(), 6 * 2);
}

#[test]
fn a_trial_that_is_not_cold_is_refused() {
    let s = Scratch::new("file-not-cold");
    let path = s.0.join("held.bin");
    std::fs::write(&path, vec![5u8; 1 << 20]).unwrap();
    // Another process maps the file and touches every page: posix_fadvise
    // cannot evict mapped pages, so the file stays resident.
    let holder = "import mmap,sys,time\nf=open(sys.argv[1],'rb')\nm=mmap.mmap(f.fileno(),0,access=mmap.ACCESS_READ)\ns=sum(m[i] for i in range(0,len(m),4096))\nprint('ready',flush=True)\ntime.sleep(60)\n";
    let mut child = std::process::Command::new("python3")
        .args(["-c", holder, path.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "ready");
    let o = s.toll(&[
        "file",
        "--file",
        path.to_str().unwrap(),
        "--runtime",
        "c",
        "--method",
        "pread",
        "--pattern",
        "random",
        "--cache",
        "cold",
        "--trials",
        "1",
        "--reads",
        "100",
    ]);
    let _ = child.kill();
    let _ = child.wait();
    assert!(!o.status.success(), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains("not cold: 256 of the file's 256 pages"),
        "{err}"
    );
    assert!(err.contains("--drop-caches"), "the fix is named: {err}");
    let run = export_json(&s, "last");
    assert_eq!(run["status"], "failed", "nothing stored as complete");
    assert_eq!(run["series"][0]["points"][0]["status"], "failed");
}

#[test]
fn bad_input_is_one_line_naming_the_fix_and_stores_nothing() {
    let s = Scratch::new("file-bad");
    let dir = s.0.join("inputs");
    std::fs::create_dir_all(&dir).unwrap();
    let short = dir.join("short");
    std::fs::write(&short, b"0123456789").unwrap();
    let d = dir.to_str().unwrap();
    let missing = dir.join("nope");
    // Root reads a file whatever its mode; a sysctl's mode binds root too.
    let root = {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").unwrap().uid() == 0
    };
    let unreadable = if root {
        Path::new("/proc/sys/vm/drop_caches").to_path_buf()
    } else {
        let p = dir.join("secret");
        std::fs::write(&p, vec![0u8; 4096]).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o000)).unwrap();
        p
    };
    let (missing, short, unreadable) = (
        missing.to_str().unwrap(),
        short.to_str().unwrap(),
        unreadable.to_str().unwrap(),
    );
    let own = s.0.join("own");
    let own = own.to_str().unwrap();
    assert_usage_errors(
        &s,
        &[
            (&["file", "--file", missing], "no such file: give the path of an existing file"),
            (&["file", "--file", d], "is a directory: give a regular file"),
            (
                &["file", "--file", short],
                "holds 10 bytes, fewer than one read of 450 bytes: give a larger file",
            ),
            (
                &["file", "--file", short, "--sizes", "4,64"],
                "fewer than one read of 64 bytes",
            ),
            (
                &["file", "--file", unreadable],
                "cannot open it for reading (Permission denied",
            ),
            (
                &["file", "--dir", own, "--file-size", "1Ti"],
                "not enough free space in",
            ),
            (
                &["file", "--dir", own, "--sizes", "0,64"],
                "--sizes: a read size of 0 reads nothing: give sizes of 1 byte or more",
            ),
            (
                &["file", "--runtime", "c", "--method", "mmap-read"],
                "the c runtime has no method `mmap-read`: it has pread, mmap",
            ),
            (
                &["file", "--runtime", "rust,c", "--method", "mmap-read"],
                "no chosen runtime has the method `mmap-read`: rust has read, pread, mmap-copy, mmap-slice, io_uring; c has pread, mmap",
            ),
            (
                &["file", "--runtime", "go"],
                "the go runtime has no file methods: toll file reads with rust, c, python",
            ),
            (&["file", "--cache", "tepid"], "--cache `tepid`: give cold, warm or both"),
            (&["file", "--pattern", "zigzag"], "unknown pattern `zigzag`"),
            (&["file", "--reads", "0"], "--reads must be from 1 to 100000000"),
            (&["file", "--trials", "0"], "--trials must be from 1 to 1000"),
            (
                &["file", "--cache", "warm", "--drop-caches"],
                "--drop-caches applies to cold trials",
            ),
            (&["file", "--file", short, "--file-size", "1M"], "cannot be used with"),
            (&["file", "--dir", own, "--file-size", "0"], "--file-size 0 makes an empty file"),
        ],
    );
    assert!(!Path::new(own).exists(), "no file made for a refused run");
    // io_uring refused by the kernel: named on one line when asked for, and
    // skipped with a note when it was only part of the default.
    let refused = [(
        "TOLL_IO_URING_REFUSED",
        "Operation not permitted (os error 1)",
    )];
    let o = s.toll_env(&["file", "--dir", own, "--method", "io_uring"], &refused);
    assert_one_line_error(
        &o,
        "io_uring: the kernel refuses it here (Operation not permitted (os error 1); kernel.io_uring_disabled or a seccomp filter): drop io_uring from --method",
    );
    let o = s.toll_env(
        &["--dry-run", "file", "--dir", own, "--runtime", "rust"],
        &refused,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("note: io_uring skipped: the kernel refuses it here"));
    assert!(!stdout(&o).contains("io_uring"), "{}", stdout(&o));
    assert!(!s.db().exists(), "nothing stored");
}

#[test]
fn a_dry_run_says_what_it_would_read_and_makes_nothing() {
    let s = Scratch::new("file-dry");
    let own = s.0.join("own");
    let o = s.toll(&["--dry-run", "file", "--dir", own.to_str().unwrap()]);
    ok(&o);
    let out = stdout(&o);
    assert!(
        out.contains("e4-100000000.bin (toll's; to be made, 100000000 bytes)"),
        "{out}"
    );
    assert!(
        out.contains("seq = 400000 reads of 50 and 450 bytes in turn"),
        "{out}"
    );
    assert!(out.contains("random = 200000 reads of 450 bytes"), "{out}");
    assert!(
        out.contains("× seq, random × cold, warm), 5 trials each"),
        "{out}"
    );
    assert!(!own.exists() && !s.db().exists(), "nothing made or stored");
}
