//! The control plane's lines (spec/wire.md, "Control plane") as the harness
//! and the built-in worker read them: pure functions of the bytes, so the
//! reading can be tested and fuzzed without a process at the other end.
//! A line is at most [`MAX_LINE`] bytes: a worker that writes without a
//! newline cannot make toll's memory grow without bound while it waits.

use serde_json::Value;
use std::io::{self, BufRead, Read};

/// The longest line either side reads (answers and commands are a few
/// hundred bytes; a spawn answer with a long error a few KiB).
pub const MAX_LINE: usize = 1 << 20;

/// Read one line into `line` (cleared first), without its `\n` or `\r\n`.
/// Ok(false) at the end of input; an error for a line longer than
/// [`MAX_LINE`] bytes or one that is not UTF-8.
pub fn read_line(input: &mut impl BufRead, line: &mut String) -> io::Result<bool> {
    line.clear();
    let mut bytes = Vec::new();
    // Room for the longest line and its `\r\n`, and no more.
    input
        .take(MAX_LINE as u64 + 2)
        .read_until(b'\n', &mut bytes)?;
    if bytes.is_empty() {
        return Ok(false);
    }
    if bytes.last() == Some(&b'\n') {
        bytes.pop();
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
    }
    if bytes.len() > MAX_LINE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a line longer than {} KiB", MAX_LINE / 1024),
        ));
    }
    *line = String::from_utf8(bytes)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "a line that is not UTF-8"))?;
    Ok(true)
}

/// What the harness makes of one answer line.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// `{"ok":true,…}`: the whole object.
    Ok(Value),
    /// Anything else that is JSON: the worker's reason, and whether it hit a
    /// runtime's limit making units (spec/wire.md, `spawn`).
    Refused { detail: String, limit: bool },
    /// Not JSON: the line's first 80 characters, to show.
    NotJson(String),
}

/// Read an answer line as the harness does.
pub fn parse_answer(line: &str) -> Answer {
    let Ok(v) = serde_json::from_str::<Value>(line.trim()) else {
        return Answer::NotJson(line.trim().chars().take(80).collect());
    };
    if v.get("ok").and_then(Value::as_bool) == Some(true) {
        return Answer::Ok(v);
    }
    Answer::Refused {
        detail: v
            .get("error")
            .and_then(Value::as_str)
            .unwrap_or("no reason given")
            .into(),
        limit: v.get("limit").and_then(Value::as_bool) == Some(true),
    }
}

/// Read a command line as the built-in worker does: None for a blank line,
/// else the command's `op` with the whole object, or the error to answer.
pub fn parse_command(line: &str) -> Option<Result<(String, Value), String>> {
    if line.trim().is_empty() {
        return None;
    }
    Some(match serde_json::from_str::<Value>(line) {
        Err(e) => Err(format!("not JSON: {e}")),
        Ok(cmd) => match cmd.get("op").and_then(Value::as_str) {
            Some(op) => Ok((op.to_string(), cmd)),
            None => Err("command has no `op`".into()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_lose_their_ending_and_stop_at_the_end() {
        let mut input: &[u8] = b"{\"ok\":true}\r\nsecond\nlast";
        let mut line = String::new();
        let mut got = vec![];
        while read_line(&mut input, &mut line).unwrap() {
            got.push(line.clone());
        }
        assert_eq!(got, ["{\"ok\":true}", "second", "last"]);
    }

    #[test]
    fn an_endless_line_is_refused_not_kept() {
        let long = vec![b'x'; MAX_LINE + 10];
        let e = read_line(&mut &long[..], &mut String::new()).unwrap_err();
        assert_eq!(e.to_string(), "a line longer than 1024 KiB");
        let just = [vec![b'x'; MAX_LINE], b"\r\n".to_vec()].concat();
        let mut line = String::new();
        assert!(read_line(&mut &just[..], &mut line).unwrap());
        assert_eq!(line.len(), MAX_LINE);
        let e = read_line(&mut &b"\xff\n"[..], &mut line).unwrap_err();
        assert_eq!(e.to_string(), "a line that is not UTF-8");
    }

    #[test]
    fn answers_are_ok_refused_or_not_json() {
        assert_eq!(
            parse_answer(" {\"ok\":true,\"event\":\"ready\"} "),
            Answer::Ok(json!({"ok": true, "event": "ready"}))
        );
        assert_eq!(
            parse_answer(r#"{"ok":false,"limit":true,"error":"created 3 of 9"}"#),
            Answer::Refused {
                detail: "created 3 of 9".into(),
                limit: true
            }
        );
        assert_eq!(
            parse_answer("[1]"),
            Answer::Refused {
                detail: "no reason given".into(),
                limit: false
            }
        );
        assert_eq!(
            parse_answer("Segmentation fault"),
            Answer::NotJson("Segmentation fault".into())
        );
    }

    #[test]
    fn commands_name_their_op() {
        assert_eq!(parse_command("  "), None);
        let (op, cmd) = parse_command(r#"{"op":"spawn","n":3}"#).unwrap().unwrap();
        assert_eq!((op.as_str(), &cmd["n"]), ("spawn", &json!(3)));
        assert_eq!(
            parse_command("{}").unwrap().unwrap_err(),
            "command has no `op`"
        );
        assert!(parse_command("{")
            .unwrap()
            .unwrap_err()
            .starts_with("not JSON: "));
    }
}
