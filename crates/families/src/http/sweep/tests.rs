//! The sweep's order, its stopping rule and its knee, on a server made of
//! arithmetic: capacity `cap` requests per second, latency `floor` ms
//! until then, and a queue past it.

use super::knee::{figures, knee, latency_break};
use super::*;
use toll_report::http_sweep::Percentiles;

type Step = dyn FnMut(usize, usize, f64, Duration) -> Result<StepRun, HttpError>;

fn server(cap: f64, floor: f64) -> Box<Step> {
    Box::new(move |pass, step, offered, _| {
        let achieved = offered.min(cap);
        // A queue grows for a second past capacity.
        let p99 = floor
            + if offered > cap {
                1e3 * (1.0 - cap / offered)
            } else {
                0.0
            };
        let p = Percentiles {
            p50: floor,
            p90: floor,
            p99,
            p999: p99,
        };
        Ok(StepRun {
            pass,
            step,
            offered,
            achieved,
            requests: achieved as u64,
            corrected: p,
            uncorrected: p,
            ..StepRun::default()
        })
    })
}

fn plan(from: f64, to: f64, steps: usize) -> SweepPlan {
    SweepPlan {
        rates: geometric(from, to, steps),
        step: Duration::from_secs(1),
        repeats: 3,
        slo: Slo::Times(5.0),
    }
}

#[test]
fn steps_are_a_constant_factor_apart_and_end_on_both_bounds() {
    let r = geometric(100.0, 1000.0, 6);
    assert_eq!(r.len(), 6);
    assert_eq!((r[0], r[5]), (100.0, 1000.0));
    for w in r.windows(2) {
        assert!((w[1] / w[0] - 10f64.powf(0.2)).abs() < 1e-9, "{r:?}");
    }
}

#[test]
fn the_sweep_stops_two_steps_past_the_knee_in_every_pass() {
    let p = plan(100.0, 1000.0, 6);
    let stop = AtomicBool::new(false);
    let mut ran = Vec::new();
    let out = sweep(&p, &stop, &mut server(200.0, 40.0), &mut |r| {
        ran.push((r.pass, r.step))
    })
    .unwrap();
    // 100, 158 keep up; 251 and 398 do not: 631 and 1000 never run.
    let expect: Vec<(usize, usize)> = (1..=3)
        .flat_map(|pass| (0..4).map(move |s| (pass, s)))
        .collect();
    assert_eq!(ran, expect);
    assert!(out.stopped.contains("2 steps in a row"), "{}", out.stopped);
    assert_eq!(out.slo_ms, 200.0);
    let k = knee(&p.rates, &out.runs).unwrap();
    assert_eq!(k.passes, 3);
    assert!((k.level - 0.75).abs() < 1e-12, "min–max of 3: {k:?}");
    let (lo, hi) = (k.lo.unwrap(), k.hi.unwrap());
    assert!(lo < 200.0 && 200.0 < hi, "{k:?}");
    assert!((k.rate.unwrap() - p.rates[1]).abs() < 1e-9);
    let b = latency_break(&figures(&p.rates, &out.runs)).unwrap();
    assert_eq!(b.split, (p.rates[1], p.rates[2]), "{b:?}");
}

#[test]
fn a_server_that_keeps_up_everywhere_has_its_capacity_above_the_sweep() {
    let p = plan(100.0, 1000.0, 4);
    let stop = AtomicBool::new(false);
    let out = sweep(&p, &stop, &mut server(1e6, 1.0), &mut |_| {}).unwrap();
    assert_eq!(out.runs.len(), 12);
    let k = knee(&p.rates, &out.runs).unwrap();
    assert_eq!((k.lo, k.hi), (Some(1000.0), None));
}

#[test]
fn a_server_swamped_at_the_first_step_has_its_capacity_below_it() {
    let p = plan(100.0, 1000.0, 6);
    let stop = AtomicBool::new(false);
    // The SLO is set by the first step, so the swamp shows in its rate.
    let out = sweep(&p, &stop, &mut server(50.0, 1.0), &mut |_| {}).unwrap();
    assert_eq!(out.runs.len(), 6, "two steps a pass");
    let k = knee(&p.rates, &out.runs).unwrap();
    assert_eq!((k.rate, k.lo, k.hi), (None, None, Some(100.0)));
}

