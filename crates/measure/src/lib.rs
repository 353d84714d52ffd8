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

#![warn(missing_docs)]

pub mod bootstrap;
pub mod change;
pub mod clock;
pub mod decision;
pub mod duration_ns;
pub mod engine;
pub mod env;
pub mod fit;
pub mod mann_whitney;
pub mod mean_ci;
pub mod median_ci;
pub mod model;
pub mod outliers;
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
