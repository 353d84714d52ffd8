//! `toll exec` (E5's loop): whole programs timed, as hyperfine times them,
//! and further — user and system time, peak memory, cycles and
//! instructions per run; several commands run interleaved so drift of the
//! machine cancels; and with a numeric parameter, t(N) = α + β·N fitted by
//! the engine, so a program's start-up (α) is told from its cost per
//! iteration (β), the split E5's `time` could not make.
//!
//! The plan: every command × every parameter value is a *benchmark*. After
//! `--setup` (once each) and `--warmup` untimed rounds, the runs go in
//! rounds, every benchmark once a round — A B C, then C B A (or shuffled) —
//! each run after its `--prepare`. The number of rounds is `--runs`, or
//! hyperfine's rule (at least `--min-runs`, and enough for about 3 s), or
//! with `--ci` the engine's stopping rule, all bounded by `--max-time`.
//! With a shell (the default, `sh`), the shell's own start-up is measured
//! first (`sh -c ''`) and subtracted from every run, as hyperfine does;
//! `-N` runs the program directly.
//!
//! Every run is stored as it goes (each benchmark a point of its command's
//! series; wall times as samples, the rest in the point's extra figures),
//! so a failure or Ctrl-C leaves a partial run with what was measured.

pub mod child;
pub mod command;
mod config;
mod measure;
pub mod perf;
pub mod stats;

pub use config::*;
pub use measure::wall;
use measure::{save_points, shell_cost, Measurement};

pub use child::{Measured, Output};

use crate::history::{self, Comparable};
use crate::observer::Observer;
use child::Runner;
use serde_json::json;
use std::sync::atomic::AtomicBool;
use std::time::Instant;
use toll_measure::duration_ns::ns;
use toll_measure::fit::fit_series;
use toll_measure::{Fingerprint, Summary};
use toll_store::{NewRun, RunStatus, Store};

