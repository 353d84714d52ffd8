//! toll's results store.
//!
//! Every run is kept with its family, config, environment fingerprint, tool
//! version and status, and every series, point and raw sample under it, in a
//! SQLite file (bundled SQLite, rollback journal so that a read-only copy can
//! still be read).

mod error;
mod migrate;
mod model;
mod store;
mod time;
pub mod upgrade;

pub use error::StoreError;
pub use model::*;
pub use store::Store;
