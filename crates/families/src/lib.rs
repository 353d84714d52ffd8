//! toll's measurement families: each turns a validated config into a plan of
//! points, probes them through the engine, and stores every sample.

pub mod exec;
pub mod far;
pub mod file;
pub mod history;
pub mod http;
pub mod link;
pub mod observer;
pub mod placement;
pub mod replicate;
pub mod rpc;
pub mod sizes;
pub mod transfer;
pub mod units;

pub use observer::{Observer, Quiet};
