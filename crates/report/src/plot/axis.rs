//! Plot axes: whether an axis is logarithmic, where its ticks go, and how
//! a tick reads.
//!
//! Ticks sit at round values a person reads at a glance — 1, 10, 100, 1k,
//! 10k on a log axis (with 2 and 5 between decades when there are few), a
//! step of 1, 2 or 5 times a power of ten on a linear one — never at
//! whatever a pixel grid happens to hit (130, 160, 200, 250…).
//!
//! A log axis has no 0, yet a sweep usually starts at n = 0 (E1's empty
//! message is its α). Such a point is drawn at the axis' left end, half a
//! decade below the smallest positive value, past a break in the axis: the
//! only tick there is labelled "0", so nothing suggests a scale across it.

use std::fmt;
use std::str::FromStr;

/// Which scale a plot's axes use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    /// Log on an axis whose values span decades, linear otherwise.
    #[default]
    Auto,
    /// Both axes linear, from 0.
    Linear,
    /// Both axes logarithmic.
    Log,
}

impl FromStr for Scale {
    type Err = String;

    fn from_str(s: &str) -> Result<Scale, String> {
        match s {
            "auto" => Ok(Scale::Auto),
            "linear" | "lin" => Ok(Scale::Linear),
            "log" => Ok(Scale::Log),
            other => Err(format!(
                "unknown plot scale `{other}`: use auto, linear or log"
            )),
        }
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scale::Auto => "auto",
            Scale::Linear => "linear",
            Scale::Log => "log",
        })
    }
}

/// Decades the positive values span (log10 of max/min); 0 with fewer than two.
pub fn decades(values: impl IntoIterator<Item = f64>) -> f64 {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if hi < lo {
        0.0
    } else {
        (hi / lo).log10()
    }
}

/// Whether each axis (x, y) is logarithmic: as asked, or with `auto`, x
/// when its values span two decades or more and y when its values do —
/// or one decade when x is logarithmic already, so that a line
/// `α + β·n` over sizes 1…100k reads as the familiar flat-then-rising
/// Hockney curve rather than an exponential.
pub fn log_axes(scale: Scale, x_decades: f64, y_decades: f64) -> (bool, bool) {
    match scale {
        Scale::Linear => (false, false),
        Scale::Log => (true, true),
        Scale::Auto => {
            let x = x_decades >= 2.0;
            let y = y_decades >= 2.0 || (x && y_decades >= 1.0);
            (x, y)
        }
    }
}

/// One axis in plot coordinates: log10 of the value on a log axis, the
/// value itself on a linear one.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// Logarithmic.
    pub log: bool,
    /// The range shown, in plot coordinates.
    pub lo: f64,
    pub hi: f64,
    /// Where 0 is drawn on a log axis that has a value 0 (see the module).
    pub zero_at: Option<f64>,
    /// Where the break of a log axis with a 0 is, between the 0 and the rest.
    pub break_at: Option<f64>,
    /// Labelled ticks and gridlines, in plot coordinates.
    pub major: Vec<f64>,
    /// Faint gridlines between them.
    pub minor: Vec<f64>,
}

