//! The tokio loop's sockets and naps: a socket that counts what it reads
//! and keeps the kernel's arrival stamp of its last read (`stamp`), how an
//! answer's end is taken from those stamps, and the naps taken in the
//! runtime's park hooks (`coalesce`).

use super::coalesce::Coalesce;
use super::sock::TokioStream;
use super::stamp;
use std::cell::Cell;
use std::io;
use std::os::fd::RawFd;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Instant;
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};

/// When what the connection's last read took arrived, by the kernel's
/// stamp (None where the kernel does not stamp).
pub type Arrival = Rc<Cell<Option<Instant>>>;

/// A connection's arrival stamps, and when a request on it was written.
pub type Since<'a> = (&'a Arrival, Instant);

pub trait End {
    /// When what was read by `read_at` arrived: the last read's stamp if
    /// it is of a read since the request was written, else `read_at`; and
    /// whether it was the stamp.
    fn end(self, read_at: Instant) -> (Instant, bool);
}

impl End for Since<'_> {
    fn end(self, read_at: Instant) -> (Instant, bool) {
        let (arrival, written) = self;
        match arrival.get().filter(|a| *a >= written) {
            Some(a) => (a.min(read_at), true),
            None => (read_at, false),
        }
    }
}

/// The loop's naps, from tokio's park hooks (which must be Send + Sync;
/// the lock is only ever taken on the loop's own thread).
pub struct Naps {
    c: std::sync::Mutex<Coalesce>,
}

impl Naps {
    pub fn new(c: Coalesce) -> Naps {
        Naps {
            c: std::sync::Mutex::new(c),
        }
    }

    pub fn lock(&self) -> std::sync::MutexGuard<'_, Coalesce> {
        self.c.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn before_park(&self) {
        let nap = self.lock().nap();
        if let Some(d) = nap {
            std::thread::sleep(d);
            self.lock().after_nap();
        }
    }
}

/// A socket that counts the bytes read from it (ab's Total transferred)
/// and keeps the kernel's arrival stamp of its last read.
pub struct Counted {
    pub inner: TokioStream,
    pub fd: RawFd,
    /// The kernel stamps what arrives (SO_TIMESTAMPNS took).
    pub stamped: bool,
    pub opened: Instant,
    pub arrival: Arrival,
    pub read: Rc<Cell<u64>>,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if !self.stamped {
            let before = buf.filled().len();
            let r = Pin::new(&mut self.inner).poll_read(cx, buf);
            if let Poll::Ready(Ok(())) = r {
                let n = (buf.filled().len() - before) as u64;
                self.read.set(self.read.get() + n);
            }
            return r;
        }
        loop {
            std::task::ready!(self.inner.poll_read_ready(cx))?;
            // SAFETY: recvmsg only writes into the unfilled part, and
            // exactly the n bytes it reports are then marked filled.
            let unfilled = unsafe {
                let u = buf.unfilled_mut();
                std::slice::from_raw_parts_mut(u.as_mut_ptr().cast::<u8>(), u.len())
            };
            let fd = self.fd;
            match self
                .inner
                .try_io(Interest::READABLE, || stamp::recv(fd, unfilled))
            {
                Ok((n, at)) => {
                    // SAFETY: the kernel wrote these n bytes.
                    unsafe { buf.assume_init(n) };
                    buf.advance(n);
                    self.read.set(self.read.get() + n as u64);
                    let now = Instant::now();
                    let opened = self.opened;
                    // A read without a stamp leaves no older stamp behind.
                    self.arrival
                        .set(at.map(|ts| stamp::arrived(&ts, now, opened)));
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
