//! Warm-up, batch sizing and trials for one point of a sweep.

use crate::clock::Clock;
use crate::sample::Sample;
use serde::{Deserialize, Serialize};
use std::time::{Duration, Instant};

/// How hard to measure each point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineConfig {
    /// Timed trials per point (each one batch).
    pub trials: u32,
    /// Warm-up time per point before any trial is kept.
    #[serde(with = "crate::duration_ns", rename = "warmup_ns")]
    pub warmup: Duration,
    /// Target duration of one timed batch (raised to 1000 × clock resolution if shorter).
    #[serde(with = "crate::duration_ns", rename = "batch_time_ns")]
    pub batch_time: Duration,
    /// Upper bound on operations per batch.
    pub max_iters: u64,
}

impl Default for EngineConfig {
    /// 10 trials (the E3 tradition), 100 ms warm-up, 10 ms batches, at most
    /// 10 million operations per batch.
    fn default() -> Self {
        EngineConfig {
            trials: 10,
            warmup: Duration::from_millis(100),
            batch_time: Duration::from_millis(10),
            max_iters: 10_000_000,
        }
    }
}

/// The engine for one run: a calibrated clock and a config.
#[derive(Debug, Clone)]
pub struct Engine {
    /// The calibrated clock; it sets the shortest batch worth timing.
    pub clock: Clock,
    /// How hard to measure each point.
    pub config: EngineConfig,
}

impl Engine {
    /// An engine with a freshly calibrated clock.
    pub fn new(config: EngineConfig) -> Engine {
        Engine {
            clock: Clock::calibrate(),
            config,
        }
    }

    /// Measure one point. `probe(iters)` performs `iters` operations and returns
    /// how long they took. The engine warms up, picks a batch size so one batch
    /// lasts at least `batch_time` (and ≥ 1000× the clock resolution), then runs
    /// `trials` batches. `keep_going()` is polled between batches; when it
    /// returns false the samples so far are returned.
    ///
    /// Warm-up calls the probe with 1, 2, 4, … operations (capped at
    /// `max_iters`) until the time the probe reports, or the wall-clock time
    /// spent (which also counts the probe's untimed overhead), reaches
    /// `warmup`. The last warm-up call, the largest, gives the per-operation
    /// estimate from which the batch size is chosen: ⌈target / per-op⌉,
    /// clamped to 1..=`max_iters`. `keep_going()` is polled before every probe
    /// call, warm-up included. A probe error is returned at once.
    pub fn measure<E>(
        &self,
        probe: &mut dyn FnMut(u64) -> Result<Duration, E>,
        keep_going: &dyn Fn() -> bool,
    ) -> Result<Vec<Sample>, E> {
        let start = Instant::now();
        self.measure_with(probe, keep_going, &|| start.elapsed())
    }

    /// Warm one point up and choose its batch size, without timing a trial:
    /// the first half of [`Engine::measure`], for sweeps that then take the
    /// trials of every point in interleaved rounds ([`Engine::trial`]).
    /// None when stopped.
    pub fn calibrate<E>(
        &self,
        probe: &mut dyn FnMut(u64) -> Result<Duration, E>,
        keep_going: &dyn Fn() -> bool,
    ) -> Result<Option<u64>, E> {
        let start = Instant::now();
        let max_iters = self.config.max_iters.max(1);
        let wall = || start.elapsed();
        Ok(self
            .warm_up(probe, keep_going, &wall, max_iters)?
            .map(|per_op| self.batch_iters(per_op, max_iters)))
    }

    /// One timed batch of `iters` operations.
    pub fn trial<E>(
        &self,
        probe: &mut dyn FnMut(u64) -> Result<Duration, E>,
        iters: u64,
    ) -> Result<Sample, E> {
        let took = probe(iters)?;
        Ok(Sample {
            iters,
            total_ns: u64::try_from(took.as_nanos()).unwrap_or(u64::MAX),
        })
    }

