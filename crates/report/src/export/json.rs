//! The whole run as pretty JSON, with `schema_version` at the top.

use super::exporter::{Exporter, SCHEMA_VERSION};
use std::io::{self, Write};
use toll_store::Run;

/// JSON: the stored run as it is, plus `schema_version`.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        let mut v = serde_json::to_value(run).map_err(io::Error::other)?;
        v["schema_version"] = SCHEMA_VERSION.into();
        serde_json::to_writer_pretty(&mut *out, &v).map_err(io::Error::from)?;
        writeln!(out)
    }
}
