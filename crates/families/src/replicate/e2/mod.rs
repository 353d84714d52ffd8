//! E2 as it was run: the same spawn (N units that wait) and ring (a token
//! round N units M times) in each of the seed's runtimes — Erlang, Haskell
//! where `ghc` is installed, Squeak where `squeak-vm` and `scratch` are (its
//! rows in e2/squeak.rs) — with E2's figures beside: µs per process spawned,
//! ns per hop (E2's total ms ÷ N·M).

mod measure;
mod squeak;

use crate::replicate::experiment::{Ctx, Experiment};
use crate::replicate::findings::{self, Claim};
use crate::replicate::originals::{self as o, Original};
use crate::replicate::report::Report;
use crate::units::Target;
use crate::units::{self, UnitOp};
use measure::{measure, original_at};
use std::time::Duration;
use toll_peers::{Ceiling, Runtime};

pub fn run(ctx: &mut Ctx) -> Report {
    let p = ctx.preset;
    let spawn_ns: Vec<u64> = p.pick(
        vec![1_000, 10_000, 100_000, 300_000],
        vec![1_000, 10_000, 100_000],
        vec![100, 1_000],
    );
    let ring_ns: Vec<u64> = p.pick(
        vec![100, 1_000, 10_000],
        vec![100, 1_000, 10_000],
        vec![10, 100],
    );
    let m = p.pick(1_000, 1_000, 10);
    let trials = p.pick(10, 3, 2);
    let mut report = Report::new(
        Experiment::E2,
        format!(
            "toll spawn: N = {}; toll ring: N = {}, M = {m}; {trials} rounds; erlang/process, haskell/forkio, squeak/process (polling its mailbox) and Squeak's own N",
            join(&spawn_ns),
            join(&ring_ns)
        ),
    );
    let ceiling = Ceiling {
        time: Duration::from_secs(p.pick(120, 60, 30)),
        mem_kb: 4096 * 1024,
    };
    let erlang = Target {
        runtime: Runtime::Erlang,
        unit: "process",
    };
    let haskell = Target {
        runtime: Runtime::Haskell,
        unit: "forkio",
    };
    // Spawn: Erlang's figure holds for every N of E2's sweep (flat, 1000…300000).
    let spawn = measure(
        ctx,
        &mut report,
        UnitOp::Spawn,
        &spawn_ns,
        trials,
        ceiling,
        erlang,
    );
    for &n in &spawn_ns {
        let fig = spawn.pick(n, 1e-3);
        report.row(
            "erlang/process",
            format!("spawn µs/unit, N = {n}"),
            "µs",
            Ok(o::E2_ERLANG_SPAWN_US),
            fig,
            spawn.run,
        );
    }
    squeak::spawn_rows(ctx, &mut report, trials, ceiling);
    // Ring: ns per hop.
    let ring = measure(
        ctx,
        &mut report,
        UnitOp::Ring { m },
        &ring_ns,
        trials,
        ceiling,
        erlang,
    );
    for &n in &ring_ns {
        let orig = original_at(&o::E2_ERLANG_RING_NS, n);
        report.row(
            "erlang/process",
            format!("ring ns/hop, N = {n}"),
            "ns",
            orig,
            ring.pick(n, 1.0),
            ring.run,
        );
    }
    let hs_n = ring_ns[ring_ns.len() / 2];
    let hs = measure(
        ctx,
        &mut report,
        UnitOp::Ring { m },
        &[hs_n],
        trials,
        ceiling,
        haskell,
    );
    let hs_original = if hs_n == 1_000 && m == 1_000 {
        Ok(o::E2_HASKELL_RING_NS)
    } else {
        Ok(Original {
            value: o::E2_HASKELL_RING_NS.value,
            text: "≈30000 ns/hop (E2: 1000 × 1000)",
        })
    };
    report.row(
        "haskell/forkio",
        format!("ring ns/hop, N = {hs_n}"),
        "ns",
        hs_original,
        hs.pick(hs_n, 1.0),
        hs.run,
    );
    squeak::ring_rows(ctx, &mut report, trials, ceiling);
    findings(&mut report, &spawn_ns, &ring_ns, hs_n);
    squeak::findings(&mut report, p, hs_n);
    report
}

fn join(ns: &[u64]) -> String {
    ns.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

fn findings(report: &mut Report, spawn_ns: &[u64], ring_ns: &[u64], hs_n: u64) {
    let erl = "erlang/process";
    let spawn_at = |n: u64| report.figure(erl, &format!("spawn µs/unit, N = {n}"));
    let (first, last) = (spawn_ns[0], spawn_ns[spawn_ns.len() - 1]);
    let flat = spawn_at(last).and_then(|l| {
        let f = spawn_at(first)?;
        l.over(f)
            .ok_or_else(|| "the smallest N's interval reaches 0".into())
    });
    let mid = spawn_ns[spawn_ns.len() / 2];
    let ring_mid = ring_ns[ring_ns.len() / 2];
    let spawn_vs_hop = spawn_at(mid).and_then(|s| {
        let h = report.figure(erl, &format!("ring ns/hop, N = {ring_mid}"))?;
        s.scaled(1e3)
            .over(h)
            .ok_or_else(|| "the hop's interval reaches 0".into())
    });
    report.findings.push(findings::from_ratio(
        "Erlang's spawn cost per process is flat in N (no knee)",
        flat,
        Claim::Below(units::KNEE_FACTOR),
        &format!(
            "µs/unit at N = {last} ÷ at N = {first}; a knee is {}",
            findings::times(units::KNEE_FACTOR)
        ),
        "E2: flat from N = 5000 to 200000",
    ));
    report.findings.push(findings::from_ratio(
        "spawning an Erlang process costs more than one hop of the ring",
        spawn_vs_hop,
        Claim::Above(1.0),
        &format!("spawn at N = {mid} ÷ a hop at N = {ring_mid}"),
        &format!(
            "E2: {}",
            findings::times(o::E2_ERLANG_SPAWN_US.value * 1e3 / o::E2_ERLANG_RING_NS[1].1.value)
        ),
    ));
    let hs = report
        .figure("haskell/forkio", &format!("ring ns/hop, N = {hs_n}"))
        .and_then(|h| {
            let e = report.figure(erl, &format!("ring ns/hop, N = {hs_n}"))?;
            h.over(e)
                .ok_or_else(|| "Erlang's interval reaches 0".into())
        })
        .map_err(|why| {
            report
                .rows
                .iter()
                .find(|r| r.subject == "haskell/forkio")
                .and_then(|r| r.measured.clone().err())
                .unwrap_or(why)
        });
    report.findings.push(findings::from_ratio(
        "Erlang's ring is faster than Haskell's",
        hs,
        Claim::Above(1.0),
        &format!("Haskell's ns/hop ÷ Erlang's at N = {hs_n}"),
        &format!(
            "E2: {} (30 s against 469 ms for 1000 × 1000)",
            findings::times(o::E2_HASKELL_RING_NS.value / o::E2_ERLANG_RING_NS[1].1.value)
        ),
    ));
}
