//! The rounds of a comparison, run: the next round from
//! [`Comparison::next`], a timed load of its server, the rate recorded,
//! until the rules say stop. `toll http compare` and `toll replicate E5`
//! both drive their comparisons with it; what they show while it runs is
//! theirs (the `Progress` callbacks). A round's load is this machine's
//! ([`run`]) or any other's ([`run_with`]: from load agents).

use super::compare::{Comparison, Next, Round, RoundRecord, Rules};
use super::{HttpConfig, HttpError, LoadOutcome};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;
use toll_measure::Sample;
use toll_report::http_compare::StopReason;

/// What the caller sees of the rounds as they run.
pub trait Progress {
    /// Before `round` starts.
    fn round(&mut self, cmp: &Comparison, round: Round);
    /// Requests done so far in the current round (about once a second).
    fn requests(&mut self, done: u64);
}

/// A comparison that ended: its state, every round, and why it stopped.
pub struct Rounds {
    pub comparison: Comparison,
    pub records: Vec<RoundRecord>,
    pub stop: StopReason,
}

/// A round's load failed: which server, why, and the rounds before it.
pub struct RoundFailed {
    pub server: usize,
    pub error: HttpError,
    pub done: Rounds,
}

/// One round's load of one server: its config, and where the requests
/// done so far go (about once a second).
pub type Loader<'a> =
    dyn FnMut(&HttpConfig, &mut dyn FnMut(u64)) -> Result<LoadOutcome, HttpError> + 'a;

/// Run the comparison of `cfgs` (each a timed load of one round) by
/// `rules`, each round loaded from this machine. `stop` ends it between
/// rounds (the round under way finishes, so every stored round is whole),
/// as [`StopReason::Interrupted`].
pub fn run(
    cfgs: &[HttpConfig],
    rules: Rules,
    stop: &AtomicBool,
    progress: &mut dyn Progress,
) -> Result<Rounds, Box<RoundFailed>> {
    // Rounds get a flag of their own that is never set.
    let never = Arc::new(AtomicBool::new(false));
    run_with(cfgs, rules, stop, progress, &mut |cfg, done| {
        super::load(cfg, &never, &mut |n, _| done(n))
    })
}

/// [`run`], each round's load made by `load`.
pub fn run_with(
    cfgs: &[HttpConfig],
    rules: Rules,
    stop: &AtomicBool,
    progress: &mut dyn Progress,
    load: &mut Loader,
) -> Result<Rounds, Box<RoundFailed>> {
    let mut cmp = Comparison::new(cfgs.len(), rules);
    let mut records: Vec<RoundRecord> = Vec::new();
    let started = Instant::now();
    let why = loop {
        if stop.load(Ordering::SeqCst) {
            break StopReason::Interrupted;
        }
        let round = match cmp.next(started.elapsed()) {
            Next::Stop(why) => break why,
            Next::Run(r) => r,
        };
        progress.round(&cmp, round);
        let cfg = &cfgs[round.server];
        let start_ns = started.elapsed().as_nanos() as u64;
        let outcome = load(cfg, &mut |done| progress.requests(done));
        let outcome = match outcome {
            Ok(o) => o,
            Err(error) => {
                return Err(Box::new(RoundFailed {
                    server: round.server,
                    error,
                    done: Rounds {
                        comparison: cmp,
                        records,
                        stop: StopReason::Interrupted,
                    },
                }))
            }
        };
        let report = super::report(cfg, &outcome);
        let rate = report.requests_per_second;
        cmp.record(round, rate);
        records.push(RoundRecord {
            seq: records.len(),
            server: round.server,
            phase: round.phase,
            start_ns,
            rate,
            sample: Sample {
                iters: outcome.stats.complete,
                total_ns: outcome.elapsed.as_nanos() as u64,
            },
            report,
        });
    };
    Ok(Rounds {
        comparison: cmp,
        records,
        stop: why,
    })
}
