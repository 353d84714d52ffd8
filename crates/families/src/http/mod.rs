//! `toll http` (E5): an HTTP load generator with ab's report. One event loop
//! per thread owns its connections: plain HTTP/1.1 on mio (event_loop, the
//! fast path), HTTP/2 (on the h2 crate) and HTTP/1.1 over TLS (hyper's
//! client) on a current-thread tokio runtime (client_loop). Their HDR histograms merge exactly at the end
//! (stats); the run is stored like every family.

pub mod agents;
pub mod client_loop;
pub mod coalesce;
pub mod compare;
pub mod compare_rounds;
pub mod event_loop;
pub mod loop_plan;
pub mod request;
pub mod response;
pub mod schedule;
pub mod stats;
pub mod target;
pub mod timer;
pub mod tls;

mod error;
pub use error::HttpError;

use client_loop::ClientPlan;
use event_loop::{Counter, LoopPlan, RateShare};
use hdrhistogram::Histogram;
use request::{RequestSpec, Template};
use serde_json::json;
use stats::Stats;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use target::Target;
use tls::TlsSetup;
use toll_measure::duration_ns::ns;
use toll_measure::{Fingerprint, Sample, Summary};
use toll_report::http::{Failures, HttpReport, RateSpread, SendLag, TimeRow};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store};

/// A validated `toll http` run.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    pub target: Target,
    pub spec: RequestSpec,
    pub concurrency: usize,
    /// -n; None: until the time limit.
    pub requests: Option<u64>,
    /// -t or --duration.
    pub time_limit: Option<Duration>,
    pub threads: usize,
    /// -s: a request not answered in this time is counted failed.
    pub timeout: Duration,
    pub variable_length: bool,
    /// --rate: requests per second, an open model.
    pub rate: Option<f64>,
    /// --http2: h2c with prior knowledge, or h2 by ALPN over TLS.
    pub http2: bool,
    /// --streams: HTTP/2 streams in flight on each connection.
    pub streams: usize,
    /// --insecure: accept any server certificate.
    pub insecure: bool,
    /// --spin: how long an HTTP/1.1 event loop polls before it sleeps.
    pub spin: Duration,
    /// --coalesce: the longest nap of an HTTP/1.1 event loop in place of a
    /// sleep while requests are in flight (zero: off).
    pub coalesce: Duration,
}

/// What a load run measured.
#[derive(Debug)]
pub struct LoadOutcome {
    pub stats: Stats,
    pub elapsed: Duration,
    /// Completed requests per 1-second interval (the last may be shorter).
    pub intervals: Vec<Sample>,
    /// Completed requests per [`FINE_TICK`] interval, for the rate over
    /// time: (end of the interval since the load's start, requests).
    pub fine: Vec<(Duration, u64)>,
    pub interrupted: bool,
}

/// Connect once before the run, so a refused port, a dead host, an untrusted
/// certificate or a server without HTTP/2 is one clear error instead of a
/// run of failures. The run then uses the first of the host's addresses
/// that accepted: `localhost` may resolve to ::1 first while the server
/// listens on 127.0.0.1 only.
pub fn preflight(cfg: &mut HttpConfig) -> Result<(), HttpError> {
    let (addr, mut sock) = connect_first(&cfg.target.addrs, cfg.timeout)?;
    cfg.target.prefer(addr);
    if cfg.target.tls {
        TlsSetup::new(&cfg.target, cfg.http2, cfg.insecure)?.preflight(
            &cfg.target,
            sock,
            addr,
            cfg.timeout,
        )?;
        return Ok(());
    }
    if cfg.http2 {
        h2c_check(&mut sock, cfg.timeout).map_err(|why| HttpError::NoH2c {
            addr: addr.to_string(),
            why,
        })?;
    }
    Ok(())
}

/// Each address in turn until one accepts: it and its connection.
fn connect_first(
    addrs: &[SocketAddr],
    timeout: Duration,
) -> Result<(SocketAddr, std::net::TcpStream), HttpError> {
    let mut why = String::from("the host has no address");
    for &addr in addrs {
        match std::net::TcpStream::connect_timeout(&addr, timeout) {
            Ok(sock) => return Ok((addr, sock)),
            Err(e) => why = e.to_string(),
        }
    }
    let tried: Vec<String> = addrs.iter().map(SocketAddr::to_string).collect();
    Err(HttpError::Connect {
        addr: tried.join(" or "),
        why,
    })
}

