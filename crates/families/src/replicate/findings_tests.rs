//! The lessons' judgements and the figures' arithmetic, checked on made-up figures.

use super::*;

#[test]
fn a_ratio_of_few_trials_medians_says_its_level() {
    // Two medians of three trials: 75% intervals each.
    let a = Figure::new(2.0, 1.8, 2.2).at_level(Some(0.75));
    let b = Figure::new(1.0, 0.9, 1.1).at_level(Some(0.75));
    let r = a.over(b).unwrap();
    assert!((r.level.unwrap() - 0.5625).abs() < 1e-12);
    let f = from_ratio("A costs more", Ok(r), Claim::Above(1.0), "", "E0");
    assert!(f.text.contains("(≥ 56% CI: few trials)"), "{}", f.text);
    // 95% intervals print no level.
    let r = Figure::new(2.0, 1.8, 2.2)
        .over(Figure::new(1.0, 0.9, 1.1))
        .unwrap();
    assert_eq!(r.level, None);
    assert!(!from_ratio("x", Ok(r), Claim::Above(1.0), "", "E0")
        .text
        .contains("CI:"));
}

fn f(v: f64, lo: f64, hi: f64) -> Figure {
    Figure::new(v, lo, hi)
}

#[test]
fn a_ratio_takes_the_far_bounds() {
    let r = f(10.0, 9.0, 12.0).over(f(5.0, 4.0, 6.0)).unwrap();
    assert_eq!((r.value, r.lo, r.hi), (2.0, 1.5, 3.0));
    // A divisor whose interval reaches 0 has none: nor has the ratio.
    let r = f(1.0, 1.0, 1.0).over(f(1.0, 0.0, 2.0)).unwrap();
    assert!(r.no_interval.is_some(), "{r:?}");
    assert!(f(1.0, 1.0, 1.0).over(f(0.0, -1.0, 2.0)).is_none());
}

#[test]
fn an_impossible_interval_is_dropped_with_its_reason() {
    // 7 ns to 12 years: no interval, and a lesson on it is unclear.
    let wide = f(244.0, 7.3e-6, 3.7e11);
    assert_eq!(
        wide.no_interval,
        Some("its interval would span more than 1000×")
    );
    assert_eq!((wide.lo, wide.hi), (244.0, 244.0));
    assert_eq!(judge(wide, Claim::Above(1.0)), Verdict::Unclear);
    // A positive figure whose interval reaches 0.
    assert!(f(72.0, 0.0, 331.0).no_interval.is_some());
    // One repetition: level 0 is no interval.
    let one = f(3.0, 3.0, 3.0).at_level(Some(0.0));
    assert_eq!(one.no_interval, Some("one repetition: no interval"));
    let text = from_ratio("x", Ok(one), Claim::Above(1.0), "", "E0").text;
    assert!(
        text.starts_with("unclear: ") && text.contains("one repetition"),
        "{text}"
    );
    // An interval that misses its own figure is widened to hold it.
    let g = f(5.0, 5.5, 6.0);
    assert_eq!((g.lo, g.hi), (5.0, 6.0));
}

#[test]
fn the_verdict_follows_the_interval_not_the_point() {
    assert_eq!(judge(f(2.0, 1.5, 3.0), Claim::Above(1.0)), Verdict::Holds);
    assert_eq!(
        judge(f(0.5, 0.4, 0.6), Claim::Above(1.0)),
        Verdict::NoLongerHolds
    );
    assert_eq!(judge(f(1.1, 0.9, 1.3), Claim::Above(1.0)), Verdict::Unclear);
    assert_eq!(judge(f(1.1, 0.9, 1.3), Claim::Below(2.0)), Verdict::Holds);
    assert_eq!(judge(f(1.0, 0.95, 1.05), Claim::Near(0.1)), Verdict::Holds);
    assert_eq!(
        judge(f(1.5, 1.3, 1.7), Claim::Near(0.1)),
        Verdict::NoLongerHolds
    );
    assert_eq!(
        judge(f(0.5, 0.4, 0.6), Claim::Near(0.1)),
        Verdict::NoLongerHolds
    );
    assert_eq!(
        judge(f(1.05, 0.95, 1.2), Claim::Near(0.1)),
        Verdict::Unclear
    );
    assert_eq!(
        judge(f(3.0, 2.5, 3.5), Claim::Below(2.0)),
        Verdict::NoLongerHolds
    );
}

