//! The threads and processes rows: making one unit of each kind every
//! installed runtime has (`toll spawn`: the time per unit of N made and
//! left waiting), and a ring hop (`toll ring`). One family run per runtime,
//! so a runtime that cannot be built loses its own rows only.

use super::group::Group;
use super::read::fill;
use super::row::{Kind, MadeOf, Planned, Sheet, Source, Take};
use crate::replicate::{Ctx, Preset, INTERRUPTED};
use crate::units::{self, Target, UnitOp, UnitsConfig};
use std::time::Duration;
use toll_peers::{Ceiling, Runtime, UnitClass};

const G: Group = Group::Threads;

/// The runtimes a preset spawns in (Squeak's units are E2's: `toll
/// replicate E2` has them).
fn runtimes(p: Preset) -> Vec<Runtime> {
    match p {
        Preset::Test => vec![Runtime::Rust, Runtime::C],
        _ => Runtime::ALL
            .into_iter()
            .filter(|r| *r != Runtime::Squeak)
            .collect(),
    }
}

/// The rings a preset measures.
fn rings(p: Preset) -> Vec<Target> {
    let t = |runtime, unit| Target { runtime, unit };
    match p {
        Preset::Test => vec![t(Runtime::Rust, "thread")],
        _ => vec![
            t(Runtime::Rust, "thread"),
            t(Runtime::Go, "goroutine"),
            t(Runtime::Erlang, "process"),
        ],
    }
}

/// (N units spawned, N in the ring, M rounds, trials). A unit's time
/// depends on how many are made and left waiting, and a hop's on how many
/// are in the ring, so quick makes as many as full (its N and its ring),
/// in fewer trials and rounds.
fn sizes(p: Preset) -> (u64, u64, u64, u32) {
    p.pick(
        (10_000, 1_000, 1_000, 10),
        (10_000, 1_000, 100, 3),
        (50, 10, 10, 2),
    )
}

fn spawn_row(t: Target, n: u64) -> Planned {
    let what = match (t.runtime, t.unit) {
        (Runtime::C, "process") => "process by fork".to_string(),
        (_, unit) => unit.replace('-', " "),
    };
    let words = match t.class() {
        UnitClass::OsThread => "clone(), a stack mapped, the thread started and left waiting",
        UnitClass::OsProcess => {
            "fork(): the page tables copied, the child started and left waiting"
        }
        UnitClass::Green => {
            "the runtime's own unit: a small stack or heap object queued on its scheduler"
        }
    };
    Planned::new(
        format!("spawn: {what} ({})", t.runtime),
        Kind::Time,
        MadeOf::words(format!("{words}; per unit of {n}")),
        Source::new(t.label(), Take::Point { n }),
    )
    .at(format!("n = {n}"))
}

fn ring_row(t: Target, n: u64) -> Planned {
    Planned::new(
        format!("ring hop: {} ({})", t.unit.replace('-', " "), t.runtime),
        Kind::Time,
        MadeOf::words(format!(
            "a token handed to the next of {n} units, and that unit woken"
        )),
        Source::new(t.label(), Take::Point { n }),
    )
    .at(format!("n = {n}"))
}

/// One spawn or ring run of `targets` (one runtime), its rows filled.
#[allow(clippy::too_many_arguments)]
fn measure(
    ctx: &mut Ctx,
    sheet: &mut Sheet,
    op: UnitOp,
    runtime: Runtime,
    targets: Vec<Target>,
    n: u64,
    trials: u32,
    rows: &[Planned],
) {
    if runtime.detect().is_err() {
        let why = format!("{runtime} not installed: {}", runtime.install_hint());
        rows.iter().for_each(|p| sheet.missing(G, p, why.clone()));
        return;
    }
    if ctx.stopped() {
        rows.iter().for_each(|p| sheet.missing(G, p, INTERRUPTED));
        return;
    }
    let cfg = UnitsConfig {
        op,
        ns: vec![n],
        targets,
        trials,
        ceiling: Ceiling {
            time: Duration::from_secs(60),
            mem_kb: 4096 * 1024,
        },
    };
    let what = format!("{} --runtime {runtime}", op.family());
    let run = match units::run(&cfg, ctx.store, ctx.observer, ctx.stop) {
        Ok(out) => {
            sheet.runs.push((op.family().into(), out.run_id));
            if let Some(e) = &out.error {
                sheet.failed(&what, e);
            }
            Ok(out.run_id)
        }
        Err(e) => {
            sheet.failed(&what, &e);
            Err(format!("failed: {e}"))
        }
    };
    fill(sheet, ctx.store, G, rows, run, ctx.stopped());
}

