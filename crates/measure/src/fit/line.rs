//! A straight line `α + β·n` and the estimators that fit one: least squares
//! (plain and weighted) and Theil–Sen, with the R² of a line over points.
//!
//! Pure arithmetic over slices, with no knowledge of series, rounds or
//! resamples, so every other part of the fit builds on it.

use crate::quantile::median_in_place;

/// A straight line `alpha + beta·n`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Line {
    pub(crate) alpha: f64,
    pub(crate) beta: f64,
}

impl Line {
    pub(crate) fn at(self, n: f64) -> f64 {
        self.alpha + self.beta * n
    }
}

/// Ordinary least squares; None unless `xs` holds two different values.
pub(crate) fn least_squares(xs: &[f64], ys: &[f64]) -> Option<Line> {
    weighted_least_squares(xs, ys, &vec![1.0; xs.len()])
}

/// Theil–Sen over every pair with different x; `slopes` is scratch space.
/// None unless `xs` holds two different values.
pub(crate) fn theil_sen(xs: &[f64], ys: &[f64], slopes: &mut Vec<f64>) -> Option<Line> {
    slopes.clear();
    for i in 0..xs.len() {
        for j in i + 1..xs.len() {
            if xs[i] != xs[j] {
                slopes.push((ys[j] - ys[i]) / (xs[j] - xs[i]));
            }
        }
    }
    if slopes.is_empty() {
        return None;
    }
    let beta = median_in_place(slopes);
    slopes.clear();
    slopes.extend(xs.iter().zip(ys).map(|(x, y)| y - beta * x));
    Some(Line {
        alpha: median_in_place(slopes),
        beta,
    })
}

/// 1 − SS_res/SS_tot of `line` over the points; 0 when SS_tot is 0.
pub(crate) fn r2(xs: &[f64], ys: &[f64], line: Line) -> f64 {
    let mean_y = ys.iter().sum::<f64>() / ys.len() as f64;
    let ss_tot: f64 = ys.iter().map(|y| (y - mean_y).powi(2)).sum();
    if ss_tot == 0.0 {
        return 0.0;
    }
    let ss_res: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - line.alpha - line.beta * x).powi(2))
        .sum();
    1.0 - ss_res / ss_tot
}

/// Least squares with a weight per point; None unless two different `xs`
/// carry weight.
pub(crate) fn weighted_least_squares(xs: &[f64], ys: &[f64], ws: &[f64]) -> Option<Line> {
    let sw: f64 = ws.iter().sum();
    if sw.is_nan() || sw <= 0.0 || !sw.is_finite() {
        return None;
    }
    let mean_x = xs.iter().zip(ws).map(|(x, w)| x * w).sum::<f64>() / sw;
    let mean_y = ys.iter().zip(ws).map(|(y, w)| y * w).sum::<f64>() / sw;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for ((x, y), w) in xs.iter().zip(ys).zip(ws) {
        sxy += w * (x - mean_x) * (y - mean_y);
        sxx += w * (x - mean_x) * (x - mean_x);
    }
    if sxx <= 0.0 || !sxx.is_finite() {
        return None;
    }
    let beta = sxy / sxx;
    Some(Line {
        alpha: mean_y - beta * mean_x,
        beta,
    })
}
