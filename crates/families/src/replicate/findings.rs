//! The seeds' lessons, checked against this machine's figures: each finding
//! is a claim about a ratio or a difference of measured figures (or of one
//! against a threshold), and its verdict comes from that figure's 95%
//! interval alone — never from a figure written into the code. A lesson that
//! needs several comparisons at once ("the fastest of three") holds only
//! when every one of them does ([`from_every`]).

use serde::Serialize;
pub use toll_report::replicate::num;

/// A measured figure with its confidence interval, in its row's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Figure {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
    /// The interval's coverage where it is less than 95% (a median of
    /// three trials: 75%), or its lower bound for a figure made of such
    /// intervals; None for a 95% interval.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    /// Why the figure has no interval (one repetition; an interval that
    /// would reach 0 for a positive figure, or span more than [`WIDEST`]):
    /// the bounds are then the figure
    /// itself, never printed, and a lesson judged on it is unclear.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_interval: Option<&'static str>,
}

/// The widest interval a figure is printed with, hi ÷ lo: one that spans
/// more says nothing, and is left out with the reason.
pub const WIDEST: f64 = 1000.0;

impl Figure {
    /// A figure with its interval, which always holds the figure; an
    /// interval that is not finite or spans more than [`WIDEST`] is
    /// dropped, with the reason.
    pub fn new(value: f64, lo: f64, hi: f64) -> Figure {
        let f = Figure {
            value,
            lo: lo.min(value),
            hi: hi.max(value),
            level: None,
            no_interval: None,
        };
        if !(lo.is_finite() && hi.is_finite()) {
            f.without("no interval")
        } else if value > 0.0 && lo <= 0.0 {
            f.without("its interval reaches 0: these rounds cannot tell it from 0")
        } else if lo > 0.0 && hi / lo > WIDEST {
            f.without("its interval would span more than 1000×")
        } else {
            f
        }
    }

    /// The figure without an interval, for `why`.
    pub fn without(self, why: &'static str) -> Figure {
        Figure {
            lo: self.value,
            hi: self.value,
            level: None,
            no_interval: Some(why),
            ..self
        }
    }

    /// The same figure, its interval at `level` (kept only below 95%); a
    /// level of 0 (one repetition) is no interval at all.
    pub fn at_level(self, level: Option<f64>) -> Figure {
        if self.no_interval.is_some() {
            return self;
        }
        if level.is_some_and(|l| l <= 0.0) {
            return self.without("one repetition: no interval");
        }
        Figure {
            level: level.filter(|l| *l < 0.95 - 1e-9),
            ..self
        }
    }

    /// Every bound scaled by `k` (a change of unit).
    pub fn scaled(self, k: f64) -> Figure {
        let f = Figure::new(self.value * k, self.lo * k, self.hi * k).at_level(self.level);
        match self.no_interval {
            Some(why) => f.without(why),
            None => f,
        }
    }

    /// The level of an interval made of `self`'s and `other`'s, bound
    /// against far bound: it covers whenever both do, so with independent
    /// errors at least the product of their levels.
    fn joint(self, other: Figure) -> Option<f64> {
        match (self.level, other.level) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.95) * b.unwrap_or(0.95)),
        }
    }

    /// A figure made of `self` and `other`: without an interval when either
    /// has none.
    fn carried(self, other: Figure, made: Figure) -> Figure {
        match self.no_interval.or(other.no_interval) {
            Some(why) => made.without(why),
            None => made.at_level(self.joint(other)),
        }
    }

    /// `self ÷ other` with a conservative interval (each bound against the
    /// other's far bound, as independent errors at their worst); None when
    /// `other` can be 0 or less.
    pub fn over(self, other: Figure) -> Option<Figure> {
        (other.lo > 0.0 && other.value > 0.0 && self.value.is_finite()).then(|| {
            self.carried(
                other,
                Figure::new(
                    self.value / other.value,
                    self.lo / other.hi,
                    self.hi / other.lo,
                ),
            )
        })
    }

    /// `self − other` with a conservative interval (each bound against the
    /// other's far bound, as in [`Figure::over`]).
    pub fn minus(self, other: Figure) -> Figure {
        self.carried(
            other,
            Figure::new(
                self.value - other.value,
                self.lo - other.hi,
                self.hi - other.lo,
            ),
        )
    }
}

