//! What one event loop counted: HDR histograms of ab's four times (and, at a
//! constant rate, the uncorrected total and toll's own lag), failures by
//! ab's kinds, bytes. Each loop owns its own; they merge exactly at the end.
//!
//! At a constant rate the total is timed from each request's intended
//! start (coordinated omission corrected, as wrk2), the uncorrected total
//! from its actual send. The two differ by the time a request waited to go
//! out: behind a slow answer on its connection (the server's doing), or
//! because toll sent it late (`lag`: the generator's doing, kept apart so
//! a report can say which it was).

use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One loop's latencies (ab's Total) since the sampler last took them: a
/// run from load agents streams them second by second. Locked once per
/// answer by its loop alone, and once a second by the sampler.
pub type IntervalSink = Arc<Mutex<Histogram<u64>>>;

/// Every latency (ab's Total, ns) of a run, when an agent is asked for
/// them to check its histograms against (`raw` of a load): shared by the
/// loops, locked once per answer.
pub type RawSink = Arc<Mutex<Vec<u64>>>;

/// A fresh, empty sink.
pub fn interval_sink() -> IntervalSink {
    Arc::new(Mutex::new(histogram()))
}

/// Take what the loops' sinks hold, leaving them empty: one histogram.
pub fn drain(sinks: &[IntervalSink]) -> Histogram<u64> {
    let mut out = histogram();
    for s in sinks {
        let mut h = s.lock().unwrap_or_else(|e| e.into_inner());
        let _ = out.add(&*h);
        h.reset();
    }
    out
}

/// Latencies are kept in nanoseconds, 3 significant digits, up to an hour.
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid histogram bounds")
}

#[derive(Debug, Clone)]
pub struct Stats {
    /// ab's Total: start of the request (of its connect, on a new
    /// connection) to the last byte of the response; at a constant rate,
    /// from the request's intended start.
    pub total: Histogram<u64>,
    pub connect: Histogram<u64>,
    /// Connected (or request start, on a reused connection) to the end.
    pub processing: Histogram<u64>,
    /// Request written to the first byte of the response.
    pub waiting: Histogram<u64>,
    /// At a constant rate: the total from the actual send.
    pub uncorrected: Option<Histogram<u64>>,
    /// At a constant rate: how late toll sent each request after its slot
    /// had come and its connection was free.
    pub lag: Option<Histogram<u64>>,
    pub complete: u64,
    pub fail_connect: u64,
    pub fail_receive: u64,
    pub fail_length: u64,
    pub fail_exception: u64,
    /// Requests that passed the -s timeout (also counted under Receive).
    pub timeouts: u64,
    /// Keep-alive connections the server closed before a request was
    /// answered: reconnected and sent again.
    pub reconnects: u64,
    /// Responses that came on a connection used before.
    pub keepalive: u64,
    /// Answers whose end is the kernel's arrival stamp (the rest end at
    /// the client's clock when it read them).
    pub stamped: u64,
    pub non_2xx: BTreeMap<u16, u64>,
    pub total_bytes: u64,
    pub body_bytes: u64,
    /// The first response's document length and Server header.
    pub doc_len: Option<u64>,
    pub server: Option<String>,
    /// https: the first handshake's version and cipher suite.
    pub tls: Option<String>,
    /// Where each answer's Total also goes, when the run streams them.
    pub interval: Option<IntervalSink>,
    /// Where each answer's Total is also kept, raw, when asked to check.
    pub raw: Option<RawSink>,
    /// --urls: each line's own counts, in the file's order (empty: one URL).
    pub per_url: Vec<UrlStats>,
}

/// One URL's counts in a run from a URL file: its latencies (ab's Total),
/// answers, failures and non-2xx answers, and its own document length (a
/// Length failure is an answer of another length than its URL's first).
#[derive(Debug, Clone)]
pub struct UrlStats {
    pub total: Histogram<u64>,
    pub complete: u64,
    pub failed: u64,
    pub non_2xx: u64,
    pub doc_len: Option<u64>,
}

