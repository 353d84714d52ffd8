//! The staircase model: a sweep whose time stays level over a range of `n`
//! and then steps up, several times — the time per load of a pointer chase
//! as its working set outgrows each cache. The two-segment model
//! ([`super::piecewise`]) finds one break in a line; this finds every step.
//!
//! Each size's figure is the median of its rounds, on a log scale (a step
//! is a ratio: 1.3 ns to 4 ns is the step 20 ns to 60 ns is). For every
//! number of segments K the least squares partition into K flat segments
//! is found exactly by dynamic programming (R. Bellman, "On the
//! approximation of curves by line segments using dynamic programming",
//! CACM 4(6), 1961: O(K·n²), a few thousand steps for a sweep's twenty
//! sizes). K is the largest whose every step is one a person would call a
//! level: each segment at least `min_step` × the one below, and clear of
//! the rounds' scatter — the upper quartile of the rounds at the top of the
//! lower segment below the lower quartile of those at the bottom of the
//! upper (one wild round of a few moves neither). A one-size
//! segment between two others is a point on the climb from one level to
//! the next, not a level; one within `min_step` of the level below still
//! counts as that level's (it loads like it). Unlike a rule that compares each size with the
//! one below, a climb spread over several sizes (each less than `min_step`
//! above the last) still shows as the step it is.

use serde::{Deserialize, Serialize};

/// One level of the staircase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// The largest `n` measured on this level.
    pub fits: f64,
    /// The next `n` measured, the first above the level (None for the top
    /// one): the break lies between `fits` and `next`.
    pub next: Option<f64>,
    /// The level: the median of its sizes' medians.
    pub level: f64,
}

/// Most segments tried: more levels than a memory hierarchy has, and a
/// bound on the work.
const MAX_SEGMENTS: usize = 8;

/// The levels of `points` — per `n`, its rounds' times — in increasing `n`
/// (see the module's words). Points without a finite positive time are
/// left out; fewer than two points give one level or none.
pub fn steps(points: &[(f64, Vec<f64>)], min_step: f64) -> Vec<Step> {
    let mut pts: Vec<Pt> = points.iter().filter_map(|(n, xs)| Pt::of(*n, xs)).collect();
    pts.sort_by(|a, b| a.n.total_cmp(&b.n));
    if pts.is_empty() {
        return Vec::new();
    }
    let y: Vec<f64> = pts.iter().map(|p| p.median.ln()).collect();
    let parts = Partitions::of(&y, MAX_SEGMENTS.min(y.len()));
    let chosen = (1..=parts.most())
        .rev()
        .map(|k| parts.bounds(k))
        .find(|b| distinct(&pts, &y, b, min_step.ln()))
        .unwrap_or_else(|| vec![(0, pts.len())]);
    let k = chosen.len();
    let climb = |i: usize| chosen[i].1 - chosen[i].0 == 1 && i > 0 && i + 1 < k;
    (0..k)
        .filter(|&i| !climb(i))
        .map(|i| {
            let (a, mut b) = chosen[i];
            let mut level: Vec<f64> = pts[a..b].iter().map(|p| p.median).collect();
            let level = median(&mut level);
            // The climb's first sizes within a step of this level still
            // load like it: the level reaches them.
            while b < pts.len() && climb_at(&chosen, b, k) && pts[b].median < level * min_step {
                b += 1;
            }
            Step {
                fits: pts[b - 1].n,
                next: pts.get(b).map(|p| p.n),
                level,
            }
        })
        .collect()
}

/// Whether the size at index `j` is a climb: a one-size segment between two
/// others.
fn climb_at(bounds: &[(usize, usize)], j: usize, k: usize) -> bool {
    bounds
        .iter()
        .position(|&(a, _)| a == j)
        .is_some_and(|i| bounds[i].1 - j == 1 && i > 0 && i + 1 < k)
}

/// A size: its `n`, the median of its rounds and their quartiles.
struct Pt {
    n: f64,
    median: f64,
    lo: f64,
    hi: f64,
}

