//! What the coordinator and a `toll agent` say to each other about an http
//! load, as JSON lines of the agent protocol: the load to prepare (the
//! flags of the single-host run that an agent repeats on its side), and an
//! agent's result (its counts and its histograms — at a constant rate the
//! uncorrected one and toll's send lag too — each in HdrHistogram's V2
//! encoding, compressed and in base64: the form HdrHistogram's libraries in
//! every language read, so anyone can re-merge them).

use crate::http::request::RequestSpec;
use crate::http::stats::Stats;
use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use hdrhistogram::Histogram;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;
use toll_measure::duration_ns::ns;
use toll_measure::Sample;

/// The event line an agent sends each second of a streamed load: its
/// `histogram` of that second's latencies (V2, like the result's).
pub const SECOND: &str = "http-second";

/// The load an agent prepares on `http-ready`: the single-host flags it
/// repeats; its share of connections and requests comes with `http-go`.
#[derive(Debug, Clone, PartialEq)]
pub struct FarLoad {
    pub url: String,
    /// --unix-socket: the socket's path on the agent's host.
    pub unix_socket: Option<String>,
    pub spec: RequestSpec,
    pub time_limit: Option<Duration>,
    /// --threads when given; None: the agent's own cores.
    pub threads: Option<usize>,
    pub timeout: Duration,
    pub variable_length: bool,
    pub spin: Duration,
    pub coalesce: Duration,
    /// --rate: the whole run's arrivals per second, of which the agent
    /// sends its shard (named in `http-go`).
    pub rate: Option<f64>,
    /// --http2: h2c with prior knowledge, or h2 by ALPN over TLS, each
    /// agent through the same client engine as one machine.
    pub http2: bool,
    /// --streams: HTTP/2 streams on each of an agent's connections.
    pub streams: usize,
    /// --insecure: accept any server certificate.
    pub insecure: bool,
    /// Also send back every latency, raw: a check of the merge (the
    /// coordinator's `--raw-latencies`), not for real loads.
    pub raw: bool,
}

fn secs(ns: u64) -> Duration {
    Duration::from_nanos(ns)
}

impl FarLoad {
    pub fn to_json(&self) -> Value {
        json!({
            "url": self.url, "unix_socket": self.unix_socket, "method": self.spec.method, "headers": self.spec.headers,
            "body": self.spec.body.as_ref().map(|b| B64.encode(b)),
            "content_type": self.spec.content_type, "keep_alive": self.spec.keep_alive,
            "time_limit_ns": self.time_limit.map(ns), "threads": self.threads,
            "timeout_ns": ns(self.timeout), "variable_length": self.variable_length,
            "spin_ns": ns(self.spin), "coalesce_ns": ns(self.coalesce),
            "rate": self.rate, "raw": self.raw, "http2": self.http2,
            "streams": self.streams, "insecure": self.insecure,
        })
    }

    pub fn from_json(v: &Value) -> Result<FarLoad, String> {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(String::from);
        let nanos = |k: &str| v.get(k).and_then(Value::as_u64).map(secs);
        let body = match text("body") {
            Some(b) => Some(B64.decode(b).map_err(|e| format!("body: {e}"))?),
            None => None,
        };
        let headers = serde_json::from_value(v.get("headers").cloned().unwrap_or(json!([])))
            .map_err(|e| format!("headers: {e}"))?;
        Ok(FarLoad {
            url: text("url").ok_or("the load has no `url`")?,
            unix_socket: text("unix_socket"),
            spec: RequestSpec {
                method: text("method"),
                headers,
                body,
                content_type: text("content_type"),
                keep_alive: v.get("keep_alive").and_then(Value::as_bool) == Some(true),
            },
            time_limit: nanos("time_limit_ns"),
            threads: v.get("threads").and_then(Value::as_u64).map(|t| t as usize),
            timeout: nanos("timeout_ns").ok_or("the load has no `timeout_ns`")?,
            variable_length: v.get("variable_length").and_then(Value::as_bool) == Some(true),
            spin: nanos("spin_ns").unwrap_or_default(),
            coalesce: nanos("coalesce_ns").unwrap_or_default(),
            rate: v
                .get("rate")
                .and_then(Value::as_f64)
                .filter(|r| r.is_finite() && *r > 0.0),
            raw: v.get("raw").and_then(Value::as_bool) == Some(true),
            http2: v.get("http2").and_then(Value::as_bool) == Some(true),
            streams: v
                .get("streams")
                .and_then(Value::as_u64)
                .map_or(1, |n| n.max(1) as usize),
            insecure: v.get("insecure").and_then(Value::as_bool) == Some(true),
        })
    }
}

