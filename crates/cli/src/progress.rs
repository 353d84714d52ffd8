//! The progress bar on stderr while a family measures (hidden when stderr is
//! not a terminal): it counts trials — each size measured once in a round —
//! so it moves through a run, and says how long is left at the pace so far.

use indicatif::{ProgressBar, ProgressStyle};
use toll_families::Observer;
use toll_measure::Summary;

/// Draws one bar over every trial of a run.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar over `total` trials (points × rounds).
    pub fn new(total: u64) -> Progress {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} {elapsed:>4} {bar:24} {pos}/{len} trials, ~{eta} left  {wide_msg}",
            )
            .expect("valid template"),
        );
        Progress { bar }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Observer for Progress {
    fn series_started(&mut self, label: &str, _points: usize) {
        self.bar.set_message(label.to_string());
    }

    fn trial_done(&mut self, label: &str, n: u64) {
        // `--ci` may add rounds beyond the planned ones: the bar grows.
        if self.bar.position() >= self.bar.length().unwrap_or(0) {
            self.bar.inc_length(1);
        }
        self.bar.inc(1);
        self.bar.set_message(format!("{label} n={n}"));
    }

    fn point_done(&mut self, label: &str, n: u64, summary: &Summary) {
        self.bar
            .set_message(format!("{label} n={n}: {:.1} µs", summary.median / 1e3));
    }

    fn round_done(&mut self, label: &str, round: usize) {
        self.bar.set_message(format!("{label}: round {round} done"));
        self.bar.tick();
    }

    fn warning(&mut self, message: &str) {
        self.bar.suspend(|| crate::tell!("warning: {message}"));
    }

    fn note(&mut self, message: &str) {
        self.bar.suspend(|| crate::tell!("note: {message}"));
    }
}
