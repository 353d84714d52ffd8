//! The Mann–Whitney U test: do two sets of times come from one distribution?
//!
//! Go's benchstat decides "this changed" with it, and so does toll: it
//! assumes nothing about the shape of the times (a process's run times are
//! skewed, with a long right tail), only that the runs are independent.
//! Ranks are midranks for ties. For small samples without ties the p-value
//! is exact, from the distribution of U counted by the recurrence of Mann &
//! Whitney (1947); otherwise it is the normal approximation with the tie
//! correction and a continuity correction (as `scipy.stats.mannwhitneyu`
//! with `method="asymptotic"`). Two-sided throughout.

use serde::{Deserialize, Serialize};

/// The largest group for which the exact distribution is counted.
const EXACT_MAX: usize = 25;

/// The outcome of one test.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MannWhitney {
    /// U of the first sample: pairs (x, y) with x > y, ties counting ½.
    pub u: f64,
    /// Two-sided p-value.
    pub p: f64,
    /// The p-value is exact (small samples, no ties), not approximated.
    pub exact: bool,
}

/// Test `x` against `y`; None when either is empty.
pub fn test(x: &[f64], y: &[f64]) -> Option<MannWhitney> {
    let (n1, n2) = (x.len(), y.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let mut all: Vec<(f64, bool)> = x
        .iter()
        .map(|&v| (v, true))
        .chain(y.iter().map(|&v| (v, false)))
        .collect();
    all.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Midranks; Σ(t³ − t) over tie groups for the variance.
    let n = all.len();
    let (mut rank_x, mut ties, mut i) = (0.0, 0.0, 0);
    while i < n {
        let mut j = i;
        while j + 1 < n && all[j + 1].0 == all[i].0 {
            j += 1;
        }
        let t = (j - i + 1) as f64;
        let mid = (i + j) as f64 / 2.0 + 1.0;
        rank_x += all[i..=j].iter().filter(|e| e.1).count() as f64 * mid;
        ties += t * t * t - t;
        i = j + 1;
    }
    let (f1, f2) = (n1 as f64, n2 as f64);
    let u = rank_x - f1 * (f1 + 1.0) / 2.0;
    if ties == 0.0 && n1 <= EXACT_MAX && n2 <= EXACT_MAX {
        return Some(MannWhitney {
            u,
            p: exact_p(u as usize, n1, n2),
            exact: true,
        });
    }
    let mu = f1 * f2 / 2.0;
    let nf = (n1 + n2) as f64;
    let var = f1 * f2 / 12.0 * ((nf + 1.0) - ties / (nf * (nf - 1.0)));
    let p = if var <= 0.0 {
        1.0 // every value equal
    } else {
        let d = (u - mu).abs() - 0.5;
        let z = d.max(0.0) / var.sqrt();
        (2.0 * normal_upper_tail(z)).min(1.0)
    };
    Some(MannWhitney { u, p, exact: false })
}

/// Two-sided exact p: 2·P(U ≤ min(u, n1·n2 − u)), capped at 1.
fn exact_p(u: usize, n1: usize, n2: usize) -> f64 {
    let max = n1 * n2;
    let u = u.min(max - u);
    let dist = u_counts(n1, n2);
    let total: f64 = dist.iter().sum();
    let tail: f64 = dist[..=u].iter().sum();
    (2.0 * tail / total).min(1.0)
}

/// P(U ≤ k) under the null, for every k in 0..=n1·n2 (no ties): exact for
/// groups up to [`EXACT_MAX`], else None.
pub fn u_cdf(n1: usize, n2: usize) -> Option<Vec<f64>> {
    if n1 == 0 || n2 == 0 || n1 > EXACT_MAX || n2 > EXACT_MAX {
        return None;
    }
    let dist = u_counts(n1, n2);
    let total: f64 = dist.iter().sum();
    let mut acc = 0.0;
    Some(
        dist.iter()
            .map(|c| {
                acc += c;
                acc / total
            })
            .collect(),
    )
}

/// How many arrangements of `n1` x's and `n2` y's give each U, 0..=n1·n2.
fn u_counts(n1: usize, n2: usize) -> Vec<f64> {
    // counts[j][k]: arrangements of i x's and j y's with U = k, built up over i.
    let mut prev: Vec<Vec<f64>> = (0..=n2).map(|_| vec![1.0]).collect();
    for i in 1..=n1 {
        let mut cur: Vec<Vec<f64>> = vec![vec![1.0]];
        for j in 1..=n2 {
            // f(i, j, k) = f(i − 1, j, k − j) + f(i, j − 1, k): the largest
            // value is an x (above all j y's) or a y.
            let len = i * j + 1;
            let mut row = vec![0.0; len];
            for (k, slot) in row.iter_mut().enumerate() {
                let a = k
                    .checked_sub(j)
                    .and_then(|kk| prev[j].get(kk))
                    .copied()
                    .unwrap_or(0.0);
                let b = cur[j - 1].get(k).copied().unwrap_or(0.0);
                *slot = a + b;
            }
            cur.push(row);
        }
        prev = cur;
    }
    prev.swap_remove(n2)
}

/// P(Z > z) for a standard normal Z: erfc(z/√2)/2.
pub fn normal_upper_tail(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function, by the Chebyshev fit of Numerical
/// Recipes (3rd ed., §6.2.2; relative error below 1.2·10⁻⁷ everywhere).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87
                                        + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn exact_values_from_the_tables() {
        // Complete separation: one arrangement in C(n1 + n2, n1) each way.
        let r = test(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]).unwrap();
        assert_eq!((r.u, r.exact), (0.0, true));
        assert!(close(r.p, 0.1, 1e-12), "{r:?}");
        let r = test(&[5.0, 6.0, 7.0, 8.0], &[1.0, 2.0, 3.0, 4.0]).unwrap();
        assert_eq!(r.u, 16.0);
        assert!(close(r.p, 2.0 / 70.0, 1e-12), "{r:?}");
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        let y: Vec<f64> = (11..=20).map(f64::from).collect();
        assert!(close(test(&x, &y).unwrap().p, 2.0 / 184_756.0, 1e-9));
        // Mann & Whitney's table: n1 = 3, n2 = 4, U = 1 → P(U ≤ 1) = 2/35.
        let r = test(&[1.0, 2.0, 4.0], &[3.0, 5.0, 6.0, 7.0]).unwrap();
        assert_eq!(r.u, 1.0);
        assert!(close(r.p, 4.0 / 35.0, 1e-12), "{r:?}");
        // The same samples give p = 1 at the centre of the distribution.
        let r = test(&[1.0, 4.0], &[2.0, 3.0]).unwrap();
        assert_eq!((r.u, r.p), (2.0, 1.0));
    }

    #[test]
    fn the_normal_approximation_with_ties() {
        // 1…10 against 11…20 with a tie added: no longer exact; scipy's
        // asymptotic p for the untied pair is 1.827e-4 (z = 3.742).
        let x: Vec<f64> = (1..=10).map(f64::from).collect();
        let mut y: Vec<f64> = (11..=20).map(f64::from).collect();
        y[0] = 10.0;
        let r = test(&x, &y).unwrap();
        assert!(!r.exact);
        assert_eq!(r.u, 0.5);
        assert!(r.p > 1e-4 && r.p < 3e-4, "{r:?}");
        // Identical samples: nothing to tell apart.
        let same = test(&[5.0; 30], &[5.0; 30]).unwrap();
        assert_eq!(same.p, 1.0);
        // Large overlapping samples: not significant.
        let a: Vec<f64> = (0..40).map(|i| (i % 7) as f64).collect();
        let b: Vec<f64> = (0..40).map(|i| ((i + 3) % 7) as f64).collect();
        assert!(test(&a, &b).unwrap().p > 0.5);
        assert!(test(&[], &[1.0]).is_none());
    }

    #[test]
    fn the_normal_tail_matches_tables() {
        assert!(close(normal_upper_tail(0.0), 0.5, 1e-7));
        assert!(close(normal_upper_tail(1.959_964), 0.025, 1e-5));
        assert!(close(normal_upper_tail(3.741_657), 9.135e-5, 1e-3));
        assert!(close(normal_upper_tail(-1.0), 0.841_344_7, 1e-6));
    }
}
