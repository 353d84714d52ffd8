//! The rpc group's nginx rows, from one `toll http` run: one request at a
//! time over one keep-alive connection to a local nginx that toll starts on
//! 127.0.0.1 as E5 starts it (one process, one worker, no access log, E5's
//! 92-byte page), for a few seconds — the time per request, each second's
//! mean, their median with its interval. Then the same nginx swept over
//! offered rate for its knee (`super::knee`).

use super::group::Group;
use super::links::round_trip;
use super::read::fill;
use super::row::{Kind, MadeOf, Planned, Sheet, Source, Take};
use crate::http::request::RequestSpec;
use crate::http::{self, HttpConfig, Target};
use crate::replicate::web::{nginx, Ports, SMALL};
use crate::replicate::{Ctx, Preset, INTERRUPTED};
use std::time::Duration;
use toll_peers::Transport;

const G: Group = Group::Rpc;

/// The one-connection row's crossing.
pub const ONE: &str = "HTTP request to a local nginx, one keep-alive connection";
pub use super::knee::KNEE;

/// Seconds of load.
fn seconds(p: Preset) -> u64 {
    p.pick(10, 5, 3)
}

fn made_of() -> MadeOf {
    let tcp = round_trip(Transport::Tcp);
    MadeOf::of(
        "a loopback TCP round trip, nginx parsing a GET and sending E5's 92-byte page (sendfile), toll's client reading it",
        &[(1.0, tcp.as_str())],
    )
}

fn planned(source: Source) -> Planned {
    Planned::new(ONE, Kind::Time, made_of(), source)
}

/// One load of `url`: one connection, keep-alive, `secs` seconds.
fn config(url: &str, secs: u64) -> Result<HttpConfig, String> {
    let mut cfg = HttpConfig {
        target: Target::resolve(url).map_err(|e| e.to_string())?,
        spec: RequestSpec {
            method: None,
            headers: vec![],
            body: None,
            content_type: None,
            keep_alive: true,
        },
        concurrency: 1,
        requests: None,
        time_limit: Some(Duration::from_secs(secs)),
        threads: 1,
        timeout: Duration::from_secs(5),
        variable_length: false,
        rate: None,
        http2: false,
        streams: 1,
        insecure: false,
        spin: Duration::ZERO,
        coalesce: Duration::from_micros(10),
        io: http::Io::from_env(),
        urls: None,
    };
    http::preflight(&mut cfg).map_err(|e| e.to_string())?;
    Ok(cfg)
}

pub fn run(ctx: &mut Ctx, sheet: &mut Sheet) {
    let unplaced = || planned(Source::new("", Take::Point { n: 0 }));
    if ctx.stopped() {
        sheet.missing(G, &unplaced(), INTERRUPTED);
        return super::knee::row(ctx, sheet, Err(INTERRUPTED.into()));
    }
    // Started on a port the system picks, stopped when dropped.
    let server = match nginx::start(&ctx.scratch, &mut Ports::new(None)) {
        Ok(s) => s,
        Err(why) => {
            if !why.contains("not installed") {
                sheet.failed("nginx", &why);
            }
            sheet.missing(G, &unplaced(), why.clone());
            return super::knee::row(ctx, sheet, Err(why));
        }
    };
    let measured = config(&server.url(SMALL.0), seconds(ctx.preset)).and_then(|cfg| {
        let o = http::load(&cfg, ctx.stop, &mut |_, _| {}).map_err(|e| e.to_string())?;
        let rep = http::report(&cfg, &o);
        let id = http::store_run(ctx.store, &cfg, &o, &rep, None).map_err(|e| e.to_string())?;
        let label = format!("{} {}", cfg.spec.method(), cfg.target.url);
        Ok((id, label, o.stats.complete))
    });
    match measured {
        Ok((id, label, n)) => {
            sheet.runs.push(("http".into(), id));
            let row = planned(Source::new(label, Take::Point { n }));
            fill(sheet, ctx.store, G, &[row], Ok(id), ctx.stopped());
        }
        Err(e) => {
            sheet.failed("http against nginx", &e);
            sheet.missing(G, &unplaced(), format!("failed: {e}"));
        }
    }
    // The knee, from a sweep of the same nginx; then it stops.
    super::knee::row(ctx, sheet, config(&server.url(SMALL.0), 1));
    drop(server);
}

/// About how long it takes, s: nginx's start, the load, then the sweep.
pub fn estimate(p: Preset) -> f64 {
    0.5 + seconds(p) as f64 + super::knee::estimate(p)
}
