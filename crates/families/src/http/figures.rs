//! ab's figures for a run, from what its loops counted: the report every
//! view of an http run renders.

use super::config::{HttpConfig, LoadOutcome};
use super::urls::Pick;
use hdrhistogram::Histogram;
use toll_measure::Summary;
use toll_report::http::{Failures, HttpReport, RateSpread, SendLag, TimeRow};
use toll_report::http_urls::UrlRow;

fn row(h: &Histogram<u64>) -> TimeRow {
    let ms = |ns: f64| ns / 1e6;
    if h.is_empty() {
        return TimeRow::default();
    }
    TimeRow {
        min: ms(h.min() as f64),
        mean: ms(h.mean()),
        sd: ms(h.stdev()),
        median: ms(h.value_at_quantile(0.5) as f64),
        max: ms(h.max() as f64),
    }
}

const PERCENTS: [f64; 11] = [
    50.0, 66.0, 75.0, 80.0, 90.0, 95.0, 98.0, 99.0, 99.9, 99.99, 100.0,
];

fn percentiles(h: &Histogram<u64>) -> Vec<(f64, f64)> {
    PERCENTS
        .iter()
        .map(|&p| {
            let v = if p == 100.0 {
                h.max()
            } else {
                h.value_at_percentile(p)
            };
            (p, v as f64 / 1e6)
        })
        .collect()
}

/// ab's figures from what the loops counted.
pub fn report(cfg: &HttpConfig, out: &LoadOutcome) -> HttpReport {
    let s = &out.stats;
    let secs = out.elapsed.as_secs_f64().max(1e-9);
    let done = s.complete as f64;
    let rps = done / secs;
    let rates: Vec<f64> = out
        .intervals
        .iter()
        .filter(|i| i.total_ns > 0)
        .map(|i| i.iters as f64 * 1e9 / i.total_ns as f64)
        .collect();
    let rate_spread = (!rates.is_empty()).then(|| {
        let sum = Summary::of(&rates);
        RateSpread {
            intervals: rates.len(),
            min: rates.iter().cloned().fold(f64::INFINITY, f64::min),
            median: sum.median,
            max: rates.iter().cloned().fold(0.0, f64::max),
        }
    });
    HttpReport {
        server_software: s.server.clone().unwrap_or_default(),
        server_hostname: cfg.target.host.clone(),
        server_port: cfg.target.port,
        protocol: match (cfg.http2, cfg.target.tls) {
            (false, _) => "HTTP/1.1".into(),
            (true, false) => "HTTP/2 (h2c, prior knowledge)".into(),
            (true, true) => "HTTP/2 (h2, by ALPN)".into(),
        },
        tls: s.tls.clone(),
        document_path: cfg.target.path.clone(),
        document_length: s.doc_len.unwrap_or(0),
        concurrency_level: cfg.concurrency as u64,
        threads: cfg.threads.clamp(1, cfg.concurrency.max(1)),
        time_taken_ns: (secs * 1e9).round() as u64,
        complete_requests: s.complete,
        failed_requests: s.failed(),
        failures: Failures {
            connect: s.fail_connect,
            receive: s.fail_receive,
            length: s.fail_length,
            exceptions: s.fail_exception,
        },
        timeouts: s.timeouts,
        reconnects: s.reconnects,
        non_2xx: s.non_2xx.iter().map(|(k, v)| (*k, *v)).collect(),
        keep_alive_requests: s.keepalive,
        total_transferred: s.total_bytes,
        html_transferred: s.body_bytes,
        requests_per_second: rps,
        rate_spread,
        time_per_request_ms: if done > 0.0 {
            cfg.concurrency as f64 * secs * 1e3 / done
        } else {
            0.0
        },
        time_per_request_all_ms: if done > 0.0 { secs * 1e3 / done } else { 0.0 },
        transfer_rate_kb_s: s.total_bytes as f64 / 1024.0 / secs,
        connect: row(&s.connect),
        processing: row(&s.processing),
        waiting: row(&s.waiting),
        total: row(&s.total),
        percentiles: percentiles(&s.total),
        target_rate: cfg.rate,
        uncorrected_percentiles: s.uncorrected.as_ref().map(percentiles),
        send_lag: s.lag.as_ref().filter(|h| !h.is_empty()).map(|h| SendLag {
            p50: h.value_at_quantile(0.5) as f64 / 1e6,
            p99: h.value_at_quantile(0.99) as f64 / 1e6,
            max: h.max() as f64 / 1e6,
        }),
        partial: out.interrupted,
        generator_cpu_s: out.generator_cpu.map(|d| d.as_secs_f64()),
        io: out.io.map(str::to_string),
        stamped_answers: Some(s.stamped),
        per_url: per_url(cfg, out),
        pick: cfg.urls.as_ref().map(|u| match u.pick {
            Pick::RoundRobin => "round robin".to_string(),
            Pick::Random(seed) => format!("random, seed {seed}"),
        }),
        warmup: None,
    }
}

/// --urls: a row per line of the file, from its own counts.
fn per_url(cfg: &HttpConfig, out: &LoadOutcome) -> Vec<UrlRow> {
    let Some(set) = &cfg.urls else {
        return Vec::new();
    };
    let secs = out.elapsed.as_secs_f64().max(1e-9);
    let ms = |h: &Histogram<u64>, q: f64| {
        if h.is_empty() {
            0.0
        } else {
            h.value_at_quantile(q) as f64 / 1e6
        }
    };
    set.entries
        .iter()
        .zip(&out.stats.per_url)
        .map(|((line, _, spec), u)| UrlRow {
            line: line.line,
            method: spec.method().to_string(),
            url: line.url.clone(),
            requests: u.complete,
            rate: u.complete as f64 / secs,
            p50_ms: ms(&u.total, 0.5),
            p99_ms: ms(&u.total, 0.99),
            failed: u.failed,
            non_2xx: u.non_2xx,
        })
        .collect()
}
