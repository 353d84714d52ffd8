//! A sweep as stored (family `http-sweep`): the settings as the run's
//! config, one series (the URL), one point per step run in the order run
//! — its record and latency histogram in `extra`, its 1-second intervals
//! as samples — and the whole report, knee and break, on the first point.

use crate::http::HttpConfig;
use crate::http::HttpError;
use serde_json::json;
use toll_measure::duration_ns::ns;
use toll_measure::{Fingerprint, Sample, Summary};
use toll_report::http_sweep::{StepRun, SweepReport};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store};

/// One step's load as stored: its record, the recorded buckets of its
/// (corrected) latency histogram, its 1-second intervals and where its
/// latencies end.
#[derive(Debug, Clone)]
pub struct StepLoad {
    pub run: StepRun,
    pub buckets: Vec<[u64; 2]>,
    pub intervals: Vec<Sample>,
    pub latency_end: Option<&'static str>,
}

/// The run's one-line summary: the knee and its interval.
fn summary_line(r: &SweepReport) -> String {
    format!(
        "{} {}",
        r.url,
        toll_report::http_sweep::knee_line(r).trim_start_matches("Knee: ")
    )
}

/// Store the sweep, loaded from this machine or through the load agents
/// `agents` (their launchers, in the run's config); its run's id.
pub fn store_sweep(
    store: &Store,
    cfg: &HttpConfig,
    loads: &[StepLoad],
    report: &SweepReport,
    env: Fingerprint,
    agents: &[String],
) -> Result<i64, HttpError> {
    let mut config = json!({
        "url": cfg.target.url, "method": cfg.spec.method(), "concurrency": cfg.concurrency,
        "unix_socket": cfg.target.unix.as_ref().map(|p| p.display().to_string()),
        "threads": cfg.threads.clamp(1, cfg.concurrency.max(1)),
        "keep_alive": cfg.spec.keep_alive, "timeout_ns": ns(cfg.timeout),
        "http2": cfg.http2, "streams": cfg.streams,
        "rates": report.rates, "step_ns": report.step_ns, "repeats": report.repeats,
        "slo_ms": report.slo_ms, "slo_rule": report.slo_rule,
    });
    if !agents.is_empty() {
        config["agents"] = json!(agents);
    }
    let run_id = store.begin_run(&NewRun {
        family: "http-sweep".into(),
        config,
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let end = loads.first().and_then(|l| l.latency_end);
    let series = store.add_series(
        run_id,
        &format!("{} {}", cfg.spec.method(), cfg.target.shown()),
        &json!({"url": cfg.target.url, "concurrency": cfg.concurrency,
                "keep_alive": cfg.spec.keep_alive, "per": "request", "latency_end": end}),
    )?;
    for (i, l) in loads.iter().enumerate() {
        let per_request: Vec<f64> = l
            .intervals
            .iter()
            .filter(|s| s.iters > 0)
            .map(|s| s.per_op_ns())
            .collect();
        let ok = l.run.requests > 0;
        let mut extra = json!({"step": l.run, "latency_ns_histogram": l.buckets});
        if i == 0 {
            extra["sweep"] = json!(report);
        }
        store.add_point(
            series,
            &Point {
                n: l.run.requests,
                status: if ok {
                    PointStatus::Ok
                } else {
                    PointStatus::Failed
                },
                error: (!ok).then(|| "no request completed".to_string()),
                summary: (!per_request.is_empty()).then(|| Summary::of(&per_request)),
                samples: l.intervals.clone(),
                extra: Some(extra),
            },
        )?;
    }
    let status = if report.partial {
        RunStatus::Partial
    } else {
        RunStatus::Complete
    };
    // Partial: stopped by the user, or a step broke (`stopped` says which
    // and why).
    let error = match (report.partial, report.stopped.as_str()) {
        (false, _) => None,
        (true, "interrupted") => Some("interrupted by the user"),
        (true, why) => Some(why),
    };
    store.finish_run(run_id, status, &summary_line(report), error)?;
    Ok(run_id)
}
