//! The Rust worker passes spec/vectors, as every worker must.

use std::path::PathBuf;
use toll_peers::frame::{self, Kind, Status};
use toll_peers::serve::{serve, Fault};

fn vectors(name: &str) -> Vec<Vec<String>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../spec/vectors")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(String::from).collect())
        .collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

#[test]
fn frames_decode_and_encode_as_specified() {
    let rows = vectors("frames.tsv");
    assert!(rows.len() >= 10, "too few frame vectors");
    for r in rows {
        let (name, typ, kind, status, seq, count, sum, items, hex) = (
            &r[0], &r[1], &r[2], &r[3], &r[4], &r[5], &r[6], &r[7], &r[8],
        );
        let bytes = unhex(hex);
        let seq: u32 = seq.parse().unwrap();
        let count: u32 = count.parse().unwrap();
        if typ == "request" {
            let h = frame::decode_request_header(bytes[..16].try_into().unwrap());
            let want_kind = if kind == "data" {
                Kind::Data
            } else {
                Kind::End
            };
            assert!(h.magic_ok, "{name}");
            assert_eq!(
                (h.kind, h.seq, h.count),
                (Some(want_kind), seq, count),
                "{name}"
            );
            let values: Vec<i32> = bytes[16..]
                .chunks_exact(4)
                .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let want: Vec<i32> = if items == "-" {
                vec![]
            } else {
                items.split(',').map(|v| v.parse().unwrap()).collect()
            };
            assert_eq!(values, want, "{name}");
            assert_eq!(
                frame::encode_request_header(want_kind, seq, count)[..],
                bytes[..16],
                "{name}"
            );
        } else {
            let st = if status == "ok" {
                Status::Ok
            } else {
                Status::BadFrame
            };
            let sum: i64 = sum.parse().unwrap();
            assert_eq!(
                frame::encode_reply(st, seq, count, sum).to_vec(),
                bytes,
                "{name}"
            );
            let r = frame::decode_reply(bytes.as_slice().try_into().unwrap());
            assert_eq!(
                (r.magic_ok, r.status, r.seq, r.count, r.sum),
                (true, Some(st), seq, count, sum),
                "{name}"
            );
        }
    }
}

#[test]
fn data_frame_matches_the_request_vector() {
    let rows = vectors("frames.tsv");
    let three = rows
        .iter()
        .find(|r| r[0] == "request-three")
        .expect("request-three");
    let mut f = frame::DataFrame::new(3);
    assert_eq!(f.with_seq(2), unhex(&three[8]).as_slice());
    assert_eq!(f.expected_sum(), 369);
}

/// A reader that hands out a few bytes at a time, as a pipe may.
struct Trickle(Vec<u8>, usize);
impl std::io::Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(7).min(self.0.len() - self.1);
        buf[..n].copy_from_slice(&self.0[self.1..self.1 + n]);
        self.1 += n;
        Ok(n)
    }
}

#[test]
fn sessions_produce_exactly_the_expected_bytes() {
    let rows = vectors("sessions.tsv");
    assert!(rows.len() >= 4);
    for r in rows {
        for trickle in [false, true] {
            let input = unhex(&r[1]);
            let mut out = Vec::new();
            if trickle {
                serve(
                    &mut std::io::BufReader::new(Trickle(input, 0)),
                    &mut out,
                    Fault::None,
                )
                .unwrap();
            } else {
                serve(&mut input.as_slice(), &mut out, Fault::None).unwrap();
            }
            assert_eq!(out, unhex(&r[2]), "session {} (trickle {trickle})", r[0]);
        }
    }
}

#[test]
fn a_stream_that_ends_before_end_is_an_error() {
    let mut f = frame::DataFrame::new(2);
    let input = f.with_seq(0).to_vec();
    let mut out = Vec::new();
    assert!(serve(&mut input.as_slice(), &mut out, Fault::None).is_err());
    assert_eq!(out.len(), frame::REPLY_LEN, "the one frame was answered");
}
