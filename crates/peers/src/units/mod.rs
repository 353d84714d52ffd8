//! The units the Rust worker spawns and rings (spec/wire.md, `spawn` and
//! `ring`): OS threads and tokio tasks.

mod mem;
mod outcome;
mod thread;
mod tokio_task;

pub use mem::{group_rss_kb, rss_kb, system_used_kb};
pub use outcome::{Limit, Spawned};

use serde_json::{json, Value};

/// The units of the Rust worker, as `hello` lists them.
pub const UNITS: [&str; 2] = ["thread", "tokio-task"];

/// Answer a `spawn` command.
pub fn spawn(unit: &str, n: u64) -> Value {
    let result = match unit {
        "thread" => thread::spawn(n),
        "tokio-task" => tokio_task::spawn(n),
        other => return unknown(other),
    };
    match result {
        Ok(s) => json!({
            "ok": true, "event": "done", "unit": unit, "n": n,
            "made": s.made, "ns": s.elapsed.as_nanos() as u64, "mem_kb": s.mem_kb, "mem_how": "rss",
        }),
        Err(l) => json!({
            "ok": false, "limit": true, "created": l.created,
            "error": format!("created {} of {n} units: {}", l.created, l.reason),
        }),
    }
}

/// Answer a `ring` command.
pub fn ring(unit: &str, n: u64, m: u64) -> Value {
    if n < 2 {
        return json!({"ok": false, "error": "a ring needs at least 2 units"});
    }
    let result = match unit {
        "thread" => thread::ring(n, m),
        "tokio-task" => tokio_task::ring(n, m),
        other => return unknown(other),
    };
    match result {
        Ok((elapsed, hops)) => json!({
            "ok": true, "event": "done", "unit": unit, "n": n, "m": m,
            "hops": hops, "ns": elapsed.as_nanos() as u64,
        }),
        Err(l) => json!({
            "ok": false, "limit": true, "created": l.created,
            "error": format!("created {} of {n} units: {}", l.created, l.reason),
        }),
    }
}

fn unknown(unit: &str) -> Value {
    json!({"ok": false, "error": format!("unknown unit `{unit}`: the rust worker has {}", UNITS.join(", "))})
}
