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
pub mod perf;
pub mod stats;

pub use child::{Measured, Output};
pub use command::Parameter;

use crate::history::{self, Comparable};
use crate::observer::Observer;
use child::{RunError, Runner};
use serde::Serialize;
use serde_json::json;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use toll_measure::duration_ns::ns;
use toll_measure::fit::fit_series;
use toll_measure::rounds::{self, Stop, Verdict};
use toll_measure::{Fingerprint, Sample, SeriesFit, Summary};
use toll_store::{NewRun, Point, PointStatus, RunStatus, Store, StoreError};

/// hyperfine's rule: measure for at least this long when `--runs` is not given.
pub const MIN_BENCH_TIME: Duration = Duration::from_secs(3);
/// Runs of `sh -c ''` behind the shell's start-up figure.
pub const SHELL_RUNS: usize = 30;

/// How many measured runs each benchmark gets.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunCount {
    /// `--runs N`.
    Exact(usize),
    /// At least `min`, at most `max`, enough for [`MIN_BENCH_TIME`].
    Auto { min: usize, max: usize },
}

/// The order of a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// A B C, then C B A (ABBA): neither end always goes first.
    Alternate,
    /// Each round shuffled (seeded).
    Shuffle,
}

/// A validated `toll exec` request.
#[derive(Debug, Clone, Serialize)]
pub struct ExecConfig {
    /// The commands as written, `{name}` placeholders and all.
    pub commands: Vec<String>,
    /// Names shown instead of the commands (`--command-name`), if given.
    pub names: Vec<Option<String>>,
    pub params: Vec<Parameter>,
    /// None: no shell (`-N`); else the shell that reads each command.
    pub shell: Option<String>,
    pub warmup: usize,
    pub runs: RunCount,
    /// `--ci`: rounds until every benchmark's median CI is within this share.
    pub ci_target: Option<f64>,
    /// Bound on the whole measurement; a run still going then is killed.
    #[serde(with = "toll_measure::duration_ns", rename = "max_time_ns")]
    pub max_time: Duration,
    pub prepare: Option<String>,
    pub setup: Option<String>,
    pub cleanup: Option<String>,
    pub ignore_failure: bool,
    pub input: Option<PathBuf>,
    pub output: Output,
    pub pin: Option<usize>,
    pub order: Order,
}

/// Why a measurement could not run, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExecError {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    BadParameter(String),
    #[error("`{command}`: command not found{detail}: check its name or give its path")]
    NotFound { command: String, detail: String },
    #[error(
        "`{command}` failed with exit status {code}{stderr}: fix it, or pass -i to time it anyway"
    )]
    Failed {
        command: String,
        code: i32,
        stderr: String,
    },
    #[error("`{command}` ran past --max-time {limit}: raise --max-time, or give it less to do")]
    TooLong { command: String, limit: String },
    #[error("{what} `{command}` failed with exit status {code}{stderr}: fix it")]
    Hook {
        what: &'static str,
        command: String,
        code: i32,
        stderr: String,
    },
    #[error("cannot run `{command}`: {error}")]
    Spawn {
        command: String,
        error: std::io::Error,
    },
    #[error("cannot pin to CPU {cpu}: {why}")]
    Pin { cpu: usize, why: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One benchmark: a command with its parameter values filled in.
#[derive(Debug, Clone, Serialize)]
pub struct Bench {
    /// Which of the commands.
    pub template: usize,
    /// The command as run.
    pub command: String,
    /// What the report calls it.
    pub label: String,
    pub params: Vec<(String, String)>,
    /// The fitted parameter's value, when there is one.
    pub n: Option<u64>,
    /// Series key: its command and the parameters not fitted.
    pub series: usize,
    #[serde(skip)]
    argv: Vec<String>,
}

/// The shell's own start-up, subtracted from every run.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ShellCost {
    pub wall_ns: f64,
    pub user_ns: f64,
    pub sys_ns: f64,
    pub runs: usize,
}

/// One series: a command's benchmarks over the fitted parameter.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesResult {
    pub label: String,
    /// The benchmarks (indices) in ascending `n`.
    pub benches: Vec<usize>,
    pub fit: Option<SeriesFit>,
}

