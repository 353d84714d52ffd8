//! E3 as it was run, with toll's RPC stacks playing its systems' roles: a
//! null call (the server returns at once, so the time is the overhead),
//! 1600 calls a trial, 10 trials, the mean per call — direct and through a
//! broker that picks the server for each call (E3's MetaServer), blocking
//! and pipelined (E3's non-blocking calls), over gRPC to toll's own server
//! on loopback. E3's figures were charts, so its rows have no original and
//! its lessons are judged on this machine's rows against each other. Its
//! cluster and Internet are rebuilt as emulated links (`toll rpc --link
//! lan|wan`, which needs root: without it those rows say so).
//!
//! The two link lessons are judged on the round trips each path's calls
//! made, not on the link: a slow link only magnifies whatever round trips a
//! stack needs, so comparing wan times alone would hold for any stack that
//! was slower at all. Each path's link round trips per call are derived
//! from what was measured — (mean per call over wan − the same on loopback)
//! ÷ the wan link's round trip (twice its one-way delay) — with the
//! interval of the difference taken bound against far bound. Loopback's
//! cost is taken off so the server's own work does not count as round
//! trips; the link's transmission time and the relay's hop stay in, so a
//! one-round-trip call reads a little above 1. The client's own count
//! (`round_trips` in toll rpc's figures) is not used: it is calls plus
//! look-ups by construction, not a measurement. A lesson then holds when
//! one path needs at least half a round trip per call more than the other
//! (the midpoint between equal counts and one more), and no longer holds
//! when the whole interval of that difference is below half: equal counts
//! refute it, whatever the link. The lan link is not used for counts: its
//! 0.2 ms round trip is of the order of the relay's own cost.

use super::experiment::{Ctx, Experiment, INTERRUPTED};
use super::findings::{self, Claim, Figure};
use super::report::Report;
use crate::far::Far;
use crate::link::LinkSpec;
use crate::rpc::{
    self, Lookup, Mode, PathKind, RpcConfig, RpcOutcome, SeriesSpec, ServerRuntime, Stack, Via,
};
use std::time::Duration;

/// Why every original of E3 is missing.
const CHARTS: &str = "E3's figures were charts only";
/// The Internet link's rows end with this.
const WAN: &str = ", Internet (wan: 1.5 Mbit/s, 30 ms ± 5 ms)";
/// Calls outstanding per connection when pipelined (toll rpc's default).
const IN_FLIGHT: u32 = 8;
/// E3's figure of every role and place.
const PER_CALL: &str = "µs per null call (mean)";
/// The derived figure of every role over the Internet link.
const TRIPS: &str = "link round trips per call ((wan − loopback) ÷ round trip)";
/// How many more link round trips per call make "more round trips": half
/// way between the same count and one more.
const MORE_TRIPS: f64 = 0.5;

/// The wan link's round trip, µs: its one-way delay, each way.
fn wan_round_trip_us() -> f64 {
    2.0 * LinkSpec::wan().delay().as_secs_f64() * 1e6
}

