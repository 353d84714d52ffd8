//! `toll http`'s report, under ab's labels and with ab's definitions, so its
//! figures compare directly with an ab run; plus what ab lacks (99.9 and
//! 99.99 percentiles, the spread of the rate, constant-rate figures).

use crate::http_urls::UrlRow;
use serde::{Deserialize, Serialize};
use std::fmt::Write;

/// min, mean, [+/-sd], median, max of one of ab's connection times, in ms.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct TimeRow {
    pub min: f64,
    pub mean: f64,
    pub sd: f64,
    pub median: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Failures {
    pub connect: u64,
    pub receive: u64,
    pub length: u64,
    pub exceptions: u64,
}

/// Requests per second over the run's 1-second intervals.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RateSpread {
    pub intervals: usize,
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

/// At a constant rate: how far behind its own schedule toll sent requests
/// (after the request's slot had come and its connection was free), in ms.
/// The corrected latencies include this; the server had no part in it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SendLag {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

/// `--warmup`: the load sent before the measured one, and not measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Warmup {
    pub time_ns: u64,
    /// Requests answered in it.
    pub requests: u64,
    /// Requests that failed in it.
    pub failed: u64,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct HttpReport {
    pub server_software: String,
    pub server_hostname: String,
    pub server_port: u16,
    /// HTTP/1.1, or HTTP/2 and how it was agreed (h2c prior knowledge, h2 by ALPN).
    #[serde(default)]
    pub protocol: String,
    /// https: the TLS version and cipher suite (ab's SSL/TLS Protocol).
    #[serde(default)]
    pub tls: Option<String>,
    pub document_path: String,
    pub document_length: u64,
    pub concurrency_level: u64,
    pub threads: usize,
    pub time_taken_ns: u64,
    pub complete_requests: u64,
    pub failed_requests: u64,
    pub failures: Failures,
    pub timeouts: u64,
    pub reconnects: u64,
    /// Status code → count, for every response outside 2xx.
    pub non_2xx: Vec<(u16, u64)>,
    pub keep_alive_requests: u64,
    pub total_transferred: u64,
    pub html_transferred: u64,
    pub requests_per_second: f64,
    pub rate_spread: Option<RateSpread>,
    pub time_per_request_ms: f64,
    pub time_per_request_all_ms: f64,
    pub transfer_rate_kb_s: f64,
    pub connect: TimeRow,
    pub processing: TimeRow,
    pub waiting: TimeRow,
    pub total: TimeRow,
    /// (percent, ms), 50 … 100 with 99.9 and 99.99.
    pub percentiles: Vec<(f64, f64)>,
    /// At a constant rate: the target rate, and the percentiles timed from
    /// the actual send instead of the intended one.
    pub target_rate: Option<f64>,
    pub uncorrected_percentiles: Option<Vec<(f64, f64)>>,
    /// At a constant rate: how late toll itself sent requests.
    #[serde(default)]
    pub send_lag: Option<SendLag>,
    /// The run ended early (interrupted).
    pub partial: bool,
    /// toll's own CPU (user + system, all its threads) while it generated
    /// the load; None for runs stored before it was kept, or from agents.
    #[serde(default)]
    pub generator_cpu_s: Option<f64>,
    /// What toll's loops were built on (io_uring, epoll, tokio); None for
    /// runs stored before it was kept, or from agents.
    #[serde(default)]
    pub io: Option<String>,
    /// Answers whose latency ends at the kernel's arrival stamp of their
    /// last bytes (the rest end at the client's clock when it read them);
    /// None for runs stored before it was kept, or from agents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stamped_answers: Option<u64>,
    /// --urls: a row per line of the URL file, and how lines were picked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub per_url: Vec<UrlRow>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<String>,
    /// --warmup: the load sent before this one, not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<Warmup>,
}

impl HttpReport {
    /// The share of answers whose latency ends at the kernel's stamp, when known.
    pub fn stamped_share(&self) -> Option<f64> {
        let n = self.stamped_answers?;
        (self.complete_requests > 0).then(|| n as f64 / self.complete_requests as f64)
    }
}

/// What "latency" means in a report: where each answer's time ends.
pub fn latency_end(r: &HttpReport) -> Option<String> {
    let share = r.stamped_share()?;
    Some(if share >= 0.995 {
        "each answer ends at the kernel's arrival stamp of its last bytes (the client's own receive processing left out)".into()
    } else if share <= 0.005 {
        "each answer ends when the client read its last bytes (the kernel gave no arrival stamps: the client's receive processing is in)".into()
    } else {
        format!(
            "{:.1}% of answers end at the kernel's arrival stamp of their last bytes (the client's own receive processing left out), the rest when the client read them",
            share * 100.0
        )
    })
}