impl UrlStats {
    fn new() -> UrlStats {
        UrlStats {
            total: histogram(),
            complete: 0,
            failed: 0,
            non_2xx: 0,
            doc_len: None,
        }
    }

    fn merge(&mut self, o: &UrlStats) {
        self.total
            .add(&o.total)
            .expect("histograms of the same bounds merge");
        self.complete += o.complete;
        self.failed += o.failed;
        self.non_2xx += o.non_2xx;
        if self.doc_len.is_none() {
            self.doc_len = o.doc_len;
        }
    }
}

/// One answered request, as either engine saw it.
#[derive(Debug, Clone)]
pub struct Answered {
    pub status: u16,
    /// Bytes of the document.
    pub body_len: u64,
    /// The Server header, read from the first answer only.
    pub server: Option<String>,
    /// The connection stays open for the next request.
    pub keep: bool,
    /// The request went on a connection that served one before.
    pub reused: bool,
    /// At a constant rate, when the request should have started.
    pub intended: Instant,
    /// At a constant rate, how late toll itself sent it (zero otherwise).
    pub lag: Duration,
    /// When it started (its connect, on a new connection).
    pub started: Instant,
    /// When the connection was ready (new connections only).
    pub connected: Instant,
    /// When the request was handed to the connection.
    pub written: Instant,
    pub first_byte: Instant,
    pub end: Instant,
    /// `end` is the kernel's arrival stamp of the answer's last bytes, not
    /// the client's clock when it read them.
    pub stamped: bool,
}

impl Stats {
    pub fn new(constant_rate: bool) -> Stats {
        Stats {
            total: histogram(),
            connect: histogram(),
            processing: histogram(),
            waiting: histogram(),
            uncorrected: constant_rate.then(histogram),
            lag: constant_rate.then(histogram),
            complete: 0,
            fail_connect: 0,
            fail_receive: 0,
            fail_length: 0,
            fail_exception: 0,
            timeouts: 0,
            reconnects: 0,
            keepalive: 0,
            stamped: 0,
            non_2xx: BTreeMap::new(),
            total_bytes: 0,
            body_bytes: 0,
            doc_len: None,
            server: None,
            tls: None,
            interval: None,
            raw: None,
            per_url: Vec::new(),
        }
    }

    /// The same, counting each of `urls` URLs apart too (none below 2).
    pub fn with_urls(mut self, urls: usize) -> Stats {
        self.per_url = if urls >= 2 {
            (0..urls).map(|_| UrlStats::new()).collect()
        } else {
            Vec::new()
        };
        self
    }

    /// A request to URL `url` failed (counted under its kind by the caller).
    pub fn url_failed(&mut self, url: usize) {
        if let Some(u) = self.per_url.get_mut(url) {
            u.failed += 1;
        }
    }

    /// The same, with each answer's Total also recorded into `sink`.
    pub fn with_interval(mut self, sink: Option<IntervalSink>) -> Stats {
        self.interval = sink;
        self
    }

    /// The same, with each answer's Total also pushed, raw, onto `sink`.
    pub fn with_raw(mut self, sink: Option<RawSink>) -> Stats {
        self.raw = sink;
        self
    }

    /// Count one answer under ab's definitions: the first answer sets the
    /// document length, and a later one of another length is a Length
    /// failure unless `variable_length` (ab's -l).
    pub fn record(&mut self, a: Answered, variable_length: bool) {
        self.record_url(0, a, variable_length)
    }

