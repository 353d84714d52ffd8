//! `toll http` (E5): an HTTP load generator with ab's report. One event loop
//! per thread owns its connections: plain HTTP/1.1 on mio (event_loop, the
//! fast path), HTTP/2 (on the h2 crate) and HTTP/1.1 over TLS (hyper's
//! client) on a current-thread tokio runtime (client_loop). Their HDR histograms merge exactly at the end
//! (stats); the run is stored like every family.

pub mod agents;
mod client_io;
pub mod client_loop;
pub mod coalesce;
pub mod compare;
pub mod compare_rounds;
mod config;
mod event_conn;
pub mod event_loop;
mod figures;
pub mod loop_plan;
mod lowat;
pub mod request;
pub mod response;
pub mod schedule;
pub mod sock;
pub mod stamp;
pub mod stats;
mod stored;
pub mod sweep;
pub mod target;
pub mod timer;
pub mod tls;
pub mod uring_loop;
mod uring_ops;
pub mod urls;

mod error;
pub use config::{HttpConfig, Io, LoadOutcome};
pub use error::HttpError;
pub use figures::report;
pub use stored::{latency_end, store_run, store_run_with, Added};

use client_loop::ClientPlan;
use event_loop::{Counter, LoopPlan, RateShare};
use hdrhistogram::Histogram;
use loop_plan::Mix;
pub use loop_plan::{Part, Shard};
use request::Template;
use stats::Stats;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use target::Target;
use tls::TlsSetup;
use toll_measure::Sample;

