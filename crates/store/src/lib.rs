//! toll's results store.
//!
//! Every run is kept with its family, config, environment fingerprint, tool
//! version and status, and every series, point and raw sample under it.

mod error;
mod migrate;
mod model;
mod store;

pub use error::StoreError;
pub use model::*;
pub use store::Store;
