//! The hardware and kernel rows, from one `toll sys` run: a syscall beside
//! a vDSO clock read, a minor page fault (β per page), a signal, wake-up
//! round trips on one core and across two, a cache line handed between two
//! cores, a load from each cache level the kernel reports and from memory
//! (the chase's point at a working set inside each level), and memcpy's
//! rate (1/β).

use super::group::Group;
use super::read::fill;
use super::row::{Kind, MadeOf, Planned, Sheet, Source, Take};
use crate::replicate::{Ctx, KeepAffinity, Preset, INTERRUPTED};
use crate::sizes::parse_sizes;
use crate::sys::{self, Crossing, SysConfig};
use std::time::Duration;
use toll_measure::EngineConfig;

const G: Group = Group::Hardware;
/// The crossing every kernel row is counted in.
pub const SYSCALL: &str = "syscall (getppid)";
/// The wake-ups other rows are made of.
pub const PIPE_WAKE_CROSS: &str = "wake-up round trip, pipe between processes, across cores";
pub const FUTEX_WAKE_CROSS: &str = "wake-up round trip, futex, across cores";
pub const FUTEX_WAKE_SAME: &str = "wake-up round trip, futex, one core";
pub const MEMCPY: &str = "memcpy (1/β)";

/// The engine of a preset's points.
fn engine(p: Preset) -> EngineConfig {
    p.pick(
        EngineConfig::default(),
        EngineConfig {
            trials: 5,
            warmup: Duration::from_millis(20),
            batch_time: Duration::from_millis(5),
            ..EngineConfig::default()
        },
        EngineConfig {
            trials: 3,
            warmup: Duration::from_millis(2),
            batch_time: Duration::from_millis(1),
            ..EngineConfig::default()
        },
    )
}

/// The chase's largest working set: the family's own (4 × the last-level
/// cache) for the full preset; twice the last-level cache, at least 64 MiB,
/// for the quick one; 64 KiB for the tests'.
fn memory_top(p: Preset) -> u64 {
    let llc = sys::reported_caches().iter().map(|c| c.bytes).max();
    let full = sys::default_memory_top();
    p.pick(
        full,
        llc.map_or(full, |l| (2 * l).max(64 << 20).min(full)),
        64 << 10,
    )
}

pub fn config(p: Preset) -> SysConfig {
    let sizes = |s: &str| parse_sizes(s).expect("the presets' sizes parse");
    SysConfig {
        only: Crossing::ALL.to_vec(),
        engine: engine(p),
        pages: sizes(p.pick(sys::DEFAULT_PAGES, "1,16,256", "1,4,16")),
        copy_sizes: sizes(p.pick(sys::DEFAULT_COPY, "64,4Ki,256Ki,4Mi", "64,4Ki,64Ki")),
        memory_top: memory_top(p),
        cpus: sys::allowed_cpus(),
    }
}

/// Bytes as a person reads them.
fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} B"),
    }
}

