//! The Go and Python RPC servers as toll starts them: built and launched from
//! the registry, driven over their control plane, answering spec/vectors/rpc's
//! raw frames over real loopback TCP, counting the calls, and gone on drop.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::Duration;
use toll_peers::{launch_rpc_server, process_alive, PeerError, RpcServer};

/// spec/vectors/rpc/vectors.tsv: (name, stack, what, expect, bytes).
fn vectors() -> Vec<(String, String, String, String, Vec<u8>)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../spec/vectors/rpc/vectors.tsv");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let hex = f[5];
            let bytes = if hex == "-" {
                vec![]
            } else {
                (0..hex.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                    .collect()
            };
            (f[0].into(), f[1].into(), f[2].into(), f[4].into(), bytes)
        })
        .collect()
}

fn start(runtime: &str) -> RpcServer {
    let launch = launch_rpc_server(runtime, &mut |note| eprintln!("{note}"))
        .unwrap_or_else(|e| panic!("preparing the {runtime} rpc server: {e}"));
    RpcServer::start(&launch).unwrap_or_else(|e| panic!("starting the {runtime} rpc server: {e}"))
}

/// Every raw request vector gets its reply (or a closed connection), over
/// one connection per vector; returns the calls made.
fn raw_vectors_answer(port: u16) -> u64 {
    let rows = vectors();
    let mut calls = 0;
    for (name, stack, what, expect, bytes) in &rows {
        if stack != "raw" || what != "request" {
            continue;
        }
        let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        c.write_all(bytes).unwrap();
        if expect == "close" {
            let mut buf = [0u8; 4];
            assert!(
                matches!(c.read(&mut buf), Ok(0) | Err(_)),
                "{name}: the server answered instead of closing"
            );
            continue;
        }
        let reply = expect.strip_prefix("reply ").unwrap();
        let want = &rows.iter().find(|r| r.0 == reply).unwrap().4;
        let mut got = vec![0u8; want.len()];
        c.read_exact(&mut got)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&got, want, "{name}");
        calls += want.len() as u64 / 4;
    }
    assert!(calls >= 5, "too few raw vectors");
    calls
}

fn serves_raw_calls_and_counts_them(runtime: &str, stacks: &[&str]) {
    let mut server = start(runtime);
    assert_eq!(server.hello().runtime, runtime);
    assert_eq!(server.hello().stacks, stacks);
    let before = server.stats().unwrap();
    let port = server.serve("raw", "127.0.0.1", 0).unwrap();
    let calls = raw_vectors_answer(port);
    // Pipelined on one connection: 100 frames in one write, 100 replies in order.
    let mut c = TcpStream::connect(("127.0.0.1", port)).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut frames = Vec::new();
    for n in 0..100u32 {
        frames.extend(n.to_le_bytes());
        frames.extend(std::iter::repeat_n(b'x', n as usize));
    }
    c.write_all(&frames).unwrap();
    let mut replies = [0u8; 400];
    c.read_exact(&mut replies).unwrap();
    for (n, r) in replies.chunks(4).enumerate() {
        assert_eq!(u32::from_le_bytes(r.try_into().unwrap()), n as u32);
    }
    let d = server.stats().unwrap().since(before);
    assert_eq!(d.calls, calls + 100);
    // A second stack on the same server, each after its own serve.
    let other = server.serve("http1", "127.0.0.1", 0).unwrap();
    assert_ne!(other, port);
    let pid = server.hello().pid;
    assert!(process_alive(pid));
    drop(server);
    assert!(
        !process_alive(pid),
        "the {runtime} rpc server outlived its RpcServer"
    );
}

#[test]
fn the_go_server_serves_raw_calls_and_counts_them() {
    serves_raw_calls_and_counts_them("go", &["raw", "http1", "h2", "grpc"]);
}

#[test]
fn the_python_server_serves_raw_calls_and_counts_them() {
    let grpcio = std::process::Command::new("python3")
        .args(["-c", "import grpc"])
        .status()
        .is_ok_and(|s| s.success());
    let stacks: &[&str] = if grpcio {
        &["raw", "http1", "grpc"]
    } else {
        &["raw", "http1"]
    };
    serves_raw_calls_and_counts_them("python", stacks);
}

#[test]
fn a_stack_the_server_lacks_is_refused_with_its_fix() {
    let mut server = start("python");
    let e = server.serve("h2", "127.0.0.1", 0).unwrap_err();
    assert!(
        matches!(e, PeerError::StackUnsupported { .. }) && e.to_string().contains("go or rust"),
        "{e}"
    );
    let e = server.serve("smtp", "127.0.0.1", 0).unwrap_err();
    assert!(e.to_string().contains("raw, http1, h2, grpc"), "{e}");
    // The server itself refuses what it cannot do and keeps answering.
    let mut go = start("go");
    let taken = go.serve("raw", "127.0.0.1", 0).unwrap();
    let e = go.serve("http1", "127.0.0.1", taken).unwrap_err();
    assert!(matches!(e, PeerError::Refused { .. }), "{e}");
    assert!(go.stats().is_ok());
}

#[test]
fn a_server_that_dies_is_reported_with_its_last_words() {
    let mut cmd = std::process::Command::new("sh");
    cmd.args([
        "-c",
        r#"read line; echo '{"ok":true,"runtime":"go","rpc":1,"pid":1,"stacks":["raw"]}'; read line; echo 'out of luck' >&2; exit 3"#,
    ]);
    let mut server = RpcServer::from_command(cmd).unwrap();
    let e = server.stats().unwrap_err().to_string();
    assert!(e.contains("exited") && e.contains("out of luck"), "{e}");
}

#[test]
fn a_server_that_hangs_is_stopped() {
    let mut cmd = std::process::Command::new("sh");
    cmd.args([
        "-c",
        r#"read line; echo '{"ok":true,"runtime":"go","rpc":1,"pid":1,"stacks":["raw"]}'; sleep 30"#,
    ]);
    let mut server = RpcServer::from_command(cmd).unwrap();
    server.set_timeout(Duration::from_millis(300));
    let e = server.stats().unwrap_err().to_string();
    assert!(e.contains("did not answer"), "{e}");
}

#[test]
fn a_worker_is_not_an_rpc_server() {
    let mut cmd = std::process::Command::new("sh");
    cmd.args([
        "-c",
        r#"read line; echo '{"ok":true,"wire":1,"transports":["pipe"]}'"#,
    ]);
    let e = RpcServer::from_command(cmd).err().unwrap().to_string();
    assert!(e.contains("not an rpc server"), "{e}");
}
