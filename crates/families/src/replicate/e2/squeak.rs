//! E2's Squeak rows: `[…] fork` of N processes that wait, at E2's N where
//! its Squeak spawn found a knee, and E2's ring of processes that poll their
//! mailbox with `Processor yield` — toll's squeak worker, units `process`,
//! in the Squeak VM Debian ships with Scratch's image.

use super::measure::{measure, original_at};
use crate::replicate::experiment::{Ctx, Preset};
use crate::replicate::findings::{self, Claim};
use crate::replicate::originals as o;
use crate::replicate::report::Report;
use crate::units::Target;
use crate::units::{self, UnitOp};
use toll_peers::{Ceiling, Runtime};

const SPAWN: &str = "squeak/fork";
const RING: &str = "squeak/process";

const TARGET: Target = Target {
    runtime: Runtime::Squeak,
    unit: "process",
};

/// Spawn's N: E2's (where its knee was), and one past where E2's hung.
fn spawn_ns(p: Preset) -> Vec<u64> {
    p.pick(
        vec![20_000, 30_000, 40_000, 60_000, 100_000],
        vec![20_000, 30_000, 40_000, 60_000],
        vec![100, 1_000],
    )
}

/// The two N whose cost per process the knee finding compares.
fn knee_ns(p: Preset) -> (u64, u64) {
    p.pick((20_000, 60_000), (20_000, 60_000), (100, 1_000))
}

/// The ring's N and M: E2's (M = 1000) where a trial stays short.
fn ring(p: Preset) -> (Vec<u64>, u64) {
    p.pick(
        (vec![100, 1_000, 2_000], 1_000),
        (vec![100, 1_000], 1_000),
        (vec![10, 100], 10),
    )
}

/// Measure Squeak's spawn and add its rows.
pub fn spawn_rows(ctx: &mut Ctx, report: &mut Report, trials: u32, ceiling: Ceiling) {
    let ns = spawn_ns(ctx.preset);
    let spawn = measure(ctx, report, UnitOp::Spawn, &ns, trials, ceiling, TARGET);
    for &n in &ns {
        let orig = if n > 60_000 {
            Err("E2: hung beyond 60000".into())
        } else {
            original_at(&o::E2_SQUEAK_SPAWN_US, n)
        };
        report.row(
            SPAWN,
            format!("spawn µs/unit, N = {n}"),
            "µs",
            orig,
            spawn.pick(n, 1e-3),
            spawn.run,
        );
    }
}

/// Measure Squeak's polling ring and add its rows.
pub fn ring_rows(ctx: &mut Ctx, report: &mut Report, trials: u32, ceiling: Ceiling) {
    let (ns, m) = ring(ctx.preset);
    let ring = measure(
        ctx,
        report,
        UnitOp::Ring { m },
        &ns,
        trials,
        ceiling,
        TARGET,
    );
    for &n in &ns {
        report.row(
            RING,
            format!("ring ns/hop, N = {n}"),
            "ns",
            original_at(&o::E2_SQUEAK_RING_NS, n),
            ring.pick(n, 1.0),
            ring.run,
        );
    }
}

/// The knee of Squeak's spawn and Erlang's ring against Squeak's, from the
/// rows above; Erlang's ring was measured at `erl_n`.
pub fn findings(report: &mut Report, p: Preset, erl_n: u64) {
    let (lo, hi) = knee_ns(p);
    let spawn_at = |n: u64| report.figure(SPAWN, &format!("spawn µs/unit, N = {n}"));
    let knee = spawn_at(hi).and_then(|h| {
        h.over(spawn_at(lo)?)
            .ok_or_else(|| format!("the interval at N = {lo} reaches 0"))
    });
    let e2_knee = o::E2_SQUEAK_SPAWN_US[3].1.value / o::E2_SQUEAK_SPAWN_US[0].1.value;
    report.findings.push(findings::from_ratio(
        "Squeak's spawn has a knee: the cost per process rises with N",
        knee,
        Claim::Above(units::KNEE_FACTOR),
        &format!(
            "µs/process at N = {hi} ÷ at N = {lo}; a knee is {}",
            findings::times(units::KNEE_FACTOR)
        ),
        &format!(
            "E2: {} (92.8 µs at 60000 ÷ 4–5 µs at 20000)",
            findings::times(e2_knee)
        ),
    ));
    let ring_of = |subject: &str| report.figure(subject, &format!("ring ns/hop, N = {erl_n}"));
    let ring = ring_of(RING).and_then(|s| {
        s.over(ring_of("erlang/process")?)
            .ok_or_else(|| "Erlang's interval reaches 0".into())
    });
    report.findings.push(findings::from_ratio(
        "Erlang's ring is faster than Squeak's",
        ring,
        Claim::Above(1.0),
        &format!("Squeak's ns/hop ÷ Erlang's at N = {erl_n}"),
        &format!(
            "E2: {} (7369 ms against 469 ms for 1000 × 1000)",
            findings::times(o::E2_SQUEAK_RING_NS[1].1.value / o::E2_ERLANG_RING_NS[1].1.value)
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The findings compare N that the rows measure, in every preset; the
    /// ring has the N Erlang's ring is compared at (its middle one).
    #[test]
    fn the_findings_name_measured_n() {
        for (p, erl_mid) in [
            (Preset::Full, 1_000),
            (Preset::Quick, 1_000),
            (Preset::Test, 100),
        ] {
            let (lo, hi) = knee_ns(p);
            assert!(spawn_ns(p).contains(&lo) && spawn_ns(p).contains(&hi));
            assert!(ring(p).0.contains(&erl_mid));
        }
    }
}
