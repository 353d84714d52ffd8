//! `toll atlas` (issue 50): "latency numbers every programmer should know",
//! measured on this machine, with intervals — one row per crossing, from a
//! vDSO clock read (~10 ns) to a JVM's start (~100 ms), each measured by
//! its own family. One module per group (hardware.rs: `toll sys`, links.rs:
//! `toll transfer`, threads.rs: `toll spawn` and `toll ring`,
//! languages.rs: `toll ffi`, files.rs: `toll file`, programs.rs: `toll
//! exec`, rpc.rs: `toll rpc`) builds its family's config for the preset,
//! runs it, and reads its rows back from the run it stored (read.rs), so a
//! row says what `toll show` of that run says.
//!
//! As `toll replicate` does, every family run is tagged (`"atlas": true`)
//! and the atlas is stored as a run of its own (family `atlas`) whose
//! config holds the rows — each with its figure or the reason it has none,
//! what it is made of (made_of.rs), the family run and the place in it the
//! figure comes from — the groups left out and why, and the family runs.
//! Interrupted, or a family failed: the atlas is stored as partial with
//! what finished.

pub mod files;
pub mod group;
pub mod hardware;
pub mod knee;
pub mod languages;
pub mod links;
pub mod made_of;
pub mod nginx;
pub mod programs;
pub mod read;
pub mod row;
pub mod rpc;
pub mod threads;

pub use group::{choose, Group, UnknownGroup};
pub use row::{Kind, Row, Sheet};

use crate::replicate::{Ctx, KeepAffinity, Preset};
use serde_json::json;
use std::time::{Duration, Instant};
use toll_measure::Fingerprint;
use toll_store::{NewRun, RunStatus, Store, StoreError};

/// What an atlas run gives back.
#[derive(Debug)]
pub struct Atlas {
    pub preset: Preset,
    /// The groups measured (the rest were left out by `--only`/`--skip`).
    pub groups: Vec<Group>,
    pub sheet: Sheet,
    /// Interrupted, or a family failed.
    pub partial: bool,
    pub elapsed: Duration,
    /// The run that stores it.
    pub run_id: Option<i64>,
}

/// What each family run costs beyond its own measuring, s: its machine's
/// fingerprint (a 300 ms window for the busy share, the wake-up probe),
/// its worker's start and its writes to the store. Calibrated on a quick
/// atlas with an empty toll cache on a 2-vCPU KVM guest (Intel Xeon,
/// another build keeping both CPUs busy): 69.6 s of wall time against
/// 36 s of the groups' own estimates over its 26 family runs.
pub const PER_RUN_S: f64 = 1.3;

/// How many family runs a group makes at a preset.
pub fn family_runs(g: Group, p: Preset) -> usize {
    match g {
        Group::Threads => threads::family_runs(p),
        Group::Languages => languages::family_runs(p),
        // exec's start-ups, then the C one by fork + exec; rpc, then http.
        Group::Programs | Group::Rpc => 2,
        Group::Hardware | Group::Links | Group::Files => 1,
    }
}

/// About how long a group takes at a preset, seconds (`--dry-run`): its
/// own measuring, and each of its family runs' [`PER_RUN_S`].
pub fn estimate(g: Group, p: Preset) -> f64 {
    family_runs(g, p) as f64 * PER_RUN_S
        + match g {
            Group::Hardware => hardware::estimate(p),
            Group::Links => links::estimate(p),
            Group::Threads => threads::estimate(p),
            Group::Languages => languages::estimate(p),
            Group::Files => files::estimate(p),
            Group::Programs => programs::estimate(p),
            Group::Rpc => rpc::estimate(p),
        }
}

/// Measure `groups`, each family run tagged `"atlas": true`, and store the
/// atlas as a run of family `atlas`.
pub fn run(groups: &[Group], ctx: &mut Ctx) -> Result<Atlas, StoreError> {
    ctx.store.tag_runs("atlas", Some(json!(true)));
    let start = Instant::now();
    let mut sheet = Sheet::default();
    for &g in groups {
        // A family that pins toll leaves it pinned: each group starts from
        // every CPU it was given.
        let keep = KeepAffinity::now();
        match g {
            Group::Hardware => hardware::run(ctx, &mut sheet),
            Group::Links => links::run(ctx, &mut sheet),
            Group::Threads => threads::run(ctx, &mut sheet),
            Group::Languages => languages::run(ctx, &mut sheet),
            Group::Files => files::run(ctx, &mut sheet),
            Group::Programs => programs::run(ctx, &mut sheet),
            Group::Rpc => rpc::run(ctx, &mut sheet),
        }
        drop(keep);
    }
    ctx.store.tag_runs("atlas", None);
    let mut atlas = Atlas {
        preset: ctx.preset,
        groups: groups.to_vec(),
        partial: ctx.stopped() || !sheet.errors.is_empty(),
        sheet,
        elapsed: start.elapsed(),
        run_id: None,
    };
    atlas.run_id = Some(store(ctx.store, &atlas)?);
    Ok(atlas)
}

/// Store the atlas: family `atlas`, its rows, groups and runs in its config.
fn store(store: &Store, a: &Atlas) -> Result<i64, StoreError> {
    let groups: Vec<serde_json::Value> = Group::ALL
        .iter()
        .map(|g| {
            let measured = a.groups.contains(g);
            json!({
                "group": g, "family": g.family(), "measured": measured,
                "reason": (!measured).then_some("left out by --only or --skip"),
            })
        })
        .collect();
    let rows: Vec<serde_json::Value> = a
        .sheet
        .rows
        .iter()
        .map(|r| r.stored(&made_of::text(r, &a.sheet)))
        .collect();
    let id = store.begin_run(&NewRun {
        family: "atlas".into(),
        config: json!({
            "preset": a.preset.name(), "groups": groups, "rows": rows,
            "runs": a.sheet.runs.iter().map(|(f, id)| json!({"family": f, "run": id})).collect::<Vec<_>>(),
            "errors": a.sheet.errors, "measuring_s": a.elapsed.as_secs_f64(),
        }),
        env: Fingerprint::capture(vec![]),
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let status = if a.partial {
        RunStatus::Partial
    } else {
        RunStatus::Complete
    };
    let error = (!a.sheet.errors.is_empty()).then(|| a.sheet.errors.join("; "));
    store.finish_run(id, status, &summary_line(&a.sheet), error.as_deref())?;
    Ok(id)
}

/// The one-line summary `toll runs` shows.
pub fn summary_line(sheet: &Sheet) -> String {
    let times: Vec<f64> = sheet
        .rows
        .iter()
        .filter(|r| r.kind == Kind::Time)
        .filter_map(|r| r.figure.as_ref().ok().map(|f| f.value))
        .collect();
    let measured = sheet.rows.iter().filter(|r| r.figure.is_ok()).count();
    let mut s = format!(
        "atlas: {measured} of {} crossings measured",
        sheet.rows.len()
    );
    let lo = times.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = times.iter().copied().fold(0.0, f64::max);
    if !times.is_empty() {
        s.push_str(&format!(
            ", {} to {}",
            toll_report::table::fmt_ns(lo),
            toll_report::table::fmt_ns(hi)
        ));
    }
    s
}
