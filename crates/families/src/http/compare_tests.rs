//! The warm-up, scheduling and stopping rules, driven with made-up rates.

use super::*;

fn rules() -> Rules {
    Rules {
        round: Duration::from_secs(1),
        window: 3,
        tolerance: 0.05,
        warmup_max: 8,
        min_rounds: 5,
        max_rounds: 30,
        ci_target: 0.02,
        max_time: Duration::from_secs(3600),
    }
}

/// Run a comparison to its end: `rate(round, k)` gives the k-th rate (from
/// 0) of that server in that phase; each round takes one second. Returns
/// the rounds in order and why it stopped; a runaway schedule fails the
/// test instead of hanging it.
fn drive(
    mut cmp: Comparison,
    mut rate: impl FnMut(Round, usize) -> f64,
) -> (Comparison, Vec<Round>, StopReason) {
    let mut rounds = Vec::new();
    for step in 0..10_000u64 {
        match cmp.next(Duration::from_secs(step)) {
            Next::Stop(why) => return (cmp, rounds, why),
            Next::Run(r) => {
                let k = rounds.iter().filter(|x| **x == r).count();
                cmp.record(r, rate(r, k));
                rounds.push(r);
            }
        }
    }
    panic!("the comparison did not stop by itself");
}

fn warmup(server: usize) -> Round {
    Round {
        server,
        phase: Phase::Warmup,
    }
}

fn measure(server: usize) -> Round {
    Round {
        server,
        phase: Phase::Measure,
    }
}

#[test]
fn stable_means_the_last_rates_agree_within_the_tolerance() {
    assert!(stable(&[1000.0, 1010.0, 990.0], 3, 0.05));
    assert!(stable(&[1000.0, 1049.0, 951.0], 3, 0.05), "4.9% off is in");
    assert!(!stable(&[1000.0, 1060.0, 1000.0], 3, 0.05), "6% off is out");
    assert!(!stable(&[100.0, 300.0, 600.0], 3, 0.05), "still climbing");
    assert!(
        stable(&[100.0, 300.0, 1000.0, 1001.0, 999.0], 3, 0.05),
        "only the last three count"
    );
    assert!(!stable(&[1000.0, 1000.0], 3, 0.05), "fewer than the window");
    assert!(!stable(&[1000.0; 5], 0, 0.05), "no window, never stable");
    assert!(!stable(&[f64::NAN; 3], 3, 0.05));
}

#[test]
fn warm_up_alternates_and_a_jit_server_warms_up_for_longer() {
    // A is steady from the start; B (a JIT) climbs for four rounds first.
    let b_warmup = [100.0, 300.0, 600.0, 900.0, 1000.0, 1000.0, 1000.0];
    let (cmp, rounds, why) = drive(Comparison::new(2, rules()), |r, k| match r {
        Round { server: 0, .. } => 2000.0,
        Round {
            phase: Phase::Warmup,
            ..
        } => b_warmup[k],
        _ => 1000.0,
    });
    let expected_warmup = [0, 1, 0, 1, 0, 1, 1, 1, 1, 1].map(warmup);
    assert_eq!(&rounds[..10], &expected_warmup, "A B A B A B, then B alone");
    assert_eq!(cmp.warmup_rates(0).len(), 3);
    assert_eq!(cmp.warmup_rates(1).len(), 7);
    assert!(cmp.is_stable(0) && cmp.is_stable(1));
    // Then measured cycles alternate direction (A B, B A, …), and a
    // constant ratio stops at the minimum.
    let measured = &rounds[10..];
    assert_eq!(measured.len(), 10, "5 rounds of each: {measured:?}");
    for (i, r) in measured.iter().enumerate() {
        let server = if (i / 2) % 2 == 0 { i % 2 } else { 1 - i % 2 };
        assert_eq!(*r, measure(server), "A B B A A B … at {i}");
    }
    assert_eq!(why, StopReason::Narrow);
    let (ratio, pairs) = cmp.ratio(1).unwrap();
    assert_eq!(
        (ratio.median, ratio.lo, ratio.hi, pairs),
        (0.5, 0.5, 0.5, 5)
    );
    assert_eq!(Verdict::of(&ratio), Verdict::Slower);
}

#[test]
fn a_server_that_never_settles_is_measured_after_warmup_max() {
    let mut r = rules();
    r.warmup_max = 4;
    let (cmp, rounds, _) = drive(Comparison::new(2, r), |r, k| match (r.server, r.phase) {
        (1, Phase::Warmup) => [500.0, 1000.0][k % 2],
        _ => 1000.0,
    });
    assert_eq!(cmp.warmup_rates(1).len(), 4, "bounded by --warmup-max");
    assert!(!cmp.is_stable(1), "reported as not stable");
    assert!(rounds.iter().any(|r| r.phase == Phase::Measure));
    // No warm-up at all with --warmup-max 0.
    let mut r = rules();
    r.warmup_max = 0;
    let (_, rounds, _) = drive(Comparison::new(2, r), |_, _| 1000.0);
    assert_eq!(rounds[0], measure(0));
}