/// `1.02 round trips`.
fn trips(v: f64) -> String {
    format!("{} round trips", findings::num(v))
}

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
            "toll rpc --stack grpc: null calls, {calls} a trial, {trials} trials, direct and via a per-call broker, blocking and pipelined ({IN_FLIGHT} in flight), rust server on loopback, then across E3's cluster and Internet rebuilt as links (--link lan, wan; fewer calls over wan); each path's link round trips per call = (wan − loopback) ÷ the wan round trip"
        ),
    );
    for (place, link, calls, trials) in places(p) {
        let far = match link {
            None => None,
            Some(_) if !may_build_links() => {
                for (subject, _, _) in roles() {
                    report.row(
                        format!("{subject}{place}"),
                        PER_CALL,
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
    round_trips(&mut report);
    findings(&mut report);
    report
}

/// Each role's link round trips per call over the Internet link, from its
/// wan and loopback rows (see the module's doc).
fn round_trips(report: &mut Report) {
    let rtt = wan_round_trip_us();
    for (subject, _, _) in roles() {
        let wan = report.figure(&format!("{subject}{WAN}"), PER_CALL);
        let here = report.figure(subject, PER_CALL);
        let run = report
            .rows
            .iter()
            .find(|r| r.subject == format!("{subject}{WAN}") && r.figure == PER_CALL)
            .and_then(|r| r.run_id);
        let count = wan.and_then(|w| Ok(w.minus(here?).scaled(1.0 / rtt)));
        report.row(
            format!("{subject}{WAN}"),
            TRIPS,
            "round trips",
            Err(CHARTS.into()),
            count,
            run,
        );
    }
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
            PER_CALL,
            "µs",
            Err(CHARTS.into()),
            fig,
            run,
        );
    }
}

fn findings(report: &mut Report) {
    let ratio = |a: &str, b: &str| -> Result<Figure, String> {
        let x = report.figure(a, PER_CALL)?;
        x.over(report.figure(b, PER_CALL)?)
            .ok_or_else(|| format!("{b}'s interval reaches 0"))
    };
    // How many more link round trips per call role `a` made than role `b`.
    let more_trips = |a: &str, b: &str| -> Result<Figure, String> {
        let x = report.figure(&format!("{a}{WAN}"), TRIPS)?;
        Ok(x.minus(report.figure(&format!("{b}{WAN}"), TRIPS)?))
    };
    let rtt = findings::num(wan_round_trip_us() / 1e3);
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
        findings::from_figure(
            "over a slow link, a call that needs more round trips loses most",
            more_trips("broker, blocking", "direct, blocking"),
            Claim::Above(MORE_TRIPS),
            trips,
            &format!("more per blocking call through the broker than direct, each path's (wan − loopback) ÷ the link's {rtt} ms round trip"),
            "E3: NetSolve (the most round trips) was worst over the Internet",
        ),
        findings::from_figure(
            "over a slow link, non-blocking calls hide the latency",
            more_trips("direct, blocking", "direct, non-blocking"),
            Claim::Above(MORE_TRIPS),
            trips,
            &format!("more waited per call blocking than non-blocking ({IN_FLIGHT} in flight), direct, each (wan − loopback) ÷ the link's {rtt} ms round trip"),
            "E3: non-blocking calls paid off most across the Internet",
        ),
    ];
    report.findings.extend(found);
}

#[cfg(test)]
mod tests {
    use super::*;
    use findings::Verdict;

    /// A report of E3's rows: each role's µs per call on loopback (`here`)
    /// and over wan, from its round trips `k` per call over the link (the
    /// server's work the same on both), ±1%.
    fn with_costs(here: [f64; 4], k: [f64; 4]) -> Report {
        let mut r = Report::new(Experiment::E3, String::new());
        let rtt = wan_round_trip_us();
        let fig = |v: f64| Figure::new(v, 0.99 * v, 1.01 * v);
        for (((subject, _, _), k), here) in roles().into_iter().zip(k).zip(here) {
            r.row(
                subject,
                PER_CALL,
                "µs",
                Err(CHARTS.into()),
                Ok(fig(here)),
                None,
            );
            r.row(
                format!("{subject}{WAN}"),
                PER_CALL,
                "µs",
                Err(CHARTS.into()),
                Ok(fig(here + k * rtt)),
                None,
            );
        }
        round_trips(&mut r);
        findings(&mut r);
        r
    }

    fn synthetic(k: [f64; 4]) -> Report {
        with_costs([80.0; 4], k)
    }

    fn lesson<'a>(r: &'a Report, words: &str) -> &'a findings::Finding {
        r.findings
            .iter()
            .find(|f| f.text.contains(words))
            .expect("the finding")
    }

    const MORE: &str = "a call that needs more round trips loses most";
    const HIDE: &str = "non-blocking calls hide the latency";

    #[test]
    fn the_round_trips_are_derived_from_wan_less_loopback() {
        let r = synthetic([1.0, 2.0, 0.125, 0.25]);
        let broker = r.figure(&format!("broker, blocking{WAN}"), TRIPS).unwrap();
        assert!((broker.value - 2.0).abs() < 1e-9, "{broker:?}");
        assert!(broker.lo < 2.0 && broker.hi > 2.0);
        assert_eq!(lesson(&r, MORE).verdict, Verdict::Holds);
        assert!(
            lesson(&r, MORE).text.contains("1.00 round trips ["),
            "{}",
            lesson(&r, MORE).text
        );
        assert_eq!(lesson(&r, HIDE).verdict, Verdict::Holds);
    }

    #[test]
    fn equal_round_trips_refute_the_link_lessons_however_slow_the_link() {
        // Every path one round trip a call: the wan times are still 60 ms
        // a call, far above loopback's, but no path needs more round trips.
        let r = synthetic([1.0, 1.0, 1.0, 1.0]);
        assert_eq!(
            lesson(&r, MORE).verdict,
            Verdict::NoLongerHolds,
            "{}",
            lesson(&r, MORE).text
        );
        assert_eq!(
            lesson(&r, HIDE).verdict,
            Verdict::NoLongerHolds,
            "{}",
            lesson(&r, HIDE).text
        );
        // A broker answered once per connection: as many as direct.
        let r = synthetic([1.0, 1.05, 0.125, 0.13]);
        assert_eq!(lesson(&r, MORE).verdict, Verdict::NoLongerHolds);
        // A broker slow at its own work (40 ms a look-up) makes the broker
        // path 1.7× the direct one over wan, which a ratio of wan times
        // would take for the lesson; its round trips are still one a call.
        let r = with_costs([80.0, 40_000.0, 20.0, 5_000.0], [1.0, 1.0, 1.0, 1.0]);
        let wan = |s: &str| r.figure(&format!("{s}{WAN}"), PER_CALL).unwrap().value;
        assert!(wan("broker, blocking") / wan("direct, blocking") > 1.5);
        assert_eq!(
            lesson(&r, MORE).verdict,
            Verdict::NoLongerHolds,
            "{}",
            lesson(&r, MORE).text
        );
        assert_eq!(
            lesson(&r, HIDE).verdict,
            Verdict::NoLongerHolds,
            "{}",
            lesson(&r, HIDE).text
        );
    }

    #[test]
    fn without_the_link_the_lessons_are_not_checked() {
        let mut r = Report::new(Experiment::E3, String::new());
        for (subject, _, _) in roles() {
            r.row(
                subject,
                PER_CALL,
                "µs",
                Err(CHARTS.into()),
                Ok(Figure::new(80.0, 79.0, 81.0)),
                None,
            );
            r.row(
                format!("{subject}{WAN}"),
                PER_CALL,
                "µs",
                Err(CHARTS.into()),
                Err("not measured: a link needs network namespaces (run as root)".into()),
                None,
            );
        }
        round_trips(&mut r);
        findings(&mut r);
        let x = lesson(&r, MORE);
        assert_eq!(x.verdict, Verdict::NotChecked);
        assert!(x.text.contains("run as root"), "{}", x.text);
    }
}
