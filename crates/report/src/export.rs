//! Exporters behind one trait, one file each (as hyperfine does); the
//! JSON export's frame and samples apart, for writers that stream it.

mod csv;
mod exporter;
mod frame;
mod json;

use std::str::FromStr;

pub use exporter::{Exporter, SCHEMA_VERSION};
pub use frame::{Frame, Gap, SampleList};

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