/// One histogram in V2 encoding (compressed), base64.
pub fn encode(h: &Histogram<u64>) -> String {
    let mut bytes = Vec::new();
    V2DeflateSerializer::new()
        .serialize(h, &mut bytes)
        .expect("a histogram serialises into memory");
    B64.encode(bytes)
}

/// The histogram `encode` wrote.
pub fn decode(text: &str) -> Result<Histogram<u64>, String> {
    let bytes = B64.decode(text).map_err(|e| format!("not base64: {e}"))?;
    Deserializer::new()
        .deserialize(&mut &bytes[..])
        .map_err(|e| format!("not an HdrHistogram: {e:?}"))
}

/// What an agent measured, as it answers `http-go`.
#[derive(Debug, Clone)]
pub struct FarResult {
    pub stats: Stats,
    /// From its start to its last answer, on its clock.
    pub wall: Duration,
    /// Its user + system CPU time over the load.
    pub cpu_s: f64,
    pub threads: usize,
    pub intervals: Vec<Sample>,
    pub fine: Vec<(Duration, u64)>,
    /// How late it started after the instant it was given.
    pub late: Duration,
    /// Every latency (ns), when the load asked for them raw.
    pub raw: Option<Vec<u64>>,
}

impl FarResult {
    pub fn to_json(&self) -> Value {
        let s = &self.stats;
        let non_2xx: BTreeMap<String, u64> =
            s.non_2xx.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        json!({
            "ok": true, "event": "http-done",
            "complete": s.complete, "fail_connect": s.fail_connect,
            "fail_receive": s.fail_receive, "fail_length": s.fail_length,
            "fail_exception": s.fail_exception, "timeouts": s.timeouts,
            "reconnects": s.reconnects, "keepalive": s.keepalive, "non_2xx": non_2xx,
            "total_bytes": s.total_bytes, "body_bytes": s.body_bytes,
            "doc_len": s.doc_len, "server": s.server, "tls": s.tls,
            "histograms": {"total": encode(&s.total), "connect": encode(&s.connect),
                           "processing": encode(&s.processing), "waiting": encode(&s.waiting),
                           "uncorrected": s.uncorrected.as_ref().map(encode),
                           "lag": s.lag.as_ref().map(encode)},
            "wall_ns": ns(self.wall), "cpu_s": self.cpu_s, "threads": self.threads,
            "late_ns": ns(self.late), "raw_ns": self.raw,
            "intervals": self.intervals.iter().map(|i| [i.iters, i.total_ns]).collect::<Vec<_>>(),
            "fine": self.fine.iter().map(|f| [ns(f.0), f.1]).collect::<Vec<_>>(),
        })
    }

