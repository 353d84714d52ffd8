//! The control plane (spec/wire.md, "Control plane"): any bytes as a
//! worker's stdout, read line by line as the harness reads answers, and
//! each line as a command the built-in worker reads. Every value a
//! `transfer` command carries must be used exactly as sent, or refused.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use toll_peers::control::{self, Answer, MAX_LINE};
use toll_peers::transport::{self, Endpoint};
use toll_peers::Hello;

fn check_endpoint(cmd: &Value) {
    let Ok(e) = transport::endpoint(cmd) else {
        return;
    };
    match e {
        Endpoint::Pipe { read_fd, write_fd } => {
            for (k, fd) in [("read_fd", read_fd), ("write_fd", write_fd)] {
                assert!(fd >= 0, "{k} {fd} accepted from {cmd}");
                assert_eq!(cmd[k].as_i64(), Some(i64::from(fd)), "{k} from {cmd}");
            }
        }
        Endpoint::Tcp { host, port } => {
            assert_ne!(port, 0, "port 0 accepted from {cmd}");
            assert_eq!(
                cmd["port"].as_u64(),
                Some(u64::from(port)),
                "port from {cmd}"
            );
            assert_eq!(cmd["host"].as_str(), Some(host.as_str()));
        }
        Endpoint::Unix(path) | Endpoint::Shm(path) => {
            assert_eq!(
                cmd["path"].as_str().map(std::path::Path::new),
                Some(path.as_path())
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let mut input = data;
    let mut line = String::new();
    while let Ok(true) = control::read_line(&mut input, &mut line) {
        assert!(line.len() <= MAX_LINE && !line.contains('\n'));
        match control::parse_answer(&line) {
            Answer::Ok(v) => {
                assert_eq!(v["ok"], true);
                let hello = Hello::from_answer(&v);
                assert_eq!(hello.is_ok(), v["wire"].as_u64() == Some(1));
            }
            Answer::Refused { .. } => {}
            Answer::NotJson(shown) => assert!(shown.chars().count() <= 80),
        }
        match control::parse_command(&line) {
            None => assert!(line.trim().is_empty()),
            Some(Ok((op, cmd))) => {
                assert_eq!(cmd["op"].as_str(), Some(op.as_str()));
                if op == "transfer" {
                    check_endpoint(&cmd);
                }
            }
            Some(Err(_)) => {}
        }
    }
});