/// Send HTTP/2's connection preface and an empty SETTINGS frame; an h2c
/// server answers with a SETTINGS frame (type 4) on stream 0.
fn h2c_check(sock: &mut std::net::TcpStream, timeout: Duration) -> Result<(), String> {
    use std::io::{Read, Write};
    let _ = sock.set_read_timeout(Some(timeout));
    let mut hello = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    hello.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    sock.write_all(&hello).map_err(|e| e.to_string())?;
    let mut head = [0u8; 9];
    match sock.read_exact(&mut head) {
        Ok(()) if head[3] == 4 => Ok(()),
        Ok(()) if head.starts_with(b"HTTP/1.") => Err("it answered in HTTP/1".into()),
        Ok(()) => Err(format!(
            "its first frame is of type {}, not SETTINGS",
            head[3]
        )),
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            Err("it closed the connection".into())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// Split `total` into `parts` shares that differ by at most one.
pub(crate) fn shares(total: u64, parts: usize) -> Vec<u64> {
    let parts = parts as u64;
    (0..parts)
        .map(|i| total / parts + u64::from(i < total % parts))
        .collect()
}

/// The interval of the stored rate over time: a 1-second rate hides the
/// stalls of a short run, and a run of a few seconds still gets a curve.
pub const FINE_TICK: Duration = Duration::from_millis(100);

/// Run the load: `threads` event loops, progress sampled every second.
pub fn load(
    cfg: &HttpConfig,
    stop: &Arc<AtomicBool>,
    on_progress: &mut dyn FnMut(u64, Duration),
) -> Result<LoadOutcome, HttpError> {
    let request: Arc<[u8]> = request::serialise(&cfg.target, &cfg.spec).into();
    // HTTP/2 and TLS go through client_loop (tokio); plain HTTP/1.1
    // through the mio loop.
    let hyper = cfg.http2 || cfg.target.tls;
    let template = if hyper {
        Some(Arc::new(
            Template::new(&cfg.target, &cfg.spec, cfg.http2)
                .map_err(|e| HttpError::Unsupported(e.to_string()))?,
        ))
    } else {
        None
    };
    let tls = if cfg.target.tls {
        Some(TlsSetup::new(&cfg.target, cfg.http2, cfg.insecure)?)
    } else {
        None
    };
    let threads = cfg.threads.clamp(1, cfg.concurrency.max(1));
    let conns = shares(cfg.concurrency as u64, threads);
    let reqs = cfg.requests.map(|n| shares(n, threads));
    let start = Instant::now() + Duration::from_millis(2);
    let deadline = cfg.time_limit.map(|d| start + d);
    let counters: Arc<Vec<Counter>> = Arc::new((0..threads).map(|_| Counter::default()).collect());
    let mut handles = Vec::new();
    let mut first = 0u32;
    for t in 0..threads {
        let rate = cfg.rate.map(|r| {
            let per_conn = r / cfg.concurrency as f64;
            RateShare {
                interval: Duration::from_secs_f64(1.0 / per_conn),
                first,
                offset: Duration::from_secs_f64(1.0 / r),
            }
        });
        first += conns[t] as u32;
        let plan = LoopPlan {
            addr: cfg.target.addrs[0],
            request: request.clone(),
            connections: conns[t] as usize,
            requests: reqs.as_ref().map(|r| r[t]),
            deadline,
            timeout: cfg.timeout,
            keep_alive: cfg.spec.keep_alive,
            no_body: cfg.spec.expects_no_body(),
            variable_length: cfg.variable_length,
            rate,
            start,
            spin: cfg.spin,
            coalesce: cfg.coalesce,
        };
        let client = template.as_ref().map(|template| ClientPlan {
            common: plan.clone(),
            template: template.clone(),
            tls: tls.clone(),
            http2: cfg.http2,
            streams: cfg.streams,
        });
        let (stop, counters) = (stop.clone(), counters.clone());
        let h = std::thread::Builder::new()
            .name(format!("toll-http-{t}"))
            .spawn(move || {
                let now = Instant::now();
                if now < plan.start {
                    std::thread::sleep(plan.start - now);
                }
                match client {
                    Some(c) => client_loop::run(&c, &stop, &counters[t]),
                    None => event_loop::run(&plan, &stop, &counters[t]),
                }
            })
            .map_err(|e| HttpError::Io(format!("starting event loop {t}: {e}")))?;
        handles.push(h);
    }
    let mut intervals = Vec::new();
    let mut last_count = 0u64;
    let mut last_at = start;
    let tick = Duration::from_secs(1);
    let mut fine = Vec::new();
    let (mut fine_count, mut fine_at) = (0u64, start);
    while !handles.iter().all(|h| h.is_finished()) {
        std::thread::sleep(Duration::from_millis(20));
        let now = Instant::now();
        if now >= fine_at + FINE_TICK {
            let count: u64 = counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum();
            fine.push((now - start, count - fine_count));
            (fine_count, fine_at) = (count, now);
        }
        if now >= last_at + tick {
            let count: u64 = counters.iter().map(|c| c.0.load(Ordering::Relaxed)).sum();
            intervals.push(Sample {
                iters: count - last_count,
                total_ns: (now - last_at).as_nanos() as u64,
            });
            on_progress(count, now.saturating_duration_since(start));
            last_count = count;
            last_at = now;
        }
    }
    let end = Instant::now();
    let mut stats = Stats::new(cfg.rate.is_some());
    for h in handles {
        match h.join() {
            Ok(Ok(s)) => stats.merge(&s),
            Ok(Err(e)) => return Err(HttpError::Io(format!("event loop: {e}"))),
            Err(_) => return Err(HttpError::Io("an event loop panicked".into())),
        }
    }
    let tail = stats.complete.saturating_sub(last_count);
    let tail_ns = end.saturating_duration_since(last_at).as_nanos() as u64;
    if tail > 0 && tail_ns >= 200_000_000 {
        intervals.push(Sample {
            iters: tail,
            total_ns: tail_ns,
        });
    }
    // The last fine interval ends with the run; a sliver of one joins the
    // interval before it, so a few requests over a millisecond are not
    // drawn as a spike of thousands per second.
    let fine_tail = stats.complete.saturating_sub(fine_count);
    if end > fine_at {
        let at = end - start;
        match fine.last_mut() {
            Some(last) if end - fine_at < FINE_TICK / 2 => *last = (at, last.1 + fine_tail),
            _ => fine.push((at, fine_tail)),
        }
    }
    Ok(LoadOutcome {
        stats,
        elapsed: end.saturating_duration_since(start),
        intervals,
        fine,
        interrupted: stop.load(Ordering::Relaxed),
    })
}

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
    }
}

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
) -> Result<i64, HttpError> {
    store_run_with(store, cfg, out, rep, &Added::default())
}