    /// [`record`](Stats::record) of an answer from URL `url` of a URL
    /// file, whose length is checked against that URL's first answer.
    pub fn record_url(&mut self, url: usize, a: Answered, variable_length: bool) {
        self.body_bytes += a.body_len;
        if self.doc_len.is_none() {
            self.doc_len = Some(a.body_len);
            self.server = a.server;
        }
        let non_2xx = !(200..300).contains(&a.status);
        let expected = match self.per_url.get_mut(url) {
            Some(u) => {
                u.complete += 1;
                u.non_2xx += u64::from(non_2xx);
                *u.doc_len.get_or_insert(a.body_len)
            }
            None => self.doc_len.unwrap_or(a.body_len),
        };
        if expected != a.body_len && !variable_length {
            self.fail_length += 1;
            self.url_failed(url);
        }
        if non_2xx {
            *self.non_2xx.entry(a.status).or_default() += 1;
        }
        self.complete += 1;
        self.stamped += u64::from(a.stamped);
        if a.keep {
            self.keepalive += 1;
        }
        let ns = |d: Duration| (d.as_nanos() as u64).max(1);
        let (connect, from) = if a.reused {
            (1, a.started)
        } else {
            (ns(a.connected - a.started), a.connected)
        };
        let total = ns(a.end - a.intended.min(a.started));
        let _ = self.total.record(total);
        if let Some(u) = self.per_url.get_mut(url) {
            let _ = u.total.record(total);
        }
        if let Some(sink) = &self.interval {
            let _ = sink.lock().unwrap_or_else(|e| e.into_inner()).record(total);
        }
        if let Some(raw) = &self.raw {
            raw.lock().unwrap_or_else(|e| e.into_inner()).push(total);
        }
        let _ = self.connect.record(connect);
        let _ = self.processing.record(ns(a.end - from));
        let _ = self.waiting.record(ns(a.first_byte - a.written));
        if let Some(h) = &mut self.uncorrected {
            let _ = h.record(ns(a.end - a.started));
        }
        if let Some(h) = &mut self.lag {
            let _ = h.record(ns(a.lag));
        }
    }

    pub fn failed(&self) -> u64 {
        self.fail_connect + self.fail_receive + self.fail_length + self.fail_exception
    }

