//! One `toll exec` run's measuring loop: the shell's own cost measured
//! first (hyperfine's `--shell` correction), warm-up rounds, then timed
//! rounds in the configured order until the run count or time is reached,
//! saving points as it goes so a killed toll loses at most the last wait.

use super::child::{Measured, RunError, Runner};
use super::command;
use super::config::*;
use crate::observer::Observer;
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use toll_measure::rounds::{self, Stop, Verdict};
use toll_measure::{Sample, Summary};
use toll_store::{Point, PointStatus, Store};

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

/// Wall times of a benchmark's runs, ns.
pub fn wall(runs: &[Measured]) -> Vec<f64> {
    runs.iter().map(|r| r.wall_ns).collect()
}

/// The shell's start-up: the mean of [`SHELL_RUNS`] runs of `sh -c ''`
/// after two untimed ones.
pub(super) fn shell_cost(
    runner: &mut Runner,
    sh: &str,
    deadline: Instant,
) -> Result<ShellCost, ExecError> {
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

/// Whether a run's figures are kept: a warm-up run's are not.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kept {
    WarmUp,
    Timed,
}

pub(super) struct Measurement<'a> {
    pub(super) cfg: &'a ExecConfig,
    pub(super) benches: &'a [Bench],
    pub(super) runner: &'a mut Runner,
    pub(super) shell: Option<ShellCost>,
    pub(super) observer: &'a mut dyn Observer,
    pub(super) stop: &'a AtomicBool,
    pub(super) deadline: Instant,
    pub(super) runs: Vec<Vec<Measured>>,
    pub(super) ids: Vec<Option<i64>>,
    pub(super) rounds: usize,
}

impl Measurement<'_> {
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Set-up, warm-up, the measured rounds, clean-up.
    pub(super) fn all(
        &mut self,
        store: &Store,
        series_ids: &[i64],
        run_id: i64,
    ) -> Result<Ended, ExecError> {
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
                self.one(i, Kept::WarmUp)?;
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
                self.one(i, Kept::Timed)?;
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

    /// One run of benchmark `i` (after its `--prepare`), kept when timed.
    fn one(&mut self, i: usize, kept: Kept) -> Result<(), ExecError> {
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
        if kept == Kept::Timed {
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
pub(super) fn save_points(
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
