//! The agent's side of an http load: what `toll agent` does on `http-ready`
//! (resolve the URL and connect once, as a single-host run does before it
//! loads), `clock` (the timestamps the coordinator measures this host's
//! clock offset with) and `http-go` (wait for the start instant it names,
//! on this host's clock, so that all agents start together; run toll's own
//! engine, as one machine picks it (the HTTP/1.1 event loop, or hyper's
//! clients for HTTP/2 and TLS), with its share of the connections,
//! requests or arrivals; send each second's latency histogram as an
//! `http-second` line as it goes; and answer with its histograms and
//! counts). Plugged into the agent's loop
//! with [`toll_peers::agent::serve::run_with`], so the load needs no second
//! protocol.

use super::clock;
use super::wire::{encode, FarLoad, FarResult, SECOND};
use crate::http::{self, HttpConfig, Part, Shard, Target};
use serde_json::{json, Value};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The ops the agent answers for an http load.
pub const OPS: &[&str] = &["http-ready", "clock", "http-go"];

/// A start further ahead than this is a coordinator's mistake, not a plan.
const LONGEST_LEAD: Duration = Duration::from_secs(600);

/// The load prepared by `http-ready`, run by `http-go`.
#[derive(Default)]
pub struct FarSide {
    ready: Option<HttpConfig>,
    /// The prepared load asked for every latency raw (a check).
    raw: bool,
}

impl FarSide {
    /// Answer one of [`OPS`]. `stop` is the agent's: raised by the
    /// coordinator's `stop` or by the end of its input, it ends a load
    /// under way within the engine's poll (well under a second), and the
    /// load answers with what it measured.
    pub fn handle(&mut self, op: &str, cmd: &Value, stop: &Arc<AtomicBool>) -> Value {
        let answer = match op {
            "clock" => Ok(clock::answer(clock::wall_ns())),
            "http-ready" => self.ready(cmd),
            "http-go" => self.go(cmd, stop),
            _ => Err(format!("unknown op `{op}`")),
        };
        answer.unwrap_or_else(|e| json!({"ok": false, "error": e}))
    }

    fn ready(&mut self, cmd: &Value) -> Result<Value, String> {
        let load = FarLoad::from_json(&cmd["load"])?;
        let target = Target::resolve_via(
            &load.url,
            load.unix_socket.as_deref().map(std::path::Path::new),
        )
        .map_err(|e| e.to_string())?;
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut cfg = HttpConfig {
            target,
            spec: load.spec,
            concurrency: 1,
            requests: None,
            time_limit: load.time_limit,
            threads: load.threads.unwrap_or(cpus),
            timeout: load.timeout,
            variable_length: load.variable_length,
            rate: load.rate,
            http2: load.http2,
            streams: load.streams,
            insecure: load.insecure,
            spin: load.spin,
            coalesce: load.coalesce,
            io: http::Io::from_env(),
            urls: None,
        };
        http::preflight(&mut cfg).map_err(|e| e.to_string())?;
        self.ready = Some(cfg);
        self.raw = load.raw;
        Ok(json!({"ok": true, "event": "http-ready"}))
    }

    fn go(&mut self, cmd: &Value, stop: &Arc<AtomicBool>) -> Result<Value, String> {
        let mut cfg = self.ready.take().ok_or("`http-go` before `http-ready`")?;
        cfg.concurrency = cmd
            .get("connections")
            .and_then(Value::as_u64)
            .filter(|&c| c > 0)
            .ok_or("`http-go` needs `connections` (1 or more)")? as usize;
        cfg.requests = cmd.get("requests").and_then(Value::as_u64);
        if cfg.requests.is_none() && cfg.time_limit.is_none() {
            return Err("`http-go` needs `requests` when the load has no time limit".into());
        }
        // The instant to start, on this host's clock: how far ahead it is,
        // or how late this agent already is for it.
        let (start, late) = match cmd.get("start_at_ns").and_then(Value::as_i64) {
            Some(at) => {
                let lead = at - clock::wall_ns();
                if lead > LONGEST_LEAD.as_nanos() as i64 {
                    return Err(format!(
                        "`http-go` starts {:.0} s from now on this host's clock: more than {} s ahead",
                        lead as f64 / 1e9,
                        LONGEST_LEAD.as_secs()
                    ));
                }
                let ahead = Duration::from_nanos(lead.max(0) as u64);
                (Some(Instant::now() + ahead), (-lead).max(0) as u64)
            }
            None => (None, 0),
        };
        // At a constant rate: this agent's shard of the one arrival schedule.
        let shard = match (cfg.rate, cmd.get("shard")) {
            (Some(_), Some(s)) => Some(shard(s, cfg.concurrency)?),
            (Some(_), None) => return Err("`http-go` at a constant rate needs its `shard`".into()),
            (None, _) => None,
        };
        let raw = self.raw.then(http::stats::RawSink::default);
        let part = Part {
            start,
            shard,
            raw: raw.clone(),
        };
        let cpu0 = crate::rpc::server::cpu_ns();
        // Asked to stream: each second's latencies go out as an event line
        // before the answer (this thread holds stdout's reentrant lock). A
        // line that cannot be written means no one is listening: stop.
        let mut second = |at: Duration, h: hdrhistogram::Histogram<u64>| {
            let line = json!({"ok": true, "event": SECOND, "at_ns": at.as_nanos() as u64,
                              "requests": h.len(), "histogram": encode(&h)});
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                stop.store(true, Ordering::SeqCst);
            }
        };
        let stream = cmd.get("stream").and_then(Value::as_bool) == Some(true);
        let on_second: Option<&mut dyn FnMut(Duration, hdrhistogram::Histogram<u64>)> =
            stream.then_some(&mut second);
        let out = http::load_part(&cfg, part, stop, &mut |_, _| {}, on_second)
            .map_err(|e| e.to_string())?;
        let cpu = crate::rpc::server::cpu_ns().saturating_sub(cpu0);
        Ok(FarResult {
            stats: out.stats,
            wall: out.elapsed,
            cpu_s: cpu as f64 / 1e9,
            threads: cfg.threads.clamp(1, cfg.concurrency),
            intervals: out.intervals,
            fine: out.fine,
            late: Duration::from_nanos(late),
            raw: raw.map(|r| std::mem::take(&mut *r.lock().unwrap_or_else(|e| e.into_inner()))),
        }
        .to_json())
    }
}

/// The shard `http-go` names, checked against this agent's connections:
/// agent `index` of `of` holds connections index, index + of, … of the
/// run's `connections`.
fn shard(v: &Value, mine: usize) -> Result<Shard, String> {
    let n = |k: &str| {
        v.get(k)
            .and_then(Value::as_u64)
            .map(|x| x as usize)
            .ok_or_else(|| format!("`http-go`'s shard has no `{k}`"))
    };
    let s = Shard {
        index: n("index")?,
        of: n("of")?,
        connections: n("connections")?,
    };
    if s.of == 0 || s.index >= s.of || (s.index..s.connections).step_by(s.of).count() != mine {
        return Err(format!(
            "`http-go`'s shard {} of {} over {} connections does not hold its {mine} connection(s)",
            s.index, s.of, s.connections
        ));
    }
    Ok(s)
}
