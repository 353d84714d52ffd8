//! The sum a worker answers for a frame's items (spec/wire.md), at memory
//! speed: the worker reads every byte it is sent, so this loop is most of
//! a large transfer's per-byte cost on the worker's side.
//!
//! Each item `x` is split as `x = hi·2¹⁶ + lo` (`lo = x & 0xFFFF`, `hi = x >> 16`
//! arithmetic), and `lo`s and `hi`s are summed in 32-bit lanes: a block of
//! 2¹⁶ items can neither overflow `Σ lo` (< 2³²) nor `Σ hi` (within ±2³¹), so
//! wrapping 32-bit additions in any order are exact and the compiler is free
//! to vectorise them (a sign extension to 64 bits per item, as a plain
//! `i64` sum needs, is what kept the old loop at half this speed).

/// Items per block: the most that 32-bit lanes can sum without overflow.
const BLOCK_ITEMS: usize = 1 << 16;

/// The sum of `bytes` read as little-endian `i32` items, as an `i64`; a
/// trailing partial item (fewer than 4 bytes) is not counted.
pub fn sum_items(bytes: &[u8]) -> i64 {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { sum_items_avx2(bytes) };
    }
    sum_blocks(bytes)
}

/// The same loop compiled for AVX2, which doubles the lanes of the default
/// x86-64 target's SSE2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sum_items_avx2(bytes: &[u8]) -> i64 {
    sum_blocks(bytes)
}

#[inline(always)]
fn sum_blocks(bytes: &[u8]) -> i64 {
    let mut sum = 0i64;
    for block in bytes.chunks(4 * BLOCK_ITEMS) {
        let (mut lo, mut hi) = (0u32, 0i32);
        for item in block.chunks_exact(4) {
            let x = i32::from_le_bytes(item.try_into().expect("4 bytes"));
            lo = lo.wrapping_add((x & 0xFFFF) as u32);
            hi = hi.wrapping_add(x >> 16);
        }
        sum += i64::from(hi) * 65536 + i64::from(lo);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(bytes: &[u8]) -> i64 {
        bytes
            .chunks_exact(4)
            .map(|c| i64::from(i32::from_le_bytes(c.try_into().unwrap())))
            .sum()
    }

    fn items(values: impl IntoIterator<Item = i32>) -> Vec<u8> {
        values.into_iter().flat_map(i32::to_le_bytes).collect()
    }

    #[test]
    fn extremes_fill_whole_blocks_without_overflow() {
        // Two and a half blocks of each extreme: the lanes' worst cases.
        let n = BLOCK_ITEMS * 5 / 2;
        for v in [i32::MAX, i32::MIN, -1, 0xFFFF, -0x10000] {
            let b = items(std::iter::repeat_n(v, n));
            assert_eq!(sum_items(&b), i64::from(v) * n as i64, "{v}");
            assert_eq!(sum_blocks(&b), plain(&b), "{v}");
        }
    }

    #[test]
    fn agrees_with_a_plain_sum_on_mixed_items_and_ragged_ends() {
        let mut s = 1u64;
        let vals: Vec<i32> = (0..BLOCK_ITEMS + 37)
            .map(|_| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
                (s >> 32) as i32
            })
            .collect();
        let b = items(vals);
        for cut in [0, 1, 3, 4, 5, 4 * 33, b.len() - 2, b.len()] {
            assert_eq!(sum_items(&b[..cut]), plain(&b[..cut]), "{cut} bytes");
        }
    }
}
