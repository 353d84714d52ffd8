//! E4 as it was run, in Python exactly: a file of random bytes read whole
//! by alternating 50- and 450-byte reads, and by 450-byte reads at random
//! offsets, each by `seek()+read()` on the file, `seek()+read()` on an
//! mmap, and slicing the mmap — the file's pages evicted before every trial
//! (E4 dropped the page cache), and warm beside, to test E4's caveat.
//! Sequential passes are scaled to E4's 100,000,000 bytes when the preset's
//! file is smaller.

use super::findings::{self, Claim, Figure};
use super::originals::{self as o, Original};
use super::{of_summary, Ctx, Experiment, Report, INTERRUPTED};
use crate::file::cache::Cache;
use crate::file::data::{self, Source};
use crate::file::plan::{Pattern, E4_FILE_SIZE, E4_RANDOM_LEN};
use crate::file::{self, FileConfig, FileOutcome, Method};
use toll_peers::Runtime;

/// E4's three methods, in its order.
const METHODS: [&str; 3] = ["read", "mmap-read", "mmap-slice"];

pub fn run(ctx: &mut Ctx) -> Report {
    let p = ctx.preset;
    let size: u64 = p.pick(E4_FILE_SIZE, 20_000_000, 1_000_000);
    let reads: u64 = p.pick(200_000, 50_000, 2_000);
    let trials: u32 = p.pick(10, 3, 2);
    let mut report = Report::new(
        Experiment::E4,
        format!(
            "toll file --runtime python: a {size}-byte file; seq (50 + 450 B reads) and {reads} random {E4_RANDOM_LEN} B reads; \
             read, mmap-read, mmap-slice; cold ({}) and warm; {trials} rounds",
            if crate::file::cache::may_drop_caches() {
                "the page cache dropped before each trial, as E4 did"
            } else {
                "the file evicted before each trial: dropping the whole page cache, as E4 did, needs root"
            }
        ),
    );
    let outcome = measure(ctx, &mut report, size, reads, trials);
    let run = outcome.as_ref().ok().map(|o| o.run_id);
    let scale = E4_FILE_SIZE as f64 / size as f64;
    for (i, name) in METHODS.iter().enumerate() {
        let subject = format!("python/{name}");
        let cell = |pattern: Pattern, cache: Cache, k: f64, total: bool| {
            let out = outcome.as_ref().map_err(Clone::clone)?;
            let s = out
                .series
                .iter()
                .find(|s| s.method.name == *name && s.pattern == pattern && s.cache == cache)
                .ok_or_else(|| INTERRUPTED.to_string())?;
            let point = s.points.first().ok_or_else(|| INTERRUPTED.to_string())?;
            match &point.result {
                Ok(f) if total => Ok(of_summary(&f.total, k)),
                Ok(f) => Ok(of_summary(&f.per_read, k)),
                Err(why) => Err(format!("failed: {why}")),
            }
        };
        let warm_original =
            || Err::<Original, _>("E4 dropped the cache before every test".to_string());
        let seq_figure = "seq pass, ms per 100 MB";
        report.row(
            &subject,
            format!("{seq_figure}, cold"),
            "ms",
            Ok(o::E4_SEQ_MS[i]),
            cell(Pattern::Seq, Cache::Cold, scale * 1e-6, true),
            run,
        );
        report.row(
            &subject,
            format!("{seq_figure}, warm"),
            "ms",
            warm_original(),
            cell(Pattern::Seq, Cache::Warm, scale * 1e-6, true),
            run,
        );
        report.row(
            &subject,
            "random, µs per read, cold",
            "µs",
            Ok(o::E4_RANDOM_US[i]),
            cell(Pattern::Random, Cache::Cold, 1e-3, false),
            run,
        );
        report.row(
            &subject,
            "random, µs per read, warm",
            "µs",
            warm_original(),
            cell(Pattern::Random, Cache::Warm, 1e-3, false),
            run,
        );
    }
    findings(&mut report);
    report
}

