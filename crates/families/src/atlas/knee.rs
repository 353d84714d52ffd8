//! The rpc group's knee row: a local nginx's capacity, from one `toll http
//! --sweep` against the nginx the one-connection row loaded — open-loop
//! steps of offered rate, a factor of two apart, in passes low to high;
//! the knee is the highest rate every pass kept up (achieved ≥ 99%, p99
//! within the sweep's SLO), its interval from the passes (order
//! statistics, level said). nginx and toll share this machine's CPUs, so
//! it is the pair's capacity here, as the row says.

use super::group::Group;
use super::row::{Kind, MadeOf, Planned, Sheet, Source, Take};
use crate::http::sweep::{self, Slo, SweepPlan};
use crate::http::{self, HttpConfig};
use crate::replicate::findings::Figure;
use crate::replicate::{Ctx, Preset, INTERRUPTED};
use std::time::Duration;

const G: Group = Group::Rpc;

/// The knee's crossing.
pub const KNEE: &str = "HTTP requests a second from a local nginx, at its rate's knee";

/// Connections the sweep keeps open: enough that a step's rate, not the
/// connections, limits what is offered.
const CONNECTIONS: usize = 64;

/// The sweep: steps of offered rate a factor of two apart from 1000 req/s
/// (up to 512,000), each `step` long, in `repeats` passes.
pub fn plan(p: Preset) -> SweepPlan {
    let (steps, step_ms, repeats) = p.pick((10, 2000, 3), (10, 500, 3), (4, 200, 2));
    SweepPlan {
        rates: sweep::geometric(1000.0, 1000.0 * f64::powi(2.0, steps as i32 - 1), steps),
        step: Duration::from_millis(step_ms),
        repeats,
        slo: Slo::Times(5.0),
    }
}

fn planned(series: &str) -> Planned {
    Planned::new(
        KNEE,
        Kind::Requests,
        MadeOf::words(
            "the highest offered rate nginx (one worker) and toll's loop, sharing this machine, kept up: achieved ≥ 99%, p99 within the SLO",
        ),
        Source::new(series, Take::Knee),
    )
}

/// The knee's row: a sweep of the running nginx `base` loads (one
/// connection's config, made into the sweep's), stored as its own run; or
/// why not.
pub fn row(ctx: &mut Ctx, sheet: &mut Sheet, base: Result<HttpConfig, String>) {
    let base = match base {
        _ if ctx.stopped() => Err(INTERRUPTED.to_string()),
        b => b,
    };
    let cfg = base.and_then(|b| config(b, ctx.preset));
    let measured = cfg.and_then(|cfg| {
        let plan = plan(ctx.preset);
        let env = toll_measure::Fingerprint::capture(vec![]);
        let (report, loads) = sweep::run(
            &cfg,
            &plan,
            ctx.stop,
            &mut |_| {},
            &mut sweep::here(ctx.stop),
        )
        .map_err(|e| format!("failed: {e}"))?;
        let id = sweep::store_sweep(ctx.store, &cfg, &loads, &report, env, &[])
            .map_err(|e| format!("failed: {e}"))?;
        Ok((
            id,
            report,
            format!("{} {}", cfg.spec.method(), cfg.target.shown()),
        ))
    });
    match measured {
        Err(why) => sheet.missing(G, &planned(""), why),
        Ok((id, report, series)) => {
            sheet.runs.push(("http-sweep".into(), id));
            let figure = match report.knee {
                _ if report.partial => Err(INTERRUPTED.to_string()),
                Some(k) => match (k.rate, k.lo, k.hi) {
                    (Some(rate), Some(lo), Some(hi)) if k.level > 0.0 => {
                        Ok(Figure::new(rate, lo, hi).at_level(Some(k.level.min(0.95))))
                    }
                    (Some(rate), _, None) => Err(format!(
                        "not reached: every step kept up, to {rate:.0} req/s (run {id})"
                    )),
                    (Some(rate), _, _) => {
                        Ok(Figure::new(rate, rate, rate).without("one pass: no interval"))
                    }
                    (None, ..) => Err(format!(
                        "the first step, {:.0} req/s, was not kept up (run {id})",
                        report.rates.first().copied().unwrap_or(0.0)
                    )),
                },
                None => Err(format!("no knee: no step was measured (run {id})")),
            };
            sheet.measured(G, &planned(&series), figure, id);
        }
    }
}

/// The sweep's load: `CONNECTIONS` keep-alive connections, a thread per CPU.
fn config(mut cfg: HttpConfig, p: Preset) -> Result<HttpConfig, String> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    cfg.concurrency = CONNECTIONS;
    cfg.threads = cpus.min(CONNECTIONS);
    cfg.coalesce = Duration::ZERO;
    cfg.time_limit = Some(plan(p).step);
    http::preflight(&mut cfg).map_err(|e| e.to_string())?;
    Ok(cfg)
}

/// About how long the sweep takes, s: every step of every pass (a sweep
/// that stops at the knee takes less), with a rest after each.
pub fn estimate(p: Preset) -> f64 {
    let plan = plan(p);
    (plan.rates.len() * plan.repeats + 1) as f64 * plan.step.as_secs_f64() * 1.3
}