    /// Add another loop's counts (histograms merge exactly).
    pub fn merge(&mut self, o: &Stats) {
        let add = |a: &mut Histogram<u64>, b: &Histogram<u64>| {
            a.add(b).expect("histograms of the same bounds merge")
        };
        add(&mut self.total, &o.total);
        add(&mut self.connect, &o.connect);
        add(&mut self.processing, &o.processing);
        add(&mut self.waiting, &o.waiting);
        if let (Some(a), Some(b)) = (&mut self.uncorrected, &o.uncorrected) {
            add(a, b);
        }
        if let (Some(a), Some(b)) = (&mut self.lag, &o.lag) {
            add(a, b);
        }
        self.complete += o.complete;
        self.fail_connect += o.fail_connect;
        self.fail_receive += o.fail_receive;
        self.fail_length += o.fail_length;
        self.fail_exception += o.fail_exception;
        self.timeouts += o.timeouts;
        self.reconnects += o.reconnects;
        self.keepalive += o.keepalive;
        self.stamped += o.stamped;
        for (k, v) in &o.non_2xx {
            *self.non_2xx.entry(*k).or_default() += v;
        }
        self.total_bytes += o.total_bytes;
        self.body_bytes += o.body_bytes;
        if self.doc_len.is_none() {
            self.doc_len = o.doc_len;
        }
        if self.server.is_none() {
            self.server.clone_from(&o.server);
        }
        if self.tls.is_none() {
            self.tls.clone_from(&o.tls);
        }
        if self.per_url.len() < o.per_url.len() {
            self.per_url.resize_with(o.per_url.len(), UrlStats::new);
        }
        for (a, b) in self.per_url.iter_mut().zip(&o.per_url) {
            a.merge(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_is_exact() {
        let (mut a, mut b) = (Stats::new(false), Stats::new(false));
        for v in [1_000u64, 2_000, 3_000] {
            a.total.record(v).unwrap();
        }
        b.total.record(1_000_000).unwrap();
        b.non_2xx.insert(404, 2);
        a.non_2xx.insert(404, 1);
        b.complete = 1;
        a.merge(&b);
        assert_eq!(a.total.len(), 4);
        assert_eq!(a.total.max(), b.total.max());
        assert_eq!(a.non_2xx[&404], 3);
        assert_eq!(a.complete, 1);
    }

    fn answered(intended: Instant, started: Instant, end: Instant, lag: Duration) -> Answered {
        Answered {
            status: 200,
            body_len: 92,
            server: None,
            keep: true,
            reused: true,
            intended,
            lag,
            started,
            connected: started,
            written: started,
            first_byte: end,
            end,
            stamped: false,
        }
    }

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    /// Within the histogram's 3 significant digits.
    fn near(ns: u64, want: Duration) -> bool {
        let want = want.as_nanos() as f64;
        (ns as f64 - want).abs() <= want * 1e-3
    }

    #[test]
    fn the_corrected_total_is_timed_from_the_slot_the_uncorrected_from_the_send() {
        let t0 = Instant::now();
        let mut s = Stats::new(true);
        // 90 requests sent on their slots and answered in 200 µs; 10 that
        // waited 5 ms behind a stalled answer, then took 200 µs.
        for k in 0..100u32 {
            let slot = t0 + us(1000) * k;
            let sent = if k % 10 == 9 { slot + us(5000) } else { slot };
            s.record(answered(slot, sent, sent + us(200), Duration::ZERO), false);
        }
        let unc = s.uncorrected.as_ref().unwrap();
        for q in [0.5, 0.9, 0.99] {
            assert!(near(unc.value_at_quantile(q), us(200)), "uncorrected p{q}");
        }
        assert!(near(s.total.value_at_quantile(0.5), us(200)));
        assert!(near(s.total.value_at_quantile(0.9), us(200)));
        assert!(
            near(s.total.value_at_quantile(0.95), us(5200)),
            "the wait counts"
        );
        assert!(near(s.total.max(), us(5200)));
        assert_eq!(s.total.len(), 100);
    }

    #[test]
    fn a_sink_sees_every_total_and_drains_empty() {
        let t0 = Instant::now();
        let sinks = [interval_sink(), interval_sink()];
        let mut s = Stats::new(true).with_interval(Some(sinks[0].clone()));
        for k in 0..5u64 {
            s.record(
                answered(t0, t0, t0 + us(100 * (k + 1)), Duration::ZERO),
                false,
            );
        }
        let first = drain(&sinks);
        assert_eq!(first, s.total, "the second's histogram is the total's");
        assert!(drain(&sinks).is_empty(), "taken once");
        s.record(answered(t0, t0, t0 + us(900), Duration::ZERO), false);
        assert_eq!(drain(&sinks).len(), 1);
    }

    #[test]
    fn without_a_rate_only_the_total_is_kept() {
        // The loops give a request its send as its intended start.
        let t0 = Instant::now();
        let mut s = Stats::new(false);
        s.record(answered(t0, t0, t0 + us(250), Duration::ZERO), false);
        assert!(near(s.total.max(), us(250)));
        assert!(s.uncorrected.is_none() && s.lag.is_none());
    }

    #[test]
    fn toll_lag_is_kept_apart_and_merges() {
        let t0 = Instant::now();
        let (mut a, mut b) = (Stats::new(true), Stats::new(true));
        a.record(answered(t0, t0, t0 + us(100), Duration::ZERO), false);
        b.record(answered(t0, t0 + us(700), t0 + us(800), us(700)), false);
        a.merge(&b);
        let lag = a.lag.as_ref().unwrap();
        assert_eq!(lag.len(), 2);
        assert!(near(lag.max(), us(700)));
        assert!(lag.min() <= 1, "a request sent on its slot has no lag");
        // Toll's 700 µs are in the corrected total too: that is why the
        // report shows them.
        assert!(near(a.total.max(), us(800)));
        assert!(near(a.uncorrected.as_ref().unwrap().max(), us(100)));
    }
}
