//! The 95% confidence interval of a median, read off the order statistics.
//!
//! Distribution-free and exact (Hogg, Tanis & Zimmerman, *Probability and
//! Statistical Inference*, the interval for a median from order statistics;
//! the one benchstat prints): of n independent values, the number that fall
//! below the true median is Binomial(n, ½), so the interval
//! [x₍ₖ₎, x₍ₙ₊₁₋ₖ₎] between the k-th smallest and the k-th largest value
//! covers the median with probability 1 − 2·P(B ≤ k − 1). The rank k is the
//! largest that keeps this at least 95%.
//!
//! Unlike a bootstrap it needs no resampling — two selections, O(n) — so a
//! point of a million samples costs what it costs to read them, and its
//! coverage does not depend on the shape of the distribution. Below 6
//! values no pair of ranks reaches 95%: the interval is then the whole
//! range, which covers the median with probability 1 − 2¹⁻ⁿ (5 values:
//! 93.8%).

use crate::bootstrap::LEVEL;

/// The 1-based rank k of the interval's ends for `n` values at `level`
/// (x₍ₖ₎ and x₍ₙ₊₁₋ₖ₎): the largest k with 2·P(Binomial(n, ½) ≤ k − 1) ≤
/// 1 − level, and 1 (the range) when even that is too wide a bet.
pub fn rank(n: usize, level: f64) -> usize {
    if n < 2 {
        return 1;
    }
    let tail = (1.0 - level) / 2.0;
    // P(B ≤ j) summed term by term in log space: 0.5ⁿ underflows past n ≈ 1074,
    // and the terms that do are too small to matter.
    let nf = n as f64;
    let mut log_pmf = nf * 0.5f64.ln();
    let mut cdf = 0.0;
    let mut k = 1;
    for j in 0..n / 2 {
        cdf += log_pmf.exp();
        if cdf > tail {
            break;
        }
        // P(B ≤ j) ≤ tail: rank j + 1 keeps the coverage.
        k = j + 1;
        let jf = j as f64;
        log_pmf += ((nf - jf) / (jf + 1.0)).ln();
    }
    k.max(1)
}

/// The coverage of the median interval [`median_ci`] gives for `n` values:
/// 1 − 2·P(Binomial(n, ½) ≤ k − 1) at its rank k; 0 for fewer than two
/// values (one value is no interval).
pub fn level(n: usize) -> f64 {
    if n < 2 {
        return 0.0;
    }
    let k = rank(n, LEVEL);
    // P(B ≤ k − 1), term by term in log space as in `rank`.
    let nf = n as f64;
    let mut log_pmf = nf * 0.5f64.ln();
    let mut cdf = 0.0;
    for j in 0..k {
        cdf += log_pmf.exp();
        let jf = j as f64;
        log_pmf += ((nf - jf) / (jf + 1.0)).ln();
    }
    (1.0 - 2.0 * cdf).clamp(0.0, 1.0)
}

/// The 95% interval of the median of `values` (order statistics, see the
/// module). One value gives (v, v); none gives (NaN, NaN).
pub fn median_ci(values: &[f64]) -> (f64, f64) {
    let n = values.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let k = rank(n, LEVEL);
    let mut v = values.to_vec();
    let hi_at = n - k;
    let (below, &mut hi, _) = v.select_nth_unstable_by(hi_at, f64::total_cmp);
    let lo = if k - 1 == hi_at {
        hi
    } else {
        *below.select_nth_unstable_by(k - 1, f64::total_cmp).1
    };
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2·P(Binomial(n, ½) ≤ k − 1), summed exactly for small n.
    fn miss(n: u32, k: u32) -> f64 {
        let mut c = 1.0f64;
        let mut sum = 0.0;
        for j in 0..k {
            if j > 0 {
                c = c * f64::from(n - j + 1) / f64::from(j);
            }
            sum += c;
        }
        2.0 * sum / 2f64.powi(n as i32)
    }

    #[test]
    fn ranks_match_the_binomial_tables() {
        // The textbook ranks (e.g. n = 10: x₍₂₎…x₍₉₎, 97.9%; n = 20: x₍₆₎…x₍₁₅₎, 95.9%).
        assert_eq!(rank(10, 0.95), 2);
        assert_eq!(rank(20, 0.95), 6);
        assert_eq!(rank(100, 0.95), 40);
        for n in 6..60u32 {
            let k = rank(n as usize, 0.95) as u32;
            assert!(
                miss(n, k) <= 0.05 + 1e-12,
                "n = {n}: k = {k} misses too often"
            );
            assert!(miss(n, k + 1) > 0.05, "n = {n}: k = {k} is not the largest");
        }
        for n in 1..6 {
            assert_eq!(rank(n, 0.95), 1, "n = {n}: the range");
        }
    }

    #[test]
    fn levels_are_the_binomial_coverage_of_the_ranks() {
        for n in 2..60u32 {
            let k = rank(n as usize, 0.95) as u32;
            assert!(
                (level(n as usize) - (1.0 - miss(n, k))).abs() < 1e-12,
                "n = {n}"
            );
        }
        assert_eq!(level(3), 0.75);
        assert_eq!(level(1), 0.0);
        assert!((level(20) - 0.9586).abs() < 1e-4);
    }

    #[test]
    fn large_n_stays_near_the_normal_approximation() {
        // k ≈ n/2 − 1.96·√n/2 for large n.
        let n = 1_000_000usize;
        let k = rank(n, 0.95) as f64;
        let approx = n as f64 / 2.0 - 1.96 * (n as f64).sqrt() / 2.0;
        assert!((k - approx).abs() < 3.0, "k = {k}, ≈ {approx}");
    }

    #[test]
    fn the_interval_is_the_right_order_statistics() {
        let values: Vec<f64> = (1..=20).rev().map(f64::from).collect();
        assert_eq!(median_ci(&values), (6.0, 15.0));
        assert_eq!(median_ci(&[3.0, 1.0, 2.0]), (1.0, 3.0));
        assert_eq!(median_ci(&[42.0]), (42.0, 42.0));
        assert_eq!(median_ci(&[3.0; 7]), (3.0, 3.0));
        let (lo, hi) = median_ci(&[]);
        assert!(lo.is_nan() && hi.is_nan());
    }

    #[test]
    fn coverage_is_at_least_95_percent_on_skewed_data() {
        // Exponential samples (median ln 2): the interval must hold it in
        // ≥ 95% of 2000 draws, up to the simulation's own error.
        let mut rng = fastrand::Rng::with_seed(11);
        let truth = std::f64::consts::LN_2;
        let mut held = 0;
        for _ in 0..2000 {
            let v: Vec<f64> = (0..25).map(|_| -(1.0 - rng.f64()).ln()).collect();
            let (lo, hi) = median_ci(&v);
            if lo <= truth && truth <= hi {
                held += 1;
            }
        }
        assert!(held >= 1880, "held {held} of 2000");
    }
}
