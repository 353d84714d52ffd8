//! What one trial of `toll file` reads: E4's two patterns, or one read size
//! of a `--sizes` sweep, as a list of (offset, length) every method follows.
//!
//! `seq` reads consecutive bytes from offset 0, the read lengths taken in
//! turn from `lens` (E4: 50, 450, 50, 450, … through the whole file);
//! `random` reads at offsets drawn once per run from a seeded generator, so
//! every method, runtime and read size reads at the same offsets. The
//! workers get the same description (spec/wire.md, `file`): the lengths,
//! the count and, for `random`, a file of the offsets.

use serde::Serialize;

/// E4's sequential read lengths, taken in turn.
pub const E4_SEQ_LENS: [u64; 2] = [50, 450];
/// E4's random read length.
pub const E4_RANDOM_LEN: u64 = 450;
/// E4's random reads per trial.
pub const E4_RANDOM_READS: u64 = 200_000;
/// E4's file: 100,000,000 random bytes.
pub const E4_FILE_SIZE: u64 = 100_000_000;
/// The largest read size a sweep may ask for (a read is one buffer).
pub const MAX_READ: u64 = 64 << 20;
/// Most sizes one sweep may have.
pub const MAX_SIZES: usize = 100;

/// How a trial walks the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pattern {
    /// Consecutive reads from offset 0.
    Seq,
    /// Reads at seeded random offsets.
    Random,
}

impl Pattern {
    /// Both, in E4's order.
    pub const ALL: [Pattern; 2] = [Pattern::Seq, Pattern::Random];

    /// The name on the command line and in the store.
    pub fn name(self) -> &'static str {
        match self {
            Pattern::Seq => "seq",
            Pattern::Random => "random",
        }
    }

    /// Parse `seq` or `random`.
    pub fn parse(s: &str) -> Option<Pattern> {
        Pattern::ALL.into_iter().find(|p| p.name() == s.trim())
    }
}

impl std::fmt::Display for Pattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The reads of one trial.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reads {
    pub pattern: Pattern,
    /// Read lengths, taken in turn.
    pub lens: Vec<u64>,
    /// Reads per trial.
    pub count: u64,
}

impl Reads {
    /// E4's sequential pass: 50- and 450-byte reads in turn through a file
    /// of `file_size` bytes (every read that fits whole).
    pub fn e4_seq(file_size: u64) -> Reads {
        let pair: u64 = E4_SEQ_LENS.iter().sum();
        let mut count = file_size / pair * 2;
        if file_size % pair >= E4_SEQ_LENS[0] {
            count += 1;
        }
        Reads {
            pattern: Pattern::Seq,
            lens: E4_SEQ_LENS.to_vec(),
            count,
        }
    }

    /// `len`-byte reads: `count` random ones, or sequential ones through at
    /// most the whole file.
    pub fn sized(pattern: Pattern, len: u64, count: u64, file_size: u64) -> Reads {
        let count = match pattern {
            Pattern::Seq => count.min(file_size / len),
            Pattern::Random => count,
        };
        Reads {
            pattern,
            lens: vec![len],
            count,
        }
    }

    /// The bytes per read on average: a point's n.
    pub fn mean_len(&self) -> u64 {
        self.lens.iter().sum::<u64>() / self.lens.len() as u64
    }

    /// The longest read.
    pub fn max_len(&self) -> u64 {
        self.lens.iter().copied().max().unwrap_or(0)
    }

    /// The bytes one trial reads.
    pub fn bytes(&self) -> u64 {
        let k = self.lens.len() as u64;
        let whole: u64 = self.lens.iter().sum::<u64>() * (self.count / k);
        whole + self.lens[..(self.count % k) as usize].iter().sum::<u64>()
    }