impl Pt {
    fn of(n: f64, xs: &[f64]) -> Option<Pt> {
        let mut v: Vec<f64> = xs
            .iter()
            .copied()
            .filter(|x| x.is_finite() && *x > 0.0)
            .collect();
        if v.is_empty() || !n.is_finite() {
            return None;
        }
        let median = median(&mut v);
        // The quartiles, by the nearest rank: one wild round of a few
        // (a preemption in its batch) moves neither.
        let q = |f: f64| v[((f * (v.len() - 1) as f64).round() as usize).min(v.len() - 1)];
        Some(Pt {
            n,
            median,
            lo: q(0.25),
            hi: q(0.75),
        })
    }
}

/// Whether every step of the partition `bounds` (half-open index ranges)
/// is a level: each segment's mean log at least `min_log` above the one
/// below and clear of the rounds. A one-size segment between two others
/// (a climb) is judged by its neighbours instead.
fn distinct(pts: &[Pt], y: &[f64], bounds: &[(usize, usize)], min_log: f64) -> bool {
    let mean = |&(a, b): &(usize, usize)| y[a..b].iter().sum::<f64>() / (b - a) as f64;
    let k = bounds.len();
    let climb = |i: usize| bounds[i].1 - bounds[i].0 == 1 && i > 0 && i + 1 < k;
    (1..k).all(|i| {
        let (lower, upper) = (bounds[i - 1], bounds[i]);
        let clear = pts[lower.1 - 1].hi < pts[upper.0].lo;
        let rise = if climb(i) || climb(i - 1) {
            // A climb lies between the levels either side of it.
            mean(&upper) > mean(&lower)
        } else {
            mean(&upper) - mean(&lower) >= min_log
        };
        clear && rise
    }) && (1..k.saturating_sub(1))
        .all(|i| !climb(i) || mean(&bounds[i + 1]) - mean(&bounds[i - 1]) >= min_log)
}

/// The least squares partitions of a sequence into 1..=K flat segments.
struct Partitions {
    /// `cost[k][j]`: the least squared error of the first j values in k+1
    /// segments; `start[k][j]` where its last segment starts.
    cost: Vec<Vec<f64>>,
    start: Vec<Vec<usize>>,
}

impl Partitions {
    fn of(y: &[f64], most: usize) -> Partitions {
        let n = y.len();
        let (mut s, mut ss) = (vec![0.0; n + 1], vec![0.0; n + 1]);
        for (i, v) in y.iter().enumerate() {
            s[i + 1] = s[i] + v;
            ss[i + 1] = ss[i] + v * v;
        }
        // The squared error of y[a..b] about its mean.
        let sse = |a: usize, b: usize| {
            let (m, t) = ((b - a) as f64, s[b] - s[a]);
            (ss[b] - ss[a] - t * t / m).max(0.0)
        };
        let first: Vec<f64> = (0..=n)
            .map(|j| if j == 0 { f64::INFINITY } else { sse(0, j) })
            .collect();
        let mut cost = vec![first];
        let mut start = vec![vec![0; n + 1]];
        for k in 1..most {
            let before = &cost[k - 1];
            let (mut c, mut st) = (vec![f64::INFINITY; n + 1], vec![0; n + 1]);
            for j in (k + 1)..=n {
                // The last segment starts at a; the k before it cover ..a.
                let (v, a) = (k..j)
                    .map(|a| (before[a] + sse(a, j), a))
                    .min_by(|x, y| x.0.total_cmp(&y.0))
                    .unwrap_or((f64::INFINITY, 0));
                (c[j], st[j]) = (v, a);
            }
            cost.push(c);
            start.push(st);
        }
        Partitions { cost, start }
    }

    fn most(&self) -> usize {
        self.cost.len()
    }

