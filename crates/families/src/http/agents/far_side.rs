//! The agent's side of an http load: what `toll agent` does on `http-ready`
//! (resolve the URL and connect once, as a single-host run does before it
//! loads) and `http-go` (run toll's own engine with its share of the
//! connections and requests, and answer with its histograms and counts).
//! Plugged into the agent's loop with [`toll_peers::agent::serve::run_with`],
//! so the load needs no second protocol.

use super::wire::{FarLoad, FarResult};
use crate::http::{self, HttpConfig, Target};
use serde_json::{json, Value};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The ops the agent answers for an http load.
pub const OPS: &[&str] = &["http-ready", "http-go"];

/// The load prepared by `http-ready`, run by `http-go`.
#[derive(Default)]
pub struct FarSide {
    ready: Option<HttpConfig>,
}

impl FarSide {
    /// Answer one of [`OPS`].
    pub fn handle(&mut self, op: &str, cmd: &Value) -> Value {
        let answer = match op {
            "http-ready" => self.ready(cmd),
            "http-go" => self.go(cmd),
            _ => Err(format!("unknown op `{op}`")),
        };
        answer.unwrap_or_else(|e| json!({"ok": false, "error": e}))
    }

    fn ready(&mut self, cmd: &Value) -> Result<Value, String> {
        let load = FarLoad::from_json(&cmd["load"])?;
        let target = Target::resolve(&load.url).map_err(|e| e.to_string())?;
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
            rate: None,
            http2: false,
            streams: 1,
            insecure: false,
            spin: load.spin,
            coalesce: load.coalesce,
        };
        http::preflight(&mut cfg).map_err(|e| e.to_string())?;
        self.ready = Some(cfg);
        Ok(json!({"ok": true, "event": "http-ready"}))
    }

    fn go(&mut self, cmd: &Value) -> Result<Value, String> {
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
        let stop = Arc::new(AtomicBool::new(false));
        let cpu0 = crate::rpc::server::cpu_ns();
        let out = http::load(&cfg, &stop, &mut |_, _| {}).map_err(|e| e.to_string())?;
        let cpu = crate::rpc::server::cpu_ns().saturating_sub(cpu0);
        Ok(FarResult {
            stats: out.stats,
            wall: out.elapsed,
            cpu_s: cpu as f64 / 1e9,
            threads: cfg.threads.clamp(1, cfg.concurrency),
            intervals: out.intervals,
            fine: out.fine,
        }
        .to_json())
    }
}
