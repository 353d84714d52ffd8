//! `toll atlas`: check the groups before anything is measured (one line),
//! run each group's family at the preset (toll_families::atlas), store the
//! atlas, and print it: every crossing by order of magnitude, with its
//! interval, what it is made of and the run behind it.

use super::db;
use super::replicate::Spinner;
use crate::args::AtlasArgs;
use crate::usage::usage;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use toll_families::atlas::{self, Group};
use toll_families::replicate::{Ctx, Preset};

/// Seconds as a person reads them: `45 s`, `2 min 30 s`.
fn duration(s: f64) -> String {
    let s = s.round() as u64;
    match s {
        s if s < 60 => format!("{s} s"),
        s => format!("{} min {} s", s / 60, s % 60),
    }
}

pub fn run(a: AtlasArgs, db_path: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let groups =
        atlas::choose(a.only.as_deref(), a.skip.as_deref()).map_err(|e| usage(e.to_string()))?;
    if groups.is_empty() {
        return Err(usage(
            "--only and --skip leave no group to measure: skip fewer of them",
        ));
    }
    let preset = match (a.full, a.test_preset) {
        (_, true) => Preset::Test,
        (true, false) => Preset::Full,
        (false, false) => Preset::Quick,
    };
    if let Some(page) = &a.html {
        super::report::check_writable(page, "--html")?;
    }
    if dry_run {
        if let Some(p) = db_path {
            db::check_name(p)?;
        }
        let mut total = 0.0;
        crate::say!("would measure the atlas with the {} preset:", preset.name());
        for &g in &groups {
            let s = atlas::estimate(g, preset);
            total += s;
            crate::say!(
                "  {} ({}), about {}: {}",
                g.name(),
                g.family(),
                duration(s),
                g.measures()
            );
        }
        for g in Group::ALL.iter().filter(|g| !groups.contains(g)) {
            crate::say!("  {} left out", g.name());
        }
        crate::say!(
            "about {} of measuring in all (more where a worker is built on first use)",
            duration(total)
        );
        if let Some(page) = &a.html {
            crate::say!("would write the atlas as one page to {}", page.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let store = db::open(db_path)?;
    let stop = super::http_load::stop_flag();
    let scratch = toll_peers::scratch::path("atlas")?;
    std::fs::create_dir_all(&scratch)?;
    let mut spinner = Spinner::new();
    spinner
        .0
        .set_message(format!("atlas, {} preset", preset.name()));
    let mut ctx = Ctx {
        store: &store,
        observer: &mut spinner,
        stop: &stop,
        preset,
        scratch: scratch.clone(),
        port: None,
    };
    let result = atlas::run(&groups, &mut ctx);
    spinner.0.finish_and_clear();
    let _ = std::fs::remove_dir_all(&scratch);
    let result = result?;
    let id = result.run_id.expect("a stored atlas has its run");
    let run = store.load_run(id)?;
    let mut out = crate::screen::output(a.json);
    let printed = if a.json {
        serde_json::to_writer_pretty(&mut out, &run.config)
            .map_err(std::io::Error::other)
            .and_then(|_| writeln!(out))
    } else {
        write!(out, "{}", toll_report::atlas::render(&run.config)).and_then(|_| {
            let runs: Vec<String> = result
                .sheet
                .runs
                .iter()
                .map(|(_, r)| r.to_string())
                .collect();
            writeln!(
                out,
                "{}; the family runs ({}) carry \"atlas\": true",
                db::stored_line(&store, id, run.status),
                if runs.is_empty() {
                    "none".into()
                } else {
                    runs.join(", ")
                }
            )
        })
    };
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if let Some(page) = &a.html {
        super::report::write_html(&store, std::slice::from_ref(&run), page)?;
        crate::tell!(
            "the page to look at: {} (`toll report {id} -o FILE` writes it again)",
            page.display()
        );
    }
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        crate::tell!("interrupted: what was measured is stored, the atlas as partial (run {id})");
        return Ok(crate::stop::exit_code());
    }
    if !result.sheet.errors.is_empty() {
        anyhow::bail!(
            "a family failed: the rest was measured and stored, the atlas as partial (run {id}; its errors are under its table)"
        );
    }
    Ok(ExitCode::SUCCESS)
}
