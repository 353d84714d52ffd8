//! toll's results store.
//!
//! Every run is kept with its family, config, environment fingerprint, tool
//! version and status, and every series, point and raw sample under it. Two
//! backends behind one [`Store`]: a SQLite file by default (bundled SQLite,
//! rollback journal so that a read-only copy can still be read), and a
//! PostgreSQL database named by a `postgres://` URL for a team's shared
//! store. Both have the same tables, from the same migrations.

mod backend;
mod error;
mod migrate;
mod model;
mod pg;
mod sqlite;
mod store;
mod time;
pub mod upgrade;

pub use error::StoreError;
pub use model::*;
pub use store::{display_name, is_postgres_url, Store};
