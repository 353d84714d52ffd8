//! The two-segment model: where a sweep's line breaks, α from the small
//! sizes and β from the large ones.
//!
//! The split is the one with the least total weighted residual over the
//! per-`n` medians, found in one pass with running sums, so the bootstrap
//! can search it afresh on every resample whatever the number of sizes
//! (see [`super::choice`]). Each segment holds two sizes at least, and the
//! large one starts at or below the middle of the range of `n`: β is the
//! cost per unit over the large sizes, and a segment narrower than half the
//! sweep is a staircase's last tread — a socket buffer's final fill, flat
//! until its next step — whose slope says nothing of the cost per unit at
//! scale, and which one run finds and the next does not.

use super::line::{weighted_least_squares, Line};
use crate::model::Piecewise;

/// Weighted sums over a run of points, for least squares in O(1) a split.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    w: f64,
    x: f64,
    y: f64,
    xx: f64,
    xy: f64,
    yy: f64,
}

impl Sums {
    fn add(mut self, w: f64, x: f64, y: f64) -> Sums {
        self.w += w;
        self.x += w * x;
        self.y += w * y;
        self.xx += w * x * x;
        self.xy += w * x * y;
        self.yy += w * y * y;
        self
    }

    fn minus(self, o: Sums) -> Sums {
        Sums {
            w: self.w - o.w,
            x: self.x - o.x,
            y: self.y - o.y,
            xx: self.xx - o.xx,
            xy: self.xy - o.xy,
            yy: self.yy - o.yy,
        }
    }

    /// The weighted residual sum of squares about the run's own least
    /// squares line; None when its `n` do not vary.
    fn residual(self) -> Option<f64> {
        if self.w <= 0.0 || !self.w.is_finite() {
            return None;
        }
        let (mx, my) = (self.x / self.w, self.y / self.w);
        let sxx = self.xx - self.w * mx * mx;
        if sxx <= 0.0 || !sxx.is_finite() {
            return None;
        }
        let sxy = self.xy - self.w * mx * my;
        let syy = self.yy - self.w * my * my;
        Some((syy - sxy * sxy / sxx).max(0.0))
    }
}

/// The two weighted lines over the `medians` (`ns` ascending, weights 1/`var`)
/// with the least total weighted residual, the large segment starting at
/// or below the middle of the range of `n` (see the module); CIs are left
/// at the point estimates. None under four sizes.
pub(crate) fn best_split(ns: &[f64], medians: &[f64], var: &[f64]) -> Option<Piecewise> {
    let k = ns.len().min(medians.len()).min(var.len());
    if k < 4 {
        return None;
    }
    split_below(ns, medians, var, ns[0] + (ns[k - 1] - ns[0]) / 2.0)
}

/// The two weighted lines over `medians` (`ns` ascending, weights 1/`var`)
/// with the least total weighted residual, two points at least in each and
/// the large segment starting at or below `limit`: [`best_split`] keeps it
/// to the first half of a cost series; a load sweep, which stops two steps
/// past its knee, lets it start anywhere (`limit` infinite). None under
/// four points.
pub(crate) fn split_below(
    ns: &[f64],
    medians: &[f64],
    var: &[f64],
    limit: f64,
) -> Option<Piecewise> {
    let k = ns.len().min(medians.len()).min(var.len());
    if k < 4 {
        return None;
    }
    let w: Vec<f64> = var[..k].iter().map(|v| 1.0 / v).collect();
    // Centred, so the running sums do not lose the residuals to rounding.
    let cx = ns[..k].iter().sum::<f64>() / k as f64;
    let cy = medians[..k].iter().sum::<f64>() / k as f64;
    let mut prefix = Vec::with_capacity(k + 1);
    prefix.push(Sums::default());
    for i in 0..k {
        prefix.push(prefix[i].add(w[i], ns[i] - cx, medians[i] - cy));
    }
    let all = prefix[k];
    let mut best: Option<(f64, usize)> = None;
    for b in 2..=k - 2 {
        if ns[b] > limit {
            break;
        }
        let (Some(small), Some(large)) = (prefix[b].residual(), all.minus(prefix[b]).residual())
        else {
            continue;
        };
        let total = small + large;
        if best.is_none_or(|x| total < x.0) {
            best = Some((total, b));
        }
    }
    let (_, b) = best?;
    let small = weighted_least_squares(&ns[..b], &medians[..b], &w[..b])?;
    let large = weighted_least_squares(&ns[b..k], &medians[b..k], &w[b..])?;
    Some(piecewise(small, large, (ns[b - 1], ns[b])))
}