#[test]
fn the_words_change_with_the_figures() {
    let lesson = "pipe is faster than tcp";
    let fast = f(100.0, 90.0, 110.0);
    let slow = f(300.0, 280.0, 320.0);
    let holds = from_ratio(
        lesson,
        slow.over(fast).ok_or("x".into()),
        Claim::Above(1.0),
        "tcp ÷ pipe",
        "E1: 16×",
    );
    assert_eq!(holds.verdict, Verdict::Holds);
    assert!(
        holds.text.starts_with(
            "still holds: pipe is faster than tcp: 3.00× [2.55, 3.56] tcp ÷ pipe; E1: 16×"
        ),
        "{}",
        holds.text
    );
    let refuted = from_ratio(
        lesson,
        fast.over(slow).ok_or("x".into()),
        Claim::Above(1.0),
        "tcp ÷ pipe",
        "E1: 16×",
    );
    assert_eq!(refuted.verdict, Verdict::NoLongerHolds);
    assert!(
        refuted
            .text
            .starts_with("no longer holds: pipe is faster than tcp: 0.33× [0.28, 0.39]"),
        "{}",
        refuted.text
    );
    let unclear = from_ratio(
        lesson,
        fast.over(f(101.0, 95.0, 105.0)).ok_or("x".into()),
        Claim::Above(1.0),
        "",
        "",
    );
    assert_eq!(unclear.verdict, Verdict::Unclear);
    assert!(
        unclear.text.contains("the interval spans 1.00×"),
        "{}",
        unclear.text
    );
    let missing = from_ratio(
        lesson,
        Err("ghc not installed: apt-get install ghc".into()),
        Claim::Above(1.0),
        "",
        "E2",
    );
    assert_eq!(missing.verdict, Verdict::NotChecked);
    assert!(missing
        .text
        .contains("ghc not installed: apt-get install ghc"));
}

#[test]
fn a_count_is_held_only_by_all() {
    let s = |n: &str, h: bool| (n.to_string(), h, "curve".to_string());
    assert_eq!(
        from_count("a line", &[s("a", true), s("b", true)], "").verdict,
        Verdict::Holds
    );
    let p = from_count("a line", &[s("a", true), s("b", false)], "");
    assert_eq!(p.verdict, Verdict::Partly);
    assert!(
        p.text.contains("1 of 2 series; not b (curve)"),
        "{}",
        p.text
    );
    assert_eq!(
        from_count("a line", &[s("b", false)], "").verdict,
        Verdict::NoLongerHolds
    );
    assert_eq!(from_count("a line", &[], "").verdict, Verdict::NotChecked);
}

#[test]
fn a_difference_takes_the_far_bounds() {
    let d = f(10.0, 9.0, 12.0).minus(f(5.0, 4.0, 6.0));
    assert_eq!((d.value, d.lo, d.hi), (5.0, 3.0, 8.0));
}

#[test]
fn a_figure_is_shown_in_its_own_unit() {
    let rt = |v: f64| format!("{} round trips", num(v));
    let x = from_figure(
        "more round trips",
        Ok(f(1.0, 0.9, 1.1)),
        Claim::Above(0.5),
        rt,
        "broker − direct",
        "E3",
    );
    assert_eq!(x.verdict, Verdict::Holds);
    assert!(
        x.text
            .starts_with("still holds: more round trips: 1.00 round trips [0.90, 1.10]"),
        "{}",
        x.text
    );
    let u = from_figure("r", Ok(f(0.5, 0.2, 0.8)), Claim::Above(0.5), rt, "", "");
    assert!(u.text.contains("spans 0.50 round trips"), "{}", u.text);
}

#[test]
fn every_part_must_hold_and_one_refutation_is_enough() {
    let part = |n: &str, r: Figure| (n.to_string(), Ok(r));
    let held = from_every(
        "a is fastest",
        &[
            part("b ÷ a", f(2.0, 1.5, 2.5)),
            part("c ÷ a", f(3.0, 2.0, 4.0)),
        ],
        Claim::Above(1.0),
        "",
        "",
    );
    assert_eq!(held.verdict, Verdict::Holds);
    assert!(
        held.text
            .contains("b ÷ a 2.00× [1.50, 2.50], c ÷ a 3.00× [2.00, 4.00]"),
        "{}",
        held.text
    );
    // One part unclear: the whole is unclear, whichever point is lower.
    let unclear = from_every(
        "a is fastest",
        &[
            part("b ÷ a", f(2.0, 1.5, 2.5)),
            part("c ÷ a", f(3.0, 0.8, 5.0)),
        ],
        Claim::Above(1.0),
        "",
        "",
    );
    assert_eq!(unclear.verdict, Verdict::Unclear);
    let refuted = from_every(
        "a is fastest",
        &[
            part("b ÷ a", f(0.5, 0.4, 0.6)),
            ("c ÷ a".to_string(), Err("not run".to_string())),
        ],
        Claim::Above(1.0),
        "",
        "",
    );
    assert_eq!(refuted.verdict, Verdict::NoLongerHolds);
    assert!(refuted.text.contains("c ÷ a not measured (not run)"));
    let missing = from_every(
        "a is fastest",
        &[
            part("b ÷ a", f(2.0, 1.5, 2.5)),
            ("c ÷ a".to_string(), Err("not run".to_string())),
        ],
        Claim::Above(1.0),
        "",
        "",
    );
    assert_eq!(missing.verdict, Verdict::NotChecked);
    assert_eq!(
        from_every("x", &[], Claim::Above(1.0), "", "").verdict,
        Verdict::NotChecked
    );
}
