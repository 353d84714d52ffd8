//! One trial of `toll file`: put the file in the cache state asked for and
//! count its resident pages, time one pass of reads by a method (in toll for
//! Rust, by a worker for C and Python), and check what it read.

use super::cache::{self, Cache, Residency};
use super::config::{FileConfig, Method};
use super::native;
use super::plan::{Pattern, Reads, SumOf};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::Path;
use std::time::Duration;
use toll_measure::Sample;
use toll_peers::{Ceiling, Launch, Peer, PeerError, Runtime};

/// A worker's time and memory bounds for one trial.
const TRIAL_CEILING: Ceiling = Ceiling {
    time: Duration::from_secs(600),
    mem_kb: 64 << 20,
};

/// The workers that read for Python and C, started on first use and again
/// after one dies.
pub(super) struct Readers {
    pub(super) launches: BTreeMap<Runtime, Launch>,
    pub(super) peers: BTreeMap<Runtime, Peer>,
    pub(super) versions: BTreeMap<Runtime, String>,
}

impl Readers {
    fn peer(&mut self, r: Runtime) -> Result<&mut Peer, PeerError> {
        if !self.peers.contains_key(&r) {
            let launch = self.launches[&r].clone();
            let p = Peer::start(r, launch)?;
            self.versions.insert(r, p.hello.version.clone());
            self.peers.insert(r, p);
        }
        Ok(self.peers.get_mut(&r).expect("just started"))
    }

    /// The runtime's version: toll's own for Rust, else what its worker says.
    pub(super) fn version(&mut self, r: Runtime) -> String {
        if r == Runtime::Rust {
            return env!("CARGO_PKG_VERSION").into();
        }
        if let Some(v) = self.versions.get(&r) {
            return v.clone();
        }
        self.peer(r)
            .map(|p| p.hello.version.clone())
            .unwrap_or_default()
    }

    pub(super) fn close(&mut self) {
        for (_, p) in std::mem::take(&mut self.peers) {
            p.close();
        }
    }
}

/// What every trial needs.
pub(super) struct Trial<'a> {
    pub(super) cfg: &'a FileConfig,
    pub(super) file: &'a File,
    pub(super) offsets: &'a [u64],
    pub(super) offsets_path: Option<&'a Path>,
    pub(super) expected: &'a HashMap<(Reads, SumOf), u64>,
}

impl Trial<'_> {
    /// Put the file in `cache`'s state, count its resident pages, and time
    /// one pass of `reads` by `m`, checking what it read.
    pub(super) fn one(
        &self,
        readers: &mut Readers,
        m: Method,
        cache: Cache,
        reads: &Reads,
    ) -> Result<(Sample, Residency), String> {
        let resident = self.prepare(cache)?;
        let (reads_done, bytes, sum, ns, kind) = if m.runtime == Runtime::Rust {
            let d = native::run(m.name, &self.cfg.file.path, reads, self.offsets)
                .map_err(|e| format!("{} failed: {e}", m.label()))?;
            (d.reads, d.bytes, d.sum, d.ns, SumOf::Bytes)
        } else {
            self.worker(readers, m, reads)?
        };
        if reads_done != reads.count || bytes != reads.bytes() {
            return Err(format!(
                "the {} worker's {} made {reads_done} reads of {bytes} bytes, not {} of {}",
                m.runtime,
                m.name,
                reads.count,
                reads.bytes()
            ));
        }
        let want = self.expected.get(&(reads.clone(), kind)).copied();
        if want != Some(sum) {
            return Err(format!(
                "{} returned the checksum {sum} ({} of what it read), not {}: it did not read the file's bytes",
                m.label(),
                kind.name(),
                want.map_or("known".into(), |w| w.to_string())
            ));
        }
        Ok((
            Sample {
                iters: reads.count,
                total_ns: ns,
            },
            resident,
        ))
    }

    /// Cold: evict the file (and with --drop-caches the machine's cache)
    /// until mincore finds none of it; warm: read it until it is all there.
    fn prepare(&self, cache: Cache) -> Result<Residency, String> {
        let count = || cache::residency(self.file).map_err(|e| format!("mincore: {e}"));
        match cache {
            Cache::Cold => {
                for attempt in 0..3 {
                    if self.cfg.drop_caches {
                        cache::drop_caches()
                            .map_err(|e| format!("cannot drop the page cache: {e}"))?;
                    }
                    cache::evict(self.file).map_err(|e| format!("posix_fadvise: {e}"))?;
                    let r = count()?;
                    if r.resident == 0 {
                        return Ok(r);
                    }
                    if attempt == 2 {
                        return Err(format!(
                            "not cold: {} of the file's {} pages ({:.1}%) stayed in the page cache after {}: another process maps the file, or its filesystem keeps its pages (tmpfs); {}",
                            r.resident,
                            r.pages,
                            100.0 * r.fraction(),
                            if self.cfg.drop_caches { "dropping the page cache" } else { "posix_fadvise(DONTNEED)" },
                            if self.cfg.drop_caches { "put the file on a disk (--dir), or measure --cache warm" } else { "as root, add --drop-caches, put the file on a disk (--dir), or measure --cache warm" },
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                unreachable!("the loop returns")
            }
            Cache::Warm => {
                let mut r = count()?;
                if r.resident < r.pages {
                    cache::warm(self.file).map_err(|e| format!("reading the file: {e}"))?;
                    r = count()?;
                }
                if r.fraction() < 0.99 {
                    return Err(format!(
                        "not warm: only {:.1}% of the file stays in the page cache after reading it: this machine lacks the memory for it; use a smaller --file-size",
                        100.0 * r.fraction()
                    ));
                }
                Ok(r)
            }
        }
    }

    /// One trial by a worker (spec/wire.md, `file`).
    fn worker(
        &self,
        readers: &mut Readers,
        m: Method,
        reads: &Reads,
    ) -> Result<(u64, u64, u64, u64, SumOf), String> {
        let mut cmd = json!({
            "op": "file", "method": m.name, "path": self.cfg.file.path,
            "pattern": reads.pattern, "lens": reads.lens, "reads": reads.count,
        });
        if reads.pattern == Pattern::Random {
            cmd["offsets"] = json!(self.offsets_path);
        }
        let answer = readers
            .peer(m.runtime)
            .and_then(|p| p.units(&cmd, TRIAL_CEILING));
        let a = match answer {
            Ok(a) => a,
            Err(e) => {
                if !matches!(e, PeerError::Refused { .. }) {
                    readers.peers.remove(&m.runtime);
                }
                return Err(e.to_string());
            }
        };
        let num = |k: &str| a.get(k).and_then(Value::as_u64);
        let kind = a
            .get("sum_of")
            .and_then(Value::as_str)
            .and_then(SumOf::parse);
        match (num("reads"), num("bytes"), num("sum"), num("ns"), kind) {
            (Some(r), Some(b), Some(s), Some(ns), Some(kind)) if ns > 0 => {
                Ok((r, b, s, ns, kind))
            }
            _ => Err(format!(
                "the {} worker's answer lacks reads, bytes, sum, sum_of or ns (spec/wire.md, `file`): {a}",
                m.runtime
            )),
        }
    }
}
