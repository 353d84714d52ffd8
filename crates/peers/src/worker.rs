//! The Rust worker, built into `toll` (`toll worker`): the control plane of
//! spec/wire.md over stdin/stdout, serving transfers with [`crate::serve`]
//! and `ffi` with [`crate::ffi`].

use crate::control;
use crate::serve::{serve, Fault};
use crate::transport::{self, Transport};
use serde_json::{json, Value};
use std::io::{self, Write};

fn answer(out: &mut impl Write, v: &Value) -> io::Result<()> {
    writeln!(out, "{v}")?;
    out.flush()
}

/// Run the worker until `exit` or end of input; returns the exit status.
pub fn run() -> i32 {
    let mut stdin = io::stdin().lock();
    let mut out = io::stdout().lock();
    let fault = Fault::from_env();
    let mut line = String::new();
    loop {
        match control::read_line(&mut stdin, &mut line) {
            Ok(true) => {}
            Ok(false) => return 0,
            Err(_) => return 1,
        }
        let reply = match control::parse_command(&line) {
            None => continue,
            Some(Err(e)) => json!({"ok": false, "error": e}),
            Some(Ok((op, cmd))) => match op.as_str() {
                "hello" => json!({
                    "ok": true, "runtime": "rust", "version": concat!("toll ", env!("CARGO_PKG_VERSION")),
                    "wire": 1, "pid": std::process::id(), "ops": ["transfer", "spawn", "ring", "ffi"],
                    "units": crate::units::UNITS, "bindings": crate::ffi::bindings(),
                    "transports": Transport::ALL.iter().map(|t| t.name()).collect::<Vec<_>>(),
                }),
                "transfer" => transfer(&cmd, &mut out, fault),
                "spawn" | "ring" => units(&op, &cmd, fault),
                "ffi" => crate::ffi::run(&cmd),
                "exit" => return 0,
                op => json!({"ok": false, "error": format!("unknown op `{op}`")}),
            },
        };
        if answer(&mut out, &reply).is_err() {
            return 1;
        }
    }
}

fn transfer(cmd: &Value, out: &mut impl Write, fault: Fault) -> Value {
    let mut channel = match transport::connect(cmd) {
        Ok(c) => c,
        Err(e) => return json!({"ok": false, "error": format!("cannot connect: {e}")}),
    };
    if answer(out, &json!({"ok": true, "event": "ready"})).is_err() {
        std::process::exit(1);
    }
    match serve(&mut *channel.reader, &mut *channel.writer, fault) {
        Ok(s) => json!({"ok": true, "event": "done", "frames": s.frames, "items": s.items}),
        Err(e) => json!({"ok": false, "error": format!("data channel: {e}")}),
    }
}

/// `spawn` and `ring` (spec/wire.md): `exit:K` exits instead of answering when
/// n ≥ K; `short:K` makes at most K units for a `spawn` but answers for all n,
/// as a worker that cut corners would.
fn units(op: &str, cmd: &Value, fault: Fault) -> Value {
    let unit = cmd.get("unit").and_then(Value::as_str).unwrap_or("");
    let (Some(n), m) = (
        cmd.get("n").and_then(Value::as_u64),
        cmd.get("m").and_then(Value::as_u64),
    ) else {
        return json!({"ok": false, "error": format!("`{op}` needs a whole number `n`")});
    };
    if let Fault::ExitAt(k) = fault {
        if n >= u64::from(k) {
            std::process::exit(3);
        }
    }
    match (op, m) {
        ("spawn", _) => match fault {
            Fault::ShortAt(k) if n > u64::from(k) => {
                let mut answer = crate::units::spawn(unit, k.into());
                if answer["ok"] == true {
                    answer["n"] = n.into();
                }
                answer
            }
            _ => crate::units::spawn(unit, n),
        },
        (_, Some(m)) if m > 0 => crate::units::ring(unit, n, m),
        _ => json!({"ok": false, "error": "`ring` needs a whole number `m` of at least 1"}),
    }
}
