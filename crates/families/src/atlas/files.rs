//! The files' rows, from one `toll file` run: 4 KiB read at random offsets
//! of toll's own file by pread and out of an mmap (copied), warm (every
//! page resident) and cold (the file's pages evicted before each trial
//! and counted gone, by `toll file`'s own cold state).

use super::group::Group;
use super::hardware::{MEMCPY, SYSCALL};
use super::read::fill;
use super::row::{Kind, MadeOf, Planned, Sheet, Source, Take};
use crate::file::cache::Cache;
use crate::file::data::{self, Source as Data};
use crate::file::plan::Pattern;
use crate::file::{self, FileConfig, Method};
use crate::replicate::{Ctx, Preset, INTERRUPTED};
use toll_peers::Runtime;

const G: Group = Group::Files;
const READ: u64 = 4096;

/// (file bytes, reads a trial, trials): E4's file and reads in full and
/// quick, fewer trials in quick. A read's time depends on both: the
/// mapping's pages, and how much of the file a cold trial's earlier reads
/// (and an mmap fault's read-around) have brought back by the time of each.
fn sizes(p: Preset) -> (u64, u64, u32) {
    p.pick(
        (100_000_000, 10_000, 10),
        (100_000_000, 10_000, 5),
        (1_000_000, 50, 2),
    )
}

/// A file's size as the rows name it: `a 100 MB file`.
fn file_size(bytes: u64) -> String {
    match bytes {
        b if b >= 1_000_000 && b % 1_000_000 == 0 => format!("a {} MB file", b / 1_000_000),
        b if b >= 1_000 && b % 1_000 == 0 => format!("a {} kB file", b / 1_000),
        b => format!("a {b}-byte file"),
    }
}

fn planned(size: u64) -> Vec<Planned> {
    let mut out = vec![];
    for (method, name) in [("pread", "pread"), ("mmap-copy", "mmap read")] {
        for cache in [Cache::Warm, Cache::Cold] {
            let mut words = match (method, cache) {
                ("pread", Cache::Warm) => MadeOf::of("1 syscall and a 4 KiB copy out of the page cache", &[(1.0, SYSCALL), (READ as f64, MEMCPY)]),
                (_, Cache::Warm) => MadeOf::of("a 4 KiB copy out of a mapping already faulted in: no syscall", &[(READ as f64, MEMCPY)]),
                ("pread", Cache::Cold) => MadeOf::words("1 syscall, the device's read of the page (and its read-ahead), the copy"),
                _ => MadeOf::words("a major page fault: the device's read of the page (and its read-ahead), then the copy"),
            };
            words.words.push_str(&format!("; in {}", file_size(size)));
            out.push(
                Planned::new(
                    format!("4 KiB {name} at random, {cache}"),
                    Kind::Time,
                    words,
                    Source::new(
                        format!("rust/{method}/random/{cache}"),
                        Take::Point { n: READ },
                    ),
                )
                .at(file_size(size)),
            );
        }
    }
    out
}

pub fn run(ctx: &mut Ctx, sheet: &mut Sheet) {
    let (size, reads, trials) = sizes(ctx.preset);
    let rows = planned(size);
    if ctx.stopped() {
        rows.iter().for_each(|p| sheet.missing(G, p, INTERRUPTED));
        return;
    }
    let located = data::locate(
        &Data::Own {
            dir: data::default_dir(),
            size,
        },
        READ,
    );
    let run = located.map_err(|e| e.to_string()).and_then(|file| {
        let cfg = FileConfig {
            file,
            methods: ["pread", "mmap-copy"]
                .into_iter()
                .map(|name| Method {
                    runtime: Runtime::Rust,
                    name,
                })
                .collect(),
            patterns: vec![Pattern::Random],
            sizes: Some(vec![READ]),
            caches: vec![Cache::Warm, Cache::Cold],
            trials,
            reads,
            seed: 1,
            // The file's own pages evicted (posix_fadvise), counted gone by
            // mincore: the machine's other files keep their cache.
            drop_caches: false,
        };
        let out = file::run(&cfg, ctx.store, ctx.observer, ctx.stop).map_err(|e| e.to_string())?;
        sheet.runs.push(("file".into(), out.run_id));
        if let Some(e) = &out.error {
            sheet.failed("file", e);
        }
        Ok(out.run_id)
    });
    let run = run.map_err(|e| {
        sheet.failed("file", &e);
        format!("failed: {e}")
    });
    fill(sheet, ctx.store, G, &rows, run, ctx.stopped());
}

/// About how long the run takes, s: making the file once, then each
/// trial's reads — a cold pread about 50 µs (one device read each), a cold
/// mmap read about 10 (a fault's read-around brings back its neighbours),
/// a warm one 2 — as a quick atlas's files group took on a 2-vCPU KVM
/// guest's virtual disk (52 and 11 µs).
pub fn estimate(p: Preset) -> f64 {
    let (size, reads, trials) = sizes(p);
    let made = if data::default_dir().join(data::own_name(size)).exists() {
        0.0
    } else {
        size as f64 / 200e6
    };
    made + f64::from(trials) * reads as f64 * (50e-6 + 10e-6 + 2.0 * 2e-6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_reads_fulls_file_as_often_a_trial_and_the_rows_name_it() {
        let (q, f) = (sizes(Preset::Quick), sizes(Preset::Full));
        assert_eq!((q.0, q.1), (f.0, f.1));
        for r in planned(q.0) {
            assert_eq!(r.at.as_deref(), Some("a 100 MB file"), "{}", r.crossing);
            assert!(
                r.made_of.words.ends_with("; in a 100 MB file"),
                "{}",
                r.made_of.words
            );
        }
        assert_eq!(file_size(1_000_000), "a 1 MB file");
    }
}
