//! Exporters behind one trait, one file each (as hyperfine does).

mod csv;
mod json;

use std::io::{self, Write};
use std::str::FromStr;
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

/// The formats `toll export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The whole run, every sample, as JSON.
    Json,
    /// One row per sample.
    Csv,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "json" => Ok(Format::Json),
            "csv" => Ok(Format::Csv),
            _ => Err(format!(
                "unknown export format `{s}`: valid formats are json, csv"
            )),
        }
    }
}

/// The exporter for `format`.
pub fn exporter(format: Format) -> Box<dyn Exporter> {
    match format {
        Format::Json => Box::new(json::JsonExporter),
        Format::Csv => Box::new(csv::CsvExporter),
    }
}
