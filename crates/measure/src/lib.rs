//! toll's measuring engine.
//!
//! One engine serves every family: calibrate the clock, warm up, size batches
//! so each timed batch is long against the clock's resolution, take trials and
//! keep every sample, then summarise each point and fit `t(n) = α + β·n` over
//! the points of a series.

pub mod bootstrap;
pub mod clock;
pub mod engine;
pub mod env;
pub mod fit;
pub mod outliers;
pub mod sample;
pub mod summary;

pub use clock::Clock;
pub use engine::{Engine, EngineConfig};
pub use env::Fingerprint;
pub use fit::{Fit, FitMethod, SeriesFit};
pub use sample::Sample;
pub use summary::Summary;