impl Axis {
    /// An axis holding every finite value of `values` (a log axis leaves
    /// out negative ones and puts a 0 past its break; a linear one starts at
    /// 0 when every value is positive).
    pub fn new(values: &[f64], log: bool) -> Axis {
        let finite = || values.iter().copied().filter(|v| v.is_finite());
        if log {
            let pos = finite().filter(|v| *v > 0.0);
            let (lo, hi) = pos.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
            let has_zero = finite().any(|v| v == 0.0);
            if hi >= lo {
                return Axis::log(lo, hi, has_zero);
            }
            // Nothing above 0: a unit decade, with the 0.
            return Axis::log(1.0, 10.0, has_zero);
        }
        let (lo, hi) = finite().fold((0.0f64, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let hi = if hi <= lo { lo + 1.0 } else { hi };
        Axis::linear(lo, hi)
    }

    fn linear(lo: f64, hi: f64) -> Axis {
        let step = nice_step((hi - lo) / 8.0);
        // A margin above the top point so its marker and error bar show.
        let hi = hi + 0.04 * (hi - lo);
        let lo = if lo < 0.0 { lo - 0.04 * (hi - lo) } else { lo };
        let first = (lo / step).ceil() as i64;
        let last = (hi / step).floor() as i64;
        // A span past f64's range has no round step: its ends will do.
        let major: Vec<f64> = if last.saturating_sub(first) <= 100 {
            (first..=last).map(|k| k as f64 * step).collect()
        } else {
            vec![lo, hi]
        };
        Axis {
            log: false,
            lo,
            hi,
            zero_at: None,
            break_at: None,
            major,
            minor: Vec::new(),
        }
    }

    fn log(min: f64, max: f64, has_zero: bool) -> Axis {
        let (lmin, lmax) = (min.log10(), max.log10());
        // A little room beyond the data; a decade's gridline when it is near.
        let mut lo = lmin - 0.08;
        let mut hi = lmax + 0.08;
        if lo - lo.floor() < 0.3 {
            lo = lo.floor();
        }
        if hi.ceil() - hi < 0.3 {
            hi = hi.ceil();
        }
        if hi - lo < 1.0 {
            // Less than a decade: centre one on the data.
            let mid = 0.5 * (lmin + lmax);
            lo = lo.min(mid - 0.5);
            hi = hi.max(mid + 0.5);
        }
        if !has_zero {
            return log_ticks(lo, hi);
        }
        // The 0 half a decade left of the data, the break between.
        lo = lo.max(lmin - 0.15);
        let zero = lmin - 0.6;
        let mut a = log_ticks(lo, hi);
        a.major.insert(0, zero);
        a.break_at = Some(0.5 * (zero + lo));
        a.zero_at = Some(zero);
        a.lo = zero - 0.15;
        a
    }

    /// A value in plot coordinates; None where this axis cannot show it
    /// (0 or below on a log axis without a 0, below 0 on one with it).
    pub fn map(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        if !self.log {
            return Some(v);
        }
        if v > 0.0 {
            Some(v.log10())
        } else if v == 0.0 {
            self.zero_at
        } else {
            None
        }
    }

    /// A value in plot coordinates, held inside the shown range (an error
    /// bar's end below a log axis' bottom).
    pub fn map_clamped(&self, v: f64) -> f64 {
        match self.map(v) {
            Some(t) => t.clamp(self.lo, self.hi),
            None => self.lo,
        }
    }

    /// The label of a tick at plot coordinate `t`.
    pub fn label(&self, t: f64) -> String {
        if self.zero_at.is_some_and(|z| (z - t).abs() < 1e-9) {
            return "0".into();
        }
        if self.log {
            round_label(10f64.powf(t))
        } else {
            round_label(t)
        }
    }

    /// The labels of the major ticks, in order.
    pub fn labels(&self) -> Vec<String> {
        self.major.iter().map(|&t| self.label(t)).collect()
    }
}

/// Ticks of a log axis over [lo, hi] (log10 units): every decade, with 2
/// and 5 between when fewer than three decades show, and every integer
/// multiple when even that leaves fewer than three.
fn log_ticks(lo: f64, hi: f64) -> Axis {
    let multiples = |ms: &[f64]| -> Vec<f64> {
        let mut out = Vec::new();
        for d in (lo.floor() as i32 - 1)..=(hi.ceil() as i32) {
            for &m in ms {
                let t = (m * 10f64.powi(d)).log10();
                if t >= lo - 1e-9 && t <= hi + 1e-9 {
                    out.push(t);
                }
            }
        }
        out
    };
    let all = multiples(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    let mut major = multiples(&[1.0]);
    if major.len() < 3 {
        major = multiples(&[1.0, 2.0, 5.0]);
    }
    if major.len() < 3 {
        major = all.clone();
    }
    let minor = all
        .into_iter()
        .filter(|t| !major.iter().any(|m| (m - t).abs() < 1e-9))
        .collect();
    Axis {
        log: true,
        lo,
        hi,
        zero_at: None,
        break_at: None,
        major,
        minor,
    }
}

/// A step of 1, 2 or 5 times a power of ten, at least `raw`.
pub fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    let norm = raw / mag;
    let m = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .find(|&m| m >= norm * (1.0 - 1e-9))
        .unwrap_or(10.0);
    m * mag
}

/// A round value as a tick reads: 0.05, 2.5, 500, 1k, 25k, 100k, 1M, 2G.
pub fn round_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    // Three significant digits at most, trailing zeros dropped.
    let digits = (3 - scaled.abs().log10().floor() as i32 - 1).clamp(0, 9) as usize;
    let mut s = format!("{scaled:.digits$}");
    if s.contains('.') {
        s = s.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    format!("{s}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(values: &[f64], log: bool) -> Vec<String> {
        Axis::new(values, log).labels()
    }

    #[test]
    fn log_ticks_are_decades() {
        assert_eq!(
            labels(&[1.0, 100_000.0], true),
            ["1", "10", "100", "1k", "10k", "100k"]
        );
        assert_eq!(labels(&[10.0, 1000.0], true), ["10", "100", "1k"]);
        assert_eq!(labels(&[0.002, 0.3], true), ["0.001", "0.01", "0.1"]);
    }

    /// The ring plot's old x axis read 130, 160, 200, 250…
    #[test]
    fn a_log_axis_within_a_decade_or_two_ticks_at_1_2_5() {
        assert_eq!(labels(&[130.0, 250.0], true), ["100", "200", "500"]);
        let l = labels(&[100.0, 3000.0], true);
        assert_eq!(l, ["100", "200", "500", "1k", "2k"]);
    }

    #[test]
    fn a_zero_on_a_log_axis_sits_past_a_break() {
        let a = Axis::new(&[0.0, 1.0, 10.0, 100_000.0], true);
        assert_eq!(a.labels(), ["0", "1", "10", "100", "1k", "10k", "100k"]);
        let zero = a.map(0.0).unwrap();
        let brk = a.break_at.unwrap();
        assert!(a.lo < zero && zero < brk && brk < a.map(1.0).unwrap());
        assert_eq!(Axis::new(&[1.0, 100.0], true).map(0.0), None);
        assert_eq!(a.map(-1.0), None);
    }

    #[test]
    fn linear_ticks_are_round_steps() {
        assert_eq!(
            labels(&[0.0, 100_000.0], false),
            ["0", "20k", "40k", "60k", "80k", "100k"]
        );
        assert_eq!(
            labels(&[3.0, 741.9], false),
            ["0", "100", "200", "300", "400", "500", "600", "700"]
        );
        assert_eq!(
            labels(&[0.13, 0.25], false),
            ["0", "0.05", "0.1", "0.15", "0.2", "0.25"]
        );
    }

    #[test]
    fn extreme_values_give_an_axis_not_a_hang() {
        for values in [
            vec![-1e308, 1e308],
            vec![f64::NAN, f64::INFINITY, 5.0],
            vec![],
            vec![7.0, 7.0],
            vec![1e-300, 1e300],
        ] {
            for log in [false, true] {
                let a = Axis::new(&values, log);
                assert!(a.lo < a.hi, "{values:?} {log}: {a:?}");
                assert!(a.major.len() + a.minor.len() < 10_000);
            }
        }
    }

    #[test]
    fn nice_steps_are_1_2_5() {
        assert_eq!(nice_step(0.7), 1.0);
        assert_eq!(nice_step(1.0), 1.0);
        assert_eq!(nice_step(1.3), 2.0);
        assert_eq!(nice_step(3.0), 5.0);
        assert_eq!(nice_step(16_667.0), 20_000.0);
        assert_eq!(nice_step(0.0), 1.0);
    }

    #[test]
    fn round_labels_read_as_a_person_writes_them() {
        for (v, s) in [
            (1.0, "1"),
            (1000.0, "1k"),
            (2500.0, "2.5k"),
            (100_000.0, "100k"),
            (1e6, "1M"),
            (0.05, "0.05"),
            (0.001, "0.001"),
            (150.0, "150"),
            (-20.0, "-20"),
        ] {
            assert_eq!(round_label(v), s, "{v}");
        }
    }

    #[test]
    fn auto_goes_log_where_values_span_decades() {
        // E1: sizes 0…100k, Rust at 10 µs, Python at 10 ms.
        let x = decades([0.0, 1.0, 10.0, 100_000.0]);
        let y = decades([10.0, 10_000.0]);
        assert_eq!(log_axes(Scale::Auto, x, y), (true, true));
        // One peer whose time grows 20-fold over those sizes: still log-log.
        assert_eq!(
            log_axes(Scale::Auto, x, decades([8.0, 170.0])),
            (true, true)
        );
        // The ring: N over three decades, a cost per hop within 2×.
        assert_eq!(
            log_axes(Scale::Auto, decades([10.0, 1000.0]), decades([0.13, 0.25])),
            (true, false)
        );
        // E1's own sizes, 0…100000 in steps of 10000, one peer.
        let x = decades((0..=10).map(|k| k as f64 * 10_000.0));
        assert_eq!(
            log_axes(Scale::Auto, x, decades([30.0, 400.0])),
            (false, false)
        );
        assert_eq!(log_axes(Scale::Linear, 5.0, 5.0), (false, false));
        assert_eq!(log_axes(Scale::Log, 0.0, 0.0), (true, true));
        assert_eq!(decades([]), 0.0);
    }

    #[test]
    fn scales_parse_and_name_the_valid_ones() {
        assert_eq!("log".parse::<Scale>(), Ok(Scale::Log));
        assert_eq!("auto".parse::<Scale>(), Ok(Scale::Auto));
        assert_eq!("linear".parse::<Scale>(), Ok(Scale::Linear));
        let e = "logx".parse::<Scale>().unwrap_err();
        assert!(e.contains("`logx`") && e.contains("auto, linear or log"));
    }
}
