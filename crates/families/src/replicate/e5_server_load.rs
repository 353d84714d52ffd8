//! E5's two kinds of load on a server toll started: E5's own (`ab -c 20
//! -n 10000` on the 92-byte page, `-n 1000` on the 1 MiB file, no
//! keep-alive, repeated so each figure has a CI across repetitions), and
//! `toll http compare` across all of them (warm-up until each rate
//! settles, then A B … B A rounds, each rate as a ratio to the first's),
//! with what E5's lessons take from it: a server's gain from warming up
//! (its first warm-up rounds against its warm ones, [`warmup_gain`]) and
//! its tail, p99 ÷ p50, paired round by round ([`tail_ratio`]).

use super::experiment::{Ctx, INTERRUPTED};
use super::findings::Figure;
use super::report::Report;
use crate::http::compare::{self, Rules};
use crate::http::compare_rounds::{self, Progress, Rounds};
use crate::http::request::RequestSpec;
use crate::http::{self, HttpConfig, Target};
use std::time::Duration;
use toll_measure::hodges_lehmann;
use toll_measure::median_ci::{level as median_level, median_ci};
use toll_measure::quantile::median;
use toll_report::http_compare::StopReason;

/// E5's client: 20 connections, no keep-alive (ab's default).
pub const CONCURRENCY: usize = 20;

/// A load of `url`, `requests` long (or timed, when None), as E5's ab ran it.
pub fn config(url: &str, requests: Option<u64>) -> Result<HttpConfig, String> {
    let target = Target::resolve(url).map_err(|e| format!("failed: {e}"))?;
    let concurrency = requests.map_or(CONCURRENCY, |n| CONCURRENCY.min(n as usize));
    let mut cfg = HttpConfig {
        target,
        spec: RequestSpec {
            method: None,
            headers: vec![],
            body: None,
            content_type: None,
            keep_alive: false,
        },
        concurrency,
        requests,
        time_limit: None,
        threads: std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(concurrency),
        timeout: Duration::from_secs(30),
        variable_length: false,
        rate: None,
        http2: false,
        streams: 1,
        insecure: false,
        spin: Duration::ZERO,
        coalesce: Duration::from_micros(10),
        io: http::Io::from_env(),
        urls: None,
    };
    http::preflight(&mut cfg).map_err(|e| format!("failed: {e}"))?;
    Ok(cfg)
}

/// One repetition's figures.
pub struct Load {
    pub rps: f64,
    pub kbs: f64,
    pub p50: f64,
    pub p99: f64,
}

/// A load's repetitions, or why there are none.
pub struct Loads {
    pub reps: Result<Vec<Load>, String>,
    pub run: Option<i64>,
}

impl Loads {
    /// The median over the repetitions with its order-statistic interval,
    /// at the level their count earns (3: 75%, from 6 on: 95%): inside what
    /// was measured, so a ratio that is ≥ 1 in every repetition keeps an
    /// interval ≥ 1, and a time's never reaches 0.
    pub fn pick(&self, f: impl Fn(&Load) -> f64) -> Result<Figure, String> {
        let reps = self.reps.as_ref().map_err(Clone::clone)?;
        let v: Vec<f64> = reps.iter().map(f).filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return Err(INTERRUPTED.into());
        }
        Ok(median_figure(&v))
    }
}

pub fn load(
    ctx: &mut Ctx,
    report: &mut Report,
    url: Result<String, String>,
    requests: u64,
    reps: usize,
) -> Loads {
    let cfg = match url.and_then(|u| config(&u, Some(requests))) {
        Ok(c) => c,
        Err(why) => {
            if why.starts_with("failed") {
                report.failed("http", &why);
            }
            return Loads {
                reps: Err(why),
                run: None,
            };
        }
    };
    let url = cfg.target.url.clone();
    let mut out = vec![];
    let mut run = None;
    for _ in 0..reps {
        if ctx.stopped() {
            break;
        }
        let measured = http::load(&cfg, ctx.stop, &mut |_, _| {}).and_then(|o| {
            let rep = http::report(&cfg, &o);
            let id = http::store_run(ctx.store, &cfg, &o, &rep, None)?;
            Ok((o, rep, id))
        });
        match measured {
            Ok((o, rep, id)) => {
                report.runs.push(id);
                run = Some(id);
                if o.interrupted || rep.complete_requests == 0 {
                    continue;
                }
                let pct = |p: f64| {
                    rep.percentiles
                        .iter()
                        .find(|(at, _)| *at == p)
                        .map_or(f64::NAN, |(_, ms)| *ms)
                };
                out.push(Load {
                    rps: rep.requests_per_second,
                    kbs: rep.transfer_rate_kb_s,
                    p50: pct(50.0),
                    p99: pct(99.0),
                });
            }
            Err(e) => {
                report.failed(&format!("http {url}"), &e);
                return Loads {
                    reps: Err(format!("failed: {e}")),
                    run,
                };
            }
        }
    }
    Loads { reps: Ok(out), run }
}

