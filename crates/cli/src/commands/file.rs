//! `toll file` (E4): validate the arguments, check the file, run the rounds,
//! print µs per read per (runtime, method, pattern, cache) with E4's 2010
//! figures beside its cells, or α and β per method for a `--sizes` sweep.

use super::{db, runtimes};
use crate::args::FileArgs;
use crate::progress::Progress;
use crate::usage::usage;
use crate::values::list;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use toll_families::file::cache::Cache;
use toll_families::file::data::{self, Source};
use toll_families::file::plan::{self};
use toll_families::file::{
    self as family, describe_file, methods, native, FileConfig, Method, RUNTIMES,
};
use toll_peers::Runtime;
use toll_store::RunStatus;

/// `toll file`.
pub fn run(args: FileArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let cfg = config(&args)?;
    super::design_note(
        "--trials",
        args.trials as usize,
        "--sizes",
        cfg.sizes.as_ref().map(Vec::len),
    );
    if dry_run {
        return dry(&cfg, db);
    }
    measure(cfg, &args, db)
}

fn config(a: &FileArgs) -> anyhow::Result<FileConfig> {
    let runtimes = chosen_runtimes(&a.runtime)?;
    let mut chosen = chosen_methods(&runtimes, a.method.as_deref())?;
    if chosen.iter().any(|m| m.name == "io_uring") {
        if let Some(why) = native::io_uring_refusal() {
            if a.method.as_deref().is_some_and(|m| m.contains("io_uring")) {
                return Err(usage(format!(
                    "io_uring: the kernel refuses it here ({why}; kernel.io_uring_disabled or a seccomp filter): drop io_uring from --method"
                )));
            }
            crate::tell!("note: io_uring skipped: the kernel refuses it here ({why})");
            chosen.retain(|m| m.name != "io_uring");
        }
    }
    let caches = a.cache.clone();
    if a.drop_caches && !caches.contains(&Cache::Cold) {
        return Err(usage(
            "--drop-caches applies to cold trials: add --cache cold or both, or leave it out",
        ));
    }
    if a.drop_caches && !family::cache::may_drop_caches() {
        return Err(usage(
            "--drop-caches needs root (it writes /proc/sys/vm/drop_caches): run as root, or leave it out (posix_fadvise evicts the file without it)",
        ));
    }
    let sizes = a.sizes.clone();
    let source = match &a.file {
        Some(p) => Source::User(p.clone()),
        None => Source::Own {
            dir: a.dir.clone().unwrap_or_else(data::default_dir),
            size: a.file_size,
        },
    };
    let longest = match &sizes {
        None => plan::E4_RANDOM_LEN,
        Some(ns) => ns.iter().copied().max().unwrap_or(1),
    };
    let file = data::locate(&source, longest).map_err(|e| usage(e.to_string()))?;
    Ok(FileConfig {
        file,
        methods: chosen,
        patterns: a.pattern.clone(),
        sizes,
        caches,
        trials: a.trials,
        reads: a.reads,
        seed: a.seed,
        drop_caches: a.drop_caches,
    })
}

/// `all`: rust, c and python where this machine has them; or those named.
fn chosen_runtimes(text: &str) -> anyhow::Result<Vec<Runtime>> {
    let names = || RUNTIMES.map(Runtime::name).join(", ");
    if text.trim() == "all" {
        let (found, missing): (Vec<Runtime>, Vec<Runtime>) =
            RUNTIMES.into_iter().partition(|r| r.detect().is_ok());
        if let Some(line) = runtimes::skipped_line(&missing) {
            crate::tell!("{line}");
        }
        return Ok(found);
    }
    let mut out = vec![];
    for name in list(text, "--runtime")? {
        let r = name.parse::<Runtime>().map_err(|_| {
            usage(format!(
                "unknown runtime `{name}` in --runtime: toll file reads with {}, or all",
                names()
            ))
        })?;
        if !RUNTIMES.contains(&r) {
            return Err(usage(format!(
                "the {r} runtime has no file methods: toll file reads with {}",
                names()
            )));
        }
        if !out.contains(&r) {
            out.push(r);
        }
    }
    Ok(out)
}

