//! The HTTP/1.1 response parser of `toll http`: any bytes as a server's
//! answer must give the same response (or the same refusal) whether they
//! arrive at once or in pieces through the event loop's carry buffer; a
//! response accounts for every byte it consumed, and the carry buffer
//! stays bounded however the bytes arrive.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toll_families::http::response::{feed_carried, Parser, Progress, Response};

/// Longest response head and trailer line the parser keeps (its MAX_HEAD).
const MAX_HEAD: usize = 64 * 1024;

#[derive(Debug, PartialEq)]
enum Outcome {
    /// Complete; for a whole read, with the bytes it consumed.
    Done(Response),
    /// Ended by the server closing the connection.
    AtClose(Response),
    /// The bytes ended first.
    Incomplete,
    Refused,
}

fn whole(bytes: &[u8], no_body: bool) -> Outcome {
    let mut p = Parser::new(no_body);
    match p.feed(bytes) {
        Ok(Progress::Done(n, r)) => {
            assert_eq!(
                r.head_len + r.wire_body_len,
                n as u64,
                "consumed bytes: {r:?}"
            );
            assert!(n <= bytes.len());
            Outcome::Done(r)
        }
        Ok(Progress::More(n)) => {
            assert!(n <= bytes.len());
            p.eof().map_or(Outcome::Incomplete, Outcome::AtClose)
        }
        Err(_) => Outcome::Refused,
    }
}

fn in_pieces(bytes: &[u8], no_body: bool, step: usize) -> Outcome {
    let mut p = Parser::new(no_body);
    let mut carry = Vec::new();
    for piece in bytes.chunks(step) {
        match feed_carried(&mut p, &mut carry, piece) {
            Ok(Some(r)) => return Outcome::Done(r),
            Ok(None) => assert!(
                carry.len() <= MAX_HEAD + step,
                "carry grew to {} bytes",
                carry.len()
            ),
            Err(_) => return Outcome::Refused,
        }
    }
    p.eof().map_or(Outcome::Incomplete, Outcome::AtClose)
}

fuzz_target!(|data: &[u8]| {
    let Some((&ctl, bytes)) = data.split_first() else {
        return;
    };
    let no_body = ctl & 1 == 1;
    let step = 1 + usize::from(ctl >> 1);
    let at_once = whole(bytes, no_body);
    if let Outcome::Done(r) | Outcome::AtClose(r) = &at_once {
        assert!(r.body_len <= r.wire_body_len, "{r:?}");
    }
    assert_eq!(
        at_once,
        in_pieces(bytes, no_body, step),
        "read in pieces of {step}"
    );
});
