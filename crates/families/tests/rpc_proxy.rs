//! haproxy and nginx, started by toll with their generated configs in front
//! of the real Go RPC server, carry a real call of every stack they support:
//! the reply comes back through the proxy and the server counts the call.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;
use toll_families::rpc::proxy::{self, ProxyKind};
use toll_peers::{launch_rpc_server, RpcServer};

fn go_server() -> RpcServer {
    let launch =
        launch_rpc_server("go", &mut |note| eprintln!("{note}")).expect("the go rpc server");
    RpcServer::start(&launch).expect("starting the go rpc server")
}

/// Two raw calls (n = 0 and n = 5) on one connection.
fn raw_calls(addr: SocketAddr) -> u64 {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    for n in [0u32, 5] {
        let mut frame = n.to_le_bytes().to_vec();
        frame.extend(std::iter::repeat_n(b'x', n as usize));
        c.write_all(&frame).unwrap();
        let mut reply = [0u8; 4];
        c.read_exact(&mut reply).unwrap();
        assert_eq!(u32::from_le_bytes(reply), n);
    }
    2
}

/// Two HTTP/1.1 calls on one kept-alive connection.
fn http1_calls(addr: SocketAddr) -> u64 {
    let mut c = TcpStream::connect(addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    for n in [0usize, 5] {
        write!(
            c,
            "POST /call HTTP/1.1\r\nHost: toll\r\nContent-Length: {n}\r\n\r\n{}",
            "x".repeat(n)
        )
        .unwrap();
        // The reply is headers only (Content-Length: 0): read to the blank line.
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            assert!(head.len() < 4096, "a reply head over 4 KiB");
            c.read_exact(&mut byte).unwrap();
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).to_lowercase();
        assert!(head.starts_with("http/1.1 200"), "{head}");
        assert!(head.contains(&format!("toll-received: {n}\r\n")), "{head}");
    }
    2
}

/// Two calls over one HTTP/2 connection with prior knowledge: POST /call
/// (h2), or the gRPC unary call with its 5-byte message prefix (grpc).
fn h2_calls(addr: SocketAddr, grpc: bool) -> u64 {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (mut send, conn) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
                .await
                .expect("an HTTP/2 handshake through the proxy");
        tokio::spawn(conn);
        for n in [0usize, 5] {
            let payload = "x".repeat(n).into_bytes();
            let req = http::Request::post(format!("http://{addr}/call"));
            let req = if grpc {
                // Payload{data}: field 1, length n, the bytes; nothing for n = 0.
                let msg: Vec<u8> = if n == 0 {
                    vec![]
                } else {
                    [vec![0x0a, n as u8], payload].concat()
                };
                let mut body = vec![0u8];
                body.extend((msg.len() as u32).to_be_bytes());
                body.extend(msg);
                http::Request::post(format!("http://{addr}/toll.rpc.v1.Null/Call"))
                    .header("content-type", "application/grpc")
                    .header("te", "trailers")
                    .body(Full::new(Bytes::from(body)))
            } else {
                req.body(Full::new(Bytes::from(payload)))
            }
            .unwrap();
            let resp = tokio::time::timeout(Duration::from_secs(5), send.send_request(req))
                .await
                .expect("an answer within 5 s")
                .expect("an answer");
            assert_eq!(resp.status(), 200);
            let headers = resp.headers().clone();
            let body = resp.into_body().collect().await.unwrap();
            let trailers = body.trailers().cloned().unwrap_or_default();
            let bytes = body.to_bytes();
            if grpc {
                let status = trailers.get("grpc-status").or(headers.get("grpc-status"));
                assert_eq!(
                    status.map(|s| s.as_bytes()),
                    Some(&b"0"[..]),
                    "{headers:?} {trailers:?}"
                );
                // Ack{received = n}: empty for 0, else field 1 varint n.
                let ack: Vec<u8> = if n == 0 { vec![] } else { vec![0x08, n as u8] };
                let mut want = vec![0u8];
                want.extend((ack.len() as u32).to_be_bytes());
                want.extend(ack);
                assert_eq!(&bytes[..], &want[..]);
            } else {
                assert_eq!(
                    headers.get("toll-received").map(|v| v.as_bytes()),
                    Some(n.to_string().as_bytes())
                );
                assert!(bytes.is_empty());
            }
        }
        2
    })
}

fn carries(kind: ProxyKind, stack: &str, server: &mut RpcServer) {
    let port = server.serve(stack, "127.0.0.1", 0).unwrap();
    let upstream = SocketAddr::from(([127, 0, 0, 1], port));
    let proxy =
        proxy::start(kind, stack, upstream).unwrap_or_else(|e| panic!("{kind} for {stack}: {e}"));
    assert_ne!(proxy.addr(), upstream);
    let before = server.stats().unwrap();
    let made = match stack {
        "raw" => raw_calls(proxy.addr()),
        "http1" => http1_calls(proxy.addr()),
        "h2" => h2_calls(proxy.addr(), false),
        "grpc" => h2_calls(proxy.addr(), true),
        _ => unreachable!(),
    };
    let counted = server.stats().unwrap().since(before).calls;
    assert_eq!(
        counted, made,
        "{kind} {stack}: the server counted {counted} calls of {made}"
    );
    let (pid, config) = (proxy.pid(), proxy.config());
    let dir = config_dir(pid);
    drop(proxy);
    assert!(!toll_peers::process_alive(pid), "{kind} outlived its Proxy");
    assert!(!dir.exists(), "{kind} left {}", dir.display());
    assert!(!config.is_empty());
}

/// The proxy's working directory, where its config and logs are.
fn config_dir(pid: u32) -> std::path::PathBuf {
    std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap()
}

#[test]
fn haproxy_carries_every_stack() {
    let mut server = go_server();
    for stack in ProxyKind::Haproxy.stacks() {
        carries(ProxyKind::Haproxy, stack, &mut server);
    }
}

#[test]
fn nginx_carries_every_stack() {
    let mut server = go_server();
    for stack in ProxyKind::Nginx.stacks() {
        carries(ProxyKind::Nginx, stack, &mut server);
    }
}