    /// [`Engine::measure`] with the wall clock injected, so tests are exact.
    fn measure_with<E>(
        &self,
        probe: &mut dyn FnMut(u64) -> Result<Duration, E>,
        keep_going: &dyn Fn() -> bool,
        wall: &dyn Fn() -> Duration,
    ) -> Result<Vec<Sample>, E> {
        let trials = self.config.trials as usize;
        if trials == 0 {
            return Ok(Vec::new());
        }
        let max_iters = self.config.max_iters.max(1);

        let Some(per_op_ns) = self.warm_up(probe, keep_going, wall, max_iters)? else {
            return Ok(Vec::new());
        };
        let iters = self.batch_iters(per_op_ns, max_iters);

        let mut samples = Vec::with_capacity(trials);
        for _ in 0..trials {
            if !keep_going() {
                break;
            }
            let took = probe(iters)?;
            samples.push(Sample {
                iters,
                total_ns: u64::try_from(took.as_nanos()).unwrap_or(u64::MAX),
            });
        }
        Ok(samples)
    }

    /// Run the warm-up; the per-operation estimate in ns, or None if stopped.
    fn warm_up<E>(
        &self,
        probe: &mut dyn FnMut(u64) -> Result<Duration, E>,
        keep_going: &dyn Fn() -> bool,
        wall: &dyn Fn() -> Duration,
        max_iters: u64,
    ) -> Result<Option<f64>, E> {
        let warmup = self.config.warmup;
        let mut iters = 1u64;
        let mut reported = Duration::ZERO;
        loop {
            if !keep_going() {
                return Ok(None);
            }
            let took = probe(iters)?;
            reported = reported.saturating_add(took);
            if reported >= warmup || wall() >= warmup {
                return Ok(Some(took.as_nanos() as f64 / iters as f64));
            }
            iters = iters.saturating_mul(2).min(max_iters);
        }
    }

