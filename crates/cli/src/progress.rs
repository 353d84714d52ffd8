//! The progress bar on stderr while a family measures (hidden when stderr is
//! not a terminal).

use indicatif::{ProgressBar, ProgressStyle};
use toll_families::Observer;
use toll_measure::Summary;

/// Draws one bar over every point of a run.
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar over `total` points.
    pub fn new(total: u64) -> Progress {
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
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

    fn point_done(&mut self, label: &str, n: u64, summary: &Summary) {
        self.bar.inc(1);
        self.bar
            .set_message(format!("{label} n={n}: {:.1} µs", summary.median / 1e3));
    }

    fn round_done(&mut self, label: &str, round: usize) {
        self.bar.set_message(format!("{label}: round {round} done"));
        self.bar.tick();
    }

    fn warning(&mut self, message: &str) {
        self.bar.suspend(|| eprintln!("warning: {message}"));
    }

    fn note(&mut self, message: &str) {
        self.bar.suspend(|| eprintln!("note: {message}"));
    }
}
