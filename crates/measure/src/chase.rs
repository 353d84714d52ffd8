//! The tightest loop toll times: a chase of dependent loads, each the
//! index of the next. Kept here, in the crate that is optimised even in
//! test builds, so a debug build's loop overhead does not hide a cache
//! hit (1–2 ns) from the tests that check the staircase `toll sys` finds.

use std::time::{Duration, Instant};

/// `reps` dependent loads through `next`, from word `at`: where the chase
/// ended, and how long the loads took.
///
/// # Safety
///
/// Every index reachable from `at` by following `next` must lie within
/// the words `next` points at.
pub unsafe fn chase(next: *const usize, at: usize, reps: u64) -> (usize, Duration) {
    let mut i = at;
    let t = Instant::now();
    for _ in 0..reps {
        // SAFETY: the caller's promise.
        i = unsafe { *next.add(i) };
    }
    let took = t.elapsed();
    (std::hint::black_box(i), took)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_chase_follows_its_links() {
        // 0 → 2 → 1 → 0 …
        let next = [2usize, 0, 1];
        // SAFETY: every link is within the three words.
        let (at, _) = unsafe { super::chase(next.as_ptr(), 0, 4) };
        assert_eq!(at, 2, "0 → 2 → 1 → 0 → 2");
    }
}