/// The median of `v` with its order-statistic interval and that interval's
/// exact level; one value is a figure without an interval (level 0).
pub fn median_figure(v: &[f64]) -> Figure {
    let m = median(v);
    let (lo, hi) = median_ci(v);
    Figure::new(m, lo.min(m), hi.max(m)).at_level(Some(median_level(v.len())))
}

/// `toll http compare` across E5's servers, or why it did not run.
pub struct Compared {
    pub rounds: Result<Rounds, String>,
    pub run: Option<i64>,
}

impl Compared {
    fn rounds(&self) -> Result<&Rounds, String> {
        self.rounds.as_ref().map_err(Clone::clone)
    }

    /// Server `s`'s rate ÷ server `base`'s, paired round by round: the
    /// median ratio with its 95% CI.
    pub fn ratio(&self, base: usize, s: usize) -> Result<Figure, String> {
        let r = self.rounds()?;
        let c = &r.comparison;
        compare::paired_ratio(c.measured_rates(base), c.measured_rates(s))
            .map(|(e, n)| Figure::new(e.median, e.lo, e.hi).at_level(Some(median_level(n))))
            .ok_or_else(|| "no round was measured: the comparison ended in its warm-up".into())
    }

    /// Server `s`'s latency percentile `at` (50, 99), ms, in each measured
    /// round, in order (NaN where a round lacks it).
    pub fn percentile(&self, s: usize, at: f64) -> Result<Vec<f64>, String> {
        Ok(self
            .rounds()?
            .records
            .iter()
            .filter(|x| x.server == s && x.phase == compare::Phase::Measure)
            .map(|x| {
                x.report
                    .percentiles
                    .iter()
                    .find(|(p, _)| *p == at)
                    .map_or(f64::NAN, |(_, ms)| *ms)
            })
            .collect())
    }

    /// Server `s`'s rates in its warm-up rounds, in order.
    pub fn warmup(&self, s: usize) -> Result<Vec<f64>, String> {
        Ok(self.rounds()?.comparison.warmup_rates(s).to_vec())
    }

    /// Server `s`'s rates in its measured (warm) rounds, in order.
    pub fn measured(&self, s: usize) -> Result<Vec<f64>, String> {
        Ok(self.rounds()?.comparison.measured_rates(s).to_vec())
    }
}

/// The warm-up rounds that count as a server's first: as many as the
/// warm-up rule compares (a server is never judged warm on fewer).
pub const FIRST_ROUNDS: usize = WARM_WINDOW;
/// toll http compare's warm-up rule: the last 3 rounds within 5%.
const WARM_WINDOW: usize = 3;
pub const WARM_TOLERANCE: f64 = 0.05;

/// A server's gain from warming: its warm rounds' median rate ÷ the median
/// of its first [`FIRST_ROUNDS`] warm-up rounds, with the Hodges–Lehmann
/// ratio's distribution-free interval (the two sides were not taken in
/// pairs) at the level their counts earn (3 against 5: 96%; 2 against 3:
/// 80%), so the first rounds' spread is in the interval too.
pub fn warmup_gain(warmup: &[f64], warm: &[f64]) -> Result<Figure, String> {
    let first = &warmup[..warmup.len().min(FIRST_ROUNDS)];
    if first.len() < 2 {
        return Err(format!(
            "{} warm-up round(s): at least 2 are needed for an interval",
            first.len()
        ));
    }
    if warm.is_empty() {
        return Err("no round was measured: the comparison ended in its warm-up".into());
    }
    let (mf, mw) = (median(first), median(warm));
    if !(mf > 0.0 && mw.is_finite()) {
        return Err("its first rounds completed no request".into());
    }
    let r = mw / mf;
    // HL's interval is about its own estimate; it always holds the ratio
    // of medians printed too.
    match hodges_lehmann::ratio(first, warm) {
        Some(hl) => Ok(Figure::new(r, hl.lo.min(r), hl.hi.max(r)).at_level(Some(hl.level))),
        None => Err(format!(
            "{} first and {} warm round(s) cannot bound a ratio",
            first.len(),
            warm.len()
        )),
    }
}