/// Why the rounds ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ended {
    /// The runs asked for, or every CI within `--ci`.
    Done,
    /// `--max-time` ran out with CIs still wider than `--ci`.
    OutOfTime,
    Interrupted,
    Failed,
}

/// What a `toll exec` produced.
#[derive(Debug)]
pub struct ExecOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub benches: Vec<Bench>,
    /// Each benchmark's measured runs, in the order taken.
    pub runs: Vec<Vec<Measured>>,
    pub series: Vec<SeriesResult>,
    pub shell: Option<ShellCost>,
    /// Why there are no cycles and instructions, when there are none.
    pub counters_missing: Option<String>,
    /// toll's own peak resident set, KiB (see [`child::own_peak_rss_kb`]).
    pub rss_floor_kb: u64,
    pub rounds: usize,
    pub ended: Ended,
    pub elapsed: Duration,
    pub error: Option<ExecError>,
}

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

/// How often the runs are saved while rounds go on: after a round, once
/// this long has passed since the last save, the wait doubling after each
/// save up to [`SAVE_EVERY_MOST`]. A save rewrites every run so far, so
/// evenly spaced saves would cost each run more the longer a benchmark
/// goes; doubling keeps the rows written below about twice the runs, and a
/// toll killed outright loses at most the runs of the last wait. The first
/// wait is long enough that a short benchmark (most of them) does no disk
/// I/O between its runs at all: a save's writes and fsyncs land beside the
/// next runs, which hyperfine, saving nothing until the end, never has.
const SAVE_EVERY_FIRST: Duration = Duration::from_secs(5);
/// The longest wait between saves.
const SAVE_EVERY_MOST: Duration = Duration::from_secs(10);

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
    let mut runner = Runner::new(cfg.input.clone(), cfg.output.clone(), counters).map_err(|e| {
        ExecError::Spawn {
            command: "a scratch file for stderr".into(),
            error: e,
        }
    })?;
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
            "pin": cfg.pin, "order": cfg.order, "counters": counters_missing.is_none(),
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
    let result = m.all(store, &series_ids, run_id);
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
            history::conclude(store, &which, series_ids[i], f, &points, None)?;
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

/// Wall times of a benchmark's runs, ns.
pub fn wall(runs: &[Measured]) -> Vec<f64> {
    runs.iter().map(|r| r.wall_ns).collect()
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

/// The shell's start-up: the mean of [`SHELL_RUNS`] runs of `sh -c ''`
/// after two untimed ones.
fn shell_cost(runner: &mut Runner, sh: &str, deadline: Instant) -> Result<ShellCost, ExecError> {
    let argv = vec![sh.to_string(), "-c".into(), String::new()];
    let mut runs = Vec::new();
    for i in 0..SHELL_RUNS + 2 {
        match runner.run(&argv, Some(deadline)) {
            Ok(m) if i >= 2 => runs.push(m),
            Ok(_) => {}
            Err(RunError::Spawn(_, e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ExecError::NotFound {
                    command: sh.into(),
                    detail: " (the shell)".into(),
                })
            }
            Err(RunError::Spawn(c, error)) => return Err(ExecError::Spawn { command: c, error }),
            Err(RunError::TimedOut) => {
                return Err(ExecError::TooLong {
                    command: format!("{sh} -c ''"),
                    limit: "(measuring the shell)".into(),
                })
            }
        }
    }
    let mean = |f: fn(&Measured) -> f64| runs.iter().map(f).sum::<f64>() / runs.len() as f64;
    Ok(ShellCost {
        wall_ns: mean(|m| m.wall_ns),
        user_ns: mean(|m| m.user_ns),
        sys_ns: mean(|m| m.sys_ns),
        runs: runs.len(),
    })
}

struct Measurement<'a> {
    cfg: &'a ExecConfig,
    benches: &'a [Bench],
    runner: &'a mut Runner,
    shell: Option<ShellCost>,
    observer: &'a mut dyn Observer,
    stop: &'a AtomicBool,
    deadline: Instant,
    runs: Vec<Vec<Measured>>,
    ids: Vec<Option<i64>>,
    rounds: usize,
}

