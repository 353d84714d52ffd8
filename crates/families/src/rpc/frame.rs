//! The `raw` stack's frames and the broker's messages (spec/rpc.md): a u32
//! little-endian length, then that many bytes. A call's reply is the length
//! alone (the bytes received); a broker's request and reply carry ASCII.
//!
//! Kept apart from the sockets so the byte layout is tested on its own and
//! the client, the server and the broker cannot disagree about it.

/// The longest frame a server accepts: past it the stream is broken.
pub const MAX_FRAME: u32 = 64 << 20;

/// A call's request: the length, then `n` payload bytes (zeros).
pub fn call(n: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + n as usize);
    out.extend_from_slice(&n.to_le_bytes());
    out.resize(4 + n as usize, 0);
    out
}

/// A call's reply: the bytes the server received.
pub fn reply(received: u32) -> [u8; 4] {
    received.to_le_bytes()
}

/// The length at the head of a frame; None when it is past [`MAX_FRAME`].
pub fn length(head: [u8; 4]) -> Option<u32> {
    let n = u32::from_le_bytes(head);
    (n <= MAX_FRAME).then_some(n)
}

/// A broker message: the length, then the text.
pub fn message(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + text.len());
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    out
}

/// The broker's longest message: a stack's name or `host:port`.
pub const MAX_MESSAGE: u32 = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_null_call_is_four_zero_bytes() {
        assert_eq!(call(0), vec![0, 0, 0, 0]);
        assert_eq!(reply(0), [0, 0, 0, 0]);
    }

    #[test]
    fn lengths_are_little_endian_and_the_payload_follows() {
        let f = call(258);
        assert_eq!(&f[..4], &[2, 1, 0, 0]);
        assert_eq!(f.len(), 4 + 258);
        assert!(f[4..].iter().all(|&b| b == 0));
        assert_eq!(reply(258), [2, 1, 0, 0]);
        assert_eq!(length([2, 1, 0, 0]), Some(258));
    }

    #[test]
    fn a_length_past_64_mib_is_a_broken_stream() {
        assert_eq!(length(MAX_FRAME.to_le_bytes()), Some(MAX_FRAME));
        assert_eq!(length((MAX_FRAME + 1).to_le_bytes()), None);
        assert_eq!(length([0xff; 4]), None);
    }

    #[test]
    fn broker_messages_carry_ascii_after_their_length() {
        assert_eq!(message("grpc"), b"\x04\x00\x00\x00grpc".to_vec());
        assert_eq!(message(""), vec![0, 0, 0, 0]);
        let m = message("127.0.0.1:40123");
        assert_eq!(m[0] as usize, "127.0.0.1:40123".len());
    }
}
