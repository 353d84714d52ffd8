//! toll's measuring engine.
//!
//! One engine serves every family: calibrate the clock, warm up, size batches
//! so each timed batch is long against the clock's resolution, take trials and
//! keep every sample, then summarise each point and fit `t(n) = α + β·n` over
//! the points of a series.
//!
//! Statistics are pure functions with seeded bootstraps, so the same samples
//! always give the same figures; the engine takes the probe as a closure, so
//! tests drive it with synthetic durations.
//!
//! What is here: the engine and the order of rounds (when to stop); a point's
//! summary (a median's exact interval from order statistics, a mean's,
//! bootstrap, outliers, Mann–Whitney U, ratios); the fit — a weighted line
//! through each size's centre with a bootstrap over whole rounds, its checks
//! (small end, lack of fit), the two-segment model, the model chosen afresh on
//! every resample, and the decision stored with a series; the run-to-run term
//! of every interval; whether a point or a line changed between two runs
//! (`toll compare`); t(n) from a stored model (`toll predict`); durations as
//! `_ns` in JSON; the placement probe; and the environment fingerprint with
//! who else kept the CPUs busy. Nothing here knows about processes, stores or
//! printing: every other crate builds on it.

#![warn(missing_docs)]

pub mod bootstrap;
pub mod cache;
pub mod change;
pub mod chase;
pub mod clock;
pub mod decision;
pub mod duration_ns;
pub mod engine;
pub mod env;
pub mod figure;
pub mod fit;
pub mod hodges_lehmann;
pub mod mann_whitney;
pub mod mean_ci;
pub mod median_ci;
pub mod model;
pub mod outliers;
pub mod platform;
pub mod predict;
pub mod quantile;
pub mod ratio;
pub mod rounds;
pub mod run_to_run;
pub mod sample;
mod series;
pub mod summary;
pub mod wakeup;

pub use clock::Clock;
pub use engine::{Engine, EngineConfig};
pub use env::Fingerprint;
pub use model::ModelCheck;
pub use sample::Sample;
pub use series::{Fit, FitMethod, SeriesFit};
pub use summary::Summary;
