//! `toll sys` end to end (issue 49): every crossing measured (or its
//! reason stated), the minor faults counted while pages were touched equal
//! the pages touched, the handoff matrix has one cell per ordered pair of
//! allowed CPUs, the memory chase finds steps near the cache sizes the
//! kernel reports, `--plot` draws the dots, the matrix and the staircase,
//! and bad input is one line before anything is measured.
//! Nothing here asserts a time a busy machine can blur.

mod common;
use common::*;
use serde_json::Value;

/// The chase times caches, which the other tests' measuring (handoffs spin
/// on every CPU) would blur: it measures alone, the others side by side.
static MACHINE: std::sync::RwLock<()> = std::sync::RwLock::new(());

fn measuring() -> std::sync::RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(|e| e.into_inner())
}

const QUICK_SYS: &[&str] = &["--trials", "3", "--warmup-ms", "5", "--batch-ms", "2"];

fn sys_json(s: &Scratch, extra: &[&str]) -> Value {
    let mut args = vec!["sys", "--json"];
    args.extend_from_slice(QUICK_SYS);
    args.extend_from_slice(extra);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn allowed_cpus() -> usize {
    let set = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0)).unwrap();
    (0..nix::sched::CpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .count()
}

#[test]
fn every_crossing_is_measured_or_says_why() {
    let _measuring = measuring();
    let s = Scratch::new("sys-all");
    let run = sys_json(
        &s,
        &["--memory-max", "256Ki", "--copy-sizes", "64,4Ki,64Ki"],
    );
    let series = run["series"].as_array().unwrap();
    let labels: Vec<&str> = series
        .iter()
        .map(|x| x["label"].as_str().unwrap())
        .collect();
    for want in [
        "syscall/getppid",
        "syscall/vdso-clock",
        "fault/touch",
        "fault/map-unmap",
        "signal/self",
        "signal/process",
        "wake/futex-thread/same-core",
        "wake/pipe-thread/same-core",
        "wake/pipe-process/same-core",
        "memory/chase",
        "copy/memcpy",
    ] {
        assert!(labels.contains(&want), "{want} missing: {labels:?}");
    }
    for x in series {
        for p in x["points"].as_array().unwrap() {
            let ok = p["status"] == "ok" && p["summary"]["median"].as_f64().unwrap_or(0.0) > 0.0;
            let said = p["error"].as_str().is_some_and(|e| !e.is_empty());
            assert!(ok || said, "{}: {p}", x["label"]);
        }
    }
    // The fitted ones have a model (or say why not).
    for label in ["fault/touch", "copy/memcpy"] {
        let x = series.iter().find(|x| x["label"] == label).unwrap();
        assert!(x["fit"]["decision"].is_object(), "{label}: {x}");
    }
    // Each page touched was one minor fault.
    let touch = series.iter().find(|x| x["label"] == "fault/touch").unwrap();
    for p in touch["points"].as_array().unwrap() {
        let per = p["extra"]["minor_faults_per_page"].as_f64().unwrap();
        assert!(
            (0.99..1.05).contains(&per),
            "{per} faults per page at n = {}",
            p["n"]
        );
    }
    // The handoff matrix: a cell per ordered pair of allowed CPUs.
    let k = allowed_cpus();
    let cells = labels.iter().filter(|l| l.starts_with("handoff/")).count();
    if k >= 2 {
        assert_eq!(cells, k * (k - 1), "{labels:?}");
        assert!(labels.contains(&"wake/futex-thread/cross-core"));
    } else {
        let row = series.iter().find(|x| x["label"] == "handoff").unwrap();
        assert!(row["points"][0]["error"]
            .as_str()
            .unwrap()
            .contains("two CPUs"));
    }
    assert_eq!(run["status"], "complete", "{}", run["error"]);
}

