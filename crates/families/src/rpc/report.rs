//! What `toll rpc`'s table shows, taken from a run's config and outcome:
//! the report crate renders it (`toll_report::rpc`), and cannot name this
//! family's types, so the view carries plain values.

use super::config::{Mode, PathKind, RpcConfig, RpcOutcome, RpcPoint, RpcSeries};
use toll_report::rpc::{self as view_of, RpcFigures, RpcView};

/// The table's view of a finished run.
pub fn view(cfg: &RpcConfig, outcome: &RpcOutcome) -> RpcView {
    RpcView {
        server: outcome.server.clone(),
        trials: cfg.trials,
        calls: cfg.calls,
        connections: cfg.connections,
        ladder: cfg.ladder,
        series: outcome.series.iter().map(series).collect(),
    }
}

fn series(s: &RpcSeries) -> view_of::RpcSeries {
    view_of::RpcSeries {
        label: s.label.clone(),
        stack: s.spec.stack_label(),
        path: s.spec.path.name().to_string(),
        direct: s.spec.path == PathKind::Direct,
        pipelined: match s.spec.mode {
            Mode::Blocking => None,
            Mode::Pipelined(k) => Some(k),
        },
        points: s.points.iter().map(point).collect(),
        fit: s.fit.clone(),
    }
}

fn point(p: &RpcPoint) -> view_of::RpcPoint {
    view_of::RpcPoint {
        n: p.n,
        result: p.result.as_ref().map_err(Clone::clone).map(|f| RpcFigures {
            mean: f.mean(),
            mean_ci: f.mean_ci,
            per_call_trials: f.per_call_trials.clone(),
            latency_p50: f.latency_p50_ns,
            latency_p99: f.latency_p99_ns,
            calls_per_s: f.calls_per_s,
            client_cpu: f.client_cpu_ns,
            server_cpu: f.server_cpu_ns,
            round_trips: f.round_trips,
        }),
    }
}