/// The rows, and those this machine or preset cannot have (with why).
fn planned(cfg: &SysConfig) -> (Vec<Planned>, Vec<(Planned, String)>) {
    let point = |label: &str| Source::new(label, Take::Point { n: 0 });
    let t =
        |crossing: &str, made: MadeOf, src: Source| Planned::new(crossing, Kind::Time, made, src);
    let wake = "2 wake-ups and 2 context switches";
    let mut rows = vec![
        t(
            SYSCALL,
            MadeOf::words("user → kernel → user: the entry, its mitigations, the return"),
            point("syscall/getppid"),
        ),
        t(
            "vDSO clock read (clock_gettime)",
            MadeOf::words(
                "no kernel entry: the clock read from a page the kernel maps into every process",
            ),
            point("syscall/vdso-clock"),
        ),
        t(
            "minor page fault (per page, β)",
            MadeOf::words("a trap, a zeroed page, a page-table entry"),
            Source::new("fault/touch", Take::Beta),
        ),
        t(
            "signal to this thread (raise)",
            MadeOf::of(
                "raise and sigreturn, the kernel's delivery, the handler",
                &[(2.0, SYSCALL)],
            ),
            point("signal/self"),
        ),
        t(
            FUTEX_WAKE_SAME,
            MadeOf::of(
                format!("{wake} on one core, 4 futex calls"),
                &[(4.0, SYSCALL)],
            ),
            point("wake/futex-thread/same-core"),
        ),
        t(
            "wake-up round trip, pipe between processes, one core",
            MadeOf::of(
                format!("{wake} on one core, 2 writes + 2 reads"),
                &[(4.0, SYSCALL)],
            ),
            point("wake/pipe-process/same-core"),
        ),
    ];
    let mut cannot = vec![];
    let cross = [
        (
            FUTEX_WAKE_CROSS,
            "wake/futex-thread/cross-core",
            format!("{wake}, each an interrupt to the other core; 4 futex calls"),
        ),
        (
            PIPE_WAKE_CROSS,
            "wake/pipe-process/cross-core",
            format!("{wake}, each an interrupt to the other core; 2 writes + 2 reads"),
        ),
    ];
    let two = cfg.cpus.len() >= 2;
    for (crossing, label, words) in cross {
        let p = t(crossing, MadeOf::of(words, &[(4.0, SYSCALL)]), point(label));
        if two {
            rows.push(p);
        } else {
            cannot.push((p, "needs two CPUs, and toll may use one here".into()));
        }
    }
    let handoff = MadeOf::words(
        "a cache line's ownership moved by the coherence protocol (compare-and-swap)",
    );
    match cfg.cpus.as_slice() {
        [a, b, ..] => rows.push(t(
            "cache line handoff, core to core (one way)",
            handoff,
            point(&format!("handoff/{a}-{b}")),
        )),
        _ => cannot.push((
            t(
                "cache line handoff, core to core (one way)",
                handoff,
                point("handoff"),
            ),
            "needs two CPUs, and toll may use one here".into(),
        )),
    }
    // A load from each level: the largest working set of the chase that is
    // at most half the level and above the level below it.
    let sizes = sys::chase_sizes(cfg.memory_top);
    let caches = sys::reported_caches();
    let mut below = 0u64;
    for c in &caches {
        let name = if c.kind == "Data" {
            format!("L{}d", c.level)
        } else {
            format!("L{}", c.level)
        };
        let ws = sizes
            .iter()
            .copied()
            .filter(|&s| s <= c.bytes / 2 && s > below)
            .max();
        let made = |ws: u64| {
            MadeOf::words(format!(
                "a dependent load, working set {} in a {} {name}",
                bytes(ws),
                bytes(c.bytes)
            ))
        };
        let crossing = format!("load from {name}");
        match ws {
            Some(ws) => rows.push(t(
                &crossing,
                made(ws),
                Source::new("memory/chase", Take::Point { n: ws }),
            )),
            None => cannot.push((
                t(
                    &crossing,
                    made(c.bytes / 2),
                    Source::new("memory/chase", Take::Point { n: 0 }),
                ),
                format!(
                    "not measured: this preset's chase stops at {}",
                    bytes(cfg.memory_top)
                ),
            )),
        }
        below = c.bytes;
    }
    let top = sizes.last().copied().unwrap_or(0);
    let llc = caches.iter().map(|c| c.bytes).max().unwrap_or(0);
    let memory = |ws: u64| {
        let beyond = if llc > 0 {
            format!(", {:.1}× the last-level cache", ws as f64 / llc as f64)
        } else {
            String::new()
        };
        MadeOf::words(format!(
            "a dependent load missing every cache: working set {}{beyond}",
            bytes(ws)
        ))
    };
    if top > llc {
        rows.push(t(
            "load from memory",
            memory(top),
            Source::new("memory/chase", Take::Point { n: top }),
        ));
    } else {
        cannot.push((
            t(
                "load from memory",
                memory(top),
                Source::new("memory/chase", Take::Point { n: top }),
            ),
            format!(
                "not measured: this preset's chase stops at {}, inside the last-level cache ({})",
                bytes(top),
                bytes(llc)
            ),
        ));
    }
    rows.push(Planned::new(
        MEMCPY,
        Kind::Rate,
        MadeOf::words(format!(
            "memcpy between two touched buffers, {} to {}",
            bytes(cfg.copy_sizes[0]),
            bytes(*cfg.copy_sizes.last().unwrap_or(&0))
        )),
        Source::new("copy/memcpy", Take::Rate { bytes: 1.0 }),
    ));
    (rows, cannot)
}

pub fn run(ctx: &mut Ctx, sheet: &mut Sheet) {
    let cfg = config(ctx.preset);
    let (rows, cannot) = planned(&cfg);
    for (p, why) in &cannot {
        sheet.missing(G, p, why.clone());
    }
    if ctx.stopped() {
        rows.iter().for_each(|p| sheet.missing(G, p, INTERRUPTED));
        return;
    }
    let keep = KeepAffinity::now();
    let outcome = sys::run(&cfg, ctx.store, ctx.observer, ctx.stop);
    drop(keep);
    let run = match outcome {
        Ok(out) => {
            sheet.runs.push(("sys".into(), out.run_id));
            Ok(out.run_id)
        }
        Err(e) => {
            sheet.failed("sys", &e);
            Err(format!("failed: {e}"))
        }
    };
    fill(sheet, ctx.store, G, &rows, run, ctx.stopped());
}

/// About how long the run takes, s (the `--dry-run` estimate).
pub fn estimate(p: Preset) -> f64 {
    let cfg = config(p);
    let points = sys::plan(&cfg).iter().map(|s| s.ns.len()).sum::<usize>() as f64;
    let e = &cfg.engine;
    let per = e.warmup.as_secs_f64() + f64::from(e.trials) * e.batch_time.as_secs_f64() * 1.5;
    // The chase's cycle is built once per working set: about 50 ns a line.
    let chase = sys::chase_sizes(cfg.memory_top).iter().sum::<u64>() as f64 / 64.0 * 50e-9;
    points * per + chase
}
