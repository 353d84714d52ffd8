//! A `toll http` run as stored: one series (the URL), one point whose
//! samples are the 1-second intervals and whose extra holds the report,
//! the latency histogram, the rate over time and, from a URL file, each
//! line's histogram; the config as the run's attributes.

use super::config::{HttpConfig, LoadOutcome};
use super::error::HttpError;
use super::stats::Stats;
use super::urls;
use serde_json::json;
use toll_measure::duration_ns::ns;
use toll_measure::{Fingerprint, Summary};
use toll_report::http::HttpReport;
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store};

/// Store the run: one series (the URL), one point whose samples are the
/// 1-second intervals (ns per request) and whose extra is the whole report,
/// the latency histogram's recorded buckets and the requests completed in
/// each 100 ms (`per_interval`: the rate over time; runs stored before it
/// have only the samples).
pub fn store_run(
    store: &Store,
    cfg: &HttpConfig,
    out: &LoadOutcome,
    rep: &HttpReport,
    env: Option<Fingerprint>,
) -> Result<i64, HttpError> {
    let added = Added {
        env,
        ..Added::default()
    };
    store_run_with(store, cfg, out, rep, &added)
}

/// Where a stored run's latencies end, as the series says it: at the
/// kernel's arrival stamp of each answer's last bytes (`kernel-stamp`), at
/// the client's clock when it read them (`client-read`), or some of each
/// (`mixed`); None where not known (agents).
pub fn latency_end(rep: &HttpReport) -> Option<&'static str> {
    rep.stamped_share().map(|s| {
        if s >= 0.995 {
            "kernel-stamp"
        } else if s <= 0.005 {
            "client-read"
        } else {
            "mixed"
        }
    })
}

/// What a run from load agents adds to the stored run: keys of its config
/// and of its point's extra, and why it is partial (an agent lost).
#[derive(Debug, Default)]
pub struct Added {
    pub config: serde_json::Map<String, serde_json::Value>,
    pub extra: serde_json::Map<String, serde_json::Value>,
    pub partial: Option<String>,
    /// The machine as it was before the load (and whether others kept it
    /// busy then); None: taken when the run is stored.
    pub env: Option<Fingerprint>,
}

/// [`store_run`], with what `added` adds.
pub fn store_run_with(
    store: &Store,
    cfg: &HttpConfig,
    out: &LoadOutcome,
    rep: &HttpReport,
    added: &Added,
) -> Result<i64, HttpError> {
    let env = added
        .env
        .clone()
        .unwrap_or_else(|| Fingerprint::capture(vec![]));
    let mut config = json!({
            "url": cfg.target.url, "method": cfg.spec.method(), "concurrency": cfg.concurrency,
            "unix_socket": cfg.target.unix.as_ref().map(|p| p.display().to_string()),
            "requests": cfg.requests, "time_limit_ns": cfg.time_limit.map(ns),
            "threads": rep.threads, "keep_alive": cfg.spec.keep_alive,
            "timeout_ns": ns(cfg.timeout), "rate": cfg.rate,
            "variable_length": cfg.variable_length, "http2": cfg.http2,
            "streams": cfg.streams, "insecure": cfg.insecure,
            "spin_ns": ns(cfg.spin), "coalesce_ns": ns(cfg.coalesce),
    });
    let map = config.as_object_mut().expect("an object");
    if let Some(set) = &cfg.urls {
        let lines: Vec<serde_json::Value> = set
            .entries
            .iter()
            .map(|(l, _, s)| json!({"line": l.line, "method": s.method(), "url": l.url}))
            .collect();
        map.insert("urls".into(), json!(lines));
        map.insert("pick".into(), json!(rep.pick));
    }
    if let Some(w) = &rep.warmup {
        map.insert("warmup_ns".into(), json!(w.time_ns));
        map.insert("warmup_requests".into(), json!(w.requests));
    }
    map.extend(added.config.clone());
    let run_id = store.begin_run(&NewRun {
        family: "http".into(),
        config,
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let label = format!("{} {}", cfg.spec.method(), cfg.target.shown());
    let series = store.add_series(
        run_id,
        &label,
        &json!({"url": cfg.target.url, "concurrency": cfg.concurrency, "keep_alive": cfg.spec.keep_alive, "per": "request",
                "latency_end": latency_end(rep)}),
    )?;
    let per_request: Vec<f64> = out
        .intervals
        .iter()
        .filter(|i| i.iters > 0)
        .map(|i| i.per_op_ns())
        .collect();
    let buckets: Vec<[u64; 2]> = out
        .stats
        .total
        .iter_recorded()
        .map(|v| [v.value_iterated_to(), v.count_at_value()])
        .collect();
    let ok = out.stats.complete > 0;
    store.add_point(
        series,
        &Point {
            n: out.stats.complete,
            status: if ok {
                PointStatus::Ok
            } else {
                PointStatus::Failed
            },
            error: (!ok).then(|| "no request completed".to_string()),
            summary: (!per_request.is_empty()).then(|| Summary::of(&per_request)),
            samples: out.intervals.clone(),
            extra: Some({
                let mut extra = json!({
                    "report": rep, "latency_ns_histogram": buckets,
                    "per_interval": {
                        "ends_ns": out.fine.iter().map(|f| ns(f.0)).collect::<Vec<_>>(),
                        "requests": out.fine.iter().map(|f| f.1).collect::<Vec<_>>(),
                    },
                });
                let map = extra.as_object_mut().expect("an object");
                if let Some(set) = &cfg.urls {
                    map.insert("per_url".into(), per_url_histograms(set, &out.stats));
                }
                map.extend(added.extra.clone());
                extra
            }),
        },
    )?;
    let status = match (ok, out.interrupted || added.partial.is_some()) {
        (false, _) => RunStatus::Failed,
        (true, true) => RunStatus::Partial,
        (true, false) => RunStatus::Complete,
    };
    let summary = format!(
        "{} {:.0} req/s, p50 {:.3} ms, p99 {:.3} ms, {} failed",
        cfg.target.url,
        rep.requests_per_second,
        rep.percentiles.first().map_or(0.0, |p| p.1),
        rep.percentiles
            .iter()
            .find(|p| p.0 == 99.0)
            .map_or(0.0, |p| p.1),
        rep.failed_requests
    );
    let error = match status {
        RunStatus::Partial => Some(
            added
                .partial
                .as_deref()
                .unwrap_or("interrupted by the user"),
        ),
        RunStatus::Failed => Some("no request completed"),
        _ => None,
    };
    store.finish_run(run_id, status, &summary, error)?;
    Ok(run_id)
}

/// --urls: each line's latency histogram (ab's Total, ns), as the run's
/// is stored: its recorded buckets.
fn per_url_histograms(set: &urls::UrlSet, stats: &Stats) -> serde_json::Value {
    let each: Vec<serde_json::Value> = set
        .entries
        .iter()
        .zip(&stats.per_url)
        .map(|((l, _, s), u)| {
            let buckets: Vec<[u64; 2]> = u
                .total
                .iter_recorded()
                .map(|v| [v.value_iterated_to(), v.count_at_value()])
                .collect();
            json!({"line": l.line, "method": s.method(), "url": l.url,
                   "latency_ns_histogram": buckets})
        })
        .collect();
    json!(each)
}
