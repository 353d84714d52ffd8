//! One series of run A against the same series of run B: every point's
//! change judged against each run's own noise and the series' run-to-run
//! term, and the change of α and β of its stored decision.

use super::model::{FitComparison, PointComparison, Rules, SeriesComparison};
use toll_measure::change::{ParamChange, PointChange};
use toll_store::{Point, PointStatus, Series};

/// Per-operation times of a measured point; None when it has none.
fn times(p: &Point) -> Option<Vec<f64>> {
    (p.status == PointStatus::Ok && !p.samples.is_empty())
        .then(|| p.samples.iter().map(|s| s.per_op_ns()).collect())
}

/// The run-to-run term a comparison of `sa` and `sb` judges by: B's,
/// learnt from the runs before B (else A's), with the decided model of A
/// and how many rounds each run's intervals rest on.
struct Between<'a> {
    term: Option<&'a toll_measure::run_to_run::RunToRun>,
    model: Option<&'a toll_measure::decision::Decision>,
    /// A one-point series' figure with its own term (`toll sys`): B's,
    /// else A's.
    figure: Option<toll_measure::run_to_run::Figure>,
}

impl Between<'_> {
    fn of<'a>(sa: &'a Series, sb: &'a Series) -> Between<'a> {
        let (fa, fb) = (sa.fit.as_ref(), sb.fit.as_ref());
        Between {
            term: fb
                .and_then(|f| f.run_to_run.as_ref())
                .or(fa.and_then(|f| f.run_to_run.as_ref())),
            model: fa.and_then(|f| f.decision.as_ref()),
            figure: [sb, sa]
                .iter()
                .find_map(|s| serde_json::from_value(s.attrs.get("figure")?.clone()).ok()),
        }
    }

    /// This machine's between-run standard deviation of t(n), as a share
    /// of t(n): √(σ_α² + (n·σ_β)²) over α + β·n of A's model; None without
    /// a term or a positive model there.
    fn share(&self, n: f64) -> Option<f64> {
        if let (None, Some(f)) = (self.term, &self.figure) {
            return (f.value > 0.0).then(|| f.sd / f.value);
        }
        let (r, d) = (self.term?, self.model?);
        let t = d.alpha.value + d.beta.value * n;
        (t > 0.0).then(|| (r.alpha_sd.powi(2) + (n * r.beta_sd).powi(2)).sqrt() / t)
    }
}

/// The degrees of freedom a stored fit's own intervals were made with.
fn fit_df(s: &Series) -> Option<usize> {
    let rounds = s.fit.as_ref()?.check.as_ref()?.rounds;
    Some(rounds.saturating_sub(1).max(1))
}

pub(super) fn compare_series(sa: &Series, sb: &Series, rules: Rules) -> SeriesComparison {
    let mut points = Vec::new();
    let mut only_in_a = Vec::new();
    let between = Between::of(sa, sb);
    for pa in &sa.points {
        let Some(pb) = sb.points.iter().find(|pb| pb.n == pa.n) else {
            only_in_a.push(pa.n);
            continue;
        };
        let (ta, tb) = (times(pa), times(pb));
        let change = match (&ta, &tb) {
            (Some(a), Some(b)) => PointChange::of_runs(a, b, between.share(pa.n as f64)),
            _ => None,
        };
        let note = match (&ta, &tb) {
            (None, _) => Some(format!(
                "failed in run A: {}",
                pa.error.as_deref().unwrap_or("no times")
            )),
            (_, None) => Some(format!(
                "failed in run B: {}",
                pb.error.as_deref().unwrap_or("no times")
            )),
            _ if change.is_none() => Some("no positive median in run A".into()),
            _ => None,
        };
        points.push(PointComparison {
            n: pa.n,
            verdict: change
                .as_ref()
                .map(|c| c.verdict(rules.alpha, rules.threshold)),
            change,
            note,
        });
    }
    let only_in_b = sb
        .points
        .iter()
        .filter(|pb| !sa.points.iter().any(|pa| pa.n == pb.n))
        .map(|p| p.n)
        .collect();
    // The decided figures (the model each run's table printed), by each
    // run's own interval plus the machine's between-run noise, learnt from
    // the runs before B (else before A): see `toll_measure::change`.
    let fit = match (&sa.fit, &sb.fit) {
        (Some(fa), Some(fb)) => {
            let (Some(da), Some(db)) = (&fa.decision, &fb.decision) else {
                return SeriesComparison {
                    label: sa.label.clone(),
                    points,
                    only_in_a,
                    only_in_b,
                    fit: None,
                };
            };
            let term = fb.run_to_run.as_ref().or(fa.run_to_run.as_ref());
            let (sd_a, sd_b) = term.map_or((0.0, 0.0), |r| (r.alpha_sd, r.beta_sd));
            let (df_a, df_b) = (fit_df(sa), fit_df(sb));
            let change =
                |a: &toll_measure::decision::Figure, b: &toll_measure::decision::Figure, sd| {
                    ParamChange::of_runs(a.value, a.within_ci, df_a, b.value, b.within_ci, df_b, sd)
                };
            Some(FitComparison {
                alpha_ns: change(&da.alpha, &db.alpha, sd_a),
                beta_ns: change(&da.beta, &db.beta, sd_b),
                line_fits: (fa.line_fits(), fb.line_fits()),
            })
        }
        _ => None,
    };
    SeriesComparison {
        label: sa.label.clone(),
        points,
        only_in_a,
        only_in_b,
        fit,
    }
}
