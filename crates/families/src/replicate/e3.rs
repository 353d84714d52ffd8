//! E3 as it was run, with toll's RPC stacks playing its systems' roles: a
//! null call (the server returns at once, so the time is the overhead),
//! 1600 calls a trial, 10 trials, the mean per call — direct and through a
//! broker that picks the server for each call (E3's MetaServer), blocking
//! and pipelined (E3's non-blocking calls), over gRPC to toll's own server
//! on loopback. E3's figures were charts, so its rows have no original and
//! its lessons are judged on the ratios between this machine's rows. Its
//! cluster and Internet are rebuilt as emulated links (`toll rpc --link
//! lan|wan`, which needs root: without it those rows say so).

use super::findings::{self, Claim, Figure};
use super::{Ctx, Experiment, Report, INTERRUPTED};
use crate::link::LinkSpec;
use crate::rpc::{
    self, Lookup, Mode, PathKind, RpcConfig, RpcOutcome, SeriesSpec, ServerRuntime, Stack, Via,
};
use crate::transfer::Far;
use std::time::Duration;

/// Why every original of E3 is missing.
const CHARTS: &str = "E3's figures were charts only";
/// The Internet link's rows end with this.
const WAN: &str = ", Internet (wan: 1.5 Mbit/s, 30 ms ± 5 ms)";
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

/// E3's places: loopback here, and its two networks rebuilt as emulated
/// links (`toll rpc --link`): (name in the rows, link, calls, trials).
fn places(p: super::Preset) -> [(&'static str, Option<&'static str>, u64, u32); 3] {
    [
        ("", None, p.pick(1600, 1600, 100), p.pick(10, 3, 2)),
        (
            ", cluster (lan: 100 Mbit/s, 0.1 ms)",
            Some("lan"),
            p.pick(1600, 400, 40),
            p.pick(10, 3, 2),
        ),
        // 1600 blocking calls over a 60 ms round trip are 3 minutes a
        // trial (6 through the broker): fewer calls, the same design.
        (WAN, Some("wan"), p.pick(200, 30, 8), p.pick(5, 2, 2)),
    ]
}

/// Whether this process may build network namespaces (a link needs root).
fn may_build_links() -> bool {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() == 0 }
}

pub fn run(ctx: &mut Ctx) -> Report {
    let p = ctx.preset;
    let [(_, _, calls, trials), ..] = places(p);
    let mut report = Report::new(
        Experiment::E3,
        format!(
            "toll rpc --stack grpc: null calls, {calls} a trial, {trials} trials, direct and via a per-call broker, blocking and pipelined ({IN_FLIGHT} in flight), rust server on loopback, then across E3's cluster and Internet rebuilt as links (--link lan, wan; fewer calls over wan)"
        ),
    );
    for (place, link, calls, trials) in places(p) {
        let far = match link {
            None => None,
            Some(_) if !may_build_links() => {
                for (subject, _, _) in roles() {
                    report.row(
                        format!("{subject}{place}"),
                        "µs per null call (mean)",
                        "µs",
                        Err(CHARTS.into()),
                        Err("not measured: a link needs network namespaces (run as root)".into()),
                        None,
                    );
                }
                continue;
            }
            Some(name) => Some(Far::Link(name.parse::<LinkSpec>().expect("a named link"))),
        };
        measure(ctx, &mut report, place, far, calls, trials);
    }
    findings(&mut report);
    report
}

/// One place's four roles, as rows.
fn measure(
    ctx: &mut Ctx,
    report: &mut Report,
    place: &str,
    far: Option<Far>,
    calls: u64,
    trials: u32,
) {
    let p = ctx.preset;
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
        warmup: p.pick(200, 100, 20).min(calls),
        timeout: Duration::from_secs(5),
        seed: 2003,
        ladder: false,
        far,
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
            format!("{subject}{place}"),
            "µs per null call (mean)",
            "µs",
            Err(CHARTS.into()),
            fig,
            run,
        );
    }
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
        findings::from_ratio(
            "over a slow link, a call that needs more round trips loses most",
            ratio(&format!("broker, blocking{WAN}"), &format!("direct, blocking{WAN}")),
            Claim::Above(1.5),
            "broker ÷ direct over the Internet link, blocking: the look-up's round trip costs another whole link round trip",
            "E3: NetSolve (the most round trips) was worst over the Internet",
        ),
        findings::from_ratio(
            "over a slow link, non-blocking calls hide the latency",
            ratio(&format!("direct, blocking{WAN}"), &format!("direct, non-blocking{WAN}")),
            Claim::Above(1.0),
            "blocking ÷ non-blocking over the Internet link",
            "E3: non-blocking calls paid off most across the Internet",
        ),
    ];
    report.findings.extend(found);
}