#[test]
fn a_step_that_did_not_keep_up_is_followed_by_a_rest_as_long_as_its_tail() {
    let p = plan(100.0, 1000.0, 6);
    let stop = AtomicBool::new(false);
    let mut inner = server(200.0, 40.0);
    let mut rests = Vec::new();
    sweep(
        &p,
        &stop,
        &mut |a, b, c, d| {
            rests.push(d);
            inner(a, b, c, d)
        },
        &mut |_| {},
    )
    .unwrap();
    // Pass 1: no rest, none, none, then after 251 (p99.9 ≈ 243 ms).
    assert_eq!(rests[..3], [Duration::ZERO; 3]);
    let after = rests[3].as_secs_f64();
    assert!((after - 0.2432).abs() < 1e-3, "{rests:?}");
    // The next pass starts after 398's tail, capped at a step.
    assert!(rests[4] > rests[3] && rests[4] <= p.step, "{rests:?}");
}

#[test]
fn a_blip_below_the_knee_does_not_lower_it() {
    let p = plan(100.0, 1000.0, 6);
    let stop = AtomicBool::new(false);
    let mut inner = server(200.0, 40.0);
    // Pass 2's first step is slow once (a busy machine), then keeps up.
    let out = sweep(
        &p,
        &stop,
        &mut |a, b, c, d| {
            let mut r = inner(a, b, c, d)?;
            if (a, b) == (2, 0) {
                r.corrected.p99 = 1e3;
            }
            Ok(r)
        },
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(out.runs.len(), 12, "one failure is not two in a row");
    let k = knee(&p.rates, &out.runs).unwrap();
    assert_eq!((k.lo, k.hi), (Some(p.rates[1]), Some(p.rates[2])), "{k:?}");
}

#[test]
fn a_stopped_sweep_says_so_and_runs_no_further_step() {
    let p = plan(100.0, 1000.0, 6);
    let stop = AtomicBool::new(false);
    let mut inner = server(200.0, 40.0);
    let mut n = 0;
    let out = sweep(
        &p,
        &stop,
        &mut |a, b, c, d| {
            n += 1;
            if n == 2 {
                stop.store(true, Ordering::Relaxed);
            }
            inner(a, b, c, d)
        },
        &mut |_| {},
    )
    .unwrap();
    assert!(out.interrupted);
    assert_eq!(out.runs.len(), 2);
}

#[test]
fn a_lost_agent_ends_the_sweep_with_the_steps_before_it_kept() {
    let p = plan(100.0, 1000.0, 6);
    let stop = AtomicBool::new(false);
    let lose_at = |at: usize| {
        let mut inner = server(200.0, 40.0);
        let mut n = 0;
        sweep(
            &p,
            &stop,
            &mut move |a, b, c, d| {
                n += 1;
                if n == at {
                    return Err(HttpError::Agents("agent `far` died".into()));
                }
                inner(a, b, c, d)
            },
            &mut |_| {},
        )
    };
    // Lost at the third step: two steps kept, and the reason names the
    // step and the agent.
    let out = lose_at(3).unwrap();
    assert_eq!(out.runs.len(), 2);
    assert!(!out.interrupted);
    let why = out.broken.as_deref().unwrap();
    assert!(
        why.contains("pass 1 step 3") && why.contains("agent `far` died"),
        "{why}"
    );
    assert_eq!(out.stopped, why);
    // Lost at the first step: nothing to keep, the error itself.
    assert!(matches!(lose_at(1), Err(HttpError::Agents(_))));
    // Any other failure of a step is the sweep's error, as before.
    let other = sweep(
        &p,
        &stop,
        &mut |_, _, _, _| Err(HttpError::Io("boom".into())),
        &mut |_| {},
    );
    assert!(matches!(other, Err(HttpError::Io(_))));
}
