//! toll's results store.
//!
//! Every run is kept with its family, config, environment fingerprint, tool
//! version and status, and every series, point and raw sample under it. Two
//! backends behind one [`Store`]: a SQLite file by default (bundled SQLite,
//! rollback journal so that a read-only copy can still be read), and a
//! PostgreSQL database named by a `postgres://` URL for a team's shared
//! store. Both have the same tables, from the same migrations.
//!
//! The backends sit behind one trait, with one migration list written per
//! dialect; runs stored by an older toll are read in today's shape as they are
//! read (the stored text is untouched); `Store::tag_runs` merges keys into
//! the config of every run begun while it is set. The tests start a real
//! PostgreSQL server of their own in a temporary directory.

mod backend;
mod earlier;
mod error;
mod migrate;
mod model;
mod pg;
pub mod record;
mod rows;
mod sqlite;
mod store;
mod time;
pub mod upgrade;

pub use error::StoreError;
pub use time::rfc3339;

/// `rustc --version` of the compiler that built toll (empty when it could
/// not be asked), stored with a run whose Rust code it compiled.
pub const RUSTC_VERSION: &str = env!("TOLL_RUSTC_VERSION");
pub use model::*;
pub use store::{display_name, is_postgres_url, Store};
