//! Quantiles and medians, the building blocks of the robust statistics.

/// The `q`-quantile (0 ≤ q ≤ 1) of already **sorted** values, by linear
/// interpolation between the two nearest ranks (Hyndman & Fan type 7, the
/// default of R and NumPy). Returns NaN for an empty slice.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        len => {
            let h = (len - 1) as f64 * q.clamp(0.0, 1.0);
            let lo = h.floor() as usize;
            let hi = (lo + 1).min(len - 1);
            sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
        }
    }
}

/// The median of `values`, reordering them in place (O(n) selection, no full
/// sort). Returns NaN for an empty slice.
pub fn median_in_place(values: &mut [f64]) -> f64 {
    let len = values.len();
    if len == 0 {
        return f64::NAN;
    }
    let mid = len / 2;
    let (below, &mut upper, _) = values.select_nth_unstable_by(mid, f64::total_cmp);
    if len % 2 == 1 {
        upper
    } else {
        // The lower middle is the largest value of the part left of `mid`.
        let lower = below.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (lower + upper) / 2.0
    }
}

/// The median of `values` (copied; the input is left as it is).
pub fn median(values: &[f64]) -> f64 {
    median_in_place(&mut values.to_vec())
}

/// A sorted copy of `values` (NaNs, if any, sort last).
pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut v = values.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantile_interpolates_between_ranks() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile(&v, 0.0), 1.0);
        assert_eq!(quantile(&v, 1.0), 4.0);
        assert_eq!(quantile(&v, 0.5), 2.5);
        assert_eq!(quantile(&v, 0.25), 1.75);
        assert_eq!(quantile(&[7.0], 0.3), 7.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[5.0]), 5.0);
        assert!(median(&[]).is_nan());
        let mut v = vec![9.0, 8.0, 1.0, 2.0, 7.0, 3.0];
        assert_eq!(median_in_place(&mut v), 5.0);
    }
}