    /// Operations per batch so a batch lasts at least the target duration.
    fn batch_iters(&self, per_op_ns: f64, max_iters: u64) -> u64 {
        let target_ns = (self.config.batch_time.as_nanos() as f64).max(self.clock.min_batch_ns());
        if per_op_ns <= 0.0 {
            // Too fast to see at all: take the most we are allowed.
            return max_iters;
        }
        let wanted = (target_ns / per_op_ns).ceil();
        if wanted >= max_iters as f64 {
            max_iters
        } else {
            (wanted as u64).max(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    fn engine(resolution_ns: f64, config: EngineConfig) -> Engine {
        Engine {
            clock: Clock {
                resolution_ns,
                read_cost_ns: 20.0,
            },
            config,
        }
    }

    /// Run the engine with a probe whose operations cost `ns_per_op` each;
    /// the wall clock stands still. Returns the iteration counts it was asked
    /// for and the samples.
    fn run(engine: &Engine, ns_per_op: u64) -> (Vec<u64>, Vec<Sample>) {
        let mut calls = Vec::new();
        let mut probe = |iters: u64| {
            calls.push(iters);
            Ok::<_, ()>(Duration::from_nanos(iters * ns_per_op))
        };
        let samples = engine
            .measure_with(&mut probe, &|| true, &|| Duration::ZERO)
            .unwrap();
        (calls, samples)
    }

    fn doublings(count: u32) -> Vec<u64> {
        (0..count).map(|k| 1u64 << k).collect()
    }

    #[test]
    fn default_config() {
        let c = EngineConfig::default();
        assert_eq!(c.trials, 10);
        assert_eq!(c.warmup, Duration::from_millis(100));
        assert_eq!(c.batch_time, Duration::from_millis(10));
        assert_eq!(c.max_iters, 10_000_000);
    }

    #[test]
    fn new_calibrates_the_clock() {
        let e = Engine::new(EngineConfig::default());
        assert!(e.clock.resolution_ns >= 1.0);
        assert_eq!(e.config, EngineConfig::default());
    }

    #[test]
    fn warms_up_by_doubling_then_sizes_batches_to_batch_time() {
        let e = engine(1.0, EngineConfig::default());
        let (calls, samples) = run(&e, 100);
        // 100 ns × (2^20 − 1) is the first warm-up total ≥ 100 ms: 20 calls.
        let mut expected = doublings(20);
        // 10 ms / 100 ns = 100 000 operations per batch, 10 trials.
        expected.extend([100_000; 10]);
        assert_eq!(calls, expected);
        assert_eq!(
            samples,
            vec![
                Sample {
                    iters: 100_000,
                    total_ns: 10_000_000
                };
                10
            ]
        );
    }

    #[test]
    fn batch_is_rounded_up_to_reach_the_target() {
        let e = engine(1.0, EngineConfig::default());
        let (calls, samples) = run(&e, 3);
        // Doubling hits the 10 M cap after 2^23 (50.3 ms reported); two
        // capped calls of 30 ms pass 100 ms. ⌈10 ms / 3 ns⌉ = 3 333 334.
        let mut expected = doublings(24);
        expected.extend([10_000_000; 2]);
        assert_eq!(calls[..26], expected[..]);
        assert_eq!(calls.len(), 26 + 10);
        assert_eq!(samples.len(), 10);
        assert!(samples.iter().all(|s| s.iters == 3_333_334));
        assert!(samples.iter().all(|s| s.total_ns >= 10_000_000));
    }

    #[test]
    fn coarse_clock_raises_the_batch_to_a_thousand_ticks() {
        // 50 µs resolution: a batch must last ≥ 50 ms, not just 10 ms.
        let e = engine(50_000.0, EngineConfig::default());
        let (_, samples) = run(&e, 100);
        assert_eq!(samples.len(), 10);
        assert!(samples.iter().all(|s| s.iters == 500_000));
    }

    #[test]
    fn max_iters_caps_warm_up_and_batches() {
        let config = EngineConfig {
            warmup: Duration::from_millis(1),
            max_iters: 1000,
            ..EngineConfig::default()
        };
        let (calls, samples) = run(&engine(1.0, config), 100);
        // 1..=512 report 102.3 µs; nine more calls of 1000 pass 1 ms.
        let mut expected = doublings(10);
        expected.extend([1000; 9]);
        expected.extend([1000; 10]);
        assert_eq!(calls, expected);
        assert!(samples.iter().all(|s| s.iters == 1000));
    }

    #[test]
    fn slow_operation_gets_one_per_batch() {
        let (calls, samples) = run(&engine(1.0, EngineConfig::default()), 1_000_000_000);
        assert_eq!(calls, vec![1; 11]);
        assert!(samples.iter().all(|s| *s
            == Sample {
                iters: 1,
                total_ns: 1_000_000_000
            }));
    }

    #[test]
    fn wall_clock_ends_warm_up_and_invisible_ops_take_max_iters() {
        // The probe reports nothing (a clock too coarse for it); the wall
        // clock moves 40 ms per call, so warm-up ends on the third call.
        let e = engine(1.0, EngineConfig::default());
        let mut calls = Vec::new();
        let mut probe = |iters: u64| {
            calls.push(iters);
            Ok::<_, ()>(Duration::ZERO)
        };
        let ticks = Cell::new(0u64);
        let wall = || {
            ticks.set(ticks.get() + 1);
            Duration::from_millis(40 * ticks.get())
        };
        let samples = e.measure_with(&mut probe, &|| true, &wall).unwrap();
        let mut expected = vec![1, 2, 4];
        expected.extend([10_000_000; 10]);
        assert_eq!(calls, expected);
        assert_eq!(samples.len(), 10);
    }

    #[test]
    fn stops_when_told_and_keeps_what_it_took() {
        let e = engine(1.0, EngineConfig::default());
        let polls = Cell::new(0);
        // 20 polls for warm-up, 3 trials, then stop.
        let keep_going = || {
            polls.set(polls.get() + 1);
            polls.get() <= 23
        };
        let mut probe = |iters: u64| Ok::<_, ()>(Duration::from_nanos(iters * 100));
        let samples = e.measure(&mut probe, &keep_going).unwrap();
        assert_eq!(samples.len(), 3);

        let mut called = false;
        let mut probe = |_: u64| {
            called = true;
            Ok::<_, ()>(Duration::from_nanos(1))
        };
        assert!(e.measure(&mut probe, &|| false).unwrap().is_empty());
        assert!(!called);
    }

    #[test]
    fn probe_errors_propagate_at_once() {
        let e = engine(1.0, EngineConfig::default());
        let mut calls = 0;
        let mut probe = |iters: u64| {
            calls += 1;
            if calls == 5 {
                Err(format!("peer died at {iters}"))
            } else {
                Ok(Duration::from_nanos(iters))
            }
        };
        assert_eq!(
            e.measure(&mut probe, &|| true),
            Err("peer died at 16".into())
        );
        assert_eq!(calls, 5);
    }

    #[test]
    fn zero_trials_measure_nothing() {
        let config = EngineConfig {
            trials: 0,
            ..EngineConfig::default()
        };
        let (calls, samples) = run(&engine(1.0, config), 100);
        assert!(calls.is_empty() && samples.is_empty());
    }
}