/// The model of two fitted segments meeting between `split`'s sizes.
fn piecewise(small: Line, large: Line, (lo, hi): (f64, f64)) -> Piecewise {
    let crossing = if (small.beta - large.beta).abs() > 0.0 {
        (large.alpha - small.alpha) / (small.beta - large.beta)
    } else {
        hi
    };
    Piecewise {
        alpha: small.alpha,
        alpha_ci: (small.alpha, small.alpha),
        beta_small: small.beta,
        beta: large.beta,
        beta_ci: (large.beta, large.beta),
        break_n: if crossing.is_finite() {
            crossing.clamp(lo, hi)
        } else {
            hi
        },
        split: (lo, hi),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_force(ns: &[f64], ys: &[f64], w: &[f64], middle: f64) -> Option<usize> {
        let ssr = |lo: usize, hi: usize| {
            let l = weighted_least_squares(&ns[lo..hi], &ys[lo..hi], &w[lo..hi]).unwrap();
            (lo..hi)
                .map(|i| w[i] * (ys[i] - l.at(ns[i])).powi(2))
                .sum::<f64>()
        };
        (2..=ns.len() - 2)
            .filter(|&b| ns[b] <= middle)
            .min_by(|&a, &b| {
                (ssr(0, a) + ssr(a, ns.len())).total_cmp(&(ssr(0, b) + ssr(b, ns.len())))
            })
    }

    #[test]
    fn the_running_sums_find_the_split_least_squares_does() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut checked = 0;
        for _ in 0..200 {
            let k = rng.usize(4..40);
            let mut ns: Vec<f64> = (0..k).map(|_| rng.f64() * 1e5).collect();
            ns.sort_by(f64::total_cmp);
            ns.dedup();
            let k = ns.len();
            let knee = ns[rng.usize(0..k)];
            let ys: Vec<f64> = ns
                .iter()
                .map(|&n| 4000.0 + 0.2 * n + 0.6 * (n - knee).max(0.0) + 300.0 * rng.f64())
                .collect();
            let var: Vec<f64> = ys.iter().map(|y| (0.01 * y).powi(2)).collect();
            let w: Vec<f64> = var.iter().map(|v| 1.0 / v).collect();
            let found = best_split(&ns, &ys, &var).map(|p| p.split);
            let b = brute_force(&ns, &ys, &w, ns[0] + (ns[k - 1] - ns[0]) / 2.0);
            assert_eq!(found, b.map(|b| (ns[b - 1], ns[b])), "k {k}, knee {knee}");
            checked += b.is_some() as usize;
        }
        assert!(checked > 150, "{checked} of 200 had a split to find");
    }

    /// A socket buffer's staircase: flat, a rise, then a step with a flat
    /// tread above it. β comes from the large half, risers and all, not
    /// from the last tread.
    #[test]
    fn a_last_tread_is_not_the_cost_per_unit() {
        let ns: Vec<f64> = [0.0, 1.0, 10.0, 100.0, 1000.0, 4000.0]
            .into_iter()
            .chain((1..=10).map(|i| i as f64 * 1e4))
            .collect();
        let ys: Vec<f64> = ns
            .iter()
            .map(|&n| 8000.0 + 0.4 * n + if n > 55_000.0 { 10_000.0 } else { 0.0 })
            .collect();
        let var: Vec<f64> = ys.iter().map(|y| (0.01 * y).powi(2)).collect();
        let p = best_split(&ns, &ys, &var).unwrap();
        assert!(p.split.1 <= 50_000.0, "{p:?}");
        assert!(
            p.beta > 0.45,
            "β over the large half counts the step: {p:?}"
        );
    }

    /// A sweep's hockey stick: flat, then rising over its last two
    /// points, past the middle of the range.
    #[test]
    fn without_a_limit_the_break_may_lie_past_the_middle() {
        let ns = [50.0, 74.0, 110.0, 164.0, 243.0, 362.0];
        let ys = [3.0, 3.01, 2.99, 3.0, 6.0, 7.5];
        let var = [1.0; 6];
        let p = split_below(&ns, &ys, &var, f64::INFINITY).unwrap();
        assert_eq!(p.split, (164.0, 243.0), "{p:?}");
        let halved = best_split(&ns, &ys, &var).unwrap();
        assert!(halved.split.1 <= 206.0, "{halved:?}");
    }

    #[test]
    fn too_few_sizes_have_no_split() {
        assert!(best_split(&[0.0, 1.0, 2.0], &[1.0, 2.0, 3.0], &[1.0; 3]).is_none());
    }
}