#[test]
fn a_noisy_ratio_runs_to_max_rounds_and_stops_there() {
    let mut r = rules();
    r.warmup_max = 0;
    r.max_rounds = 12;
    // B's rate swings ±20% round to round: the CI stays wide.
    let (cmp, rounds, why) = drive(Comparison::new(2, r), |r, k| match r.server {
        0 => 1000.0,
        _ => [800.0, 1200.0, 1000.0][k % 3],
    });
    assert_eq!(why, StopReason::MaxRounds);
    assert_eq!(rounds.len(), 24);
    assert_eq!(cmp.cycles(), 12);
    assert!(!cmp.all_narrow());
    let (ratio, _) = cmp.ratio(1).unwrap();
    assert!(ratio.half_width() > 0.02, "{ratio:?}");
    assert_eq!(Verdict::of(&ratio), Verdict::WithinNoise);
}

#[test]
fn narrow_waits_for_min_rounds_and_every_ratio() {
    let mut r = rules();
    r.warmup_max = 0;
    r.min_rounds = 7;
    // B is a steady 0.5; C wobbles ±1.5% (within ±2%) around 1.1.
    let (cmp, rounds, why) = drive(Comparison::new(3, r), |r, k| match r.server {
        0 => 1000.0,
        1 => 500.0,
        _ => [1085.0, 1100.0, 1115.0][k % 3],
    });
    assert_eq!(why, StopReason::Narrow);
    assert_eq!(cmp.cycles(), 7, "not before --min-rounds");
    let order: Vec<usize> = rounds.iter().map(|r| r.server).collect();
    assert_eq!(&order[..9], &[0, 1, 2, 2, 1, 0, 0, 1, 2], "ABBA cycles");
    let (c, _) = cmp.ratio(2).unwrap();
    assert!(c.half_width() <= 0.02 && c.lo > 1.0, "{c:?}");
    assert_eq!(Verdict::of(&c), Verdict::Faster);
}

#[test]
fn max_time_stops_before_a_cycle_that_would_not_fit() {
    let mut r = rules();
    r.warmup_max = 0;
    r.max_time = Duration::from_secs(10);
    let cmp = Comparison::new(2, r.clone());
    // Two 1-second rounds fit in the 2 s left, not in the 1.5 s left.
    assert_eq!(cmp.next(Duration::from_secs(8)), Next::Run(measure(0)));
    assert_eq!(
        cmp.next(Duration::from_millis(8500)),
        Next::Stop(StopReason::MaxTime)
    );
    // Mid-cycle the pair is finished, so it stays whole.
    let mut cmp = Comparison::new(2, r.clone());
    cmp.record(measure(0), 1000.0);
    assert_eq!(cmp.next(Duration::from_secs(9)), Next::Run(measure(1)));
    // The warm-up is bounded by the time too.
    r.warmup_max = 8;
    let cmp = Comparison::new(2, r);
    assert_eq!(
        cmp.next(Duration::from_millis(9500)),
        Next::Stop(StopReason::MaxTime)
    );
    // Driven to the end, a long comparison stops near the bound.
    let mut r = rules();
    r.max_time = Duration::from_secs(20);
    let (_, rounds, why) = drive(Comparison::new(2, r), |r, k| match r.server {
        0 => 1000.0,
        _ => [800.0, 1200.0][k % 2],
    });
    assert_eq!(why, StopReason::MaxTime);
    assert!(rounds.len() <= 20, "{} one-second rounds", rounds.len());
}

#[test]
fn paired_ratios_skip_rounds_where_the_base_answered_nothing() {
    let (e, pairs) = paired_ratio(&[1000.0, 0.0, 1000.0], &[500.0, 500.0, 500.0]).unwrap();
    assert_eq!(pairs, 2);
    assert_eq!(e.median, 0.5);
    assert!(paired_ratio(&[0.0, 0.0], &[1.0, 1.0]).is_none());
    assert!(paired_ratio(&[], &[]).is_none());
    // Only whole pairs count: a round of A without its B is left out.
    let (_, pairs) = paired_ratio(&[1000.0, 1000.0, 1000.0], &[500.0, 500.0]).unwrap();
    assert_eq!(pairs, 2);
    // A server that answered nothing has ratio 0: never narrow, slower.
    let (e, _) = paired_ratio(&[1000.0, 1000.0], &[0.0, 0.0]).unwrap();
    assert!(e.half_width().is_infinite());
    assert_eq!(Verdict::of(&e), Verdict::Slower);
}

#[test]
fn labels_run_a_to_z_then_numbers() {
    assert_eq!(label(0), "A");
    assert_eq!(label(25), "Z");
    assert_eq!(label(26), "#27");
}

#[test]
fn the_stopping_rule_looks_at_each_doubling_of_the_minimum() {
    let looks: Vec<usize> = (0..=50).filter(|&d| is_look(d, 5)).collect();
    assert_eq!(looks, [5, 10, 20, 40]);
    assert!(is_look(7, 7) && is_look(14, 7) && !is_look(21, 7));
    // A ratio that is narrow from the start still stops at the first look.
    let mut r = rules();
    r.warmup_max = 0;
    r.min_rounds = 5;
    let (cmp, _, why) = drive(Comparison::new(2, r), |r, _| match r.server {
        0 => 1000.0,
        _ => 500.0,
    });
    assert_eq!((why, cmp.cycles()), (StopReason::Narrow, 5));
}
