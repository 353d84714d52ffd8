//! The data plane as a worker reads it (spec/wire.md, "Data plane frames"):
//! any bytes as the request stream given to `serve`, read whole and in
//! small interrupted pieces, must give exactly the replies a plain reading
//! of the spec gives; and the fixed-size decoders must invert the encoders.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::{self, BufRead, Read};
use toll_peers::frame::{self, Kind, Status, REPLY_LEN, REQUEST_HEADER, REQUEST_MAGIC};
use toll_peers::serve::{serve, Fault, Served};

/// A buffered reader whose every read of the stream below gets at most
/// `step` bytes and every other read is interrupted (EINTR), as a pipe's
/// may be: `window` is what the last read got and is not consumed yet.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
    interrupt: bool,
    window: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.interrupt = !self.interrupt;
        if self.interrupt {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

impl BufRead for Trickle<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.window == 0 {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(io::ErrorKind::Interrupted.into());
            }
            self.window = self.step.min(self.data.len());
        }
        Ok(&self.data[..self.window])
    }

    fn consume(&mut self, n: usize) {
        self.data = &self.data[n..];
        self.window -= n;
    }
}

/// The spec read plainly: the replies a worker writes for `data`, and
/// what it served, or None where the stream ends before END.
fn model(data: &[u8]) -> (Vec<u8>, Option<Served>) {
    let u32_at = |at: usize| u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
    let (mut out, mut served, mut at, mut expected) = (Vec::new(), Served::default(), 0, 0u32);
    loop {
        if data.len() - at < REQUEST_HEADER {
            return (out, None);
        }
        let (kind, seq, count) = (u32_at(at + 4), u32_at(at + 8), u32_at(at + 12));
        if data[at..at + 4] != REQUEST_MAGIC || !(1..=2).contains(&kind) || seq != expected {
            out.extend(frame::encode_reply(Status::BadFrame, seq, 0, 0));
            return (out, Some(served));
        }
        if kind == 2 {
            out.extend(frame::encode_reply(Status::Ok, seq, 0, 0));
            return (out, Some(served));
        }
        at += REQUEST_HEADER;
        let len = 4 * count as usize;
        if data.len() - at < len {
            return (out, None);
        }
        let sum = data[at..at + len]
            .chunks_exact(4)
            .map(|c| i64::from(i32::from_le_bytes(c.try_into().unwrap())))
            .sum();
        out.extend(frame::encode_reply(Status::Ok, seq, count, sum));
        served.frames += 1;
        served.items += u64::from(count);
        expected += 1;
        at += len;
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(b) = data.first_chunk::<REQUEST_HEADER>() {
        let h = frame::decode_request_header(b);
        if let (true, Some(kind)) = (h.magic_ok, h.kind) {
            assert_eq!(&frame::encode_request_header(kind, h.seq, h.count), b);
            assert_eq!(kind == Kind::End, b[4] == 2);
        }
    }
    if let Some(b) = data.first_chunk::<REPLY_LEN>() {
        let r = frame::decode_reply(b);
        if let (true, Some(status)) = (r.magic_ok, r.status) {
            assert_eq!(&frame::encode_reply(status, r.seq, r.count, r.sum), b);
        }
    }

    let (want, want_served) = model(data);
    let mut out = Vec::new();
    let got = serve(&mut &data[..], &mut out, Fault::None);
    assert_eq!(out, want, "replies, read whole");
    assert_eq!(got.ok(), want_served, "served, read whole");

    let step = 1 + data.first().map_or(0, |b| usize::from(b % 29));
    let mut trickle = Trickle {
        data,
        step,
        interrupt: false,
        window: 0,
    };
    let mut out = Vec::new();
    let got = serve(&mut trickle, &mut out, Fault::None);
    assert_eq!(out, want, "replies, read {step} bytes at a time");
    assert_eq!(got.ok(), want_served, "served, read {step} bytes at a time");
});
