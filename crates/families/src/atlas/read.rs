//! An atlas row's figure read back from its family's stored run — the
//! point's median and interval, or the fitted α or β as the run's stored
//! decision has them — so a row says exactly what `toll show` of that run
//! says (one truth per run).

use super::group::Group;
use super::row::{Planned, Sheet, Take};
use crate::replicate::findings::Figure;
use crate::replicate::{of_summary, INTERRUPTED};
use toll_measure::decision::Sign;
use toll_store::{Run, Series, Store};

/// A family run as stored, to read rows from.
pub struct Stored {
    run: Run,
    stopped: bool,
}

impl Stored {
    /// Run `id` without its samples; `stopped`: the atlas was interrupted
    /// (a point never reached then says so).
    pub fn load(store: &Store, id: i64, stopped: bool) -> Result<Stored, String> {
        store
            .load_outline(id)
            .map(|o| Stored {
                run: o.run,
                stopped,
            })
            .map_err(|e| format!("failed: cannot read run {id}: {e}"))
    }

    fn series(&self, label: &str) -> Result<&Series, String> {
        self.run
            .series
            .iter()
            .find(|s| s.label == label)
            .ok_or_else(|| self.not_reached(label))
    }

    fn not_reached(&self, what: &str) -> String {
        if self.stopped {
            INTERRUPTED.to_string()
        } else {
            match &self.run.error {
                Some(e) => format!("not measured: {e} (run {})", self.run.id),
                None => format!("not measured: {what} is not in run {}", self.run.id),
            }
        }
    }

    /// α or β of a series as its stored decision has it, ns (per unit).
    fn fitted(&self, label: &str, alpha: bool) -> Result<Figure, String> {
        let s = self.series(label)?;
        let d = s
            .fit
            .as_ref()
            .and_then(|f| f.decision.as_ref())
            .ok_or_else(|| {
                format!(
                    "no model: fewer than two sizes measured (run {})",
                    self.run.id
                )
            })?;
        let f = if alpha { &d.alpha } else { &d.beta };
        let name = if alpha { "α" } else { "β" };
        match f.sign {
            Sign::BelowZero => Err(format!(
                "the model's {name} lies below 0: the line does not reach that end (run {})",
                self.run.id
            )),
            _ => Ok(Figure::new(f.value, f.ci.0, f.ci.1).at_level(Some(f.level))),
        }
    }

    /// The figure `take` names in series `label`, in its row's base unit.
    pub fn take(&self, label: &str, take: Take) -> Result<Figure, String> {
        match take {
            Take::Point { n } => {
                let s = self.series(label)?;
                let p = s
                    .points
                    .iter()
                    .find(|p| p.n == n)
                    .ok_or_else(|| self.not_reached(&format!("{label} at n = {n}")))?;
                // A one-point figure carries its run-to-run term (`toll sys`).
                let widened = s.attrs.get("figure").and_then(|f| {
                    serde_json::from_value::<toll_measure::run_to_run::Figure>(f.clone()).ok()
                });
                match (&p.summary, &p.error) {
                    (Some(_), _) if widened.is_some() && s.points.len() == 1 => {
                        let f = widened.expect("checked");
                        let level = f.level_within.min(0.95);
                        Ok(Figure::new(f.value, f.ci.0, f.ci.1).at_level(Some(level)))
                    }
                    (Some(sm), _) => Ok(of_summary(sm, 1.0)),
                    (None, Some(e)) => Err(format!("failed: {e}")),
                    (None, None) => Err(self.not_reached(&format!("{label} at n = {n}"))),
                }
            }
            Take::Knee => Err(format!(
                "the knee is read from its sweep's report, not a series (run {})",
                self.run.id
            )),
            Take::Alpha => self.fitted(label, true),
            Take::Beta => self.fitted(label, false),
            Take::Rate { bytes } => {
                let beta = self.fitted(label, false)?;
                Figure::new(bytes * 1e9, bytes * 1e9, bytes * 1e9)
                    .over(beta)
                    .ok_or_else(|| format!("β's interval reaches 0: no rate (run {})", self.run.id))
            }
            Take::NHalf { bytes } => {
                let (alpha, beta) = (self.fitted(label, true)?, self.fitted(label, false)?);
                alpha
                    .over(beta)
                    .map(|f| f.scaled(bytes))
                    .ok_or_else(|| format!("β's interval reaches 0: no n½ (run {})", self.run.id))
            }
        }
    }
}

/// `planned`'s rows from family run `run` (read back from the store), or
/// every one missing for why the run is not there.
pub fn fill(
    sheet: &mut Sheet,
    store: &Store,
    group: Group,
    planned: &[Planned],
    run: Result<i64, String>,
    stopped: bool,
) {
    let stored = run.and_then(|id| Ok((id, Stored::load(store, id, stopped)?)));
    for p in planned {
        match &stored {
            Err(why) => sheet.missing(group, p, why.clone()),
            Ok((id, s)) => sheet.measured(group, p, s.take(&p.source.series, p.source.take), *id),
        }
    }
}