/// The benchmarks of a config, checked: every `{name}` has a parameter and
/// every parameter a `{name}`. The fitted parameter is the only one, when
/// its values are whole numbers.
pub fn plan(cfg: &ExecConfig) -> Result<(Vec<Bench>, Vec<String>), ExecError> {
    if cfg.commands.iter().any(|c| c.trim().is_empty()) {
        return Err(ExecError::Usage(
            "empty command: give the program to time, e.g. toll exec 'sleep 0.01'".into(),
        ));
    }
    let used: Vec<String> = cfg
        .commands
        .iter()
        .chain(cfg.prepare.iter())
        .chain(cfg.setup.iter())
        .chain(cfg.cleanup.iter())
        .flat_map(|c| command::placeholders(c))
        .collect();
    for name in &used {
        if !cfg.params.iter().any(|p| &p.name == name) {
            return Err(ExecError::BadParameter(format!(
                "the command uses {{{name}}} but no parameter is named {name}: add -L {name} 1,10,100 or --parameter-scan {name} 1 10"
            )));
        }
    }
    for (i, p) in cfg.params.iter().enumerate() {
        if !used.contains(&p.name) {
            return Err(ExecError::BadParameter(format!(
                "parameter {} is given but no command uses {{{}}}: put {{{}}} where its value goes",
                p.name, p.name, p.name
            )));
        }
        if cfg.params[..i].iter().any(|q| q.name == p.name) {
            return Err(ExecError::BadParameter(format!(
                "parameter {} is given twice: give its values once",
                p.name
            )));
        }
    }
    let fitted = match cfg.params.as_slice() {
        [p] => p.whole_values(),
        _ => None,
    };
    // Every combination of the parameters' values (the first varies slowest).
    let mut combos: Vec<Vec<(String, String)>> = vec![vec![]];
    for p in &cfg.params {
        combos = combos
            .into_iter()
            .flat_map(|c| {
                p.values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push((p.name.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    let mut benches = Vec::new();
    let mut series_labels: Vec<String> = Vec::new();
    for (t, template) in cfg.commands.iter().enumerate() {
        for (k, combo) in combos.iter().enumerate() {
            let command = command::substitute(template, combo);
            let argv = match &cfg.shell {
                Some(sh) => vec![sh.clone(), "-c".into(), command.clone()],
                None => {
                    let words = command::split_words(&command)?;
                    if words.is_empty() {
                        return Err(ExecError::Usage(
                            "empty command: give the program to time, e.g. toll exec -N 'sleep 0.01'"
                                .into(),
                        ));
                    }
                    words
                }
            };
            let name = cfg.names.get(t).cloned().flatten();
            let label = match &name {
                Some(n) => command::substitute(n, combo),
                None => command.clone(),
            };
            let n = fitted.as_ref().map(|v| v[k]);
            let series_label = match (fitted.is_some() || cfg.params.is_empty(), &name) {
                (true, Some(n)) => n.clone(),
                (true, None) => template.clone(),
                (false, _) => label.clone(),
            };
            let series = match series_labels.iter().position(|l| *l == series_label) {
                Some(i) => i,
                None => {
                    series_labels.push(series_label);
                    series_labels.len() - 1
                }
            };
            benches.push(Bench {
                template: t,
                command,
                label,
                params: combo.clone(),
                n,
                series,
                argv,
            });
        }
    }
    Ok((benches, series_labels))
}

/// `-N`: the program each command names must exist.
pub fn check_programs(benches: &[Bench]) -> Result<(), ExecError> {
    for b in benches {
        let prog = &b.argv[0];
        let found = if prog.contains('/') {
            std::path::Path::new(prog).is_file()
        } else {
            toll_peers::runtime::find_in_path(prog).is_some()
        };
        if !found {
            return Err(ExecError::NotFound {
                command: prog.clone(),
                detail: String::new(),
            });
        }
    }
    Ok(())
}

/// Run a `toll exec`, storing everything as it goes. Errors before the
/// first run come back as `Err`; a failure mid-run in the outcome.
pub fn run(
    cfg: &ExecConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Result<ExecOutcome, ExecError> {
    let (benches, series_labels) = plan(cfg)?;
    if cfg.shell.is_none() {
        check_programs(&benches)?;
    }
    if let Some(cpu) = cfg.pin {
        pin(cpu)?;
    }
    let env = Fingerprint::capture(vec![]);
    if let Some(w) = env.busy_warning() {
        observer.warning(&w);
    }
    let cpu_model = env.cpu_model.clone();
    let (counters, counters_missing) = match perf::Counters::open() {
        Ok(c) => (Some(c), None),
        Err(why) => (None, Some(why)),
    };
    let mut runner = Runner::new(cfg.input.clone(), cfg.output.clone(), counters)
        .map_err(|e| ExecError::Spawn {
            command: "a scratch file for stderr".into(),
            error: e,
        })?
        .fork_exec(cfg.launch == Launch::ForkExec);
    let started = Instant::now();
    let deadline = started + cfg.max_time;
    let shell = match &cfg.shell {
        Some(sh) => Some(shell_cost(&mut runner, sh, deadline)?),
        None => None,
    };
    let run_id = store.begin_run(&NewRun {
        family: "exec".into(),
        config: json!({
            "commands": cfg.commands, "parameters": cfg.params, "shell": cfg.shell,
            "shell_cost": shell, "warmup": cfg.warmup, "runs": cfg.runs,
            "ci_target": cfg.ci_target, "max_time_ns": ns(cfg.max_time),
            "prepare": cfg.prepare, "setup": cfg.setup, "cleanup": cfg.cleanup,
            "ignore_failure": cfg.ignore_failure, "input": cfg.input, "output": cfg.output,
            "pin": cfg.pin, "order": cfg.order, "launch": cfg.launch,
            "counters": counters_missing.is_none(),
        }),
        env,
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let mut series_ids = Vec::new();
    for (i, label) in series_labels.iter().enumerate() {
        let first = benches.iter().find(|b| b.series == i).expect("a bench");
        let params: Vec<&String> = cfg.params.iter().map(|p| &p.name).collect();
        let attrs = json!({
            "command": cfg.commands[first.template], "unit": if first.n.is_some() { "iterations" } else { "runs" },
            "parameter": if first.n.is_some() { params.first().map(|s| s.as_str()) } else { None },
            "shell": cfg.shell,
        });
        series_ids.push(store.add_series(run_id, label, &attrs)?);
    }
    let mut m = Measurement {
        cfg,
        benches: &benches,
        runner: &mut runner,
        shell,
        observer,
        stop,
        deadline,
        runs: vec![Vec::new(); benches.len()],
        ids: vec![None; benches.len()],
        rounds: 0,
    };
    // Other processes' share of the CPUs while the runs go (the commands
    // are toll's children): a row measured beside them is tagged busy.
    let others = toll_measure::env::OthersBusy::start(&[]);
    let result = m.all(store, &series_ids, run_id);
    let (others_busy, _) = others.share(&[]);
    let (runs, rounds) = (std::mem::take(&mut m.runs), m.rounds);
    let save = save_points(store, &benches, &series_ids, &runs, &mut m.ids, shell);
    let ended = match &result {
        Err(_) => Ended::Failed,
        Ok(e) => *e,
    };
    let mut series = Vec::new();
    for (i, label) in series_labels.iter().enumerate() {
        let mut members: Vec<usize> = (0..benches.len())
            .filter(|&b| benches[b].series == i)
            .collect();
        members.sort_by_key(|&b| benches[b].n.unwrap_or(0));
        let points: Vec<(f64, Vec<f64>)> = members
            .iter()
            .filter_map(|&b| Some((benches[b].n? as f64, wall(&runs[b]))))
            .filter(|(_, w)| !w.is_empty())
            .collect();
        let mut fit = fit_series(&points);
        if let Some(f) = &mut fit {
            let which = Comparable {
                family: "exec",
                label,
                run_id,
                cpu_model: &cpu_model,
                config: &[
                    ("pin", json!(cfg.pin)),
                    ("shell", json!(cfg.shell)),
                    ("parameters", json!(cfg.params)),
                ],
                attrs: &[("command", json!(cfg.commands[benches[members[0]].template]))],
            };
            history::conclude(store, &which, series_ids[i], f, &points, Some(others_busy))?;
        }
        series.push(SeriesResult {
            label: label.clone(),
            benches: members,
            fit,
        });
    }
    let measured = runs.iter().any(|r| !r.is_empty());
    let status = match ended {
        Ended::Failed if !measured => RunStatus::Failed,
        Ended::Failed | Ended::Interrupted => RunStatus::Partial,
        Ended::Done | Ended::OutOfTime => RunStatus::Complete,
    };
    let error = result.err().or(save.err());
    store.finish_run(
        run_id,
        status,
        &summary_line(&benches, &runs),
        error.as_ref().map(|e| e.to_string()).as_deref(),
    )?;
    Ok(ExecOutcome {
        run_id,
        status,
        benches,
        runs,
        series,
        shell,
        counters_missing,
        rss_floor_kb: child::own_peak_rss_kb(),
        rounds,
        ended,
        elapsed: started.elapsed(),
        error,
    })
}

/// `--pin CPU`: a CPU this process may run on.
pub fn check_pin(cpu: usize) -> Result<(), ExecError> {
    use nix::sched::{sched_getaffinity, CpuSet};
    use nix::unistd::Pid;
    let allowed = sched_getaffinity(Pid::from_raw(0)).map_err(|e| ExecError::Pin {
        cpu,
        why: e.to_string(),
    })?;
    if cpu < CpuSet::count() && allowed.is_set(cpu).unwrap_or(false) {
        return Ok(());
    }
    let ok: Vec<String> = (0..CpuSet::count())
        .filter(|&c| allowed.is_set(c).unwrap_or(false))
        .map(|c| c.to_string())
        .collect();
    Err(ExecError::Usage(format!(
        "--pin {cpu}: no such CPU here: give one of {}",
        ok.join(", ")
    )))
}

fn pin(cpu: usize) -> Result<(), ExecError> {
    use nix::sched::{sched_setaffinity, CpuSet};
    use nix::unistd::Pid;
    check_pin(cpu)?;
    let mut set = CpuSet::new();
    set.set(cpu).map_err(|e| ExecError::Pin {
        cpu,
        why: e.to_string(),
    })?;
    sched_setaffinity(Pid::from_raw(0), &set).map_err(|e| ExecError::Pin {
        cpu,
        why: e.to_string(),
    })
}

/// The one-line summary `toll runs` shows.
pub fn summary_line(benches: &[Bench], runs: &[Vec<Measured>]) -> String {
    let first = benches
        .iter()
        .zip(runs)
        .find(|(_, r)| !r.is_empty())
        .map(|(b, r)| {
            format!(
                "; {} {}",
                b.label,
                toll_report_fmt(Summary::of(&wall(r)).mean)
            )
        })
        .unwrap_or_default();
    format!(
        "{} command{}{}",
        benches.len(),
        if benches.len() == 1 { "" } else { "s" },
        first
    )
}

fn toll_report_fmt(ns: f64) -> String {
    toll_report::table::fmt_ns(ns)
}
