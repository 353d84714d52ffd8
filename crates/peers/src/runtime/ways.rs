//! The ways a binding passes bytes to C for `toll ffi` (`--pass`) and what
//! the C side does with them (`--touch`), as the wire names them
//! (spec/wire.md, `ffi`), and the other direction (`--callback`: C calling
//! the language back): the catalog in `bindings` says, per binding, how
//! each is done in its language, or why it is not offered.

use std::fmt;

/// How the language's value reaches C.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pass {
    /// The language's own bytes, made once, passed without a copy (pinned,
    /// or held still by the runtime for the call).
    Pinned,
    /// The bytes copied into memory C may keep, once per call, then freed.
    Copied,
    /// The language's text made into a C string, once per call.
    String,
    /// Not bytes passed down but calls coming up (`--callback`): C calls
    /// the language back n times per call, and the language counts them.
    Callback,
}

impl Pass {
    /// Every way of passing bytes, in the order toll measures them.
    pub const ALL: [Pass; 3] = [Pass::Pinned, Pass::Copied, Pass::String];

    /// Its name on the command line and the wire.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Pinned => "pinned",
            Pass::Copied => "copied",
            Pass::String => "string",
            Pass::Callback => "callback",
        }
    }

    /// The way named `name` on the wire, if there is one (`callback` too).
    pub fn parse(name: &str) -> Option<Pass> {
        Pass::ALL
            .into_iter()
            .chain([Pass::Callback])
            .find(|p| p.name() == name)
    }
}

impl fmt::Display for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the C side reads of the bytes it is passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    /// `toll_ffi_sum`: every byte, so β includes C's loop over them.
    All,
    /// `toll_ffi_receipt`: n and three bytes, at constant cost, so β is
    /// the crossing's own cost per byte.
    Receipt,
}

impl Touch {
    /// Its name on the command line and the wire.
    pub fn name(self) -> &'static str {
        match self {
            Touch::All => "all",
            Touch::Receipt => "receipt",
        }
    }

    /// The touch named `name`, if there is one.
    pub fn parse(name: &str) -> Option<Touch> {
        [Touch::All, Touch::Receipt]
            .into_iter()
            .find(|t| t.name() == name)
    }
}

/// One way of passing in one binding: how it is done there, or why not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// What the worker does each call, for the table's legend.
    Offered(&'static str),
    /// Why the binding does not offer it, for the row that stands for it.
    Not(&'static str),
}

/// Byte `i` of the buffer for `seed`: (seed + 131·i) mod 256.
pub fn pattern_byte(seed: u64, i: u64) -> u8 {
    (seed.wrapping_add(i.wrapping_mul(131)) & 0xff) as u8
}

/// Byte `i` of the string way's text: 1 + (pattern byte mod 127), ASCII
/// without NUL, so every language's string holds it as one byte a character.
pub fn string_byte(seed: u64, i: u64) -> u8 {
    1 + pattern_byte(seed, i) % 127
}

/// The byte `way` passes at `i`.
pub fn way_byte(pass: Pass, seed: u64, i: u64) -> u8 {
    match pass {
        Pass::String => string_byte(seed, i),
        _ => pattern_byte(seed, i),
    }
}

/// The sum of `pass`'s first `n` bytes, in closed form: 131 is odd, so
/// every 256 bytes run through the pattern's 0..=255 once, then the rest.
pub fn way_sum(pass: Pass, n: u64, seed: u64) -> u64 {
    let period: u64 = (0..256).map(|i| u64::from(way_byte(pass, seed, i))).sum();
    let rest: u64 = (0..n % 256)
        .map(|i| u64::from(way_byte(pass, seed, i)))
        .sum();
    (n / 256) * period + rest
}

/// `toll_ffi_receipt` of `pass`'s `n` bytes: 0 for none, else
/// n << 24 | first << 16 | middle << 8 | last.
pub fn way_receipt(pass: Pass, n: u64, seed: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let b = |i| u64::from(way_byte(pass, seed, i));
    n << 24 | b(0) << 16 | b(n / 2) << 8 | b(n - 1)
}

/// What a worker must answer for `n` bytes passed `pass` and touched
/// `touch`; for the callback, the count of its `n` upcalls.
pub fn expected(pass: Pass, touch: Touch, n: u64, seed: u64) -> u64 {
    match (pass, touch) {
        (Pass::Callback, _) => n,
        (_, Touch::All) => way_sum(pass, n, seed),
        (_, Touch::Receipt) => way_receipt(pass, n, seed),
    }
}

/// The key of a worker's answer that holds what [`expected`] gives.
pub fn answer_key(pass: Pass, touch: Touch) -> &'static str {
    match (pass, touch) {
        (Pass::Callback, _) => "count",
        (_, Touch::All) => "sum",
        (_, Touch::Receipt) => "receipt",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// spec/vectors/ffi_receipt.tsv: (n, seed, bytes, string) rows.
    fn receipt_vectors() -> Vec<(u64, u64, u64, u64)> {
        include_str!("../../../../spec/vectors/ffi_receipt.tsv")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let f: Vec<u64> = l.split('\t').skip(1).map(|x| x.parse().unwrap()).collect();
                (f[0], f[1], f[2], f[3])
            })
            .collect()
    }

    #[test]
    fn the_receipts_are_the_vectors_and_the_sums_closed_forms() {
        let v = receipt_vectors();
        assert!(v.len() >= 8);
        for (n, seed, bytes, string) in v {
            assert_eq!(way_receipt(Pass::Pinned, n, seed), bytes, "n = {n}");
            assert_eq!(way_receipt(Pass::Copied, n, seed), bytes, "n = {n}");
            assert_eq!(way_receipt(Pass::String, n, seed), string, "n = {n}");
            let by_loop: u64 = (0..n).map(|i| u64::from(string_byte(seed, i))).sum();
            assert_eq!(way_sum(Pass::String, n, seed), by_loop, "n = {n}");
        }
        assert!((0..1000).all(|i| (1..=127).contains(&string_byte(93, i))));
    }
}
