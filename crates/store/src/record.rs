//! This machine's runs, remembered outside any one store.
//!
//! A fitted series' interval is widened by how far this machine moves
//! between runs (`toll_measure::run_to_run`), learnt from earlier runs of
//! the series. A store holds only the runs made into it: a run into a new
//! store (`--db` per experiment, a CI job's scratch file) had nothing to
//! learn from, and its interval said only what its own rounds saw — at two
//! cores, where the cross-core wake-up drifts by several percent over a
//! minute, that held the next runs' figures in 2 of 5.
//!
//! So every complete run's fitted series are also written here, one JSON
//! line each, in toll's cache directory (`runs-here.jsonl`; `TOLL_RUN_RECORD`
//! names another file, or `off`), and [`crate::Store::earlier_fits`] reads
//! them after the store's own runs, with the same rules: same host, CPU,
//! toll, kernel and toolchains, complete, not imported; a store's own
//! runs are read from the store, not twice. It is advice, like all history: a
//! record that cannot be read or written changes nothing but the width.

use crate::model::{Run, RunStatus};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The lines kept: the newest, when the file grows past twice as many.
pub const KEEP: usize = 2000;

/// One series of one complete run.
#[derive(Serialize, Deserialize)]
pub(crate) struct Entry {
    pub family: String,
    pub host: String,
    pub label: String,
    pub config: Value,
    /// What the history rules compare: CPU model, kernel, toolchains.
    pub env: Value,
    pub attrs: Value,
    /// The fit (null for a one-point series, whose figure is in `attrs`).
    #[serde(default)]
    pub fit: Value,
    pub version: String,
    /// The store the run was measured into, and its id there.
    pub store: String,
    pub run: i64,
}

/// The record's file, or None when `TOLL_RUN_RECORD=off`.
pub fn path() -> Option<PathBuf> {
    match std::env::var_os("TOLL_RUN_RECORD") {
        Some(v) if v == "off" || v == "0" => None,
        Some(v) if !v.is_empty() => Some(PathBuf::from(v)),
        _ => Some(toll_measure::cache::cache_dir().join("runs-here.jsonl")),
    }
}

/// How a store is named in the record: its file made absolute, or its URL.
pub(crate) fn store_name(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// The fields of a fingerprint the history rules read.
fn compact(env: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for k in ["cpu_model", "kernel", "toolchains"] {
        if let Some(v) = env.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    Value::Object(out)
}

/// Write a complete run's fitted series, measured on `host` into the store
/// at `store`, to the record (nothing when it is switched off).
pub(crate) fn remember(run: &Run, host: &str, store: &Path) {
    if let Some(path) = path() {
        append(&path, &entries(run, host, &store_name(store)));
    }
}

/// Whether a run's fits belong in the record: complete and measured here,
/// as the store's own history asks of its runs.
pub(crate) fn admits(status: RunStatus, imported: bool) -> bool {
    status == RunStatus::Complete && !imported
}

/// The entries of one run's fitted series, measured on `host` into the
/// store named `store`.
pub(crate) fn entries(run: &Run, host: &str, store: &str) -> Vec<Entry> {
    let env = compact(&serde_json::to_value(&run.env).unwrap_or_default());
    run.series
        .iter()
        .filter_map(|s| {
            // A fitted series, or a one-point series with its figure.
            let fit = match &s.fit {
                Some(f) => serde_json::to_value(f).ok()?,
                None if s.attrs.get("figure").is_some() => Value::Null,
                None => return None,
            };
            Some(Entry {
                family: run.family.clone(),
                host: host.into(),
                label: s.label.clone(),
                config: run.config.clone(),
                env: env.clone(),
                attrs: s.attrs.clone(),
                fit,
                version: run.tool_version.clone(),
                store: store.into(),
                run: run.id,
            })
        })
        .collect()
}

/// Append `entries` to the record at `path`, keeping its newest [`KEEP`]
/// lines when it has grown past twice that. Failures are ignored.
pub(crate) fn append(path: &Path, entries: &[Entry]) {
    if entries.is_empty() {
        return;
    }
    let mut text = String::new();
    for e in entries {
        if let Ok(line) = serde_json::to_string(e) {
            text.push_str(&line);
            text.push('\n');
        }
    }
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    else {
        return;
    };
    // One write: concurrent runs append whole lines.
    let _ = f.write_all(text.as_bytes());
    drop(f);
    prune(path);
}

/// Keep the newest [`KEEP`] lines once the file has twice as many: written
/// beside and renamed over, so a reader sees the old file or the new.
fn prune(path: &Path) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= 2 * KEEP {
        return;
    }
    let kept = lines[lines.len() - KEEP..].join("\n") + "\n";
    let tmp = path.with_extension(format!("jsonl.{}", std::process::id()));
    if std::fs::write(&tmp, kept).is_ok() && std::fs::rename(&tmp, path).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

/// The record's entries of `family` on `host` (of series `label` when
/// given) measured into stores other than `except`, newest first. Lines
/// that do not parse are skipped.
pub(crate) fn read(
    path: &Path,
    family: &str,
    label: Option<&str>,
    host: &str,
    except: &str,
) -> Vec<Entry> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Entry>(l).ok())
        .filter(|e| {
            e.family == family
                && e.host == host
                && label.is_none_or(|l| e.label == l)
                && e.store != except
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("toll-record-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d.join("r.jsonl")
    }

    fn entry(label: &str, store: &str, run: i64) -> Entry {
        Entry {
            family: "transfer".into(),
            host: "h".into(),
            label: label.into(),
            config: Value::Null,
            env: serde_json::json!({"cpu_model": "x"}),
            attrs: Value::Null,
            fit: Value::Null,
            version: "1".into(),
            store: store.into(),
            run,
        }
    }

    #[test]
    fn entries_are_read_newest_first_without_this_stores_own() {
        let p = scratch("order");
        append(&p, &[entry("a", "/one", 1), entry("b", "/one", 1)]);
        append(&p, &[entry("a", "/two", 1)]);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .unwrap()
            .write_all(b"not json\n")
            .unwrap();
        append(&p, &[entry("a", "/three", 4)]);
        let got: Vec<(String, i64)> = read(&p, "transfer", Some("a"), "h", "/two")
            .into_iter()
            .map(|e| (e.store, e.run))
            .collect();
        assert_eq!(got, vec![("/three".into(), 4), ("/one".into(), 1)]);
        assert_eq!(read(&p, "transfer", None, "h", "").len(), 4);
        assert!(read(&p, "transfer", None, "other host", "").is_empty());
        assert!(read(&p, "spawn", None, "h", "").is_empty());
    }

    #[test]
    fn the_file_keeps_its_newest_lines() {
        let p = scratch("keep");
        let many: Vec<Entry> = (0..(2 * KEEP as i64 + 1))
            .map(|i| entry("a", "/s", i))
            .collect();
        append(&p, &many);
        let got = read(&p, "transfer", None, "h", "");
        assert_eq!(got.len(), KEEP);
        assert_eq!(got[0].run, 2 * KEEP as i64);
    }

    #[test]
    fn imported_and_unfinished_runs_are_not_remembered() {
        assert!(admits(RunStatus::Complete, false));
        assert!(!admits(RunStatus::Complete, true));
        assert!(!admits(RunStatus::Partial, false));
        assert!(!admits(RunStatus::Failed, false));
    }
}
