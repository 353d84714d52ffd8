//! One CSV row per sample, with each series' attributes as `attr_*` columns.

use super::exporter::Exporter;
use std::collections::BTreeSet;
use std::io::{self, Write};
use toll_store::Run;

/// CSV: run_id, family, series, n, trial, iters, total_ns, ns_per_op, attr_….
pub struct CsvExporter;

/// Quote a field when it holds a comma, quote or line break (RFC 4180).
fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn attr_text(v: Option<&serde_json::Value>) -> String {
    match v {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

impl Exporter for CsvExporter {
    fn export(&self, run: &Run, out: &mut dyn Write) -> io::Result<()> {
        let keys: BTreeSet<String> = run
            .series
            .iter()
            .filter_map(|s| s.attrs.as_object())
            .flat_map(|o| o.keys().cloned())
            .collect();
        let mut header = vec![
            "run_id",
            "family",
            "series",
            "n",
            "trial",
            "iters",
            "total_ns",
            "ns_per_op",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        header.extend(keys.iter().map(|k| format!("attr_{k}")));
        writeln!(
            out,
            "{}",
            header
                .iter()
                .map(|h| field(h))
                .collect::<Vec<_>>()
                .join(",")
        )?;
        for s in &run.series {
            let attrs: Vec<String> = keys
                .iter()
                .map(|k| field(&attr_text(s.attrs.get(k))))
                .collect();
            for p in &s.points {
                for (trial, sample) in p.samples.iter().enumerate() {
                    let mut row = vec![
                        run.id.to_string(),
                        field(&run.family),
                        field(&s.label),
                        p.n.to_string(),
                        trial.to_string(),
                        sample.iters.to_string(),
                        sample.total_ns.to_string(),
                        format!("{:.3}", sample.per_op_ns()),
                    ];
                    row.extend(attrs.iter().cloned());
                    writeln!(out, "{}", row.join(","))?;
                }
            }
        }
        Ok(())
    }
}
