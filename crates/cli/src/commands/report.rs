//! `toll report RUN… [-o FILE]`: stored runs as one self-contained HTML page
//! (machine, config, every series' model and points, the plots inline), or
//! as Markdown for an issue.

use super::db;
use crate::args::ReportArgs;
use crate::usage::usage;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use toll_report::plot::Scale;

/// What the page is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Html,
    Markdown,
}

/// `--format`, or else the output file's extension (`.md`), or else HTML.
fn format(given: Option<&str>, output: Option<&Path>) -> anyhow::Result<Format> {
    match given {
        Some("html") => Ok(Format::Html),
        Some("md") | Some("markdown") => Ok(Format::Markdown),
        Some(other) => Err(usage(format!(
            "unknown report format `{other}`: use html or md"
        ))),
        None => {
            let md = output.and_then(|p| p.extension()).is_some_and(|e| {
                e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown")
            });
            Ok(if md { Format::Markdown } else { Format::Html })
        }
    }
}

/// `toll report`.
pub fn run(args: ReportArgs, db: Option<&Path>, dry: bool) -> anyhow::Result<ExitCode> {
    let format = format(args.format.as_deref(), args.output.as_deref())?;
    let scale: Scale = args.plot_scale.parse().map_err(usage)?;
    for r in &args.runs {
        db::check_run_ref(Some(r))?;
    }
    if !dry && format == Format::Html && args.output.is_none() && std::io::stdout().is_terminal() {
        return Err(usage(
            "toll report writes a whole HTML page: give -o report.html (or --format md to read it here)",
        ));
    }
    let store = db::open_for_reading(db)?;
    let refs: Vec<Option<&str>> = match args.runs.is_empty() {
        true => vec![None],
        false => args.runs.iter().map(|r| Some(r.as_str())).collect(),
    };
    let mut runs = Vec::new();
    for r in refs {
        let id = db::run_id(&store, r)?;
        if runs.iter().any(|run: &toll_store::Run| run.id == id) {
            continue;
        }
        runs.push(store.load_run(id)?);
    }
    let ids: Vec<String> = runs.iter().map(|r| r.id.to_string()).collect();
    let what = format!(
        "{} report on run{} {}",
        match format {
            Format::Html => "an HTML",
            Format::Markdown => "a Markdown",
        },
        if ids.len() == 1 { "" } else { "s" },
        ids.join(", ")
    );
    if dry {
        let to = args
            .output
            .as_ref()
            .map_or("stdout".to_string(), |p| p.display().to_string());
        crate::say!("would write {what} to {to}");
        return Ok(ExitCode::SUCCESS);
    }
    let version = env!("CARGO_PKG_VERSION");
    let text = match format {
        Format::Html => {
            toll_report::html::render_with(&runs, &behind(&store, &runs), scale, version)
        }
        Format::Markdown => toll_report::markdown::render(&runs, version),
    };
    match &args.output {
        Some(path) => {
            write_file(path, &text)?;
            crate::tell!("{what} written to {}", path.display());
        }
        None => std::io::stdout().lock().write_all(text.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}

/// The family runs each experiment's table names, drawn in its section (a
/// run since deleted is named there, not drawn).
fn behind(store: &toll_store::Store, runs: &[toll_store::Run]) -> Vec<toll_store::Run> {
    let mut behind = Vec::new();
    for r in runs.iter().filter(|r| r.family == "replicate") {
        let ids = r.config.get("runs").and_then(|v| v.as_array());
        for id in ids.into_iter().flatten().filter_map(|v| v.as_i64()) {
            if let Ok(run) = store.load_run(id) {
                behind.push(run);
            }
        }
    }
    behind
}

/// Stored runs as the one HTML page `toll report RUN… -o FILE` writes, whole
/// or not at all (`toll replicate --html` writes its tables with it).
pub fn write_html(
    store: &toll_store::Store,
    runs: &[toll_store::Run],
    path: &Path,
) -> anyhow::Result<()> {
    let text = toll_report::html::render_with(
        runs,
        &behind(store, runs),
        Scale::default(),
        env!("CARGO_PKG_VERSION"),
    );
    write_file(path, &text)
}

fn write_file(path: &Path, text: &str) -> anyhow::Result<()> {
    toll_report::atomic::write(path, text.as_bytes()).map_err(|e| {
        anyhow::anyhow!(
            "cannot write {}: {e}: give a path in a directory you can write to, e.g. ./report.html",
            path.display()
        )
    })
}

/// Refuse, before anything is measured, a page that could not be written:
/// its directory missing or not writable.
pub fn check_writable(path: &Path, flag: &str) -> anyhow::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let probe = dir.join(format!(".toll-write-check-{}", std::process::id()));
    match std::fs::File::create(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(usage(format!(
            "{flag} {}: cannot write in {} ({e}): give a path in a directory you can write to",
            path.display(),
            dir.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_format_comes_from_the_flag_or_the_file_name() {
        assert_eq!(format(None, None).unwrap(), Format::Html);
        assert_eq!(
            format(None, Some(Path::new("r.md"))).unwrap(),
            Format::Markdown
        );
        assert_eq!(
            format(None, Some(Path::new("r.html"))).unwrap(),
            Format::Html
        );
        assert_eq!(
            format(Some("html"), Some(Path::new("r.md"))).unwrap(),
            Format::Html
        );
        assert!(format(Some("pdf"), None)
            .unwrap_err()
            .to_string()
            .contains("use html or md"));
    }
}
