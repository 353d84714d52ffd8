//! The whole run as pretty JSON, with `schema_version` at the top: its
//! frame, then each point's samples into their gaps (frame.rs), so an
//! export of millions of samples is never held whole.

use super::exporter::Exporter;
use super::frame::Frame;
use std::io::{self, Write};
use toll_store::Run;

/// JSON: the stored run as it is, plus `schema_version`.
pub struct JsonExporter;

impl Exporter for JsonExporter {
    fn export(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        Frame::of(run).write_with(out, |g| &run.series[g.series].points[g.point].samples)
    }
}
