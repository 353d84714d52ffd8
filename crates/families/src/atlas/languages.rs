//! The languages' rows, from `toll ffi` at one size (a null call, α): for
//! C and Rust a function call direct and through dlopen; for every other
//! runtime with bindings, the call into C by its cheapest binding here and
//! by its common one. One family run per runtime, so a runtime that cannot
//! be built loses its own rows only.

use super::group::Group;
use super::read::Stored;
use super::row::{Kind, MadeOf, Planned, Sheet, Source, Take};
use crate::ffi::{self, FfiConfig, FfiTarget};
use crate::replicate::{Ctx, Preset, INTERRUPTED};
use std::time::Duration;
use toll_measure::EngineConfig;
use toll_peers::{Ceiling, Runtime};

const G: Group = Group::Languages;

/// The binding most programs of a runtime use.
fn common(r: Runtime) -> &'static str {
    match r {
        Runtime::Python => "ctypes",
        Runtime::Java => "jni",
        Runtime::Go => "cgo",
        Runtime::Node => "napi",
        Runtime::Erlang => "nif",
        Runtime::Haskell => "safe",
        _ => "direct",
    }
}

fn engine(p: Preset) -> EngineConfig {
    p.pick(
        EngineConfig::default(),
        // A warm-up long enough for a JIT: at 20 ms the quick atlas found
        // Java's FFM call slower than JNI (C2 had not compiled the
        // downcall) and CPython's ctypes call at twice the full atlas's.
        // The family's own 10 ms batch: fewer trials of the same one.
        EngineConfig {
            trials: 5,
            warmup: Duration::from_millis(300),
            ..EngineConfig::default()
        },
        EngineConfig {
            trials: 3,
            warmup: Duration::from_millis(2),
            batch_time: Duration::from_millis(1),
            ..EngineConfig::default()
        },
    )
}

/// The runtimes a preset calls C from.
fn runtimes(p: Preset) -> Vec<Runtime> {
    ffi::runtimes_with_bindings()
        .into_iter()
        .filter(|r| p != Preset::Test || matches!(r, Runtime::Rust | Runtime::C))
        .collect()
}

/// A runtime's rows: (crossing, binding or None for the cheapest).
fn rows_of(r: Runtime) -> Vec<(String, Option<&'static str>)> {
    match r {
        Runtime::C | Runtime::Rust => vec![
            (format!("function call, direct ({r})"), Some("direct")),
            (
                format!("function call through dlopen ({r})"),
                Some("dlopen"),
            ),
        ],
        _ => vec![
            (format!("call into C from {r}, cheapest binding"), None),
            (
                format!("call into C from {r}, common binding"),
                Some(common(r)),
            ),
        ],
    }
}

fn planned(crossing: &str, r: Runtime, binding: &str) -> Planned {
    let how = r.binding(binding).map_or("", |b| b.how);
    Planned::new(
        crossing,
        Kind::Time,
        MadeOf::words(format!("{binding}: {how}")),
        Source::new(format!("{r}/{binding}"), Take::Point { n: 0 }),
    )
}

pub fn run(ctx: &mut Ctx, sheet: &mut Sheet) {
    let p = ctx.preset;
    for r in ffi::runtimes_with_bindings() {
        let rows = rows_of(r);
        let missing = |sheet: &mut Sheet, why: &str| {
            for (crossing, b) in &rows {
                let p = planned(crossing, r, b.unwrap_or(common(r)));
                sheet.missing(G, &p, why);
            }
        };
        if !runtimes(p).contains(&r) {
            missing(sheet, "not measured: left out of the tests' preset");
            continue;
        }
        if let Some(lacking) = [r, Runtime::C].into_iter().find(|x| x.detect().is_err()) {
            let why = format!("{lacking} not installed: {}", lacking.install_hint());
            missing(sheet, &why);
            continue;
        }
        if ctx.stopped() {
            missing(sheet, INTERRUPTED);
            continue;
        }
        let cfg = FfiConfig {
            sizes: vec![0],
            targets: r
                .bindings()
                .iter()
                .map(|binding| FfiTarget {
                    runtime: r,
                    binding,
                    pass: toll_peers::Pass::Pinned,
                })
                .collect(),
            touch: toll_peers::Touch::Receipt,
            engine: engine(p),
            ceiling: Ceiling {
                time: Duration::from_secs(120),
                mem_kb: 4096 * 1024,
            },
            vs_link: false,
        };
        let what = format!("ffi --runtime {r}");
        let id = match ffi::run(&cfg, ctx.store, ctx.observer, ctx.stop) {
            Ok(out) => {
                sheet.runs.push(("ffi".into(), out.run_id));
                if let Some(e) = &out.error {
                    sheet.failed(&what, e);
                }
                out.run_id
            }
            Err(e) => {
                sheet.failed(&what, &e);
                missing(sheet, &format!("failed: {e}"));
                continue;
            }
        };
        let stored = match Stored::load(ctx.store, id, ctx.stopped()) {
            Ok(s) => s,
            Err(why) => {
                missing(sheet, &why);
                continue;
            }
        };
        let null = |b: &str| stored.take(&format!("{r}/{b}"), Take::Point { n: 0 });
        // The cheapest by its median, among the bindings measured here.
        let cheapest = r
            .bindings()
            .iter()
            .filter_map(|b| Some((b.name, null(b.name).ok()?)))
            .min_by(|a, b| a.1.value.total_cmp(&b.1.value))
            .map(|(name, _)| name);
        for (crossing, b) in &rows {
            let binding = b.or(cheapest).unwrap_or(common(r));
            let mut row = planned(crossing, r, binding);
            if b.is_none() && binding == common(r) {
                row.made_of.words.push_str(" (also the common binding)");
            }
            sheet.measured(G, &row, null(binding), id);
        }
    }
}

/// About how long the runs take, s: each runtime's start, and its bindings.
/// How many family runs the group makes: one per runtime.
pub fn family_runs(p: Preset) -> usize {
    runtimes(p).len()
}

pub fn estimate(p: Preset) -> f64 {
    let e = engine(p);
    let per = e.warmup.as_secs_f64() + f64::from(e.trials) * e.batch_time.as_secs_f64() * 1.5;
    runtimes(p)
        .iter()
        .map(|r| 0.8 + r.bindings().len() as f64 * per)
        .sum()
}