/// Connect once before the run, so a refused port, a dead host, an untrusted
/// certificate or a server without HTTP/2 is one clear error instead of a
/// run of failures. The run then uses the first of the host's addresses
/// that accepted: `localhost` may resolve to ::1 first while the server
/// listens on 127.0.0.1 only.
pub fn preflight(cfg: &mut HttpConfig) -> Result<(), HttpError> {
    if let Some(path) = cfg.target.unix.clone() {
        let mut sock =
            std::os::unix::net::UnixStream::connect(&path).map_err(|e| HttpError::Connect {
                addr: format!("unix:{}", path.display()),
                why: e.to_string(),
            })?;
        if cfg.http2 {
            h2c_check(&mut sock, cfg.timeout).map_err(|why| HttpError::NoH2c {
                addr: format!("unix:{}", path.display()),
                why,
            })?;
        }
        return Ok(());
    }
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
fn h2c_check<S>(sock: &mut S, timeout: Duration) -> Result<(), String>
where
    S: std::io::Read + std::io::Write + ReadTimeout,
{
    sock.read_timeout(timeout);
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

/// A blocking socket whose reads can be bounded in time.
trait ReadTimeout {
    fn read_timeout(&self, d: Duration);
}

impl ReadTimeout for std::net::TcpStream {
    fn read_timeout(&self, d: Duration) {
        let _ = self.set_read_timeout(Some(d));
    }
}

impl ReadTimeout for std::os::unix::net::UnixStream {
    fn read_timeout(&self, d: Duration) {
        let _ = self.set_read_timeout(Some(d));
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
    load_part(cfg, Part::default(), stop, on_progress, None)
}

/// [`load`] as one agent's part of a run from many: from `part.start`, on
/// its shard of the arrival schedule; `on_second`, when given, gets each
/// second's latencies (and the last part-second's) as they are taken.
pub fn load_part(
    cfg: &HttpConfig,
    part: Part,
    stop: &Arc<AtomicBool>,
    on_progress: &mut dyn FnMut(u64, Duration),
    mut on_second: Option<&mut dyn FnMut(Duration, Histogram<u64>)>,
) -> Result<LoadOutcome, HttpError> {
    let request: Arc<[u8]> = request::serialise(&cfg.target, &cfg.spec).into();
    // HTTP/2 and TLS go through client_loop (tokio); plain HTTP/1.1
    // through the mio loop.
    let hyper = cfg.http2 || cfg.target.tls;
    let lines: Vec<(&Target, &request::RequestSpec)> = match &cfg.urls {
        Some(set) => set.entries.iter().map(|(_, t, s)| (t, s)).collect(),
        None => vec![(&cfg.target, &cfg.spec)],
    };
    let templates: Option<Arc<[Template]>> = if hyper {
        let t: Result<Vec<Template>, _> = lines
            .iter()
            .map(|(t, s)| Template::new(t, s, cfg.http2))
            .collect();
        Some(t.map_err(|e| HttpError::Unsupported(e.to_string()))?.into())
    } else {
        None
    };
    let mix = cfg.urls.as_ref().map(|set| {
        let requests: Vec<Arc<[u8]>> = lines
            .iter()
            .map(|(t, s)| request::serialise(t, s).into())
            .collect();
        let no_body: Vec<bool> = lines.iter().map(|(_, s)| s.expects_no_body()).collect();
        Mix {
            requests: requests.into(),
            no_body: no_body.into(),
            lines: lines.len(),
            pick: set.pick,
            index: 0,
            first: 0,
        }
    });
    let tls = if cfg.target.tls {
        Some(TlsSetup::new(&cfg.target, cfg.http2, cfg.insecure)?)
    } else {
        None
    };
    // A plain HTTP/1.1 closed loop may run on io_uring (--io, and the
    // kernel having what it needs); --rate and --spin keep to epoll.
    let uring = !hyper
        && cfg.target.unix.is_none()
        && cfg.urls.is_none()
        && cfg.rate.is_none()
        && cfg.spin.is_zero()
        && match cfg.io {
            Io::Epoll => false,
            Io::IoUringWherePossible => uring_ops::refusal().is_none(),
            Io::IoUring => match uring_ops::refusal() {
                None => true,
                Some(why) => {
                    return Err(HttpError::Unsupported(format!(
                        "--io io_uring: the kernel refuses it here ({why}): use --io epoll"
                    )))
                }
            },
        };
    let io = match (hyper, uring) {
        (true, _) => "tokio",
        (false, true) => "io_uring",
        (false, false) => "epoll",
    };
    let threads = cfg.threads.clamp(1, cfg.concurrency.max(1));
    let conns = shares(cfg.concurrency as u64, threads);
    let reqs = cfg.requests.map(|n| shares(n, threads));
    let start = part
        .start
        .unwrap_or_else(|| Instant::now() + Duration::from_millis(2));
    let deadline = cfg.time_limit.map(|d| start + d);
    let counters: Arc<Vec<Counter>> = Arc::new((0..threads).map(|_| Counter::default()).collect());
    let sinks: Vec<stats::IntervalSink> = match on_second {
        Some(_) => (0..threads).map(|_| stats::interval_sink()).collect(),
        None => Vec::new(),
    };
    let mut handles = Vec::new();
    let mut first = 0u32;
    let cpu0 = crate::rpc::server::cpu_ns();
    for t in 0..threads {
        let rate = cfg
            .rate
            .map(|r| RateShare::of(r, cfg.concurrency, first, part.shard));
        first += conns[t] as u32;
        let plan = LoopPlan {
            addr: cfg.target.endpoint(),
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
            interval: sinks.get(t).cloned(),
            raw: part.raw.clone(),
            mix: mix.clone().map(|m| Mix {
                index: t as u64,
                first: first as usize - conns[t] as usize,
                ..m
            }),
        };
        let client = templates.as_ref().map(|templates| ClientPlan {
            common: plan.clone(),
            templates: templates.clone(),
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
                let out = match client {
                    Some(c) => client_loop::run(&c, &stop, &counters[t]),
                    None if uring => uring_loop::run(&plan, &stop, &counters[t]),
                    None => event_loop::run(&plan, &stop, &counters[t]),
                };
                (out, Instant::now())
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
            if let Some(f) = on_second.as_mut() {
                f(now.saturating_duration_since(start), stats::drain(&sinks));
            }
            last_count = count;
            last_at = now;
        }
    }
    let cpu = crate::rpc::server::cpu_ns().saturating_sub(cpu0);
    let mut stats = Stats::new(cfg.rate.is_some());
    // The load ended when its last loop did, not when the sampler above
    // next looked (up to its 20 ms nap later).
    let mut end = start;
    for h in handles {
        match h.join() {
            Ok((Ok(s), done)) => {
                stats.merge(&s);
                end = end.max(done);
            }
            Ok((Err(e), _)) => return Err(HttpError::Io(format!("event loop: {e}"))),
            Err(_) => return Err(HttpError::Io("an event loop panicked".into())),
        }
    }
    if let Some(f) = on_second.as_mut() {
        f(end.saturating_duration_since(start), stats::drain(&sinks));
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
        generator_cpu: Some(Duration::from_nanos(cpu)),
        io: Some(io),
    })
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
