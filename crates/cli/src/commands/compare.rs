//! `toll compare RUN_A RUN_B`: two stored runs, point by point, with an
//! exit status a CI job can gate on (see `args::RunCompareArgs`).

use super::db;
use crate::args::RunCompareArgs;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use toll_report::runs_compare::{self, FailOn, Rules, RunComparison};

/// The exit status when `--fail-on` finds what it names.
pub const GATE_FAILED: u8 = 3;

/// `toll compare`.
pub fn run(args: RunCompareArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    db::check_run_ref(Some(&args.a))?;
    db::check_run_ref(Some(&args.b))?;
    let rules = Rules {
        alpha: args.alpha,
        threshold: args.threshold,
        mixed_latency: args.mixed_latency,
    };
    let fail_on = args
        .fail_on
        .as_deref()
        .map(|t| t.parse::<FailOn>().map_err(usage))
        .transpose()?;
    let store = db::open_for_reading(db)?;
    let a = store.load_run(db::run_id(&store, Some(&args.a))?)?;
    let b = store.load_run(db::run_id(&store, Some(&args.b))?)?;
    if a.family == "atlas" && b.family == "atlas" {
        return atlas(&args, &a, &b);
    }
    if a.family == "http-sweep" && b.family == "http-sweep" {
        return sweeps(&args, &a, &b);
    }
    let c = RunComparison::of(&a, &b, rules).map_err(|e| usage(e.to_string()))?;
    if let Some(w) = runs_compare::cross_machine_warning(&c) {
        crate::tell!("warning: {w}");
    }
    if let Some(path) = &args.html {
        let page = runs_compare::html::page(&c, env!("CARGO_PKG_VERSION"));
        toll_report::atomic::write(path, page.as_bytes()).map_err(|e| {
            anyhow::anyhow!(
                "cannot write {}: {e}: give --html a path in a directory you can write to, e.g. --html ./compare.html",
                path.display()
            )
        })?;
        crate::tell!("the comparison as HTML written to {}", path.display());
    }
    let mut out = crate::screen::output(args.json);
    if args.json {
        // Written as text, so that a closed pipe is an io::Error main can tell.
        writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
    } else {
        write!(out, "{}", runs_compare::text::render(&c))?;
    }
    out.flush()?;
    for w in &c.warnings {
        crate::tell!("warning: {w}");
    }
    match fail_on {
        Some(on) if c.fails(on) => {
            let k = &c.counts;
            crate::tell!(
                "toll: --fail-on {}: {} slower, {} faster beyond the threshold (exit status {GATE_FAILED})",
                args.fail_on.as_deref().unwrap_or_default(),
                k.slower,
                k.faster
            );
            Ok(ExitCode::from(GATE_FAILED))
        }
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// The machine an atlas was measured on, in a few words.
fn machine(run: &toll_store::Run) -> String {
    let e = &run.env;
    format!(
        "{}, {}{}",
        e.hostname,
        e.cpu_model,
        e.virtualization
            .as_deref()
            .map(|v| format!(" under {v}"))
            .unwrap_or_default()
    )
}

/// Two atlases: every crossing's ratio with its interval, sorted.
fn atlas(
    args: &RunCompareArgs,
    a: &toll_store::Run,
    b: &toll_store::Run,
) -> anyhow::Result<ExitCode> {
    let refused = [
        (args.html.is_some(), "--html"),
        (args.fail_on.is_some(), "--fail-on"),
        (args.mixed_latency, "--mixed-latency"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        return Err(usage(format!(
            "{flag} is for two runs of one family: two atlases compare as a table (--json for JSON, --threshold for the smallest change that counts)"
        )));
    }
    use toll_report::atlas_compare::{render, AtlasComparison};
    let c = AtlasComparison::of_runs(a, b, args.threshold);
    let mut out = crate::screen::output(args.json);
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
    } else {
        write!(out, "{}", render(&c, (&machine(a), &machine(b))))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Two sweeps (`toll http --sweep`): B's knee over A's, with its interval.
fn sweeps(
    args: &RunCompareArgs,
    a: &toll_store::Run,
    b: &toll_store::Run,
) -> anyhow::Result<ExitCode> {
    let refused = [
        (args.html.is_some(), "--html"),
        (args.fail_on.is_some(), "--fail-on"),
        (args.mixed_latency, "--mixed-latency"),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        return Err(usage(format!(
            "{flag} is for runs compared point by point: two sweeps compare by their knees (--json for JSON)"
        )));
    }
    use toll_report::http_sweep_compare::{compare, render};
    use toll_report::http_sweep_page::of_run;
    let (Some(sa), Some(sb)) = (of_run(a), of_run(b)) else {
        anyhow::bail!(
            "run {} or {} holds no stored sweep: compare two runs of toll http --sweep",
            a.id,
            b.id
        );
    };
    let Some(c) = compare(&sa, &sb) else {
        anyhow::bail!(
            "run {} or {} measured no step, so has no knee to compare",
            a.id,
            b.id
        );
    };
    let mut out = crate::screen::output(args.json);
    if args.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&c)?)?;
    } else {
        write!(out, "{}", render(&c, &sa, &sb))?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