/// Whether a seed's lesson still holds here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Holds,
    NoLongerHolds,
    /// The interval spans the claim's threshold: this run cannot tell.
    Unclear,
    /// Part of the series agree, part do not.
    Partly,
    /// A figure it needs is missing (with the reason in the text).
    NotChecked,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Holds => "still holds",
            Verdict::NoLongerHolds => "no longer holds",
            Verdict::Unclear => "unclear",
            Verdict::Partly => "holds in part",
            Verdict::NotChecked => "not checked",
        }
    }
}

/// One lesson of a seed and what this machine says of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub verdict: Verdict,
    /// The line printed under the table.
    pub text: String,
}

/// What a ratio must do for the lesson to hold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Claim {
    /// The ratio is above this (e.g. 1: "A is slower than B").
    Above(f64),
    /// The ratio is below this (e.g. 2: "flat: no knee").
    Below(f64),
    /// The ratio is within this share of 1 (0.1: in [1/1.1, 1.1]: "A
    /// matches B").
    Near(f64),
}

/// The verdict of `ratio` on `claim`: held when the whole interval is on
/// the claim's side of the threshold, refuted when the whole interval is on
/// the other, unclear when it spans it.
pub fn judge(ratio: Figure, claim: Claim) -> Verdict {
    if ratio.no_interval.is_some() {
        return Verdict::Unclear;
    }
    let (inside, outside) = match claim {
        Claim::Above(t) => (ratio.lo > t, ratio.hi <= t),
        Claim::Below(t) => (ratio.hi < t, ratio.lo >= t),
        Claim::Near(share) => {
            let (lo, hi) = (1.0 / (1.0 + share), 1.0 + share);
            (
                ratio.lo >= lo && ratio.hi <= hi,
                ratio.hi < lo || ratio.lo > hi,
            )
        }
    };
    if inside {
        Verdict::Holds
    } else if outside {
        Verdict::NoLongerHolds
    } else {
        Verdict::Unclear
    }
}

/// A finding from a ratio: "{verdict}: {lesson}: 2.10× [1.90, 2.30] {what}; {seed}".
/// `ratio` is Err(why) when a figure it needs is missing.
pub fn from_ratio(
    lesson: &str,
    ratio: Result<Figure, String>,
    claim: Claim,
    what: &str,
    seed: &str,
) -> Finding {
    from_figure(lesson, ratio, claim, times, what, seed)
}

/// A finding from any figure, `show` writing its values and the claim's
/// threshold in its unit (a ratio's `×`, a count's own words).
pub fn from_figure(
    lesson: &str,
    figure: Result<Figure, String>,
    claim: Claim,
    show: fn(f64) -> String,
    what: &str,
    seed: &str,
) -> Finding {
    match figure {
        Err(why) => Finding {
            verdict: Verdict::NotChecked,
            text: format!("not checked: {lesson} — {why}; {seed}"),
        },
        Ok(r) => {
            let verdict = judge(r, claim);
            Finding {
                verdict,
                text: format!(
                    "{}: {lesson}: {} {what}{}; {seed}",
                    verdict.words(),
                    shown(r, show),
                    tail(verdict, claim, show)
                ),
            }
        }
    }
}

/// `2.10× [1.90, 2.30]`, with the interval's level where it is below 95%:
/// `2.10× [1.90, 2.30] (≥ 56% CI)` — the verdict is judged at that level.
fn shown(r: Figure, show: fn(f64) -> String) -> String {
    if let Some(why) = r.no_interval {
        return format!("{} ({why})", show(r.value));
    }
    let level = r
        .level
        .map(|l| format!(" (≥ {:.0}% CI: few trials)", (l * 100.0).floor()))
        .unwrap_or_default();
    format!("{} [{}, {}]{level}", show(r.value), num(r.lo), num(r.hi))
}