/// p99 ÷ p50 of one server's rounds (E5's quantity), of `other` over the
/// same of `base`, paired round by round: the median ratio with its 95% CI.
pub fn tail_ratio(base: (&[f64], &[f64]), other: (&[f64], &[f64])) -> Result<Figure, String> {
    let tail = |(p50, p99): (&[f64], &[f64])| -> Vec<f64> {
        p50.iter()
            .zip(p99)
            .map(|(a, b)| if *a > 0.0 { b / a } else { f64::NAN })
            .collect()
    };
    compare::paired_ratio(&tail(base), &tail(other))
        .map(|(e, n)| Figure::new(e.median, e.lo, e.hi).at_level(Some(median_level(n))))
        .ok_or_else(|| "no round was measured: the comparison ended in its warm-up".into())
}

/// Names each round on the spinner.
struct Shown<'a, 'b> {
    ctx: &'a mut Ctx<'b>,
    labels: &'a [String],
}

impl Progress for Shown<'_, '_> {
    fn round(&mut self, cmp: &compare::Comparison, round: compare::Round) {
        let what = match round.phase {
            compare::Phase::Warmup => {
                format!("warm-up round {}", cmp.warmup_rates(round.server).len() + 1)
            }
            compare::Phase::Measure => format!("round {}", cmp.cycles() + 1),
        };
        self.ctx.observer.series_started(
            &format!("E5 http compare: {}, {what}", self.labels[round.server]),
            0,
        );
    }

    fn requests(&mut self, _done: u64) {}
}

/// Compare `urls` (the 92-byte page of each server) in timed rounds, as
/// `toll http compare` does, the rules scaled to the preset; stored as an
/// `http-compare` run.
pub fn compare(ctx: &mut Ctx, report: &mut Report, labels: &[String], urls: &[String]) -> Compared {
    let none = |why: String| Compared {
        rounds: Err(why),
        run: None,
    };
    if ctx.stopped() {
        return none(INTERRUPTED.into());
    }
    if urls.len() < 2 {
        return none("fewer than two servers started: nothing to compare".into());
    }
    let p = ctx.preset;
    let rules = Rules {
        round: p.pick(
            Duration::from_secs(2),
            Duration::from_millis(500),
            Duration::from_millis(200),
        ),
        window: WARM_WINDOW,
        tolerance: WARM_TOLERANCE,
        // E5's JVM needed 5–6 runs.
        warmup_max: p.pick(10, 6, 2),
        min_rounds: p.pick(5, 3, 3),
        max_rounds: p.pick(20, 5, 3),
        ci_target: 0.05,
        max_time: p.pick(
            Duration::from_secs(900),
            Duration::from_secs(180),
            Duration::from_secs(60),
        ),
    };
    let mut cfgs = Vec::new();
    for url in urls {
        match config(url, None) {
            Ok(mut c) => {
                c.time_limit = Some(rules.round);
                cfgs.push(c);
            }
            Err(why) => {
                report.failed(&format!("http compare {url}"), &why);
                return none(why);
            }
        }
    }
    let (run_id, series) = match compare::begin_run(ctx.store, &cfgs, &rules, &[]) {
        Ok(x) => x,
        Err(e) => {
            report.failed("http compare", &e);
            return none(format!("failed: {e}"));
        }
    };
    report.runs.push(run_id);
    let stop = ctx.stop.clone();
    let mut shown = Shown { ctx, labels };
    let rounds = match compare_rounds::run(&cfgs, rules, &stop, &mut shown) {
        Ok(r) => r,
        Err(failed) => {
            let why = format!("{}: {}", labels[failed.server], failed.error);
            report.failed("http compare", &why);
            failed.done
        }
    };
    let figures = compare::figures(&rounds.comparison, &rounds.records, &cfgs, rounds.stop);
    if let Err(e) = compare::finish_run(ctx.store, run_id, &series, &rounds.records, &figures) {
        report.failed("http compare", &e);
    }
    if rounds.stop == StopReason::Interrupted && !report.partial {
        report.partial = true;
    }
    Compared {
        rounds: Ok(rounds),
        run: Some(run_id),
    }
}