/// Milliseconds with sub-ms digits where ab would print 0.
pub(crate) fn ms(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// The report as ab prints it (times in ms with sub-ms digits where ab would
/// print 0).
pub fn render(r: &HttpReport) -> String {
    let mut o = String::new();
    let w = &mut o;
    let _ = writeln!(w, "Server Software:        {}", r.server_software);
    let _ = writeln!(w, "Server Hostname:        {}", r.server_hostname);
    let _ = writeln!(w, "Server Port:            {}", r.server_port);
    if let Some(tls) = &r.tls {
        let _ = writeln!(w, "SSL/TLS Protocol:       {tls}");
    }
    if !r.protocol.is_empty() {
        let _ = writeln!(w, "Protocol:               {}", r.protocol);
    }
    let _ = writeln!(w);
    let _ = writeln!(w, "Document Path:          {}", r.document_path);
    let _ = writeln!(w, "Document Length:        {} bytes", r.document_length);
    let _ = writeln!(w);
    if let Some(wu) = &r.warmup {
        let _ = writeln!(
            w,
            "Warm-up:                {:.3} seconds, {} requests answered ({} failed), not measured",
            wu.time_ns as f64 / 1e9,
            wu.requests,
            wu.failed
        );
    }
    let _ = writeln!(w, "Concurrency Level:      {}", r.concurrency_level);
    let _ = writeln!(w, "Event loops (threads):  {}", r.threads);
    let _ = writeln!(
        w,
        "Time taken for tests:   {:.3} seconds",
        r.time_taken_ns as f64 / 1e9
    );
    let _ = writeln!(w, "Complete requests:      {}", r.complete_requests);
    let _ = writeln!(w, "Failed requests:        {}", r.failed_requests);
    if r.failed_requests > 0 {
        let f = &r.failures;
        let _ = writeln!(
            w,
            "   (Connect: {}, Receive: {}, Length: {}, Exceptions: {})",
            f.connect, f.receive, f.length, f.exceptions
        );
    }
    if r.timeouts > 0 {
        let _ = writeln!(
            w,
            "Timed out requests:     {} (counted under Connect or Receive)",
            r.timeouts
        );
    }
    if r.reconnects > 0 {
        let _ = writeln!(
            w,
            "Reconnects:             {} (keep-alive connections the server closed)",
            r.reconnects
        );
    }
    if !r.non_2xx.is_empty() {
        let total: u64 = r.non_2xx.iter().map(|x| x.1).sum();
        let each: Vec<String> = r.non_2xx.iter().map(|(s, n)| format!("{s}: {n}")).collect();
        let _ = writeln!(w, "Non-2xx responses:      {total} ({})", each.join(", "));
    }
    let _ = writeln!(w, "Keep-Alive requests:    {}", r.keep_alive_requests);
    let _ = writeln!(w, "Total transferred:      {} bytes", r.total_transferred);
    let _ = writeln!(w, "HTML transferred:       {} bytes", r.html_transferred);
    let _ = writeln!(
        w,
        "Requests per second:    {:.2} [#/sec] (mean)",
        r.requests_per_second
    );
    // One interval has no spread: its rate is the mean above.
    if let Some(s) = r.rate_spread.as_ref().filter(|s| s.intervals > 1) {
        let _ = writeln!(
            w,
            "                        {:.0} / {:.0} / {:.0} [#/sec] (min / median / max of {} 1-second intervals)",
            s.min, s.median, s.max, s.intervals
        );
    }
    if let Some(rate) = r.target_rate {
        let _ = writeln!(
            w,
            "Target rate:            {rate:.2} [#/sec] (constant; latency from each request's intended start)"
        );
    }
    if let Some(l) = &r.send_lag {
        let _ = writeln!(
            w,
            "Send lag:               {} / {} / {} [ms] (p50 / p99 / max)\n                        (how late toll sent requests whose slot had come and connection was free)",
            ms(l.p50),
            ms(l.p99),
            ms(l.max)
        );
    }
    // ab's figure is concurrency × time ÷ requests: a request's latency
    // only when every connection is always busy. At a constant rate they
    // wait between requests, so the measured mean stands in its place.
    if r.target_rate.is_some() {
        let _ = writeln!(
            w,
            "Time per request:       {:.3} [ms] (mean latency, measured from the intended start)",
            r.total.mean
        );
    } else {
        let _ = writeln!(
            w,
            "Time per request:       {:.3} [ms] (mean)",
            r.time_per_request_ms
        );
    }
    let _ = writeln!(
        w,
        "Time per request:       {:.3} [ms] (mean, across all concurrent requests)",
        r.time_per_request_all_ms
    );
    let _ = writeln!(
        w,
        "Transfer rate:          {:.2} [Kbytes/sec] received",
        r.transfer_rate_kb_s
    );
    if let Some(cpu) = r.generator_cpu_s.filter(|_| r.complete_requests > 0) {
        let secs = (r.time_taken_ns as f64 / 1e9).max(1e-9);
        let _ = writeln!(
            w,
            "toll's own CPU:         {:.3} [s], {:.2} [us] per request, {:.2} of a core",
            cpu,
            cpu * 1e6 / r.complete_requests as f64,
            cpu / secs
        );
    }
    if let Some(io) = &r.io {
        let _ = writeln!(w, "toll's system interface: {io}");
    }
    let _ = writeln!(w);
    let _ = writeln!(w, "Connection Times (ms)");
    let _ = writeln!(
        w,
        "              {:>7} {:>7} {:>7} {:>7} {:>7}",
        "min", "mean", "[+/-sd]", "median", "max"
    );
    for (label, row) in [
        ("Connect:", &r.connect),
        ("Processing:", &r.processing),
        ("Waiting:", &r.waiting),
        ("Total:", &r.total),
    ] {
        let _ = writeln!(
            w,
            "{label:<13} {:>7} {:>7} {:>7} {:>7} {:>7}",
            ms(row.min),
            ms(row.mean),
            ms(row.sd),
            ms(row.median),
            ms(row.max)
        );
    }
    let _ = writeln!(w);
    let title = if r.target_rate.is_some() {
        "Percentage of the requests served within a certain time (ms), from the intended start"
    } else {
        "Percentage of the requests served within a certain time (ms)"
    };
    percentile_table(w, title, &r.percentiles);
    if let Some(end) = latency_end(r) {
        let _ = writeln!(w, "  (latency: {end})");
    }
    if let Some(u) = &r.uncorrected_percentiles {
        let _ = writeln!(w);
        percentile_table(
            w,
            "Uncorrected (from the actual send; hides the wait a stalled server caused)",
            u,
        );
    }
    if !r.per_url.is_empty() {
        let _ = writeln!(w);
        let pick = r.pick.as_deref().unwrap_or("round robin");
        w.push_str(&crate::http_urls::render(&r.per_url, pick));
    }
    if r.partial {
        let _ = writeln!(w);
        let _ = writeln!(
            w,
            "(interrupted: the figures cover the requests completed before the stop)"
        );
    }
    o
}

fn percentile_table(w: &mut String, title: &str, rows: &[(f64, f64)]) {
    let _ = writeln!(w, "{title}");
    for (p, v) in rows {
        let label = if p.fract() == 0.0 {
            format!("{p:.0}%")
        } else {
            format!("{p}%")
        };
        let tail = if *p == 100.0 {
            " (longest request)"
        } else {
            ""
        };
        let _ = writeln!(w, "  {label:>6} {:>8}{tail}", ms(*v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_abs_labels() {
        let r = HttpReport {
            server_software: "nginx/1.22.1".into(),
            complete_requests: 10,
            failed_requests: 2,
            failures: Failures {
                length: 2,
                ..Default::default()
            },
            non_2xx: vec![(404, 3)],
            percentiles: vec![(50.0, 0.25), (99.9, 1.0), (100.0, 12.0)],
            ..Default::default()
        };
        let text = render(&r);
        for label in [
            "Server Software:        nginx/1.22.1",
            "Complete requests:      10",
            "   (Connect: 0, Receive: 0, Length: 2, Exceptions: 0)",
            "Non-2xx responses:      3 (404: 3)",
            "Time per request:",
            "(mean, across all concurrent requests)",
            "Connection Times (ms)",
            "Processing:",
            "Waiting:",
            "99.9%",
            "(longest request)",
        ] {
            assert!(text.contains(label), "{label} missing:\n{text}");
        }
    }

    #[test]
    fn a_constant_rate_prints_the_measured_mean_not_abs_figure() {
        let r = HttpReport {
            target_rate: Some(5000.0),
            concurrency_level: 20,
            time_per_request_ms: 4.023,
            total: TimeRow {
                mean: 0.192,
                ..Default::default()
            },
            ..Default::default()
        };
        let text = render(&r);
        assert!(
            text.contains("Time per request:       0.192 [ms] (mean latency, measured"),
            "{text}"
        );
        assert!(!text.contains("4.023"), "{text}");
    }

    #[test]
    fn the_rate_spread_needs_two_intervals() {
        let spread = |intervals| HttpReport {
            rate_spread: Some(RateSpread {
                intervals,
                min: 900.0,
                median: 1000.0,
                max: 1100.0,
            }),
            ..Default::default()
        };
        let text = render(&spread(3));
        assert!(
            text.contains("900 / 1000 / 1100 [#/sec] (min / median / max of 3 1-second intervals)"),
            "{text}"
        );
        let text = render(&spread(1));
        assert!(!text.contains("intervals"), "{text}");
        assert!(!text.contains("min / median / max"), "{text}");
    }

    #[test]
    fn send_lag_is_shown_at_a_constant_rate_only() {
        let mut r = HttpReport {
            target_rate: Some(100.0),
            send_lag: Some(SendLag {
                p50: 0.012,
                p99: 0.25,
                max: 31.5,
            }),
            ..Default::default()
        };
        let text = render(&r);
        assert!(
            text.contains("Send lag:               0.012 / 0.250 / 31.5 [ms] (p50 / p99 / max"),
            "{text}"
        );
        r.send_lag = None;
        assert!(!render(&r).contains("Send lag"));
    }
}
