//! The ratio of two independent sets of times with an interval whose level
//! is known exactly at any count: the Hodges–Lehmann estimate on the log
//! scale, with the distribution-free interval of the Mann–Whitney test
//! (Hollander, Wolfe & Chicken, *Nonparametric Statistical Methods*, §4.3).
//!
//! Of the m·n ratios bᵢ/aⱼ, sorted, the estimate is their median and the
//! interval runs from the k-th smallest to the k-th largest, where k is the
//! largest rank with 2·P(U ≤ k − 1) ≤ 5% under the null distribution of
//! Mann–Whitney's U. If the two sets differ by a factor (a shift of the
//! logs), the interval holds that factor with probability exactly
//! 1 − 2·P(U ≤ k − 1), whatever the times' shape. Few trials cannot reach
//! 95% (3 against 3: at most 90%): the interval is then the widest one,
//! k = 1 (from the smallest ratio to the largest), and says its level.
//! Unlike a percentile bootstrap of a median ratio, which at 3 trials a
//! side claims 95% while covering far less, the level printed is the level
//! earned. Above 25 a side, U's normal approximation gives k.

use crate::bootstrap::LEVEL;
use crate::mann_whitney::u_cdf;

/// b / a by Hodges–Lehmann, with its distribution-free interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HlRatio {
    /// The median of every ratio bᵢ/aⱼ.
    pub ratio: f64,
    /// The k-th smallest ratio.
    pub lo: f64,
    /// The k-th largest ratio.
    pub hi: f64,
    /// The interval's exact coverage (≥ 95% where the counts allow it).
    pub level: f64,
}

/// The rank k and its level for groups of `m` and `n` at `level`; None
/// when no interval exists (one value a side: every level is 0).
pub fn rank(m: usize, n: usize, level: f64) -> Option<(usize, f64)> {
    let mn = m * n;
    if mn < 2 {
        return None;
    }
    let tail = (1.0 - level) / 2.0;
    if let Some(cdf) = u_cdf(m, n) {
        // P(U ≤ k − 1) for k = 1, 2, …: the largest k within the tail.
        let mut best = None;
        for k in 1..=mn / 2 {
            let p = cdf[k - 1];
            if p <= tail + 1e-12 {
                best = Some((k, 1.0 - 2.0 * p));
            } else {
                break;
            }
        }
        return best.or_else(|| {
            let l = 1.0 - 2.0 * cdf[0];
            (l > 0.0).then_some((1, l))
        });
    }
    // Large groups: U is near normal (no ties assumed).
    let (mf, nf) = (m as f64, n as f64);
    let sd = (mf * nf * (mf + nf + 1.0) / 12.0).sqrt();
    // z of a two-sided 95% interval: the only level toll asks for.
    let z = 1.959_963_984_540_054;
    let k = (mf * nf / 2.0 - z * sd).floor().max(1.0) as usize;
    Some((k, level))
}

/// b / a with its interval; None when either side is empty, a value is not
/// positive, or there is one value a side.
pub fn ratio(a: &[f64], b: &[f64]) -> Option<HlRatio> {
    if a.is_empty() || b.is_empty() || a.iter().chain(b).any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    let (k, level) = rank(a.len(), b.len(), LEVEL)?;
    let mut logs: Vec<f64> = b
        .iter()
        .flat_map(|y| a.iter().map(move |x| (y / x).ln()))
        .collect();
    logs.sort_by(f64::total_cmp);
    let n = logs.len();
    let mid = if n % 2 == 1 {
        logs[n / 2]
    } else {
        (logs[n / 2 - 1] + logs[n / 2]) / 2.0
    };
    Some(HlRatio {
        ratio: mid.exp(),
        lo: logs[k - 1].exp(),
        hi: logs[n - k].exp(),
        level,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_levels_match_the_tables() {
        // 3 against 3: 20 arrangements, P(U = 0) = 1/20 → k = 1 at 90%.
        let (k, l) = rank(3, 3, 0.95).unwrap();
        assert_eq!(k, 1);
        assert!((l - 0.9).abs() < 1e-12, "{l}");
        // 5 against 5: P(U ≤ 2) = 4/252 ≤ 2.5% < P(U ≤ 3) = 7/252 → k = 3.
        let (k, l) = rank(5, 5, 0.95).unwrap();
        assert_eq!(k, 3);
        assert!((l - (1.0 - 8.0 / 252.0)).abs() < 1e-12, "{l}");
        // 10 against 10: the tables' critical value gives k = 24.
        assert_eq!(rank(10, 10, 0.95).unwrap().0, 24);
        assert!(rank(1, 1, 0.95).is_none());
        // 2 against 2: 1 − 2/6.
        let (_, l) = rank(2, 2, 0.95).unwrap();
        assert!((l - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn the_ratio_of_two_scaled_sets_is_the_scale() {
        let a = [100.0, 103.0, 98.0, 101.0, 99.5];
        let b: Vec<f64> = a.iter().map(|v| v * 1.5).collect();
        let r = ratio(&a, &b).unwrap();
        assert!((r.ratio - 1.5).abs() < 1e-12, "{r:?}");
        assert!(r.lo <= 1.5 && 1.5 <= r.hi && r.lo > 1.0, "{r:?}");
        assert!(ratio(&[1.0], &[2.0]).is_none());
        assert!(ratio(&[0.0, 1.0], &[2.0, 3.0]).is_none());
    }

    #[test]
    fn coverage_is_the_level_it_says_at_few_trials() {
        // Log-normal times, B = 1.2 × A: the interval holds 1.2 as often as
        // its level says, 3, 5 and 10 trials a side, over 4000 seeded pairs.
        let mut rng = fastrand::Rng::with_seed(11);
        let normal = |rng: &mut fastrand::Rng| {
            let (u, w) = (rng.f64().max(1e-300), rng.f64());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * w).cos()
        };
        for n in [3usize, 5, 10] {
            let trials = 4000;
            let mut held = 0;
            let mut level = 0.0;
            for _ in 0..trials {
                let a: Vec<f64> = (0..n).map(|_| (0.3 * normal(&mut rng)).exp()).collect();
                let b: Vec<f64> = (0..n)
                    .map(|_| 1.2 * (0.3 * normal(&mut rng)).exp())
                    .collect();
                let r = ratio(&a, &b).unwrap();
                level = r.level;
                held += usize::from(r.lo <= 1.2 && 1.2 <= r.hi);
            }
            let share = held as f64 / trials as f64;
            assert!(
                (share - level).abs() < 0.02,
                "n = {n}: held {share}, says {level}"
            );
        }
    }
}
