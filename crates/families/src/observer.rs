//! How a family reports progress while it measures (the CLI draws it).

use toll_measure::Summary;

/// Receives progress events; every method defaults to doing nothing.
pub trait Observer {
    /// A series begins; it will measure `points` points.
    fn series_started(&mut self, _label: &str, _points: usize) {}
    /// One size of a series was measured once (a round's batch at it): the
    /// step a progress bar counts, so it moves through a run.
    fn trial_done(&mut self, _label: &str, _n: u64) {}
    /// A point of the current series was measured.
    fn point_done(&mut self, _label: &str, _n: u64, _summary: &Summary) {}
    /// A round of a series (every size once) is done.
    fn round_done(&mut self, _label: &str, _round: usize) {}
    /// Something the user should know, with its remedy.
    fn warning(&mut self, _message: &str) {}
    /// What a slow set-up step is doing (building a worker on first use).
    fn note(&mut self, _message: &str) {}
}

/// An observer that ignores everything.
pub struct Quiet;
impl Observer for Quiet {}