/// Each named method on every chosen runtime that has it; a method none of
/// them has is an error that lists what each has.
fn chosen_methods(runtimes: &[Runtime], text: Option<&str>) -> anyhow::Result<Vec<Method>> {
    let Some(text) = text else {
        return Ok(runtimes
            .iter()
            .flat_map(|&r| {
                methods(r)
                    .iter()
                    .map(move |&name| Method { runtime: r, name })
            })
            .collect());
    };
    let names = list(text, "--method")?;
    let has = |r: Runtime| format!("{r} has {}", methods(r).join(", "));
    let mut out = vec![];
    for name in &names {
        if !runtimes.iter().any(|&r| methods(r).contains(name)) {
            return Err(usage(match runtimes {
                [r] => format!(
                    "the {r} runtime has no method `{name}`: it has {}",
                    methods(*r).join(", ")
                ),
                _ => format!(
                    "no chosen runtime has the method `{name}`: {}",
                    runtimes
                        .iter()
                        .map(|&r| has(r))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            }));
        }
    }
    for &r in runtimes {
        for &name in methods(r) {
            if names.contains(&name) {
                out.push(Method { runtime: r, name });
            }
        }
    }
    Ok(out)
}

/// `--dry-run`: what would be measured; nothing is made, read or stored.
fn dry(cfg: &FileConfig, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    if let Some(p) = db {
        db::check_name(p)?;
    }
    for r in RUNTIMES {
        if cfg.methods.iter().any(|m| m.runtime == r) {
            r.detect()?;
        }
    }
    let methods: Vec<String> = cfg.methods.iter().map(Method::label).collect();
    let series = cfg.series().len();
    crate::say!("would read {}", describe_file(&cfg.file));
    crate::say!(
        "would measure {series} series ({} × {} × {}), {} trials each",
        methods.join(", "),
        cfg.patterns
            .iter()
            .map(|p| p.name())
            .collect::<Vec<_>>()
            .join(", "),
        cfg.caches
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>()
            .join(", "),
        cfg.trials
    );
    crate::say!("reads: {}", family::report::describe_reads(cfg));
    crate::say!("cache: {}", family::report::describe_cache(cfg));
    let wanted: Vec<super::estimate::Wanted> = cfg
        .series()
        .into_iter()
        .map(|(m, p, c)| super::estimate::Wanted {
            label: format!("{}/{p}/{c}", m.label()),
            ns: cfg.points(p).iter().map(|r| r.mean_len()).collect(),
            trials: cfg.trials,
        })
        .collect();
    crate::say!(
        "{}",
        super::estimate::line(
            db,
            "file",
            &wanted,
            "its length grows with --file-size and, cold, with the disk"
        )
    );
    Ok(ExitCode::SUCCESS)
}

fn measure(cfg: FileConfig, a: &FileArgs, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    let store = db::open(db)?;
    crate::stop::install();
    let cells: usize = cfg
        .series()
        .iter()
        .map(|(_, p, _)| cfg.points(*p).len())
        .sum();
    let mut progress = Progress::new((cells * cfg.trials as usize) as u64);
    let outcome = family::run(&cfg, &store, &mut progress, &crate::stop::STOP);
    progress.finish();
    let outcome = outcome?;
    if let Some(code) = super::stopped_before_measuring(&store, outcome.run_id)? {
        return Ok(code);
    }
    let run = store.load_run(outcome.run_id)?;
    let mut out = crate::screen::output(a.json);
    let printed = if a.json {
        toll_report::export::exporter(toll_report::export::Format::Json).export(&run, &mut out)
    } else {
        let id = outcome.run_id;
        write!(
            out,
            "{}",
            toll_report::file::render(&family::report::view(&cfg, &outcome))
        )
        .and_then(|_| writeln!(out, "{}", db::stored_line(&store, id, outcome.status)))
    };
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if let Some(path) = &a.plot {
        let chart = toll_report::plot::Chart::for_run(&run);
        super::plot::draw(path, chart, &a.scale.plot_scale)?;
    }
    match (&outcome.error, outcome.status) {
        (_, RunStatus::Partial) if crate::stop::stopped() => {
            crate::tell!("interrupted: run {} stored as partial", outcome.run_id);
            Ok(crate::stop::exit_code())
        }
        (Some(e), status) => Err(anyhow::anyhow!(
            "{e} — run {} stored as {} (`toll show {}`)",
            outcome.run_id,
            status.as_str(),
            outcome.run_id
        )),
        (None, _) => Ok(ExitCode::SUCCESS),
    }
}
