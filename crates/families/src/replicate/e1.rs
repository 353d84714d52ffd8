//! E1 as it was run: n int32s (all 123) to a peer over each link of this
//! machine, n = 0…100000 in steps of 10000, a line fitted, t(100000)
//! quoted; then the seed's comparisons of links (pipe against TCP, shared
//! memory against TCP). One `toll transfer` run per peer, so a peer that
//! cannot be built loses its own rows only.

use super::experiment::{Ctx, Experiment, Preset, INTERRUPTED};
use super::findings::{self, Claim, Figure};
use super::originals::{self as o};
use super::report::{of_summary, Report};
use crate::placement::Pin;
use crate::sizes::parse_sizes;
use crate::transfer::{self, SeriesResult, TransferConfig};
use std::time::Duration;
use toll_measure::EngineConfig;
use toll_peers::{Runtime, Transport};

/// The peers of a preset: every runtime this machine has for the full run.
fn peers(preset: Preset) -> Vec<Runtime> {
    match preset {
        Preset::Full => Runtime::ALL.into_iter().filter(|r| r.transfers()).collect(),
        Preset::Quick => vec![Runtime::Rust, Runtime::C],
        Preset::Test => vec![Runtime::Rust, Runtime::C],
    }
}

pub fn run(ctx: &mut Ctx) -> Report {
    let p = ctx.preset;
    let sizes = parse_sizes(p.pick(transfer::E1_SIZES, transfer::E1_SIZES, "0,1000,2000"))
        .expect("the presets' sizes parse");
    let engine = EngineConfig {
        trials: p.pick(10, 5, 2),
        warmup: Duration::from_millis(p.pick(100, 20, 5)),
        batch_time: Duration::from_millis(p.pick(10, 5, 2)),
        ..EngineConfig::default()
    };
    let largest = sizes[sizes.len() - 1];
    let peers = peers(p);
    let names: Vec<&str> = peers.iter().map(|r| r.name()).collect();
    let mut report = Report::new(
        Experiment::E1,
        format!(
            "toll transfer: n = {}…{largest} int32s ({} sizes), {} rounds, peers {}, every link each speaks, --pin split",
            sizes[0],
            sizes.len(),
            engine.trials,
            names.join(", ")
        ),
    );
    let quote = format!("t({largest})");
    let mut series: Vec<SeriesResult> = vec![];
    for peer in peers {
        let subject = |t: &str| format!("{peer}/{t}");
        if peer.detect().is_err() {
            let why = format!("{peer} not installed: {}", peer.install_hint());
            for t in peer.transports() {
                report.row(
                    subject(t.name()),
                    "α",
                    "µs",
                    Ok(o::E1_ALPHA_US),
                    Err(why.clone()),
                    None,
                );
            }
            continue;
        }
        if ctx.stopped() {
            for t in peer.transports() {
                report.row(
                    subject(t.name()),
                    "α",
                    "µs",
                    Ok(o::E1_ALPHA_US),
                    Err(INTERRUPTED.into()),
                    None,
                );
            }
            continue;
        }
        let cfg = TransferConfig {
            sizes: sizes.clone(),
            peers: vec![peer],
            transports: None,
            pin: Pin::Split,
            spin: false,
            engine: engine.clone(),
            ci_target: None,
            max_time: Duration::from_secs(60),
            far: None,
        };
        // Each peer's run pins toll anew, from every CPU it was given.
        let keep = super::KeepAffinity::now();
        let outcome = transfer::run(&cfg, ctx.store, ctx.observer, ctx.stop);
        drop(keep);
        let outcome = match outcome {
            Ok(out) => out,
            Err(e) => {
                let why = format!("failed: {e}");
                for t in peer.transports() {
                    report.row(
                        subject(t.name()),
                        "α",
                        "µs",
                        Ok(o::E1_ALPHA_US),
                        Err(why.clone()),
                        None,
                    );
                }
                report.failed(&format!("transfer --peer {peer}"), e);
                continue;
            }
        };
        report.runs.push(outcome.run_id);
        if let Some(e) = &outcome.error {
            report.failed(&format!("transfer --peer {peer}"), e);
        }
        for t in peer.transports() {
            let s = outcome.series.iter().find(|s| s.transport == *t);
            let why = || {
                if outcome.error.is_some() {
                    "failed: see the errors below".to_string()
                } else {
                    INTERRUPTED.to_string()
                }
            };
            let alpha = s.and_then(alpha_of).ok_or_else(why);
            let at_largest = s
                .and_then(|s| s.points.iter().find(|(n, _)| *n == largest))
                .map(|(_, m)| of_summary(m, 1e-6))
                .ok_or_else(why);
            let t_original = if largest == 100_000 {
                Ok(o::E1_T100K_MS)
            } else {
                Err(format!(
                    "E1 quoted t(100000); this preset stops at {largest}"
                ))
            };
            report.row(
                subject(t.name()),
                "α",
                "µs",
                Ok(o::E1_ALPHA_US),
                alpha,
                Some(outcome.run_id),
            );
            report.row(
                subject(t.name()),
                quote.clone(),
                "ms",
                t_original,
                at_largest,
                Some(outcome.run_id),
            );
        }
        series.extend(outcome.series);
    }
    findings(&mut report, &series, &quote);
    report
}

