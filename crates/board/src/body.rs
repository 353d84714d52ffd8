//! A push's body, read as it arrives: the connection's side hands each
//! piece to a channel (counting them against `--max-body`), and the run is
//! parsed from the other end on the blocking pool, so the board holds the
//! run it makes, never the text it came as. A body cut short — too large,
//! too slow, broken — ends the parser's input with an error, never with an
//! end of file, so no run is made of part of one.

use axum::body::Body;
use bytes::{Buf, Bytes};
use http_body_util::BodyExt;
use std::io::{self, Read};
use tokio::sync::mpsc;

/// Pieces of the body waiting for the parser.
const QUEUED: usize = 8;

/// Why a body did not arrive whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// More than the board takes.
    TooLarge,
    /// Not within the time a body has.
    TooSlow,
    /// The connection failed mid-way.
    Broken,
}

/// The parser's end: the body's bytes in order, then an end of file, or an
/// error where the body was cut.
pub struct Incoming {
    rx: mpsc::Receiver<Result<Bytes, Cut>>,
    piece: Bytes,
}

/// The connection's end, handing the body over.
pub struct Outgoing(mpsc::Sender<Result<Bytes, Cut>>);

/// A body's two ends.
pub fn channel() -> (Outgoing, Incoming) {
    let (tx, rx) = mpsc::channel(QUEUED);
    (
        Outgoing(tx),
        Incoming {
            rx,
            piece: Bytes::new(),
        },
    )
}

impl Outgoing {
    /// Hand `body` over, at most `max` bytes of it (Ok: the parser's end
    /// of file comes when this end is dropped), or end it with an error for
    /// the parser and say why (Err). Ends early, Ok, when the parser stops
    /// reading (it found the body is not a run). Stopped from outside (a
    /// timeout), [`Outgoing::cut`] must follow before this end is dropped.
    pub async fn forward(&self, mut body: Body, max: usize) -> Result<(), Cut> {
        let mut seen = 0usize;
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else {
                return self.cut(Cut::Broken).await;
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            seen = seen.saturating_add(data.len());
            if seen > max {
                return self.cut(Cut::TooLarge).await;
            }
            if self.0.send(Ok(data)).await.is_err() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// End the body with `why`.
    pub async fn cut(&self, why: Cut) -> Result<(), Cut> {
        let _ = self.0.send(Err(why)).await;
        Err(why)
    }
}

impl Read for Incoming {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.piece.is_empty() {
            match self.rx.blocking_recv() {
                Some(Ok(piece)) => self.piece = piece,
                Some(Err(why)) => {
                    return Err(io::Error::other(format!("the body was cut: {why:?}")))
                }
                None => return Ok(0),
            }
        }
        let n = buf.len().min(self.piece.len());
        buf[..n].copy_from_slice(&self.piece[..n]);
        self.piece.advance(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(body: Body, max: usize) -> (Result<(), Cut>, Result<String, String>) {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        rt.block_on(async {
            let (tx, mut rx) = channel();
            let reader = tokio::task::spawn_blocking(move || {
                let mut s = String::new();
                rx.read_to_string(&mut s)
                    .map(|_| s)
                    .map_err(|e| e.to_string())
            });
            let cut = tx.forward(body, max).await;
            drop(tx);
            (cut, reader.await.unwrap())
        })
    }

    #[test]
    fn a_body_arrives_whole_or_ends_in_an_error_never_short() {
        let (cut, got) = parsed(Body::from("{\"a\": 1}"), 100);
        assert_eq!((cut, got), (Ok(()), Ok("{\"a\": 1}".to_string())));
        let (cut, got) = parsed(Body::from(vec![b' '; 101]), 100);
        assert_eq!(cut, Err(Cut::TooLarge));
        assert!(got.unwrap_err().contains("TooLarge"));
    }
}
