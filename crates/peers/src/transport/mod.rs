//! Data-plane transports: how the harness and a worker get a byte stream
//! between them. The harness makes the endpoint ([`listen`]), the worker
//! connects to it ([`connect`]), as spec/wire.md describes.

mod channel;
mod pipe;
pub mod shm;
mod socket;

pub use channel::{Alive, Channel};
pub use pipe::PipePair;

use serde_json::Value;
use std::fmt;
use std::io;
use std::os::fd::RawFd;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Instant;

/// A kind of link between two processes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// A pair of anonymous pipes, one each way.
    Pipe,
    /// A unix-domain stream socket.
    Unix,
    /// TCP over loopback, TCP_NODELAY.
    Tcp,
    /// Two byte rings in shared memory, futex wake-ups (or spinning).
    Shm,
}

impl Transport {
    /// Every transport, in the order toll measures them.
    pub const ALL: [Transport; 4] = [
        Transport::Pipe,
        Transport::Unix,
        Transport::Tcp,
        Transport::Shm,
    ];

    /// The name used on the command line and the wire.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Pipe => "pipe",
            Transport::Unix => "unix",
            Transport::Tcp => "tcp",
            Transport::Shm => "shm",
        }
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Transport {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Transport::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                let valid: Vec<_> = Transport::ALL.iter().map(|t| t.name()).collect();
                format!(
                    "unknown transport `{s}`: valid transports are {}",
                    valid.join(", ")
                )
            })
    }
}

/// The harness's endpoint, made before the worker is told to connect.
pub enum Pending {
    /// Pipes are there from the worker's start.
    Pipe(Channel),
    Socket(socket::PendingSocket),
    Shm(shm::PendingShm),
}

/// Make the harness's endpoint for `transport` in `scratch` (a private
/// directory); returns it and the `transfer` command to send the worker.
pub fn listen(
    transport: Transport,
    scratch: &Path,
    spin: bool,
    pipes: &PipePair,
) -> io::Result<(Pending, Value)> {
    match transport {
        Transport::Pipe => pipes.listen().map(|(c, v)| (Pending::Pipe(c), v)),
        Transport::Unix => socket::listen_unix(scratch).map(|(p, v)| (Pending::Socket(p), v)),
        Transport::Tcp => socket::listen_tcp().map(|(p, v)| (Pending::Socket(p), v)),
        Transport::Shm => shm::listen(scratch, spin).map(|(p, v)| (Pending::Shm(p), v)),
    }
}

/// The harness's TCP endpoint for a worker elsewhere (`toll agent`): a
/// listener on `bind`; the `transfer` command names the address the worker
/// is to connect to, which the caller works out from the listener's.
pub fn listen_tcp_at(bind: std::net::IpAddr) -> io::Result<(Pending, std::net::SocketAddr)> {
    socket::listen_tcp_at(bind).map(|(p, a)| (Pending::Socket(p), a))
}

impl Pending {
    /// Wait until the worker has connected (or `deadline`, or the worker died).
    pub fn accept(self, deadline: Instant, alive: &Alive) -> io::Result<Channel> {
        match self {
            Pending::Pipe(c) => Ok(c),
            Pending::Socket(p) => p.accept(deadline, alive),
            Pending::Shm(p) => p.accept(alive),
        }
    }
}

/// Where a `transfer` command tells the worker to connect (spec/wire.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// The inherited pipes' descriptors.
    Pipe {
        read_fd: RawFd,
        write_fd: RawFd,
    },
    Unix(PathBuf),
    Tcp {
        host: String,
        port: u16,
    },
    Shm(PathBuf),
}

/// Read the endpoint a `transfer` command names, touching nothing.
pub fn endpoint(cmd: &Value) -> io::Result<Endpoint> {
    let lacks = |k: &str| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("transfer command lacks `{k}`"),
        )
    };
    let bad = |k: &str, what: &str, v: &Value| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("transfer command's `{k}` must be {what}, not {v}"),
        )
    };
    let field = |k: &str| cmd.get(k).and_then(Value::as_str).ok_or_else(|| lacks(k));
    let transport: Transport = field("transport")?
        .parse()
        .map_err(|e: String| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    Ok(match transport {
        Transport::Pipe => {
            let fd = |k: &str| {
                let v = cmd.get(k).ok_or_else(|| lacks(k))?;
                v.as_i64()
                    .and_then(|v| RawFd::try_from(v).ok())
                    .filter(|&fd| fd >= 0)
                    .ok_or_else(|| bad(k, "a file descriptor, 0 or more", v))
            };
            Endpoint::Pipe {
                read_fd: fd("read_fd")?,
                write_fd: fd("write_fd")?,
            }
        }
        Transport::Unix => Endpoint::Unix(field("path")?.into()),
        Transport::Tcp => {
            let v = cmd.get("port").ok_or_else(|| lacks("port"))?;
            let port = v
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .filter(|&p| p != 0)
                .ok_or_else(|| bad("port", "a port number, 1 to 65535", v))?;
            Endpoint::Tcp {
                host: field("host")?.into(),
                port,
            }
        }
        Transport::Shm => Endpoint::Shm(field("path")?.into()),
    })
}

/// The worker's side: connect to the endpoint a `transfer` command names.
pub fn connect(cmd: &Value) -> io::Result<Channel> {
    match endpoint(cmd)? {
        Endpoint::Pipe { read_fd, write_fd } => pipe::connect(read_fd, write_fd),
        Endpoint::Unix(path) => socket::connect_unix(&path),
        Endpoint::Tcp { host, port } => socket::connect_tcp(&host, port),
        Endpoint::Shm(path) => shm::connect(&path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pipe(read_fd: Value) -> Value {
        json!({"op": "transfer", "transport": "pipe", "read_fd": read_fd, "write_fd": 4})
    }

    fn tcp(port: Value) -> Value {
        json!({"op": "transfer", "transport": "tcp", "host": "127.0.0.1", "port": port})
    }

    /// Found by fuzz/fuzz_targets/control_message.rs: port 401203 was
    /// taken as 7987 (401203 mod 65536) and the worker connected there.
    #[test]
    fn a_port_out_of_range_is_refused_not_wrapped() {
        for port in [
            json!(401203),
            json!(65536),
            json!(0),
            json!(-1),
            json!("80"),
        ] {
            let e = endpoint(&tcp(port.clone())).unwrap_err();
            assert!(e.to_string().contains("1 to 65535"), "{port}: {e}");
        }
        assert_eq!(
            endpoint(&tcp(json!(65535))).unwrap(),
            Endpoint::Tcp {
                host: "127.0.0.1".into(),
                port: 65535
            }
        );
    }

    /// Found by fuzz/fuzz_targets/control_message.rs: a negative descriptor
    /// was accepted (and -1 panicked the worker in `BorrowedFd::borrow_raw`),
    /// and 4294967299 was taken as descriptor 3.
    #[test]
    fn a_descriptor_out_of_range_is_refused_not_wrapped() {
        for fd in [json!(-1), json!(-14), json!(4294967299u64), json!(3.0)] {
            let e = connect(&pipe(fd.clone())).err().expect("refused");
            assert!(e.to_string().contains("0 or more"), "{fd}: {e}");
        }
        assert_eq!(
            endpoint(&pipe(json!(3))).unwrap(),
            Endpoint::Pipe {
                read_fd: 3,
                write_fd: 4
            }
        );
    }
}