/// α of a series' model, µs, as its stored decision says (the line's, or
/// for a curve the small sizes'): the table every other view prints. A line
/// whose α lies wholly below 0 has none to show.
fn alpha_of(s: &SeriesResult) -> Option<Figure> {
    let fit = s.fit.as_ref()?;
    let decided;
    let d = match &fit.decision {
        Some(d) => d,
        None => {
            decided = toll_measure::decision::decision(fit, &Default::default());
            &decided
        }
    };
    (d.alpha.sign != toll_measure::decision::Sign::BelowZero)
        .then(|| Figure::new(d.alpha.value, d.alpha.ci.0, d.alpha.ci.1).scaled(1e-3))
}

fn findings(report: &mut Report, series: &[SeriesResult], quote: &str) {
    let each: Vec<(String, bool, String)> = series
        .iter()
        .map(|s| match &s.fit {
            None => (s.label.clone(), false, "no model".into()),
            Some(f) => {
                let detail = f
                    .check
                    .as_ref()
                    .and_then(|c| c.piecewise.as_ref())
                    .map(|p| format!("curve, break ≈ {:.0}", p.break_n))
                    .unwrap_or_else(|| "curve".into());
                (s.label.clone(), f.line_fits(), detail)
            }
        })
        .collect();
    report.findings.push(findings::from_count(
        "t(n) is a straight line in n",
        &each,
        "E1: the plot of t against n is a straight line",
    ));
    let peer = Runtime::Rust;
    let pair = |slow: Transport, fast: Transport| -> Result<Figure, String> {
        let at = |t: Transport| report.figure(&format!("{peer}/{t}"), quote);
        let (s, f) = (at(slow)?, at(fast)?);
        s.over(f)
            .ok_or_else(|| format!("{peer}/{fast}'s interval reaches 0"))
    };
    let tcp_pipe = pair(Transport::Tcp, Transport::Pipe);
    let tcp_shm = pair(Transport::Tcp, Transport::Shm);
    report.findings.push(findings::from_ratio(
        "a pipe is faster than TCP",
        tcp_pipe,
        Claim::Above(1.0),
        &format!("{peer} peer, {quote} over tcp ÷ over a pipe"),
        &format!("E1 (Linux): {}", findings::times(o::E1_PIPE_OVER_TCP)),
    ));
    report.findings.push(findings::from_ratio(
        "shared memory is faster than TCP",
        tcp_shm,
        Claim::Above(1.0),
        &format!("{peer} peer, {quote} over tcp ÷ over shm"),
        &format!(
            "E1 (Windows 95, FileMap): {}",
            findings::times(o::E1_SHM_OVER_TCP)
        ),
    ));
}
