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

/// The engine of a preset's points: quick takes fewer trials of the
/// family's own batch (10 ms), so each is the same measurement.
fn engine(p: Preset) -> EngineConfig {
    p.pick(
        EngineConfig::default(),
        EngineConfig {
            trials: 5,
            warmup: Duration::from_millis(20),
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

/// The working sets the chase's rows read, by one rule for every preset:
/// for each cache level the kernel reports (smallest first), the largest
/// of the chase's sizes (powers of two from 4 KiB) at most half the level
/// and above the level below, or none; for memory, the largest within
/// `full_top` (`toll sys`'s own top: four times the last-level cache).
pub fn working_sets(caches: &[sys::Cache], full_top: u64) -> (Vec<Option<u64>>, u64) {
    let sizes = sys::chase_sizes(full_top);
    let mut below = 0u64;
    let levels = caches
        .iter()
        .map(|c| {
            let ws = sizes
                .iter()
                .copied()
                .filter(|&s| s <= c.bytes / 2 && s > below)
                .max();
            below = c.bytes;
            ws
        })
        .collect();
    (levels, sizes.last().copied().unwrap_or(0))
}

/// The chase's working sets at a preset: the family's own for the full
/// one (every power of two up to four times the last-level cache); for
/// the quick one every power of two up to the largest cache row's working
/// set, then memory's — the sizes the rows read, at the sizes the full one
/// reads them; up to 64 KiB for the tests'.
fn chase(p: Preset) -> (u64, Option<Vec<u64>>) {
    let full = sys::default_memory_top();
    let (levels, memory) = working_sets(&sys::reported_caches(), full);
    let quick = quick_chase(&levels, memory, full);
    p.pick((full, None), (memory, Some(quick)), (64 << 10, None))
}

/// The quick chase: the full one's sizes up to the largest cache row's
/// working set, and memory's.
fn quick_chase(levels: &[Option<u64>], memory: u64, full_top: u64) -> Vec<u64> {
    let cache_top = levels.iter().flatten().copied().max().unwrap_or(0);
    sys::chase_sizes(full_top)
        .into_iter()
        .filter(|&s| s <= cache_top || s == memory)
        .collect()
}

pub fn config(p: Preset) -> SysConfig {
    let sizes = |s: &str| parse_sizes(s).expect("the presets' sizes parse");
    let (memory_top, memory_sizes) = chase(p);
    SysConfig {
        only: Crossing::ALL.to_vec(),
        engine: engine(p),
        pages: sizes(p.pick(sys::DEFAULT_PAGES, "1,16,256", "1,4,16")),
        copy_sizes: sizes(p.pick(sys::DEFAULT_COPY, sys::DEFAULT_COPY, "64,4Ki,64Ki")),
        memory_top,
        memory_sizes,
        cpus: sys::allowed_cpus(),
    }
}

/// The chase's working sets a config measures.
fn chased(cfg: &SysConfig) -> Vec<u64> {
    cfg.memory_sizes
        .clone()
        .unwrap_or_else(|| sys::chase_sizes(cfg.memory_top))
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
    // A load from each level and from memory, at the working sets one rule
    // picks from the kernel's cache sizes (the same in every preset), read
    // where this preset's chase has them.
    let chased = chased(cfg);
    let caches = sys::reported_caches();
    let (levels, memory_ws) = working_sets(&caches, sys::default_memory_top());
    let stops = format!(
        "not measured: this preset's chase stops at {}",
        bytes(chased.last().copied().unwrap_or(0))
    );
    for (c, ws) in caches.iter().zip(levels) {
        let name = if c.kind == "Data" {
            format!("L{}d", c.level)
        } else {
            format!("L{}", c.level)
        };
        let made = |ws: u64| {
            MadeOf::words(format!(
                "a dependent load, working set {} in a {} {name}",
                bytes(ws),
                bytes(c.bytes)
            ))
        };
        let crossing = format!("load from {name}");
        match ws {
            Some(ws) if chased.contains(&ws) => rows.push(t(
                &crossing,
                made(ws),
                Source::new("memory/chase", Take::Point { n: ws }),
            )),
            ws => cannot.push((
                t(
                    &crossing,
                    made(ws.unwrap_or(c.bytes / 2)),
                    Source::new("memory/chase", Take::Point { n: 0 }),
                ),
                match ws {
                    Some(_) => stops.clone(),
                    None => format!(
                        "not measured: no working set of the chase lies within half this level and above the one below ({})",
                        bytes(c.bytes)
                    ),
                },
            )),
        }
    }
    let llc = caches.iter().map(|c| c.bytes).max().unwrap_or(0);
    let memory = MadeOf::words(format!(
        "a dependent load missing every cache: working set {}{}",
        bytes(memory_ws),
        if llc > 0 {
            format!(
                ", {:.1}× the last-level cache",
                memory_ws as f64 / llc as f64
            )
        } else {
            String::new()
        }
    ));
    let memory = t(
        "load from memory",
        memory,
        Source::new("memory/chase", Take::Point { n: memory_ws }),
    );
    if chased.contains(&memory_ws) && memory_ws > llc {
        rows.push(memory);
    } else {
        cannot.push((memory, stops));
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
    // The chase's cycle is built once per working set: about 200 ns a line
    // (its pages faulted in and zeroed, the shuffle's and the cycle's
    // writes each a miss at the large sizes; `toll sys --only memory` up
    // to 1 GiB took 10 s on a busy 2-vCPU KVM guest).
    let chase = chased(&cfg).iter().sum::<u64>() as f64 / 64.0 * 200e-9;
    points * per + chase
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(level: u32, kind: &str, bytes: u64) -> sys::Cache {
        sys::Cache {
            level,
            kind: kind.into(),
            bytes,
        }
    }

    #[test]
    fn each_level_and_memory_is_read_at_one_working_set_that_both_chases_have() {
        // A 2-vCPU Xeon guest's caches: 48 KiB L1d, 2 MiB L2, 260 MiB L3.
        let caches = [
            cache(1, "Data", 48 << 10),
            cache(2, "Unified", 2 << 20),
            cache(3, "Unified", 260 << 20),
        ];
        let full_top = 4 * (260 << 20);
        let (levels, memory) = working_sets(&caches, full_top);
        assert_eq!(levels, [Some(16 << 10), Some(1 << 20), Some(128 << 20)]);
        assert_eq!(memory, 1 << 30);
        let quick = quick_chase(&levels, memory, full_top);
        let full = sys::chase_sizes(full_top);
        for ws in levels.iter().flatten().chain([&memory]) {
            assert!(quick.contains(ws) && full.contains(ws), "{ws}");
        }
        assert!(quick.iter().all(|s| full.contains(s)), "{quick:?}");
        // The staircase through the caches, then memory's one point.
        assert_eq!(quick.len(), 17, "{quick:?}");
        // A level with no power of two inside its half, above the one below.
        let (levels, _) = working_sets(
            &[cache(1, "Data", 4 << 10), cache(2, "Unified", 6 << 10)],
            64 << 20,
        );
        assert_eq!(levels, [None, None]);
    }

    #[test]
    fn quick_reads_every_chase_row_where_full_does() {
        let (quick, _) = planned(&config(Preset::Quick));
        let (full, _) = planned(&config(Preset::Full));
        for q in quick.iter().filter(|q| q.source.series == "memory/chase") {
            let f = full
                .iter()
                .find(|f| f.crossing == q.crossing)
                .unwrap_or_else(|| panic!("{} not in the full preset", q.crossing));
            assert_eq!(q.source, f.source, "{}", q.crossing);
            assert_eq!(q.made_of, f.made_of, "{}", q.crossing);
        }
    }
}