    pub fn from_json(v: &Value) -> Result<FarResult, String> {
        let n = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        let hist = |k: &str| {
            let text = v["histograms"][k]
                .as_str()
                .ok_or_else(|| format!("no `{k}` histogram"))?;
            decode(text).map_err(|e| format!("the `{k}` histogram is {e}"))
        };
        let pairs = |k: &str| -> Vec<(u64, u64)> {
            v.get(k)
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|p| Some((p.get(0)?.as_u64()?, p.get(1)?.as_u64()?)))
                        .collect()
                })
                .unwrap_or_default()
        };
        let constant_rate = v["histograms"]["uncorrected"].is_string();
        let mut stats = Stats::new(constant_rate);
        if constant_rate {
            stats.uncorrected = Some(hist("uncorrected")?);
            stats.lag = Some(hist("lag")?);
        }
        stats.total = hist("total")?;
        stats.connect = hist("connect")?;
        stats.processing = hist("processing")?;
        stats.waiting = hist("waiting")?;
        stats.complete = n("complete");
        stats.fail_connect = n("fail_connect");
        stats.fail_receive = n("fail_receive");
        stats.fail_length = n("fail_length");
        stats.fail_exception = n("fail_exception");
        stats.timeouts = n("timeouts");
        stats.reconnects = n("reconnects");
        stats.keepalive = n("keepalive");
        if let Some(m) = v.get("non_2xx").and_then(Value::as_object) {
            for (k, c) in m {
                if let (Ok(code), Some(c)) = (k.parse(), c.as_u64()) {
                    stats.non_2xx.insert(code, c);
                }
            }
        }
        stats.total_bytes = n("total_bytes");
        stats.body_bytes = n("body_bytes");
        stats.doc_len = v.get("doc_len").and_then(Value::as_u64);
        stats.server = v.get("server").and_then(Value::as_str).map(String::from);
        stats.tls = v.get("tls").and_then(Value::as_str).map(String::from);
        Ok(FarResult {
            stats,
            wall: secs(n("wall_ns")),
            cpu_s: v.get("cpu_s").and_then(Value::as_f64).unwrap_or(0.0),
            threads: n("threads") as usize,
            intervals: pairs("intervals")
                .into_iter()
                .map(|(iters, total_ns)| Sample { iters, total_ns })
                .collect(),
            fine: pairs("fine")
                .into_iter()
                .map(|(at, c)| (secs(at), c))
                .collect(),
            late: secs(n("late_ns")),
            raw: v
                .get("raw_ns")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_u64).collect()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_survives_the_wire_bucket_for_bucket() {
        let mut h = crate::http::stats::histogram();
        for v in [1_000u64, 1_000, 52_000, 3_000_000, 900_000_000] {
            h.record(v).unwrap();
        }
        let back = decode(&encode(&h)).unwrap();
        assert_eq!(back, h);
        assert!(decode("not base64!").is_err());
    }

    #[test]
    fn an_open_loop_result_keeps_its_uncorrected_and_lag_histograms() {
        let mut stats = Stats::new(true);
        stats.total.record(9_000).unwrap();
        stats.uncorrected.as_mut().unwrap().record(2_000).unwrap();
        stats.lag.as_mut().unwrap().record(50).unwrap();
        let r = FarResult {
            stats,
            wall: Duration::from_secs(1),
            cpu_s: 0.2,
            threads: 1,
            intervals: vec![],
            fine: vec![],
            late: Duration::ZERO,
            raw: Some(vec![9_000]),
        };
        let back = FarResult::from_json(&r.to_json()).unwrap();
        assert_eq!(back.raw, Some(vec![9_000]));
        assert_eq!(back.stats.uncorrected, r.stats.uncorrected);
        assert_eq!(back.stats.lag, r.stats.lag);
        assert_eq!(back.stats.total, r.stats.total);
        let closed = FarResult {
            stats: Stats::new(false),
            raw: None,
            ..r
        };
        let back = FarResult::from_json(&closed.to_json()).unwrap();
        assert!(back.raw.is_none());
        assert!(back.stats.uncorrected.is_none() && back.stats.lag.is_none());
    }

    #[test]
    fn a_load_survives_the_wire() {
        let load = FarLoad {
            url: "http://127.0.0.1:8080/".into(),
            unix_socket: Some("/run/app.sock".into()),
            spec: RequestSpec {
                method: Some("PUT".into()),
                headers: vec![("X-A".into(), "b".into())],
                body: Some(vec![0, 1, 255]),
                content_type: Some("application/octet-stream".into()),
                keep_alive: true,
            },
            time_limit: Some(Duration::from_secs(3)),
            threads: None,
            timeout: Duration::from_secs(30),
            variable_length: true,
            spin: Duration::ZERO,
            coalesce: Duration::from_micros(10),
            rate: Some(400.0),
            raw: true,
            http2: true,
            streams: 4,
            insecure: true,
        };
        assert_eq!(FarLoad::from_json(&load.to_json()).unwrap(), load);
        let closed = FarLoad {
            rate: None,
            raw: false,
            http2: false,
            streams: 1,
            insecure: false,
            ..load
        };
        assert_eq!(FarLoad::from_json(&closed.to_json()).unwrap(), closed);
    }
}