impl Measurement<'_> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Set-up, warm-up, the measured rounds, clean-up.
    fn all(&mut self, store: &Store, series_ids: &[i64], run_id: i64) -> Result<Ended, ExecError> {
        if let Some(setup) = &self.cfg.setup {
            for b in self.benches {
                self.hook("--setup", &command::substitute(setup, &b.params))?;
            }
        }
        let result = self.rounds(store, series_ids, run_id);
        if let Some(cleanup) = &self.cfg.cleanup {
            for b in self.benches {
                let r = self.hook("--cleanup", &command::substitute(cleanup, &b.params));
                if result.is_ok() {
                    r?;
                }
            }
        }
        result
    }

    fn rounds(
        &mut self,
        store: &Store,
        series_ids: &[i64],
        run_id: i64,
    ) -> Result<Ended, ExecError> {
        let k = self.benches.len();
        for w in 0..self.cfg.warmup {
            for i in self.order(w) {
                if self.stopped() {
                    return Ok(Ended::Interrupted);
                }
                self.one(i, false)?;
            }
            self.observer
                .note(&format!("warm-up round {}/{}", w + 1, self.cfg.warmup));
        }
        let (min, max) = match self.cfg.runs {
            RunCount::Exact(n) => (n, n),
            RunCount::Auto { min, max } => (min, max),
        };
        let mut target = min;
        let started = Instant::now();
        let mut last_save = Instant::now();
        let mut save_every = SAVE_EVERY_FIRST;
        loop {
            let round_start = Instant::now();
            for i in self.order(self.rounds + self.cfg.warmup) {
                if self.stopped() {
                    return Ok(Ended::Interrupted);
                }
                self.one(i, true)?;
            }
            self.rounds += 1;
            if last_save.elapsed() >= save_every {
                save_points(
                    store,
                    self.benches,
                    series_ids,
                    &self.runs,
                    &mut self.ids,
                    self.shell,
                )?;
                last_save = Instant::now();
                save_every = (save_every * 2).min(SAVE_EVERY_MOST);
            }
            self.observer.round_done("exec", self.rounds);
            let round_time = round_start.elapsed();
            if self.rounds == 1 {
                if let RunCount::Auto { .. } = self.cfg.runs {
                    let want = (MIN_BENCH_TIME.as_secs_f64() / round_time.as_secs_f64().max(1e-9))
                        .ceil() as usize;
                    target = want.clamp(min, max);
                }
            }
            let _ = run_id;
            let rule = Stop {
                min_rounds: target,
                ci_target: self.cfg.ci_target,
                max_time: self.cfg.max_time,
            };
            // Each summary bootstraps its CI: only --ci needs them between rounds
            // (and without it they would cost more than a short run).
            let so_far: Vec<Summary> = match self.cfg.ci_target {
                Some(_) if self.rounds >= target => {
                    (0..k).map(|i| Summary::of(&wall(&self.runs[i]))).collect()
                }
                _ => Vec::new(),
            };
            let verdict = rule.after(self.rounds, started.elapsed(), &so_far);
            match verdict {
                Verdict::Done => return Ok(Ended::Done),
                Verdict::OutOfTime(_) => return Ok(Ended::OutOfTime),
                Verdict::More => {}
            }
            if self.rounds >= max && self.cfg.ci_target.is_none() {
                return Ok(Ended::Done);
            }
            // With --ci, stop before a round that would pass --max-time,
            // once the runs asked for are in.
            let left = self.deadline.saturating_duration_since(Instant::now());
            if self.cfg.ci_target.is_some() && self.rounds >= target && round_time > left {
                return Ok(Ended::OutOfTime);
            }
        }
    }

    fn order(&self, round: usize) -> Vec<usize> {
        let k = self.benches.len();
        match self.cfg.order {
            Order::Alternate if round % 2 == 1 => (0..k).rev().collect(),
            Order::Alternate => (0..k).collect(),
            Order::Shuffle => rounds::order(k, round + 1, 0x0e5e_c0de),
        }
    }

    /// `--setup`, `--cleanup`, `--prepare`: untimed, must succeed.
    fn hook(&mut self, what: &'static str, cmd: &str) -> Result<(), ExecError> {
        let sh = self.cfg.shell.clone().unwrap_or_else(|| "sh".into());
        let argv = vec![sh, "-c".into(), cmd.to_string()];
        match self.runner.run(&argv, Some(self.deadline)) {
            Ok(m) if m.exit_code == 0 => Ok(()),
            Ok(m) => Err(ExecError::Hook {
                what,
                command: cmd.into(),
                code: m.exit_code,
                stderr: stderr_note(self.runner.last_stderr(300)),
            }),
            Err(RunError::TimedOut) => Err(ExecError::TooLong {
                command: cmd.into(),
                limit: limit_text(self.cfg.max_time),
            }),
            Err(RunError::Spawn(c, error)) => Err(ExecError::Spawn { command: c, error }),
        }
    }

    /// One run of benchmark `i` (after its `--prepare`), kept when `timed`.
    fn one(&mut self, i: usize, timed: bool) -> Result<(), ExecError> {
        let b = &self.benches[i];
        if let Some(p) = &self.cfg.prepare {
            self.hook("--prepare", &command::substitute(p, &b.params))?;
        }
        let m = match self.runner.run(&b.argv, Some(self.deadline)) {
            Ok(m) => m,
            Err(RunError::TimedOut) => {
                return Err(ExecError::TooLong {
                    command: b.command.clone(),
                    limit: limit_text(self.cfg.max_time),
                })
            }
            Err(RunError::Spawn(c, e)) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ExecError::NotFound {
                    command: c,
                    detail: String::new(),
                })
            }
            Err(RunError::Spawn(c, error)) => return Err(ExecError::Spawn { command: c, error }),
        };
        if m.exit_code != 0 && !self.cfg.ignore_failure {
            let err = self.runner.last_stderr(300);
            // A shell's "not found" is exit status 127.
            if self.cfg.shell.is_some() && m.exit_code == 127 && err.contains("not found") {
                return Err(ExecError::NotFound {
                    command: b.command.clone(),
                    detail: stderr_note(err),
                });
            }
            return Err(ExecError::Failed {
                command: b.command.clone(),
                code: m.exit_code,
                stderr: stderr_note(err),
            });
        }
        if timed {
            let m = match self.shell {
                Some(s) => Measured {
                    wall_ns: (m.wall_ns - s.wall_ns).max(0.0),
                    user_ns: (m.user_ns - s.user_ns).max(0.0),
                    sys_ns: (m.sys_ns - s.sys_ns).max(0.0),
                    ..m
                },
                None => m,
            };
            self.runs[i].push(m);
        }
        Ok(())
    }
}

