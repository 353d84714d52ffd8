//! Where a run's connections go (`Endpoint`: a TCP address, or a unix
//! socket's path with `--unix-socket`) and the stream each loop holds for
//! one: mio's for the HTTP/1.1 event loop, tokio's for the client loop.
//! The request (its path and Host header) is the same either way; only the
//! connection differs, as with curl's `--unix-socket`.

use std::io::{self, Write};
use std::net::SocketAddr;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, RawFd};
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// Where a connection is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    Tcp(SocketAddr),
    Unix(Arc<Path>),
}

impl std::fmt::Display for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Tcp(a) => write!(f, "{a}"),
            Endpoint::Unix(p) => write!(f, "unix:{}", p.display()),
        }
    }
}

/// The event loop's non-blocking stream.
pub enum MioStream {
    Tcp(mio::net::TcpStream),
    Unix(mio::net::UnixStream),
}

impl MioStream {
    /// Start a connection to `to` (it may still be connecting).
    pub fn connect(to: &Endpoint) -> io::Result<MioStream> {
        match to {
            Endpoint::Tcp(a) => mio::net::TcpStream::connect(*a).map(MioStream::Tcp),
            Endpoint::Unix(p) => mio::net::UnixStream::connect(p).map(MioStream::Unix),
        }
    }

    /// TCP_NODELAY where there is TCP (a unix socket has no Nagle).
    pub fn set_nodelay(&self) {
        if let MioStream::Tcp(s) = self {
            let _ = s.set_nodelay(true);
        }
    }
}

impl AsRawFd for MioStream {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            MioStream::Tcp(s) => s.as_raw_fd(),
            MioStream::Unix(s) => s.as_raw_fd(),
        }
    }
}

impl AsFd for MioStream {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            MioStream::Tcp(s) => s.as_fd(),
            MioStream::Unix(s) => s.as_fd(),
        }
    }
}

impl Write for MioStream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            MioStream::Tcp(s) => s.write(buf),
            MioStream::Unix(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl mio::event::Source for MioStream {
    fn register(&mut self, r: &mio::Registry, t: mio::Token, i: mio::Interest) -> io::Result<()> {
        match self {
            MioStream::Tcp(s) => s.register(r, t, i),
            MioStream::Unix(s) => s.register(r, t, i),
        }
    }
    fn reregister(&mut self, r: &mio::Registry, t: mio::Token, i: mio::Interest) -> io::Result<()> {
        match self {
            MioStream::Tcp(s) => s.reregister(r, t, i),
            MioStream::Unix(s) => s.reregister(r, t, i),
        }
    }
    fn deregister(&mut self, r: &mio::Registry) -> io::Result<()> {
        match self {
            MioStream::Tcp(s) => s.deregister(r),
            MioStream::Unix(s) => s.deregister(r),
        }
    }
}

/// The client loop's stream.
pub enum TokioStream {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

impl TokioStream {
    pub async fn connect(to: &Endpoint) -> io::Result<TokioStream> {
        Ok(match to {
            Endpoint::Tcp(a) => {
                let s = tokio::net::TcpStream::connect(*a).await?;
                let _ = s.set_nodelay(true);
                TokioStream::Tcp(s)
            }
            Endpoint::Unix(p) => TokioStream::Unix(tokio::net::UnixStream::connect(p).await?),
        })
    }

    pub fn poll_read_ready(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self {
            TokioStream::Tcp(s) => s.poll_read_ready(cx),
            TokioStream::Unix(s) => s.poll_read_ready(cx),
        }
    }

    pub fn try_io<R>(
        &self,
        interest: Interest,
        f: impl FnOnce() -> io::Result<R>,
    ) -> io::Result<R> {
        match self {
            TokioStream::Tcp(s) => s.try_io(interest, f),
            TokioStream::Unix(s) => s.try_io(interest, f),
        }
    }
}

impl AsRawFd for TokioStream {
    fn as_raw_fd(&self) -> RawFd {
        match self {
            TokioStream::Tcp(s) => s.as_raw_fd(),
            TokioStream::Unix(s) => s.as_raw_fd(),
        }
    }
}

impl AsyncRead for TokioStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            TokioStream::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            TokioStream::Unix(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for TokioStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            TokioStream::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            TokioStream::Unix(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            TokioStream::Tcp(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            TokioStream::Unix(s) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            TokioStream::Tcp(s) => s.is_write_vectored(),
            TokioStream::Unix(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            TokioStream::Tcp(s) => Pin::new(s).poll_flush(cx),
            TokioStream::Unix(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            TokioStream::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            TokioStream::Unix(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}
