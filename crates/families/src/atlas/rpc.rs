//! The RPC and HTTP rows: a null call (the server answers at once, so the
//! time is the stack's) over raw frames on TCP, HTTP/1.1 and gRPC, from one
//! `toll rpc` run to toll's own Rust server on loopback, one call at a time
//! on one connection; then nginx's rows (nginx.rs, `toll http`).

use super::group::Group;
use super::links::round_trip;
use super::read::fill;
use super::row::{Kind, MadeOf, Planned, Sheet, Source, Take};
use crate::replicate::{Ctx, Preset, INTERRUPTED};
use crate::rpc::{self, Mode, PathKind, RpcConfig, SeriesSpec, ServerRuntime, Stack, Via};
use std::time::Duration;
use toll_peers::Transport;

const G: Group = Group::Rpc;

/// (calls a trial, trials).
fn sizes(p: Preset) -> (u64, u32) {
    p.pick((1600, 10), (1000, 5), (20, 2))
}

pub fn config(p: Preset) -> RpcConfig {
    let (calls, trials) = sizes(p);
    RpcConfig {
        runtime: ServerRuntime::Rust,
        external: None,
        series: [Stack::Raw, Stack::Http1, Stack::Grpc]
            .into_iter()
            .map(|stack| SeriesSpec {
                stack,
                via: Via::Tcp,
                path: PathKind::Direct,
                mode: Mode::Blocking,
            })
            .collect(),
        connections: 1,
        sizes: vec![0],
        calls,
        trials,
        warmup: calls.min(100),
        timeout: Duration::from_secs(5),
        seed: 2003,
        ladder: false,
        far: None,
    }
}

fn planned(cfg: &RpcConfig) -> Vec<Planned> {
    let tcp = round_trip(Transport::Tcp);
    cfg.series
        .iter()
        .map(|s| {
            let (name, words) = match s.stack {
                Stack::Raw => ("raw frames over TCP", "a loopback TCP round trip, a length-prefixed frame each way"),
                Stack::Http1 => ("HTTP/1.1", "a loopback TCP round trip, an HTTP/1.1 request and response written and parsed (hyper)"),
                _ => ("gRPC", "a loopback TCP round trip, HTTP/2 frames and protobuf each way (tonic)"),
            };
            Planned::new(
                format!("null RPC, {name}"),
                Kind::Time,
                MadeOf::of(words, &[(1.0, tcp.as_str())]),
                Source::new(cfg.label(s), Take::Point { n: 0 }),
            )
        })
        .collect()
}

pub fn run(ctx: &mut Ctx, sheet: &mut Sheet) {
    let cfg = config(ctx.preset);
    let rows = planned(&cfg);
    if ctx.stopped() {
        rows.iter().for_each(|p| sheet.missing(G, p, INTERRUPTED));
    } else {
        let run = match rpc::run(&cfg, ctx.store, ctx.observer, ctx.stop) {
            Ok(out) => {
                sheet.runs.push(("rpc".into(), out.run_id));
                if let Some(e) = &out.error {
                    sheet.failed("rpc", e);
                }
                Ok(out.run_id)
            }
            Err(e) => {
                sheet.failed("rpc", &e);
                Err(format!("failed: {e}"))
            }
        };
        fill(sheet, ctx.store, G, &rows, run, ctx.stopped());
    }
    super::nginx::run(ctx, sheet);
}

/// About how long the run takes, s: the server's start, then ~30 µs a call.
pub fn estimate(p: Preset) -> f64 {
    let (calls, trials) = sizes(p);
    1.0 + 3.0 * (f64::from(trials) * calls as f64 + calls.min(100) as f64) * 30e-6
        + super::nginx::estimate(p)
}
