//! One E2 sweep through `toll spawn`/`toll ring`'s own code, and the
//! original figure nearest a measured N, shared by E2's runtimes and its
//! Squeak rows.

use crate::replicate::experiment::{Ctx, INTERRUPTED};
use crate::replicate::findings::Figure;
use crate::replicate::originals::Original;
use crate::replicate::report::{of_summary, Report};
use crate::units::Target;
use crate::units::{self, UnitOp, UnitsConfig, UnitsOutcome};
use toll_peers::Ceiling;

pub(in crate::replicate) fn original_at(
    table: &[(u64, Original)],
    n: u64,
) -> Result<Original, String> {
    table
        .iter()
        .find(|(at, _)| *at == n)
        .map(|(_, o)| *o)
        .ok_or_else(|| format!("E2 has no figure at N = {n}"))
}

/// One series' figures by N, or why there are none.
pub(super) struct Measured {
    outcome: Result<UnitsOutcome, String>,
    pub run: Option<i64>,
}

impl Measured {
    /// The cost per unit or hop at `n`, scaled from ns by `k`.
    pub fn pick(&self, n: u64, k: f64) -> Result<Figure, String> {
        let out = self.outcome.as_ref().map_err(Clone::clone)?;
        let point = out
            .series
            .first()
            .and_then(|s| s.points.iter().find(|p| p.n == n))
            .ok_or_else(|| INTERRUPTED.to_string())?;
        match &point.result {
            Ok(f) => Ok(of_summary(&f.per_op, k)),
            Err(why) => Err(format!("failed: {why}")),
        }
    }
}

pub(in crate::replicate) fn measure(
    ctx: &mut Ctx,
    report: &mut Report,
    op: UnitOp,
    ns: &[u64],
    trials: u32,
    ceiling: Ceiling,
    target: Target,
) -> Measured {
    let missing = |why: String| Measured {
        outcome: Err(why),
        run: None,
    };
    if target.runtime.detect().is_err() {
        return missing(format!(
            "{} not installed: {}",
            target.runtime,
            target.runtime.install_hint()
        ));
    }
    if ctx.stopped() {
        return missing(INTERRUPTED.into());
    }
    let cfg = UnitsConfig {
        op,
        ns: ns.to_vec(),
        targets: vec![target],
        trials,
        ceiling,
    };
    match units::run(&cfg, ctx.store, ctx.observer, ctx.stop) {
        Err(e) => {
            report.failed(&format!("{} {}", op.family(), target.label()), &e);
            missing(format!("failed: {e}"))
        }
        Ok(out) => {
            report.runs.push(out.run_id);
            if let Some(e) = &out.error {
                report.failed(&format!("{} {}", op.family(), target.label()), e);
            }
            let run = Some(out.run_id);
            Measured {
                outcome: Ok(out),
                run,
            }
        }
    }
}
