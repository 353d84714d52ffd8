//! Stream sockets: unix-domain and loopback TCP.

use super::channel::{wait_step, Alive, Channel, End};
use serde_json::{json, Value};
use std::io;
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::time::Instant;

/// A listening socket waiting for the worker.
pub enum PendingSocket {
    Unix(UnixListener),
    Tcp(TcpListener),
}

pub(super) fn listen_unix(scratch: &Path) -> io::Result<(PendingSocket, Value)> {
    let path = scratch.join("data.sock");
    let _ = std::fs::remove_file(&path);
    let l = UnixListener::bind(&path)?;
    l.set_nonblocking(true)?;
    let cmd = json!({"op": "transfer", "transport": "unix", "path": path});
    Ok((PendingSocket::Unix(l), cmd))
}

pub(super) fn listen_tcp() -> io::Result<(PendingSocket, Value)> {
    let l = TcpListener::bind("127.0.0.1:0")?;
    l.set_nonblocking(true)?;
    let port = l.local_addr()?.port();
    let cmd = json!({"op": "transfer", "transport": "tcp", "host": "127.0.0.1", "port": port});
    Ok((PendingSocket::Tcp(l), cmd))
}

/// Listen on `bind` (any port) for a worker on another host; the caller
/// says where it is to connect (the address may be translated on the way).
pub(super) fn listen_tcp_at(
    bind: std::net::IpAddr,
) -> io::Result<(PendingSocket, std::net::SocketAddr)> {
    let l = TcpListener::bind((bind, 0))?;
    l.set_nonblocking(true)?;
    let addr = l.local_addr()?;
    Ok((PendingSocket::Tcp(l), addr))
}

fn accept_loop<T>(
    deadline: Instant,
    alive: &Alive,
    mut accept: impl FnMut() -> io::Result<T>,
) -> io::Result<T> {
    loop {
        match accept() {
            Ok(s) => return Ok(s),
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                wait_step(deadline, alive, "connect")?
            }
            Err(e) => return Err(e),
        }
    }
}

impl PendingSocket {
    pub(super) fn accept(self, deadline: Instant, alive: &Alive) -> io::Result<Channel> {
        match self {
            PendingSocket::Unix(l) => {
                let (s, _) = accept_loop(deadline, alive, || l.accept())?;
                s.set_nonblocking(false)?;
                Ok(Channel::stream(s.try_clone()?, s, End::Harness))
            }
            PendingSocket::Tcp(l) => {
                let (s, _) = accept_loop(deadline, alive, || l.accept())?;
                s.set_nonblocking(false)?;
                s.set_nodelay(true)?;
                Ok(Channel::stream(s.try_clone()?, s, End::Harness))
            }
        }
    }
}

pub(super) fn connect_unix(path: &Path) -> io::Result<Channel> {
    let s = UnixStream::connect(path)?;
    Ok(Channel::stream(s.try_clone()?, s, End::Worker))
}

pub(super) fn connect_tcp(host: &str, port: u16) -> io::Result<Channel> {
    let s = TcpStream::connect((host, port))?;
    s.set_nodelay(true)?;
    Ok(Channel::stream(s.try_clone()?, s, End::Worker))
}
