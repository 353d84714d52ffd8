//! The worker side of the data plane: read request frames, sum the items,
//! answer each frame with one reply (spec/wire.md).

use crate::frame::{self, Kind, Status, REQUEST_HEADER};
use std::io::{self, BufRead, Write};

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

/// `input`'s buffered bytes, read again when a signal interrupted the read
/// (EINTR, as a pipe's may be); empty at the end of the stream.
fn fill(input: &mut dyn BufRead) -> io::Result<&[u8]> {
    loop {
        match input.fill_buf() {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    // Filled: this returns what is buffered without reading again.
    input.fill_buf()
}

/// Consume `count` i32 items from `input` and return their sum, summing
/// each piece where `input` holds it (in place in a shared-memory ring) and
/// carrying an item split between two pieces over to the next.
fn sum_items(input: &mut dyn BufRead, count: u32) -> io::Result<i64> {
    let mut left = count as usize * 4;
    let mut sum = 0i64;
    let (mut part, mut have) = ([0u8; 4], 0usize);
    while left > 0 {
        let buf = fill(input)?;
        if buf.is_empty() {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let take = left.min(buf.len());
        let mut piece = &buf[..take];
        if have > 0 {
            let k = (4 - have).min(piece.len());
            part[have..have + k].copy_from_slice(&piece[..k]);
            have += k;
            piece = &piece[k..];
            if have == 4 {
                sum += i64::from(i32::from_le_bytes(part));
                have = 0;
            }
        }
        let whole = piece.len() / 4 * 4;
        sum += crate::sum::sum_items(&piece[..whole]);
        let rest = &piece[whole..];
        part[..rest.len()].copy_from_slice(rest);
        have += rest.len();
        input.consume(take);
        left -= take;
    }
    Ok(sum)
}

/// The next header, or None at a clean end of stream (no byte of it read).
fn header(input: &mut dyn BufRead) -> io::Result<Option<[u8; REQUEST_HEADER]>> {
    let mut h = [0u8; REQUEST_HEADER];
    let mut got = 0;
    while got < REQUEST_HEADER {
        let buf = fill(input)?;
        if buf.is_empty() {
            if got == 0 {
                return Ok(None);
            }
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let k = buf.len().min(REQUEST_HEADER - got);
        h[got..got + k].copy_from_slice(&buf[..k]);
        input.consume(k);
        got += k;
    }
    Ok(Some(h))
}

/// Serve frames from `input` until END (answered) or a bad frame (answered
/// BAD_FRAME). A clean end of stream before END is an error. `input` is
/// buffered (a frame's header and a small payload normally arrive in one
/// read) or, over shared memory, the ring itself.
pub fn serve(input: &mut dyn BufRead, output: &mut dyn Write, fault: Fault) -> io::Result<Served> {
    let mut served = Served::default();
    let mut expected_seq = 0u32;
    loop {
        let Some(raw) = header(input)? else {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "data channel closed before the END frame",
            ));
        };
        let header = frame::decode_request_header(&raw);
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
        let sum = sum_items(input, header.count)?;
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
