//! `toll runs | show | export | import | rm`: the stored results.

use super::db;
use crate::args::{ExportArgs, ImportArgs, RmArgs, RunsArgs, ShowArgs};
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use toll_report::export::{exporter, Format};
use toll_report::table::Table;

/// The families toll stores runs of.
const FAMILIES: &[&str] = &[
    "transfer",
    "spawn",
    "ring",
    "file",
    "rpc",
    "http",
    "http-compare",
    "http-sweep",
    "exec",
    "ffi",
    "replicate",
    "atlas",
];
const STATUSES: &[&str] = &["running", "complete", "partial", "failed"];

/// `--family`/`--status`: the words given, each one of `known` (or one
/// stored here: an imported run may be of a family this toll lacks).
fn chosen(
    flag: &str,
    (what, plural): (&str, &str),
    given: Option<&str>,
    known: &[&str],
    stored: &[&str],
) -> anyhow::Result<Option<Vec<String>>> {
    let Some(text) = given else {
        return Ok(None);
    };
    let words: Vec<String> = text
        .split(',')
        .map(|w| w.trim().to_string())
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        return Err(usage(format!(
            "{flag} is empty: give a comma-separated list"
        )));
    }
    for w in &words {
        if !known.contains(&w.as_str()) && !stored.contains(&w.as_str()) {
            return Err(usage(format!(
                "{flag} `{w}` is not a {what}: the {plural} are {}",
                known.join(", ")
            )));
        }
    }
    Ok(Some(words))
}

