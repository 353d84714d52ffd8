//! E3 as it was run, with toll's RPC stacks playing its systems' roles: a
//! null call (the server returns at once, so the time is the overhead),
//! 1600 calls a trial, 10 trials, the mean per call — direct and through a
//! broker that picks the server for each call (E3's MetaServer), blocking
//! and pipelined (E3's non-blocking calls), over gRPC to toll's own server
//! on loopback. E3's figures were charts, so its rows have no original and
//! its lessons are judged on the ratios between this machine's rows. Its
//! cluster and Internet links are rows marked for issue 19.

use super::findings::{self, Claim, Figure};
use super::{Ctx, Experiment, Report, INTERRUPTED, NOT_YET_BUILT};
use crate::rpc::{
    self, Lookup, Mode, PathKind, RpcConfig, RpcOutcome, SeriesSpec, ServerRuntime, Stack, Via,
};
use std::time::Duration;

/// Why every original of E3 is missing.
const CHARTS: &str = "E3's figures were charts only";
/// Calls outstanding per connection when pipelined (toll rpc's default).
const IN_FLIGHT: u32 = 8;

/// E3's roles: (subject, path, mode).
fn roles() -> [(&'static str, PathKind, Mode); 4] {
    [
        ("direct, blocking", PathKind::Direct, Mode::Blocking),
        (
            "broker, blocking",
            PathKind::Broker(Lookup::PerCall),
            Mode::Blocking,
        ),
        (
            "direct, non-blocking",
            PathKind::Direct,
            Mode::Pipelined(IN_FLIGHT),
        ),
        (
            "broker, non-blocking",
            PathKind::Broker(Lookup::PerCall),
            Mode::Pipelined(IN_FLIGHT),
        ),
    ]
}

pub fn run(ctx: &mut Ctx) -> Report {
    let p = ctx.preset;
    let calls: u64 = p.pick(1600, 1600, 100);
    let trials: u32 = p.pick(10, 3, 2);
    let mut report = Report::new(
        Experiment::E3,
        format!(
            "toll rpc --stack grpc: null calls, {calls} a trial, {trials} trials, direct and via a per-call broker, blocking and pipelined ({IN_FLIGHT} in flight), rust server on loopback"
        ),
    );
    let cfg = RpcConfig {
        runtime: ServerRuntime::Rust,
        external: None,
        series: roles()
            .iter()
            .map(|&(_, path, mode)| SeriesSpec {
                stack: Stack::Grpc,
                via: Via::Tcp,
                path,
                mode,
            })
            .collect(),
        connections: 1,
        sizes: vec![0],
        calls,
        trials,
        warmup: p.pick(200, 100, 20),
        timeout: Duration::from_secs(5),
        seed: 2003,
        ladder: false,
        far: None,
    };
    let outcome: Result<RpcOutcome, String> = if ctx.stopped() {
        Err(INTERRUPTED.into())
    } else {
        match rpc::run(&cfg, ctx.store, ctx.observer, ctx.stop) {
            Ok(out) => {
                report.runs.push(out.run_id);
                if let Some(e) = &out.error {
                    report.failed("rpc", e);
                }
                Ok(out)
            }
            Err(e) => {
                report.failed("rpc", &e);
                Err(format!("failed: {e}"))
            }
        }
    };
    let run = outcome.as_ref().ok().map(|o| o.run_id);
    for (i, (subject, _, _)) in roles().iter().enumerate() {
        let spec = cfg.series[i];
        let fig = outcome.as_ref().map_err(Clone::clone).and_then(|o| {
            let s = o
                .series
                .iter()
                .find(|s| s.spec == spec)
                .ok_or_else(|| INTERRUPTED.to_string())?;
            match &s
                .points
                .first()
                .ok_or_else(|| INTERRUPTED.to_string())?
                .result
            {
                Ok(f) => Ok(Figure::new(f.mean(), f.mean_ci.0, f.mean_ci.1).scaled(1e-3)),
                Err(why) => Err(format!("failed: {why}")),
            }
        });
        report.row(
            *subject,
            "µs per null call (mean)",
            "µs",
            Err(CHARTS.into()),
            fig,
            run,
        );
    }
    for link in ["cluster (100 Mbit/s)", "Internet (1–2 Mbit/s)"] {
        report.row(
            format!("direct, blocking, {link}"),
            "µs per null call (mean)",
            "µs",
            Err(CHARTS.into()),
            Err(format!("{NOT_YET_BUILT} (E3's links: toll rpc --link)")),
            None,
        );
    }
    findings(&mut report);
    report
}

fn findings(report: &mut Report) {
    let figure = "µs per null call (mean)";
    let ratio = |a: &str, b: &str| -> Result<Figure, String> {
        let x = report.figure(a, figure)?;
        x.over(report.figure(b, figure)?)
            .ok_or_else(|| format!("{b}'s interval reaches 0"))
    };
    let found = vec![
        findings::from_ratio(
            "the broker adds per-call overhead",
            ratio("broker, blocking", "direct, blocking"),
            Claim::Above(1.0),
            "broker ÷ direct, blocking calls",
            "E3: the MetaServer added overhead to every call",
        ),
        findings::from_ratio(
            "non-blocking calls cost less than blocking ones",
            ratio("direct, blocking", "direct, non-blocking"),
            Claim::Above(1.0),
            "blocking ÷ non-blocking, direct",
            "E3: NetSolve 1.5's non-blocking calls were cheaper",
        ),
        findings::not_checked(
            "over a slow link, the system needing more round trips per call is worst",
            &format!("{NOT_YET_BUILT} (E3's links)"),
            "E3: NetSolve worst over the Internet",
        ),
    ];
    report.findings.extend(found);
}
