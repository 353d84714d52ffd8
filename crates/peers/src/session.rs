//! The harness's side of a transfer: timed round trips of DATA frames.

use crate::error::PeerError;
use crate::frame::{self, DataFrame, Kind, Status, REPLY_LEN};
use crate::transport::Channel;
use crate::worker_end::WorkerEnd;
use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

/// How long one batch of round trips may take before the worker is deemed hung.
const BATCH_TIMEOUT: Duration = Duration::from_secs(60);

/// An open data channel to a worker.
pub struct Session<'p> {
    peer: &'p mut dyn WorkerEnd,
    channel: Channel,
    seq: u32,
    frame: DataFrame,
    reply: [u8; REPLY_LEN],
}

impl<'p> Session<'p> {
    pub(crate) fn new(peer: &'p mut dyn WorkerEnd, channel: Channel) -> Session<'p> {
        Session {
            peer,
            channel,
            seq: 0,
            frame: DataFrame::new(0),
            reply: [0; REPLY_LEN],
        }
    }

    /// Send `count` items per message from now on (the frame is built once here).
    pub fn set_items(&mut self, count: u32) {
        if self.frame.count() != count {
            self.frame = DataFrame::new(count);
        }
    }

    fn io_failure(&mut self, doing: &str, e: io::Error) -> PeerError {
        self.peer
            .exit_error()
            .unwrap_or_else(|| PeerError::io(format!("{doing} frame {}", self.seq), e))
    }

    /// Do `iters` round trips and return how long they took. Every reply is
    /// checked: its sequence number, count and sum must be what was sent.
    pub fn round_trips(&mut self, iters: u64) -> Result<Duration, PeerError> {
        let count = self.frame.count();
        let sum = self.frame.expected_sum();
        self.peer.arm(BATCH_TIMEOUT);
        let start = Instant::now();
        for _ in 0..iters {
            let bytes = self.frame.with_seq(self.seq);
            if let Err(e) = self.channel.writer.write_all(bytes) {
                return Err(self.io_failure("sending", e));
            }
            if let Err(e) = self.channel.reader.read_exact(&mut self.reply) {
                return Err(self.io_failure("reading the reply to", e));
            }
            let r = frame::decode_reply(&self.reply);
            if !(r.magic_ok
                && r.status == Some(Status::Ok)
                && r.seq == self.seq
                && r.count == count
                && r.sum == sum)
            {
                return Err(self.bad_reply(count, sum));
            }
            self.seq = self.seq.wrapping_add(1);
        }
        let took = start.elapsed();
        self.peer.disarm();
        Ok(took)
    }

    fn bad_reply(&mut self, count: u32, sum: i64) -> PeerError {
        let got = frame::decode_reply(&self.reply);
        let shown = if got.magic_ok {
            format!(
                "status {:?}, seq {}, count {}, sum {}",
                got.status, got.seq, got.count, got.sum
            )
        } else {
            let hex: String = self.reply[..8].iter().map(|b| format!("{b:02x}")).collect();
            format!("bytes {hex}… (no TOLR magic)")
        };
        let seq = self.seq;
        self.peer.protocol(format!(
            "bad reply to frame {seq}: {shown}; expected ok, seq {seq}, count {count}, sum {sum}"
        ))
    }

    /// Send END, check its reply, and read the worker's `done`.
    pub fn finish(mut self) -> Result<(), PeerError> {
        let end = frame::encode_request_header(Kind::End, self.seq, 0);
        self.peer.arm(BATCH_TIMEOUT);
        if let Err(e) = self.channel.writer.write_all(&end) {
            return Err(self.io_failure("sending END as", e));
        }
        if let Err(e) = self.channel.reader.read_exact(&mut self.reply) {
            return Err(self.io_failure("reading the reply to END,", e));
        }
        self.peer.disarm();
        let r = frame::decode_reply(&self.reply);
        if !(r.magic_ok && r.status == Some(Status::Ok) && r.seq == self.seq) {
            return Err(self.bad_reply(0, 0));
        }
        drop(self.channel);
        self.peer.read_answer("transfer")?;
        Ok(())
    }
}