/// `toll runs`.
pub fn list(args: RunsArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    // A typo is one line whether or not there are runs.
    chosen(
        "--status",
        ("state", "states"),
        args.status.as_deref(),
        STATUSES,
        &[],
    )?;
    let mut out = crate::screen::output(args.json);
    let store = match db::open_existing(db)? {
        db::Found::Store(s) => s,
        db::Found::Nothing(p) => {
            chosen(
                "--family",
                ("family", "families"),
                args.family.as_deref(),
                FAMILIES,
                &[],
            )?;
            if args.json {
                // The list is empty; where it looked goes to stderr, so a
                // mistyped path is seen without breaking the JSON.
                writeln!(out, "[]")?;
                crate::tell!("note: no runs stored yet ({})", db::where_nothing(&p));
            } else {
                writeln!(out, "no runs stored yet ({})", db::where_nothing(&p))?;
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    let mut runs = store.list_runs()?;
    let stored: Vec<&str> = runs.iter().map(|r| r.family.as_str()).collect();
    let families = chosen(
        "--family",
        ("family", "families"),
        args.family.as_deref(),
        FAMILIES,
        &stored,
    )?;
    let statuses = chosen(
        "--status",
        ("state", "states"),
        args.status.as_deref(),
        STATUSES,
        &[],
    )?;
    runs.retain(|r| {
        families.as_ref().is_none_or(|f| f.contains(&r.family))
            && statuses
                .as_ref()
                .is_none_or(|s| s.iter().any(|w| w == r.status.as_str()))
            && args.host.as_ref().is_none_or(|h| *h == r.host)
    });
    if let Some(n) = args.limit {
        runs.truncate(n as usize);
    }
    let filtered = args.family.is_some() || args.status.is_some() || args.host.is_some();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &runs)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if runs.is_empty() && filtered {
        writeln!(out, "no stored run in {} matches", store.path().display())?;
        return Ok(ExitCode::SUCCESS);
    }
    if runs.is_empty() {
        writeln!(out, "no runs stored in {} yet", store.path().display())?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut t = Table::new(&["run", "family", "started (UTC)", "status", "summary"]);
    for r in &runs {
        t.row(vec![
            r.id.to_string(),
            r.family.clone(),
            r.started_at
                .replace('T', " ")
                .trim_end_matches('Z')
                .to_string(),
            r.status.as_str().to_string(),
            r.summary.clone(),
        ]);
    }
    write!(out, "{}", t.render())?;
    Ok(ExitCode::SUCCESS)
}

/// `toll show`.
pub fn show(args: ShowArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    db::check_run_ref(args.run.as_deref())?;
    let store = db::open_for_reading(db)?;
    let id = db::run_id(&store, args.run.as_deref())?;
    let run = store.load_run(id)?;
    let mut out = crate::screen::stdout();
    write!(out, "{}", toll_report::show::render_run(&run))?;
    if let Some(origin) = store.run_origin(id)? {
        writeln!(out, "{}", origin_line(&origin))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `toll export`.
pub fn export(args: ExportArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    let format: Format = args.format.parse().map_err(|e: String| usage(e))?;
    db::check_run_ref(Some(&args.run))?;
    let store = db::open_for_reading(db)?;
    let id = db::run_id(&store, Some(&args.run))?;
    let run = store.load_run(id)?;
    let exporter = exporter(format);
    match &args.output {
        Some(path) => {
            // Whole or not at all, as `report -o`; and said, as it says.
            let mut bytes = Vec::new();
            exporter.export(&run, &mut bytes)?;
            toll_report::atomic::write(path, &bytes).map_err(|e| {
                anyhow::anyhow!(
                    "cannot write {}: {e}: give a path in a directory you can write to",
                    path.display()
                )
            })?;
            crate::tell!("run {id} exported as {} to {}", args.format, path.display());
        }
        None => exporter.export(&run, &mut std::io::stdout().lock())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `toll rm --dry-run`: which runs would go.
pub fn dry_remove(args: RmArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    let store = db::open_for_reading(db)?;
    for r in &args.runs {
        let id = db::run_id(&store, Some(r))?;
        store.load_run(id)?;
        crate::say!("would remove run {id}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `toll rm`.
pub fn remove(args: RmArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    for r in &args.runs {
        db::check_run_ref(Some(r))?;
    }
    let store = db::open_for_reading(db)?;
    let ids = args
        .runs
        .iter()
        .map(|r| db::run_id(&store, Some(r)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    for id in ids {
        store.remove_run(id)?;
        crate::tell!("removed run {id}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Where an imported run came from, in one line for `toll show`.
fn origin_line(origin: &serde_json::Value) -> String {
    let text = |k: &str| origin.get(k).and_then(|v| v.as_str()).unwrap_or("?");
    format!(
        "imported from {} (run {} there, measured on {}) at {}",
        text("file"),
        origin.get("run").map_or("?".into(), |v| v.to_string()),
        text("host"),
        text("imported_at")
    )
}

/// `toll import FILE…`: every file is read and checked before anything is
/// written, and each run goes in whole in one transaction, so a bad file
/// leaves the store as it was.
pub fn import(args: ImportArgs, db: Option<&Path>, dry: bool) -> anyhow::Result<ExitCode> {
    let mut runs = Vec::new();
    for path in &args.files {
        let text = std::fs::read_to_string(path)
            .map_err(|e| usage(format!("cannot read {}: {e}", path.display())))?;
        let run = toll_report::import::read_run(&text)
            .map_err(|e| usage(format!("{}: {e}", path.display())))?;
        runs.push((path, run));
    }
    if dry {
        for (path, run) in &runs {
            crate::say!(
                "would import run {} ({}, {} series, measured on {}) from {}",
                run.id,
                run.family,
                run.series.len(),
                run.env.hostname,
                path.display()
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let store = db::open(db)?;
    for (path, run) in &runs {
        let file = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let origin = serde_json::json!({
            "file": file.display().to_string(),
            "run": run.id,
            "host": run.env.hostname,
            "tool_version": run.tool_version,
            "imported_by": env!("CARGO_PKG_VERSION"),
        });
        let id = store.import_run(run, &origin)?;
        crate::say!(
            "imported run {} of {} from {} as run {id} in {} — `toll show {id}`",
            run.id,
            run.env.hostname,
            path.display(),
            store.path().display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