fn stderr_note(s: String) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!(" ({s})")
    }
}

fn limit_text(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 60.0 && s % 60.0 == 0.0 {
        format!("{}m", s / 60.0)
    } else {
        format!("{s}s")
    }
}

/// Store every benchmark's runs so far, replacing the last save.
fn save_points(
    store: &Store,
    benches: &[Bench],
    series_ids: &[i64],
    runs: &[Vec<Measured>],
    ids: &mut [Option<i64>],
    shell: Option<ShellCost>,
) -> Result<(), ExecError> {
    for (i, b) in benches.iter().enumerate() {
        if runs[i].is_empty() {
            continue;
        }
        let r = &runs[i];
        let col = |f: fn(&Measured) -> serde_json::Value| r.iter().map(f).collect::<Vec<_>>();
        let point = Point {
            n: b.n.unwrap_or(0),
            status: PointStatus::Ok,
            error: None,
            summary: Some(Summary::of(&wall(r))),
            samples: r
                .iter()
                .map(|m| Sample {
                    iters: 1,
                    total_ns: m.wall_ns.round() as u64,
                })
                .collect(),
            extra: Some(json!({
                "command": b.command, "label": b.label, "params": b.params,
                "shell_subtracted_ns": shell.map(|s| s.wall_ns),
                "user_ns": col(|m| json!(m.user_ns)), "sys_ns": col(|m| json!(m.sys_ns)),
                "max_rss_kb": col(|m| json!(m.max_rss_kb)), "exit_codes": col(|m| json!(m.exit_code)),
                "cycles": col(|m| json!(m.cycles)), "instructions": col(|m| json!(m.instructions)),
            })),
        };
        let mut entries = [(ids[i], &point)];
        store.save_points(series_ids[b.series], &mut entries)?;
        ids[i] = entries[0].0;
    }
    Ok(())
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
