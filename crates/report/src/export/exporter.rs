//! What every exporter is: the trait each format implements, and the
//! version of the JSON shape they write.

use std::io::{self, Write};
use toll_store::Run;

/// The version of the JSON export's shape (schema.json beside this crate).
/// 3: durations as whole nanoseconds under `_ns` names (issue 17); 5: a
/// fit's stored decision and a median interval's level.
pub const SCHEMA_VERSION: u32 = 5;

/// Writes a stored run in one format.
pub trait Exporter {
    /// Write `run` to `out`.
    fn export(&self, run: &Run, out: &mut dyn Write) -> io::Result<()>;
}