    /// Call `f(offset, len)` for every read, in order; `offsets` is the
    /// run's random offsets (used by `random` only).
    pub fn each(&self, offsets: &[u64], mut f: impl FnMut(u64, usize)) {
        let k = self.lens.len();
        match self.pattern {
            Pattern::Seq => {
                let mut pos = 0;
                for i in 0..self.count as usize {
                    let len = self.lens[i % k];
                    f(pos, len as usize);
                    pos += len;
                }
            }
            Pattern::Random => {
                for (i, &off) in offsets.iter().take(self.count as usize).enumerate() {
                    f(off, self.lens[i % k] as usize);
                }
            }
        }
    }
}

/// `count` offsets at which a read of up to `max_len` bytes fits in a file
/// of `file_size` bytes, from a generator seeded with `seed`.
pub fn random_offsets(seed: u64, count: u64, max_len: u64, file_size: u64) -> Vec<u64> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let top = file_size.saturating_sub(max_len);
    (0..count).map(|_| rng.u64(0..=top)).collect()
}

/// How a runtime proves it read the bytes (spec/wire.md, `file`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SumOf {
    /// The sum of every byte read (native methods: the sum is the work that
    /// uses the bytes).
    Bytes,
    /// The sum of the last byte of every read (Python: each read already
    /// copies its bytes into a new object; one byte keeps the check cheap
    /// beside the interpreter's own cost).
    LastByte,
}

impl SumOf {
    /// The name in a worker's answer.
    pub fn name(self) -> &'static str {
        match self {
            SumOf::Bytes => "bytes",
            SumOf::LastByte => "last_byte",
        }
    }

    /// Parse a worker's `sum_of`.
    pub fn parse(s: &str) -> Option<SumOf> {
        [SumOf::Bytes, SumOf::LastByte]
            .into_iter()
            .find(|k| k.name() == s)
    }
}

/// The wrapping sum of a slice's bytes.
#[inline]
pub fn sum_bytes(b: &[u8]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        sum_bytes_sse2(b)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        sum_bytes_portable(b)
    }
}

/// Sums in u32 lanes over chunks short enough not to overflow, which the
/// compiler turns into vector adds.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn sum_bytes_portable(b: &[u8]) -> u64 {
    let mut total = 0u64;
    for chunk in b.chunks(1 << 16) {
        let s: u32 = chunk.iter().map(|&x| x as u32).sum();
        total = total.wrapping_add(s as u64);
    }
    total
}

/// SSE2 (every x86-64 has it): `psadbw` against zero adds 16 bytes into two
/// u64 lanes in one instruction, so checking a 4 KiB read costs tens of ns,
/// not hundreds, and the checksum does not weigh on the read it proves.
#[cfg(target_arch = "x86_64")]
#[inline]
fn sum_bytes_sse2(b: &[u8]) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi64, _mm_loadu_si128, _mm_sad_epu8, _mm_setzero_si128, _mm_storeu_si128,
    };
    let chunks = b.chunks_exact(16);
    let tail = chunks.remainder();
    // SAFETY: SSE2 is part of x86-64; every load reads 16 bytes inside `b`.
    let mut total = unsafe {
        let zero = _mm_setzero_si128();
        let mut acc = _mm_setzero_si128();
        for c in chunks {
            let v = _mm_loadu_si128(c.as_ptr() as *const __m128i);
            acc = _mm_add_epi64(acc, _mm_sad_epu8(v, zero));
        }
        let mut lanes = [0u64; 2];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, acc);
        lanes[0].wrapping_add(lanes[1])
    };
    for &x in tail {
        total = total.wrapping_add(x as u64);
    }
    total
}

/// The checksum a method must return for `reads` of `data` (the file's bytes).
pub fn expected_sum(data: &[u8], reads: &Reads, offsets: &[u64], kind: SumOf) -> u64 {
    let mut total = 0u64;
    reads.each(offsets, |off, len| {
        let r = &data[off as usize..off as usize + len];
        let v = match kind {
            SumOf::Bytes => sum_bytes(r),
            SumOf::LastByte => r[len - 1] as u64,
        };
        total = total.wrapping_add(v);
    });
    total
}