/// What a run from load agents adds to the stored run: keys of its config
/// and of its point's extra, and why it is partial (an agent lost).
#[derive(Debug, Default)]
pub struct Added {
    pub config: serde_json::Map<String, serde_json::Value>,
    pub extra: serde_json::Map<String, serde_json::Value>,
    pub partial: Option<String>,
}

/// [`store_run`], with what `added` adds.
pub fn store_run_with(
    store: &Store,
    cfg: &HttpConfig,
    out: &LoadOutcome,
    rep: &HttpReport,
    added: &Added,
) -> Result<i64, HttpError> {
    let env = Fingerprint::capture(vec![]);
    let mut config = json!({
            "url": cfg.target.url, "method": cfg.spec.method(), "concurrency": cfg.concurrency,
            "requests": cfg.requests, "time_limit_ns": cfg.time_limit.map(ns),
            "threads": rep.threads, "keep_alive": cfg.spec.keep_alive,
            "timeout_ns": ns(cfg.timeout), "rate": cfg.rate,
            "variable_length": cfg.variable_length, "http2": cfg.http2,
            "streams": cfg.streams, "insecure": cfg.insecure,
            "spin_ns": ns(cfg.spin), "coalesce_ns": ns(cfg.coalesce),
    });
    config
        .as_object_mut()
        .expect("an object")
        .extend(added.config.clone());
    let run_id = store.begin_run(&NewRun {
        family: "http".into(),
        config,
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let label = format!("{} {}", cfg.spec.method(), cfg.target.url);
    let series = store.add_series(
        run_id,
        &label,
        &json!({"url": cfg.target.url, "concurrency": cfg.concurrency, "keep_alive": cfg.spec.keep_alive, "per": "request"}),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_address_that_accepts_is_used() {
        // Listening on 127.0.0.1 only; 127.0.0.2 is loopback too, but
        // refuses this port, as ::1 does for a server bound to IPv4.
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let (refused, open): (SocketAddr, SocketAddr) = (
            format!("127.0.0.2:{port}").parse().unwrap(),
            format!("127.0.0.1:{port}").parse().unwrap(),
        );
        let (addr, _sock) = connect_first(&[refused, open], Duration::from_secs(5)).unwrap();
        assert_eq!(addr, open);
        drop(l);
        let e = connect_first(&[refused, open], Duration::from_secs(5))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("127.0.0.2:{port} or 127.0.0.1:{port}")),
            "names every address tried: {e}"
        );
    }

    #[test]
    fn shares_differ_by_at_most_one() {
        assert_eq!(shares(10, 3), vec![4, 3, 3]);
        assert_eq!(shares(2, 4), vec![1, 1, 0, 0]);
        assert_eq!(shares(0, 1), vec![0]);
    }
}