/// What a verdict says of the claim's threshold, when it needs saying.
fn tail(verdict: Verdict, claim: Claim, show: fn(f64) -> String) -> String {
    match (verdict, claim) {
        (Verdict::Unclear, Claim::Above(t) | Claim::Below(t)) => {
            format!(" (the interval spans {})", show(t))
        }
        (Verdict::Unclear, Claim::Near(share)) => format!(
            " (the interval reaches past {}–{})",
            show(1.0 / (1.0 + share)),
            show(1.0 + share)
        ),
        (_, Claim::Near(share)) => format!(
            " (matching: within {}–{})",
            show(1.0 / (1.0 + share)),
            show(1.0 + share)
        ),
        _ => String::new(),
    }
}

/// A lesson that is a conjunction ("faster than each of the others"),
/// each part a (name, ratio) judged on `claim`: it holds when every part
/// holds, no longer holds when any part is refuted (one refutation is
/// enough, whatever the others say), is not checked when a part is missing,
/// and is unclear otherwise. Every part is printed with its own interval.
pub fn from_every(
    lesson: &str,
    parts: &[(String, Result<Figure, String>)],
    claim: Claim,
    what: &str,
    seed: &str,
) -> Finding {
    let verdicts: Vec<Verdict> = parts
        .iter()
        .map(|(_, r)| r.as_ref().map_or(Verdict::NotChecked, |r| judge(*r, claim)))
        .collect();
    let verdict = if parts.is_empty() {
        Verdict::NotChecked
    } else if verdicts.contains(&Verdict::NoLongerHolds) {
        Verdict::NoLongerHolds
    } else if verdicts.contains(&Verdict::NotChecked) {
        Verdict::NotChecked
    } else if verdicts.iter().all(|v| *v == Verdict::Holds) {
        Verdict::Holds
    } else {
        Verdict::Unclear
    };
    let each: Vec<String> = parts
        .iter()
        .zip(&verdicts)
        .map(|((name, r), v)| match r {
            Ok(r) => format!("{name} {}{}", shown(*r, times), tail(*v, claim, times)),
            Err(why) => format!("{name} not measured ({why})"),
        })
        .collect();
    Finding {
        verdict,
        text: format!(
            "{}: {lesson}: {} {what}; {seed}",
            verdict.words(),
            each.join(", ")
        ),
    }
}

/// A finding over several series: held when every one holds it, refuted
/// when none does, partly otherwise. `each` is (series, holds, detail).
pub fn from_count(lesson: &str, each: &[(String, bool, String)], seed: &str) -> Finding {
    if each.is_empty() {
        return Finding {
            verdict: Verdict::NotChecked,
            text: format!("not checked: {lesson} — no series was measured; {seed}"),
        };
    }
    let held = each.iter().filter(|(_, h, _)| *h).count();
    let verdict = match held {
        h if h == each.len() => Verdict::Holds,
        0 => Verdict::NoLongerHolds,
        _ => Verdict::Partly,
    };
    let against: Vec<String> = each
        .iter()
        .filter(|(_, h, _)| !*h)
        .map(|(s, _, d)| format!("{s} ({d})"))
        .collect();
    let detail = if against.is_empty() {
        format!("all {} series", each.len())
    } else {
        format!(
            "{held} of {} series; not {}",
            each.len(),
            against.join(", ")
        )
    };
    Finding {
        verdict,
        text: format!("{}: {lesson}: {detail}; {seed}", verdict.words()),
    }
}

/// A lesson this tree cannot check yet, with the reason.
pub fn not_checked(lesson: &str, why: &str, seed: &str) -> Finding {
    from_ratio(lesson, Err(why.to_string()), Claim::Above(1.0), "", seed)
}

/// `2.1×`, with digits enough for small and large ratios.
pub fn times(v: f64) -> String {
    format!("{}×", num(v))
}

#[cfg(test)]
#[path = "findings_tests.rs"]
mod tests;
