//! The binary frames of the data plane (spec/wire.md, "Data plane frames").

/// `TOLL`: the first four bytes of every request frame.
pub const REQUEST_MAGIC: [u8; 4] = *b"TOLL";
/// `TOLR`: the first four bytes of every reply frame.
pub const REPLY_MAGIC: [u8; 4] = *b"TOLR";
/// Bytes in a request header.
pub const REQUEST_HEADER: usize = 16;
/// Bytes in a reply.
pub const REPLY_LEN: usize = 24;
/// The value toll sends in every item, as E1 did.
pub const ITEM_VALUE: i32 = 123;

/// What a request frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Data = 1,
    End = 2,
}

/// Whether the worker accepted a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Ok = 0,
    BadFrame = 1,
}

/// A decoded request header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestHeader {
    /// None when the kind field holds an unknown value.
    pub kind: Option<Kind>,
    pub magic_ok: bool,
    pub seq: u32,
    pub count: u32,
}

/// A decoded reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply {
    pub magic_ok: bool,
    /// None when the status field holds an unknown value.
    pub status: Option<Status>,
    pub seq: u32,
    pub count: u32,
    pub sum: i64,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// Encode a request header.
pub fn encode_request_header(kind: Kind, seq: u32, count: u32) -> [u8; REQUEST_HEADER] {
    let mut h = [0u8; REQUEST_HEADER];
    h[0..4].copy_from_slice(&REQUEST_MAGIC);
    h[4..8].copy_from_slice(&(kind as u32).to_le_bytes());
    h[8..12].copy_from_slice(&seq.to_le_bytes());
    h[12..16].copy_from_slice(&count.to_le_bytes());
    h
}

/// Decode a request header from its 16 bytes.
pub fn decode_request_header(b: &[u8; REQUEST_HEADER]) -> RequestHeader {
    let kind = match u32_at(b, 4) {
        1 => Some(Kind::Data),
        2 => Some(Kind::End),
        _ => None,
    };
    RequestHeader {
        kind,
        magic_ok: b[0..4] == REQUEST_MAGIC,
        seq: u32_at(b, 8),
        count: u32_at(b, 12),
    }
}

/// A whole DATA frame of `count` copies of [`ITEM_VALUE`], built once and sent
/// many times: only the sequence number changes between sends.
#[derive(Debug, Clone)]
pub struct DataFrame {
    bytes: Vec<u8>,
}

impl DataFrame {
    /// Build a frame of `count` items.
    pub fn new(count: u32) -> DataFrame {
        let mut bytes = Vec::with_capacity(REQUEST_HEADER + 4 * count as usize);
        bytes.extend_from_slice(&encode_request_header(Kind::Data, 0, count));
        for _ in 0..count {
            bytes.extend_from_slice(&ITEM_VALUE.to_le_bytes());
        }
        DataFrame { bytes }
    }

    /// The frame's bytes with `seq` written in.
    pub fn with_seq(&mut self, seq: u32) -> &[u8] {
        self.bytes[8..12].copy_from_slice(&seq.to_le_bytes());
        &self.bytes
    }

    /// Items in the frame.
    pub fn count(&self) -> u32 {
        u32_at(&self.bytes, 12)
    }

    /// The sum a worker must answer.
    pub fn expected_sum(&self) -> i64 {
        i64::from(ITEM_VALUE) * i64::from(self.count())
    }
}

/// Encode a reply.
pub fn encode_reply(status: Status, seq: u32, count: u32, sum: i64) -> [u8; REPLY_LEN] {
    let mut r = [0u8; REPLY_LEN];
    r[0..4].copy_from_slice(&REPLY_MAGIC);
    r[4..8].copy_from_slice(&(status as u32).to_le_bytes());
    r[8..12].copy_from_slice(&seq.to_le_bytes());
    r[12..16].copy_from_slice(&count.to_le_bytes());
    r[16..24].copy_from_slice(&sum.to_le_bytes());
    r
}

/// Decode a reply from its 24 bytes.
pub fn decode_reply(b: &[u8; REPLY_LEN]) -> Reply {
    let status = match u32_at(b, 4) {
        0 => Some(Status::Ok),
        1 => Some(Status::BadFrame),
        _ => None,
    };
    Reply {
        magic_ok: b[0..4] == REPLY_MAGIC,
        status,
        seq: u32_at(b, 8),
        count: u32_at(b, 12),
        sum: i64::from_le_bytes(b[16..24].try_into().expect("8 bytes")),
    }
}