fn measure(
    ctx: &mut Ctx,
    report: &mut Report,
    size: u64,
    reads: u64,
    trials: u32,
) -> Result<FileOutcome, String> {
    if Runtime::Python.detect().is_err() {
        return Err(format!(
            "python not installed: {}",
            Runtime::Python.install_hint()
        ));
    }
    if ctx.stopped() {
        return Err(INTERRUPTED.into());
    }
    let located = data::locate(
        &Source::Own {
            dir: data::default_dir(),
            size,
        },
        E4_RANDOM_LEN,
    )
    .map_err(|e| {
        report.failed("file", &e);
        format!("failed: {e}")
    })?;
    let cfg = FileConfig {
        file: located,
        methods: METHODS
            .iter()
            .map(|&name| Method {
                runtime: Runtime::Python,
                name,
            })
            .collect(),
        patterns: vec![Pattern::Seq, Pattern::Random],
        sizes: None,
        caches: vec![Cache::Cold, Cache::Warm],
        trials,
        reads,
        seed: 1,
        // E4 dropped the OS page cache before every test; toll does too
        // where it may (root), else it evicts the file (posix_fadvise).
        drop_caches: crate::file::cache::may_drop_caches(),
    };
    match file::run(&cfg, ctx.store, ctx.observer, ctx.stop) {
        Err(e) => {
            report.failed("file --runtime python", &e);
            Err(format!("failed: {e}"))
        }
        Ok(out) => {
            report.runs.push(out.run_id);
            if let Some(e) = &out.error {
                report.failed("file --runtime python", e);
            }
            Ok(out)
        }
    }
}

fn findings(report: &mut Report) {
    let mut found = vec![];
    let seq = "seq pass, ms per 100 MB, cold";
    let at = |m: &str, figure: &str| report.figure(&format!("python/{m}"), figure);
    // Slicing against the faster of the other two.
    let next = at("read", seq).and_then(|r| {
        let m = at("mmap-read", seq)?;
        Ok(if r.value <= m.value {
            ("read", r)
        } else {
            ("mmap-read", m)
        })
    });
    let slice_seq = next.clone().and_then(|(name, other)| {
        let s = at("mmap-slice", seq)?;
        other
            .over(s)
            .map(|q| (name, q))
            .ok_or_else(|| "mmap-slice's interval reaches 0".into())
    });
    let what = match &slice_seq {
        Ok((name, _)) => {
            format!("python/{name} (the next fastest) ÷ mmap-slice, a cold sequential pass")
        }
        Err(_) => String::new(),
    };
    found.push(findings::from_ratio(
        "mmap slicing is the fastest sequential method",
        slice_seq.map(|(_, q)| q),
        Claim::Above(1.0),
        &what,
        &format!(
            "E4: {} (mmap read 492 ms ÷ slice 169 ms)",
            findings::times(o::E4_SEQ_MS[1].value / o::E4_SEQ_MS[2].value)
        ),
    ));
    let random = "random, µs per read, cold";
    let mmap_random = at("read", random).and_then(|r| {
        r.over(at("mmap-slice", random)?)
            .ok_or_else(|| "mmap-slice's interval reaches 0".into())
    });
    found.push(findings::from_ratio(
        "random reads cost less through an mmap than through file reads",
        mmap_random,
        Claim::Above(1.0),
        "python/read ÷ python/mmap-slice per random read, cold",
        &format!(
            "E4: {} (18.1 µs ÷ 10.3 µs)",
            findings::times(o::E4_RANDOM_US[0].value / o::E4_RANDOM_US[2].value)
        ),
    ));
    let lie = at("read", random).and_then(|c: Figure| {
        c.over(at("read", "random, µs per read, warm")?)
            .ok_or_else(|| "the warm interval reaches 0".into())
    });
    found.push(findings::from_ratio(
        "the page cache must be dropped or the numbers lie (cold reads cost more)",
        lie,
        Claim::Above(1.0),
        "python/read per random read, cold ÷ warm",
        "E4: a caveat, no figure",
    ));
    report.findings.extend(found);
}
