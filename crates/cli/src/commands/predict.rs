//! `toll predict FAMILY [selectors] -n N`: t(N) with its CI from the newest
//! stored model of one series (or from `--run`).

use super::db;
use crate::args::PredictArgs;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use toll_report::predict::{self, PickError, Selector, FITTED_FAMILIES};
use toll_store::{Run, RunStatus, Series};

/// The selector flags and the series attribute each one reads.
fn selector(args: &PredictArgs) -> Selector {
    let flags = [
        ("--peer", "peer", &args.peer),
        ("--via", "transport", &args.via),
        ("--pin", "pin", &args.pin),
        ("--runtime", "runtime", &args.runtime),
        ("--unit", "unit", &args.unit),
        ("--method", "method", &args.method),
        ("--pattern", "pattern", &args.pattern),
        ("--cache", "cache", &args.cache),
        ("--command", "command", &args.command),
        ("--stack", "stack", &args.stack),
        ("--path", "path", &args.path),
        ("--mode", "mode", &args.mode),
    ];
    Selector {
        label: args.series.clone(),
        attrs: flags
            .into_iter()
            .filter_map(|(flag, key, v)| Some((flag.into(), key.into(), v.clone()?)))
            .collect(),
    }
}

/// The one n asked about.
/// A selector flag that no series of these runs carries: it does not
/// apply to the family (`--peer` for spawn).
fn foreign_flag(sel: &Selector, family: &str, seen: &[Series]) -> Option<anyhow::Error> {
    let (flag, _, _) = sel
        .attrs
        .iter()
        .find(|(_, key, _)| !seen.iter().any(|s| s.attrs.get(key).is_some()))?;
    let mut keys: Vec<&str> = seen
        .iter()
        .filter_map(|s| s.attrs.as_object())
        .flat_map(|o| o.keys().map(String::as_str))
        .filter(|k| {
            [
                "peer",
                "transport",
                "pin",
                "runtime",
                "unit",
                "method",
                "pattern",
                "cache",
                "command",
                "stack",
                "path",
                "mode",
            ]
            .contains(k)
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    Some(usage(format!(
        "{flag} does not apply to {family} runs: pick their series with --series LABEL{}",
        keys.iter()
            .map(|k| format!(", --{}", if *k == "transport" { "via" } else { k }))
            .collect::<String>()
    )))
}

/// `toll predict`.
pub fn run(args: PredictArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    let family = args.family.as_str();
    if !FITTED_FAMILIES.contains(&family) {
        let why = if family == "http" {
            "http runs have no t(n) model".to_string()
        } else {
            format!("unknown family `{family}`")
        };
        return Err(usage(format!(
            "{why}: predict answers for {}",
            FITTED_FAMILIES.join(", ")
        )));
    }
    let n = args.n;
    if let Some(r) = &args.run {
        db::check_run_ref(Some(r))?;
    }
    let sel = selector(&args);
    let store = db::open_for_reading(db)?;
    let (run, label): (Run, String) = match &args.run {
        Some(r) => {
            let run = store.load_run(db::run_id(&store, Some(r))?)?;
            let label = match predict::pick(&run, family, &sel) {
                Ok(s) => s.label.clone(),
                Err(e @ (PickError::Family { .. } | PickError::Ambiguous { .. })) => {
                    return Err(usage(e.to_string()))
                }
                Err(e) => {
                    if let Some(foreign) = foreign_flag(&sel, family, &run.series) {
                        return Err(foreign);
                    }
                    return Err(anyhow::anyhow!("{e}"));
                }
            };
            (run, label)
        }
        None => newest(&store, family, &sel)?,
    };
    let answer = run
        .series
        .iter()
        .find(|s| s.label == label)
        .and_then(|s| predict::answer(&run, s, n))
        .ok_or_else(|| anyhow::anyhow!("series {label} of run {} has no model", run.id))?;
    let mut out = crate::screen::output(args.json);
    if args.json {
        // Written as text, so that a closed pipe is an io::Error main can tell.
        writeln!(out, "{}", serde_json::to_string_pretty(&answer)?)?;
    } else {
        write!(out, "{}", predict::render(&answer))?;
    }
    out.flush()?;
    for w in &answer.warnings {
        crate::tell!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The newest complete run of `family` with one fitted series `sel` picks.
fn newest(
    store: &toll_store::Store,
    family: &str,
    sel: &Selector,
) -> anyhow::Result<(Run, String)> {
    let mut seen: Vec<Series> = Vec::new();
    let mut any = false;
    for row in store.list_runs()? {
        if row.family != family || row.status != RunStatus::Complete {
            continue;
        }
        any = true;
        let run = store.load_run(row.id)?;
        match predict::pick(&run, family, sel) {
            Ok(s) => {
                let label = s.label.clone();
                return Ok((run, label));
            }
            Err(e @ PickError::Ambiguous { .. }) => return Err(usage(e.to_string())),
            Err(_) => seen.extend(run.series.into_iter().map(|mut s| {
                s.points.clear();
                s
            })),
        }
    }
    if !any {
        return Err(anyhow::anyhow!(
            "no complete {family} run is stored: measure one first, e.g. `toll {family}`"
        ));
    }
    if let Some(foreign) = foreign_flag(sel, family, &seen) {
        return Err(foreign);
    }
    let measuring: Vec<String> = sel
        .attrs
        .iter()
        .filter(|(flag, _, _)| flag != "--command")
        .map(|(flag, _, v)| format!(" {flag} {v}"))
        .collect();
    let mut labels: Vec<&str> = seen
        .iter()
        .filter(|s| s.fit.is_some())
        .map(|s| s.label.as_str())
        .collect();
    labels.sort_unstable();
    labels.dedup();
    let matching = if sel.flags().is_empty() {
        "no selector".into()
    } else {
        sel.flags()
    };
    let pick = if labels.is_empty() {
        "none stored".into()
    } else {
        labels.join(", ")
    };
    // Suggested only when toll would take it (its own --dry-run says).
    let suggestion = format!("toll {family}{}", measuring.concat());
    let words: Vec<String> = std::iter::once(family.to_string())
        .chain(measuring.iter().flat_map(|m| {
            let mut w = m.trim().splitn(2, ' ');
            [w.next(), w.next()]
                .into_iter()
                .flatten()
                .map(String::from)
                .collect::<Vec<_>>()
        }))
        .collect();
    Err(match super::refused(&words) {
        None => anyhow::anyhow!(
            "no complete {family} run has a fitted series matching {matching}: measure one (e.g. `{suggestion}`), or pick one of {pick}"
        ),
        Some(why) => anyhow::anyhow!(
            "no complete {family} run has a fitted series matching {matching}, and toll would not measure one ({why}): pick one of {pick}"
        ),
    })
}