#[test]
fn the_chase_finds_steps_near_the_caches_the_kernel_reports() {
    let _alone = MACHINE.write().unwrap_or_else(|e| e.into_inner());
    let s = Scratch::new("sys-memory");
    // Seven rounds: a median a busy machine does not move.
    let o = s.toll(&[
        "sys",
        "--json",
        "--only",
        "memory",
        "--memory-max",
        "16Mi",
        // Rounds enough that a batch or two cut by another process's time
        // slice stay outside the quartiles the steps are judged by.
        "--trials",
        "11",
        "--warmup-ms",
        "20",
        "--batch-ms",
        "5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    let chase = &run["series"][0];
    let levels: Vec<u64> = chase["attrs"]["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["fits"].as_u64().unwrap())
        .collect();
    let caches: Vec<u64> = chase["attrs"]["caches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["bytes"].as_u64().unwrap())
        .filter(|&b| 2 * b <= 16 << 20)
        .collect();
    if caches.len() < 2 {
        println!("skipped: the kernel reports fewer than two caches under 8 MiB: {caches:?}");
        return;
    }
    // Each cache the chase outgrew has a step within a factor of 2. Where
    // other processes kept the CPUs busy while it ran (the run says so),
    // one of them may share a cache with the chase — two vCPUs can be one
    // core's two threads on the host, whatever the guest is told — and
    // the chase has half of it: then a factor of 4 below.
    let busy = chase["attrs"]["others_busy"].as_f64().unwrap_or(0.0) > 0.25;
    let below = if busy { 4 } else { 2 };
    let near = |c: u64| levels.iter().any(|&f| f * below >= c && f <= c * 2);
    let found: Vec<u64> = caches.iter().copied().filter(|&c| near(c)).collect();
    assert!(
        found.len() >= 2,
        "steps {levels:?} against the caches {caches:?} (busy: {busy}): {}",
        chase["points"]
    );
}

#[test]
fn the_tables_print_every_crossing() {
    let _measuring = measuring();
    let s = Scratch::new("sys-text");
    let mut args = vec!["sys", "--only", "syscall,copy,handoff"];
    args.extend_from_slice(QUICK_SYS);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for want in [
        "getppid",
        "vdso-clock",
        "copy/memcpy",
        "GB/s",
        "stored (complete)",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    if allowed_cpus() >= 2 {
        assert!(text.contains("one way: median"), "{text}");
    }
    // The machine's platform is stored with the run and shown.
    let o = s.toll(&["show", "last"]);
    let shown = stdout(&o);
    assert!(shown.contains("clock source"), "{shown}");
    assert!(shown.contains("seccomp"), "{shown}");
    if std::path::Path::new("/sys/devices/system/cpu/vulnerabilities").exists() {
        assert!(shown.contains("mitigations"), "{shown}");
    }
    if std::path::Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
        assert!(shown.contains("transparent huge pages"), "{shown}");
    }
    assert!(shown.contains("memory reclaim"), "{shown}");
}

/// Whether every element of `svg` that opens closes, in order: an XML
/// reader's first check, without one.
fn balanced(svg: &str) -> Result<(), String> {
    let mut open: Vec<&str> = Vec::new();
    for tag in svg.split('<').skip(1) {
        let tag = tag.split('>').next().ok_or("a tag without its end")?;
        if tag.starts_with('?') || tag.starts_with('!') || tag.ends_with('/') {
            continue;
        }
        let name = tag
            .trim_start_matches('/')
            .split_whitespace()
            .next()
            .unwrap_or("");
        if tag.starts_with('/') {
            match open.pop() {
                Some(o) if o == name => {}
                o => return Err(format!("</{name}> closes {o:?}")),
            }
        } else {
            open.push(name);
        }
    }
    match open.is_empty() {
        true => Ok(()),
        false => Err(format!("left open: {open:?}")),
    }
}

#[test]
fn the_plot_has_the_dots_the_matrix_and_the_staircase() {
    let _measuring = measuring();
    let s = Scratch::new("sys-plot");
    let plot = s.0.join("x.svg");
    let mut args = vec!["sys", "--only", "handoff,memory,syscall"];
    args.extend_from_slice(QUICK_SYS);
    args.extend(["--memory-max", "256Ki", "--plot", plot.to_str().unwrap()]);
    let o = s.toll(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("plot written to"), "{}", stderr(&o));
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    balanced(&svg).unwrap();
    assert!(svg.contains("<svg class=\"dots\""), "no dots");
    assert!(svg.contains("<svg class=\"staircase\""), "no staircase");
    assert!(svg.contains("getppid (per call)") && svg.contains("working set"));
    // Nothing fitted was asked for: no t(n).
    assert!(!svg.contains("<svg class=\"lines\""));
    if allowed_cpus() >= 2 {
        assert!(svg.contains("<svg class=\"heatmap\""), "no heat map");
    } else {
        assert!(svg.contains("handoff: not measured"));
    }
    // The page of `toll report` has the same picture.
    let o = s.toll(&["report", "last"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("<svg class=\"staircase\""));
}

#[test]
fn bad_input_is_one_line_before_anything_is_measured() {
    let s = Scratch::new("sys-bad");
    assert_usage_errors(
        &s,
        &[
            (
                &["sys", "--only", "ctxsw"],
                "unknown crossing `ctxsw`: the crossings are syscall",
            ),
            (&["sys", "--only", ","], "--only is empty"),
            (
                &["sys", "--cpus", "4096"],
                "--cpus 4096: this process may run on CPUs",
            ),
            (&["sys", "--cpus", "x"], "--cpus `x` is not a CPU number"),
            (&["sys", "--memory-max", "1Ki"], "the chase starts at 4 KiB"),
            (&["sys", "--memory-max", "16384Gi"], "this machine has"),
            (
                &["sys", "--pages", "0"],
                "pages per mapping are 1 to 1048576",
            ),
        ],
    );
}

fn figure_of<'a>(run: &'a Value, label: &str) -> &'a Value {
    let s = run["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["label"] == label)
        .unwrap_or_else(|| panic!("no series {label}"));
    &s["attrs"]["figure"]
}

#[test]
fn a_one_point_figure_learns_its_run_to_run_term_from_earlier_runs() {
    let _m = measuring();
    let s = Scratch::new("sys-figure");
    let first = sys_json(&s, &["--only", "syscall"]);
    let f = figure_of(&first, "syscall/getppid");
    assert_eq!(f["source"], "floor", "{f}");
    assert_eq!(f["earlier_runs"], 0);
    // Widened: the run's own interval inside the one shown.
    let (lo, hi) = (f["ci"][0].as_f64().unwrap(), f["ci"][1].as_f64().unwrap());
    let (wlo, whi) = (
        f["ci_within"][0].as_f64().unwrap(),
        f["ci_within"][1].as_f64().unwrap(),
    );
    let v = f["value"].as_f64().unwrap();
    assert!(lo <= wlo && whi <= hi && lo < v && v < hi, "{f}");
    assert!(
        hi - lo >= 2.0 * 1.96 * 0.01 * v - 1e-6,
        "at least the floor: {f}"
    );

    let second = sys_json(&s, &["--only", "syscall"]);
    let f = figure_of(&second, "syscall/vdso-clock");
    assert_eq!(f["source"], "history", "{f}");
    assert_eq!(f["earlier_runs"], 1);
    assert!(f.get("elsewhere").is_none(), "from this store: {f}");

    // A run into another store learns from toll's record of runs.
    let other = Scratch::new("sys-figure-other");
    let record = s.0.join("runs-here.jsonl");
    let o = other.toll_env(
        &[
            "sys",
            "--json",
            "--only",
            "syscall",
            "--trials",
            "3",
            "--warmup-ms",
            "5",
            "--batch-ms",
            "2",
        ],
        &[("TOLL_RUN_RECORD", record.to_str().unwrap())],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let third: Value = serde_json::from_slice(&o.stdout).unwrap();
    let f = figure_of(&third, "syscall/getppid");
    assert_eq!(f["earlier_runs"], 2, "{f}");
    assert_eq!(f["elsewhere"], 2, "{f}");

    // The table marks the widened interval and says what it holds; show
    // says where the term came from.
    let o = s.toll(&["show", "2"]);
    let text = stdout(&o);
    assert!(
        text.contains("run to run: sd") && text.contains("1 earlier runs of this series"),
        "{text}"
    );
    assert!(text.contains("95% CI*"), "{text}");
}