/// Why a byte count or list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BytesError {
    #[error("{flag} is empty: give bytes such as 4Ki, or a list such as 64,512,4Ki,64Ki")]
    Empty { flag: String },
    #[error("{flag}: `{text}` is not a number of bytes: use digits with an optional k, M, G, T, Ki, Mi, Gi or Ti suffix, or ranges start:end:step")]
    Bad { flag: String, text: String },
    #[error("{flag}: a read size of 0 reads nothing: give sizes of 1 byte or more")]
    Zero { flag: String },
    #[error("{flag}: {value} bytes is more than the most allowed, {max}")]
    TooLarge { flag: String, value: u64, max: u64 },
    #[error("{flag} gives more than {MAX_SIZES} sizes: use a larger step")]
    TooMany { flag: String },
}

/// One byte count: digits with an optional k, M, G, T (powers of 1000) or
/// Ki, Mi, Gi, Ti (powers of 1024) suffix, from 1 to `max`.
pub fn parse_bytes(flag: &str, text: &str, max: u64) -> Result<u64, BytesError> {
    let t = text.trim();
    let bad = || BytesError::Bad {
        flag: flag.into(),
        text: t.into(),
    };
    let (digits, mult) = [
        ("Ki", 1u64 << 10),
        ("Mi", 1 << 20),
        ("Gi", 1 << 30),
        ("Ti", 1 << 40),
        ("k", 1_000),
        ("K", 1_000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
        ("T", 1_000_000_000_000),
    ]
    .iter()
    .find_map(|(suffix, m)| t.strip_suffix(suffix).map(|d| (d, *m)))
    .unwrap_or((t, 1));
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let too_large = |value| BytesError::TooLarge {
        flag: flag.into(),
        value,
        max,
    };
    let v = digits
        .parse::<u64>()
        .ok()
        .and_then(|v| v.checked_mul(mult))
        .ok_or(too_large(u64::MAX))?;
    if v == 0 {
        return Err(BytesError::Zero { flag: flag.into() });
    }
    if v > max {
        return Err(too_large(v));
    }
    Ok(v)
}

/// A list of read sizes (`64,512,4Ki` or `start:end:step`), sorted, without
/// duplicates, each from 1 to [`MAX_READ`].
pub fn parse_read_sizes(flag: &str, text: &str) -> Result<Vec<u64>, BytesError> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let fields: Vec<&str> = part.split(':').collect();
        match fields[..] {
            [one] => out.push(parse_bytes(flag, one, MAX_READ)?),
            [a, b, c] => {
                let (start, end, step) = (
                    parse_bytes(flag, a, MAX_READ)?,
                    parse_bytes(flag, b, MAX_READ)?,
                    parse_bytes(flag, c, MAX_READ)?,
                );
                if start > end {
                    return Err(BytesError::Bad {
                        flag: flag.into(),
                        text: part.into(),
                    });
                }
                let mut v = start;
                while v <= end {
                    out.push(v);
                    if out.len() > MAX_SIZES {
                        return Err(BytesError::TooMany { flag: flag.into() });
                    }
                    v += step;
                }
            }
            _ => {
                return Err(BytesError::Bad {
                    flag: flag.into(),
                    text: part.into(),
                })
            }
        }
        if out.len() > MAX_SIZES {
            return Err(BytesError::TooMany { flag: flag.into() });
        }
    }
    if out.is_empty() {
        return Err(BytesError::Empty { flag: flag.into() });
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e4_seq_alternates_50_and_450_through_the_whole_file() {
        let r = Reads::e4_seq(E4_FILE_SIZE);
        assert_eq!(r.count, 400_000);
        assert_eq!(r.bytes(), E4_FILE_SIZE);
        assert_eq!(r.mean_len(), 250);
        // 1050 bytes: 50 450 50 450 50 (the last 0 bytes left) → 5 reads.
        let r = Reads::e4_seq(1050);
        assert_eq!((r.count, r.bytes()), (5, 1050));
        let mut seen = vec![];
        r.each(&[], |o, l| seen.push((o, l)));
        assert_eq!(
            seen,
            vec![(0, 50), (50, 450), (500, 50), (550, 450), (1000, 50)]
        );
        // 1049: the fifth read would pass the end.
        assert_eq!(Reads::e4_seq(1049).count, 4);
    }

    #[test]
    fn sized_seq_stops_at_the_end_of_the_file() {
        let r = Reads::sized(Pattern::Seq, 4096, 200_000, 1 << 20);
        assert_eq!((r.count, r.bytes()), (256, 1 << 20));
        let r = Reads::sized(Pattern::Random, 4096, 1000, 1 << 20);
        assert_eq!((r.count, r.bytes()), (1000, 4096 * 1000));
    }

    #[test]
    fn random_offsets_are_seeded_and_keep_every_read_inside_the_file() {
        let a = random_offsets(7, 10_000, 450, 5000);
        assert_eq!(a, random_offsets(7, 10_000, 450, 5000));
        assert_ne!(a, random_offsets(8, 10_000, 450, 5000));
        assert!(a.iter().all(|&o| o + 450 <= 5000));
        assert!(
            a.contains(&0) && a.contains(&4550),
            "both ends are reachable"
        );
    }

    #[test]
    fn checksums_sum_the_bytes_or_the_last_byte_of_each_read() {
        let data: Vec<u8> = (0..=255u8).cycle().take(2000).collect();
        let r = Reads::sized(Pattern::Random, 3, 2, 2000);
        let offs = [10, 300];
        assert_eq!(
            expected_sum(&data, &r, &offs, SumOf::Bytes),
            (10 + 11 + 12) + (44 + 45 + 46)
        );
        assert_eq!(expected_sum(&data, &r, &offs, SumOf::LastByte), 12 + 46);
        let big = vec![255u8; 300_000];
        assert_eq!(sum_bytes(&big), 255 * 300_000);
        let odd: Vec<u8> = (0..1000u32).map(|i| (i * 37 % 256) as u8).collect();
        for len in [0, 1, 15, 16, 17, 450, 1000] {
            let want: u64 = odd[..len].iter().map(|&x| x as u64).sum();
            assert_eq!(sum_bytes(&odd[..len]), want, "{len}");
            assert_eq!(sum_bytes_portable(&odd[..len]), want, "{len}");
        }
    }

    #[test]
    fn byte_sizes_parse_with_suffixes_and_refuse_zero() {
        assert_eq!(
            parse_read_sizes("--sizes", "4Ki,1, 64 ,1k").unwrap(),
            vec![1, 64, 1000, 4096]
        );
        assert_eq!(
            parse_read_sizes("--sizes", "1Ki:4Ki:1Ki").unwrap(),
            vec![1024, 2048, 3072, 4096]
        );
        let zero = parse_read_sizes("--sizes", "0,64").unwrap_err();
        assert_eq!(
            zero.to_string(),
            "--sizes: a read size of 0 reads nothing: give sizes of 1 byte or more"
        );
        for bad in ["x", "-5", "4Kib", "1:2", ""] {
            assert!(parse_read_sizes("--sizes", bad).is_err(), "{bad}");
        }
        assert!(matches!(
            parse_read_sizes("--sizes", "1Gi"),
            Err(BytesError::TooLarge { .. })
        ));
        assert!(matches!(
            parse_read_sizes("--sizes", "1:1000:1"),
            Err(BytesError::TooMany { .. })
        ));
        assert_eq!(
            parse_bytes("--file-size", "100M", u64::MAX),
            Ok(E4_FILE_SIZE)
        );
    }
}