pub fn run(ctx: &mut Ctx, sheet: &mut Sheet) {
    let p = ctx.preset;
    let (n, ring_n, m, trials) = sizes(p);
    for runtime in Runtime::ALL {
        let targets: Vec<Target> = runtime
            .units()
            .iter()
            .map(|&unit| Target { runtime, unit })
            .collect();
        let rows: Vec<Planned> = targets.iter().map(|&t| spawn_row(t, n)).collect();
        if !runtimes(p).contains(&runtime) {
            let why = match runtime {
                Runtime::Squeak => "not in the atlas: Squeak's units are E2's (toll replicate E2)",
                _ => "not measured: left out of the tests' preset",
            };
            rows.iter().for_each(|r| sheet.missing(G, r, why));
            continue;
        }
        measure(
            ctx,
            sheet,
            UnitOp::Spawn,
            runtime,
            targets,
            n,
            trials,
            &rows,
        );
    }
    for t in rings(p) {
        let row = ring_row(t, ring_n);
        measure(
            ctx,
            sheet,
            UnitOp::Ring { m },
            t.runtime,
            vec![t],
            ring_n,
            trials,
            &[row],
        );
    }
}

/// How many family runs the group makes: a spawn run per runtime, a ring
/// run per ring.
pub fn family_runs(p: Preset) -> usize {
    runtimes(p).len() + rings(p).len()
}

/// About how long one unit takes to make and to end, s, at N = 10,000:
/// each runtime's spawn run's wall time over the units it made, in a quick
/// atlas on a 2-vCPU KVM guest that a build kept half busy (Java's and
/// Python's OS threads about 830 µs, a C fork and thread together 270, a
/// Rust thread and tokio task together 100; a green unit's runtime alone
/// under 35, most of it the runtime's start).
fn unit_s(t: Target) -> f64 {
    match (t.runtime, t.class()) {
        (Runtime::Java, UnitClass::OsThread) => 800e-6,
        (Runtime::Python, UnitClass::OsThread) => 600e-6,
        (_, UnitClass::OsProcess) => 200e-6,
        (_, UnitClass::OsThread) => 40e-6,
        (_, UnitClass::Green) => 5e-6,
    }
}

/// About how long the runs take, s: each runtime's start, its units made
/// and ended in every trial, and the rings' hops (an OS thread's about
/// 6 µs, a green unit's well under 1).
pub fn estimate(p: Preset) -> f64 {
    let (n, ring_n, m, trials) = sizes(p);
    let runtimes = runtimes(p);
    let per_trial: f64 = runtimes
        .iter()
        .flat_map(|&runtime| {
            runtime
                .units()
                .iter()
                .map(move |&unit| Target { runtime, unit })
        })
        .map(unit_s)
        .sum();
    let spawn = f64::from(trials) * n as f64 * per_trial;
    let hop = |t: Target| match t.class() {
        UnitClass::Green => 0.5e-6,
        _ => 6e-6,
    };
    let ring: f64 = rings(p)
        .into_iter()
        .map(|t| f64::from(trials) * (ring_n * m) as f64 * hop(t))
        .sum();
    (runtimes.len() + rings(p).len()) as f64 * 0.7 + spawn + ring
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_makes_as_many_units_and_rings_as_full_and_the_rows_say_how_many() {
        let (q, f) = (sizes(Preset::Quick), sizes(Preset::Full));
        assert_eq!((q.0, q.1), (f.0, f.1));
        let t = Target {
            runtime: Runtime::Rust,
            unit: "thread",
        };
        assert_eq!(spawn_row(t, q.0).at.as_deref(), Some("n = 10000"));
        assert_eq!(ring_row(t, q.1).at.as_deref(), Some("n = 1000"));
    }
}
