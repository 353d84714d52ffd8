//! The worker side of the data plane: read request frames, sum the items,
//! answer each frame with one reply (spec/wire.md).

use crate::frame::{self, Kind, Status, REQUEST_HEADER};
use std::io::{self, Read, Write};

/// What a transfer served.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Served {
    /// DATA frames answered.
    pub frames: u64,
    /// Items received in them.
    pub items: u64,
}

/// Test-only misbehaviour, from `TOLL_WORKER_FAULT` (every worker honours it):
/// `exit:K` exits (status 3) instead of answering the first DATA frame that
/// carries K or more items; `garbage:K` answers that frame with 24 bytes of 0xAB;
/// `short:K` (the Rust worker's `spawn` only) makes at most K units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    None,
    ExitAt(u32),
    GarbageAt(u32),
    ShortAt(u32),
}

impl Fault {
    /// Read `TOLL_WORKER_FAULT`; anything unparsable means no fault.
    pub fn from_env() -> Fault {
        let Ok(v) = std::env::var("TOLL_WORKER_FAULT") else {
            return Fault::None;
        };
        match v.split_once(':') {
            Some(("exit", k)) => k.parse().map(Fault::ExitAt).unwrap_or(Fault::None),
            Some(("garbage", k)) => k.parse().map(Fault::GarbageAt).unwrap_or(Fault::None),
            Some(("short", k)) => k.parse().map(Fault::ShortAt).unwrap_or(Fault::None),
            _ => Fault::None,
        }
    }
}

const BUF: usize = 256 * 1024;

/// A read buffer that frames are parsed out of, so a small frame costs one read.
struct Buffered<'a> {
    input: &'a mut dyn Read,
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl Buffered<'_> {
    fn available(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Read more, keeping unconsumed bytes; Ok(false) at end of stream.
    fn fill(&mut self) -> io::Result<bool> {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        loop {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end += n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The next `n` (≤ buffer size) bytes, reading as needed; None at a clean end.
    fn take(&mut self, n: usize) -> io::Result<Option<&[u8]>> {
        while self.end - self.start < n {
            if !self.fill()? {
                if self.end == self.start {
                    return Ok(None);
                }
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
        let s = self.start;
        self.start += n;
        Ok(Some(&self.buf[s..s + n]))
    }

    /// Consume `count` i32 items, returning their sum.
    fn sum_items(&mut self, count: u32) -> io::Result<i64> {
        let mut left = count as usize * 4;
        let mut sum = 0i64;
        while left > 0 {
            if self.end - self.start < 4 && !self.fill()? {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let take = left.min(self.available().len() / 4 * 4);
            let chunk = &self.buf[self.start..self.start + take];
            sum += chunk
                .chunks_exact(4)
                .map(|c| i64::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                .sum::<i64>();
            self.start += take;
            left -= take;
        }
        Ok(sum)
    }
}

/// Serve frames from `input` until END (answered) or a bad frame (answered
/// BAD_FRAME). A clean end of stream before END is an error.
pub fn serve(input: &mut dyn Read, output: &mut dyn Write, fault: Fault) -> io::Result<Served> {
    let mut inb = Buffered {
        input,
        buf: vec![0; BUF],
        start: 0,
        end: 0,
    };
    let mut served = Served::default();
    let mut expected_seq = 0u32;
    loop {
        let Some(raw) = inb.take(REQUEST_HEADER)? else {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "data channel closed before the END frame",
            ));
        };
        let header = frame::decode_request_header(raw.try_into().expect("header size"));
        let bad = !header.magic_ok || header.kind.is_none() || header.seq != expected_seq;
        if bad {
            output.write_all(&frame::encode_reply(Status::BadFrame, header.seq, 0, 0))?;
            output.flush()?;
            return Ok(served);
        }
        if header.kind == Some(Kind::End) {
            output.write_all(&frame::encode_reply(Status::Ok, header.seq, 0, 0))?;
            output.flush()?;
            return Ok(served);
        }
        if matches!(fault, Fault::ExitAt(k) if header.count >= k) {
            std::process::exit(3);
        }
        let sum = inb.sum_items(header.count)?;
        let reply = match fault {
            Fault::GarbageAt(k) if header.count >= k => [0xAB; frame::REPLY_LEN],
            _ => frame::encode_reply(Status::Ok, header.seq, header.count, sum),
        };
        output.write_all(&reply)?;
        output.flush()?;
        served.frames += 1;
        served.items += u64::from(header.count);
        expected_seq = expected_seq.wrapping_add(1);
    }
}
