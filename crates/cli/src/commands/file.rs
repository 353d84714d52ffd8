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
use toll_families::file::plan::{self, Pattern};
use toll_families::file::{
    self as family, describe_file, e4_figure, methods, native, FileConfig, FileOutcome, Method,
    RUNTIMES,
};
use toll_peers::Runtime;
use toll_report::table::Table;
use toll_store::RunStatus;

/// `toll file`.
pub fn run(args: FileArgs, db: Option<&Path>, dry_run: bool) -> anyhow::Result<ExitCode> {
    let cfg = config(&args)?;
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

/// What a trial reads, in words.
fn describe_reads(cfg: &FileConfig) -> String {
    let mut parts = vec![];
    for &p in &cfg.patterns {
        let points = cfg.points(p);
        let text = match (&cfg.sizes, p) {
            (None, Pattern::Seq) => format!(
                "seq = {} reads of 50 and 450 bytes in turn through the file",
                points[0].count
            ),
            (None, Pattern::Random) => format!(
                "random = {} reads of 450 bytes at random offsets (seed {})",
                points[0].count, cfg.seed
            ),
            (Some(ns), _) => format!(
                "{p} = {}{} reads of each of {} bytes{}",
                if p == Pattern::Seq { "up to " } else { "" },
                cfg.reads,
                ns.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
                if p == Pattern::Random {
                    format!(" (seed {})", cfg.seed)
                } else {
                    String::new()
                }
            ),
        };
        parts.push(text);
    }
    parts.join("; ")
}

fn describe_cache(cfg: &FileConfig) -> String {
    cfg.caches
        .iter()
        .map(|c| match c {
            Cache::Cold if cfg.drop_caches => "cold = the page cache dropped before each trial",
            Cache::Cold => "cold = the file's pages evicted (posix_fadvise) before each trial",
            Cache::Warm => "warm = the file read once first",
        })
        .collect::<Vec<_>>()
        .join(", ")
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
    crate::say!("reads: {}", describe_reads(cfg));
    crate::say!("cache: {}", describe_cache(cfg));
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
    let run = store.load_run(outcome.run_id)?;
    let mut out = crate::screen::output(a.json);
    let printed = if a.json {
        toll_report::export::exporter(toll_report::export::Format::Json).export(&run, &mut out)
    } else {
        let id = outcome.run_id;
        write!(out, "{}", render(&cfg, &outcome))
            .and_then(|_| writeln!(out, "{}", db::stored_line(&store, id, outcome.status)))
    };
    match printed {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => drop(out),
    }
    if let Some(path) = &a.plot {
        let chart = toll_report::plot::Chart::for_run(&run);
        super::plot::draw(path, chart, &a.plot_scale)?;
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

/// The heading, the table of cells, and for a sweep the model per series.
fn render(cfg: &FileConfig, outcome: &FileOutcome) -> String {
    let mut file = cfg.file.clone();
    file.to_make = false;
    let mut s = format!(
        "toll file: {}{} on {}\n",
        describe_file(&file),
        if outcome.made_file { ", made now" } else { "" },
        outcome.storage.describe()
    );
    s.push_str(&format!(
        "reads: {}; {} trial{} each\ncache: {}, checked by mincore before every trial\n\n",
        describe_reads(cfg),
        cfg.trials,
        if cfg.trials == 1 { "" } else { "s" },
        describe_cache(cfg)
    ));
    if cfg.sizes.is_some() {
        s.push_str(&sweep_table(outcome));
        s.push_str(&models(outcome));
    } else {
        s.push_str(&e4_table(cfg, outcome));
    }
    for series in &outcome.series {
        for p in &series.points {
            if let Err(why) = &p.result {
                s.push_str(&format!(
                    "note: {} at {} B: {why}\n",
                    series.label(),
                    p.reads.mean_len()
                ));
            }
        }
    }
    s
}

/// A median's 95% CI in µs, or a dash for a single trial.
fn ci_us(m: &toll_measure::Summary) -> String {
    if m.count < 2 {
        return "–".into();
    }
    format!("[{:.3}, {:.3}]", m.ci_low / 1e3, m.ci_high / 1e3)
}

/// The resident share before the trials: one figure, or the range.
fn resident(r: &[f64]) -> String {
    let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = r.iter().copied().fold(0.0, f64::max);
    if r.is_empty() {
        "–".into()
    } else if (hi - lo) * 100.0 < 0.5 {
        format!("{:.0}%", hi * 100.0)
    } else {
        format!("{:.0}–{:.0}%", lo * 100.0, hi * 100.0)
    }
}

fn e4_table(cfg: &FileConfig, outcome: &FileOutcome) -> String {
    let mut t = Table::new(&[
        "runtime", "method", "pattern", "cache", "resident", "µs/read", "95% CI", "total ms",
        "MB/s", "E4 2010",
    ]);
    let mut any_e4 = false;
    for series in &outcome.series {
        let p = &series.points[0];
        let m = series.method;
        let mut cells = vec![
            m.runtime.to_string(),
            m.name.to_string(),
            series.pattern.to_string(),
            series.cache.to_string(),
        ];
        match &p.result {
            Ok(f) => cells.extend([
                resident(&f.resident),
                format!("{:.3}", f.per_read.median / 1e3),
                ci_us(&f.per_read),
                format!("{:.1}", f.total.median / 1e6),
                format!("{:.0}", f.mb_per_s()),
            ]),
            Err(_) => cells.extend(["failed", "–", "–", "–", "–"].map(String::from)),
        }
        let e4 = e4_figure(&m, series.pattern, series.cache, &p.reads, cfg.file.size);
        any_e4 |= e4.is_some();
        cells.push(match e4 {
            Some((v, unit)) => format!("{v} {unit}"),
            None => String::new(),
        });
        t.row(cells);
    }
    let mut s = t.render();
    if any_e4 {
        s.push_str("E4 2010: Python 2.6.6 on an SSD, the page cache dropped before each test; seq: the whole pass (against total ms), random: per read (against µs/read)\n");
    }
    s
}

fn sweep_table(outcome: &FileOutcome) -> String {
    let mut t = Table::new(&[
        "runtime", "method", "pattern", "cache", "bytes", "reads", "resident", "µs/read", "95% CI",
        "MB/s",
    ]);
    for series in &outcome.series {
        for p in &series.points {
            let m = series.method;
            let mut cells = vec![
                m.runtime.to_string(),
                m.name.to_string(),
                series.pattern.to_string(),
                series.cache.to_string(),
                p.reads.mean_len().to_string(),
                p.reads.count.to_string(),
            ];
            match &p.result {
                Ok(f) => cells.extend([
                    resident(&f.resident),
                    format!("{:.3}", f.per_read.median / 1e3),
                    ci_us(&f.per_read),
                    format!("{:.0}", f.mb_per_s()),
                ]),
                Err(_) => cells.extend(["failed", "–", "–", "–"].map(String::from)),
            }
            t.row(cells);
        }
    }
    t.render()
}

/// t(n) = α + β·n per read, for each series of a sweep: the stored
/// decision of each.
fn models(outcome: &FileOutcome) -> String {
    use toll_report::decided;
    let decisions: Vec<_> = outcome
        .series
        .iter()
        .filter_map(|s| Some((s, s.fit.as_ref()?.decision.as_ref()?)))
        .collect();
    if decisions.is_empty() {
        return String::new();
    }
    let widened = decisions.iter().any(|(_, d)| d.widened);
    let (a_ci, b_ci) = decided::ci_headings(widened);
    let mut t = Table::new(&[
        "runtime",
        "method",
        "pattern",
        "cache",
        "α µs/read",
        &a_ci,
        "β ns/byte",
        &b_ci,
        "MB/s",
        "fit",
    ]);
    for (s, d) in &decisions {
        let (alpha, alpha_ci) = decided::cells(&d.alpha, |v| format!("{:.3}", v / 1e3));
        let (beta, beta_ci) = decided::cells(&d.beta, |v| format!("{v:.4}"));
        t.row(vec![
            s.method.runtime.to_string(),
            s.method.name.to_string(),
            s.pattern.to_string(),
            s.cache.to_string(),
            alpha,
            alpha_ci,
            beta,
            beta_ci,
            d.beta
                .shown()
                .map_or_else(|| "–".into(), |b| format!("{:.0}", 1e3 / b)),
            d.words(),
        ]);
    }
    format!(
        "\nmodel t(n) = α + β·n per read of n bytes (MB/s = 1/β):\n{}{}",
        t.render(),
        decided::legend(widened)
    )
}