    /// The best partition into `k` segments, as index ranges in order.
    fn bounds(&self, k: usize) -> Vec<(usize, usize)> {
        let mut j = self.cost[0].len() - 1;
        let mut out = Vec::with_capacity(k);
        for level in (0..k).rev() {
            let a = if level == 0 { 0 } else { self.start[level][j] };
            out.push((a, j));
            j = a;
        }
        out.reverse();
        out
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three rounds at ±2% about each figure.
    fn pts(figures: &[(u64, f64)]) -> Vec<(f64, Vec<f64>)> {
        figures
            .iter()
            .map(|&(n, v)| (n as f64, vec![v * 0.98, v, v * 1.02]))
            .collect()
    }

    fn fits(s: &[Step]) -> Vec<u64> {
        s.iter().map(|s| s.fits as u64).collect()
    }

    const K: u64 = 1024;

    #[test]
    fn a_staircase_gives_its_levels() {
        let p = pts(&[
            (4 * K, 1.2),
            (8 * K, 1.2),
            (16 * K, 1.3),
            (32 * K, 1.3),
            (64 * K, 3.9),
            (128 * K, 4.1),
            (512 * K, 4.3),
            (2048 * K, 5.0),
            (4096 * K, 20.0),
            (8192 * K, 38.0),
            (16384 * K, 40.0),
        ]);
        let s = steps(&p, 1.5);
        assert_eq!(fits(&s), [32 * K, 2048 * K, 16384 * K], "{s:?}");
        assert!((s[0].level - 1.25).abs() < 1e-9);
        assert_eq!(s[0].next, Some((64 * K) as f64));
        assert_eq!(s[2].next, None);
    }

    #[test]
    fn a_climb_over_several_sizes_is_still_a_step() {
        // Each size under 1.5× the one below, 1.3 ns to 4 ns in all.
        let p = pts(&[
            (4 * K, 1.3),
            (8 * K, 1.3),
            (16 * K, 1.3),
            (32 * K, 1.3),
            (64 * K, 1.8),
            (128 * K, 2.6),
            (256 * K, 3.6),
            (512 * K, 4.0),
            (1024 * K, 4.0),
            (2048 * K, 4.1),
        ]);
        let s = steps(&p, 1.5);
        assert_eq!(s.len(), 2, "{s:?}");
        assert!(s[0].fits as u64 <= 64 * K && s[0].fits as u64 >= 32 * K);
        assert!((s[1].level - 4.0).abs() < 0.2);
    }

    #[test]
    fn a_creep_within_a_level_is_no_step() {
        let p = pts(&[
            (4 * K, 1.30),
            (8 * K, 1.32),
            (16 * K, 1.36),
            (32 * K, 1.40),
            (64 * K, 1.46),
            (128 * K, 1.55),
        ]);
        assert_eq!(steps(&p, 1.5).len(), 1);
    }

    #[test]
    fn a_step_inside_the_scatter_is_no_step() {
        // Twice as slow, but the rounds overlap.
        let p: Vec<(f64, Vec<f64>)> = vec![
            (1.0, vec![1.0, 1.0, 3.0, 3.0]),
            (2.0, vec![1.0, 1.0, 3.0, 3.0]),
            (4.0, vec![1.5, 2.0, 2.0, 2.5]),
            (8.0, vec![1.5, 2.0, 2.0, 2.5]),
        ];
        assert_eq!(steps(&p, 1.5).len(), 1);
    }

    #[test]
    fn one_wild_round_does_not_hide_a_step() {
        let mut p = pts(&[(4 * K, 1.3), (8 * K, 1.3), (16 * K, 5.0), (32 * K, 5.1)]);
        p[1].1.push(6.0);
        assert_eq!(fits(&steps(&p, 1.5)), [8 * K, 32 * K]);
    }

    #[test]
    fn nothing_to_fit_gives_nothing_or_one_level() {
        assert!(steps(&[], 1.5).is_empty());
        assert!(steps(&[(1.0, vec![f64::NAN])], 1.5).is_empty());
        let one = steps(&[(1.0, vec![2.0])], 1.5);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].level, 2.0);
    }
}
