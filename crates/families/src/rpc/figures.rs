//! A cell's figures from its trials: E3's mean time per call with its CI
//! (Student's t over the trials' means), the median and p99 of every call's
//! own latency (an HDR histogram of them all), calls/s, each side's CPU per
//! call, and the round trips each call needed.

use hdrhistogram::Histogram;
use serde::Serialize;
use serde_json::{json, Value};
use toll_measure::mean_ci::positive_mean_ci;
use toll_measure::{Sample, Summary};

/// One trial as measured.
#[derive(Debug, Clone)]
pub struct TrialFigures {
    pub calls: u64,
    pub wall_ns: u64,
    pub latencies: Vec<u64>,
    pub round_trips: u64,
    pub client_cpu_ns: u64,
    /// None: the server was started elsewhere.
    pub server_cpu_ns: Option<u64>,
}

/// A cell's trials so far.
#[derive(Default)]
pub struct Cell {
    pub samples: Vec<Sample>,
    hist: Option<Histogram<u64>>,
    round_trips: u64,
    client_cpu: Vec<u64>,
    server_cpu: Vec<Option<u64>>,
    pub failed: Option<String>,
    pub point_id: Option<i64>,
}

impl Cell {
    pub fn add(&mut self, t: TrialFigures) {
        self.samples.push(sample(t.calls, t.wall_ns));
        let h = self.hist.get_or_insert_with(|| {
            Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds")
        });
        for l in t.latencies {
            h.saturating_record(l.max(1));
        }
        self.round_trips += t.round_trips;
        self.client_cpu.push(t.client_cpu_ns);
        self.server_cpu.push(t.server_cpu_ns);
    }

    /// ns per call, one value per trial: wall time over calls.
    pub fn per_call(&self) -> Vec<f64> {
        self.samples.iter().map(Sample::per_op_ns).collect()
    }

    fn calls(&self) -> u64 {
        self.samples.iter().map(|s| s.iters).sum()
    }

    /// What the store keeps beside the samples.
    pub fn extra(&self) -> Value {
        let q = |p: f64| self.hist.as_ref().map(|h| h.value_at_quantile(p));
        json!({
            "calls_per_trial": self.samples.first().map(|s| s.iters),
            "latency_p50_ns": q(0.5), "latency_p99_ns": q(0.99),
            "latency_max_ns": self.hist.as_ref().map(Histogram::max),
            "round_trips": self.round_trips,
            "client_cpu_ns": self.client_cpu, "server_cpu_ns": self.server_cpu,
        })
    }

    pub fn figures(&self) -> Result<Figures, String> {
        if let Some(why) = &self.failed {
            return Err(why.clone());
        }
        let Some(h) = &self.hist else {
            return Err("not measured (interrupted)".into());
        };
        let per_call = self.per_call();
        let calls = self.calls().max(1) as f64;
        let wall: u64 = self.samples.iter().map(|s| s.total_ns).sum();
        let server: Option<u64> = self.server_cpu.iter().copied().sum();
        Ok(Figures {
            per_call: Summary::of(&per_call),
            mean_ci: positive_mean_ci(&per_call),
            per_call_trials: per_call,
            latency_p50_ns: h.value_at_quantile(0.5) as f64,
            latency_p99_ns: h.value_at_quantile(0.99) as f64,
            calls_per_s: calls / (wall.max(1) as f64 / 1e9),
            client_cpu_ns: self.client_cpu.iter().sum::<u64>() as f64 / calls,
            server_cpu_ns: server.map(|s| s as f64 / calls),
            round_trips: self.round_trips as f64 / calls,
        })
    }
}

/// The figures of one measured point.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    /// ns per call (a trial's wall time over its calls), one per trial.
    pub per_call: Summary,
    pub per_call_trials: Vec<f64>,
    /// The 95% CI of the mean time per call (E3's figure).
    pub mean_ci: (f64, f64),
    pub latency_p50_ns: f64,
    pub latency_p99_ns: f64,
    pub calls_per_s: f64,
    pub client_cpu_ns: f64,
    pub server_cpu_ns: Option<f64>,
    /// Client round trips per call (a per-call look-up makes it 2).
    pub round_trips: f64,
}

impl Figures {
    /// E3's figure: the mean time per call, ns.
    pub fn mean(&self) -> f64 {
        self.per_call.mean
    }
}

/// A sample for the engine: a trial of `calls` calls that took `wall_ns`.
pub fn sample(calls: u64, wall_ns: u64) -> Sample {
    Sample {
        iters: calls,
        total_ns: wall_ns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(calls: u64, wall_ns: u64, lat: u64) -> TrialFigures {
        TrialFigures {
            calls,
            wall_ns,
            latencies: vec![lat; calls as usize],
            round_trips: 2 * calls,
            client_cpu_ns: 10 * calls,
            server_cpu_ns: Some(20 * calls),
        }
    }

    #[test]
    fn figures_are_per_call_over_every_trial() {
        let mut c = Cell::default();
        c.add(trial(100, 1_000_000, 10_000));
        c.add(trial(100, 3_000_000, 30_000));
        let f = c.figures().unwrap();
        assert_eq!(f.per_call_trials, vec![10_000.0, 30_000.0]);
        assert_eq!(f.mean(), 20_000.0);
        assert!(f.mean_ci.0 < 20_000.0 && f.mean_ci.1 > 20_000.0);
        assert_eq!(f.calls_per_s, 200.0 / 4e-3);
        assert_eq!(f.client_cpu_ns, 10.0);
        assert_eq!(f.server_cpu_ns, Some(20.0));
        assert_eq!(f.round_trips, 2.0);
        assert!((f.latency_p99_ns - 30_000.0).abs() / 30_000.0 < 1e-3);
    }

    #[test]
    fn a_failed_or_empty_cell_has_no_figures() {
        assert!(Cell::default().figures().is_err());
        let mut c = Cell::default();
        c.add(trial(10, 1000, 100));
        c.failed = Some("stalled".into());
        assert_eq!(c.figures().unwrap_err(), "stalled");
    }

    #[test]
    fn no_server_cpu_when_any_trial_lacks_it() {
        let mut c = Cell::default();
        let mut t = trial(10, 1000, 100);
        t.server_cpu_ns = None;
        c.add(t);
        assert_eq!(c.figures().unwrap().server_cpu_ns, None);
    }
}
