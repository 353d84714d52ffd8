//! A run's headline figures, one per series: α and β of its model where it
//! fits a line, else the figure its family leads with (an HTTP run's
//! requests per second, or the time at its largest n).

use toll_report::html::escape;
use toll_report::models::verdict;
use toll_report::table::fmt_ns;
use toll_store::{PointStatus, Run};

/// One series' headline.
#[derive(Debug, Clone)]
pub struct Head {
    pub label: String,
    pub figure: Figure,
    /// The models table's verdict (ok, noisy, curve…), empty without a fit.
    pub verdict: String,
}

/// What a series leads with.
#[derive(Debug, Clone)]
pub enum Figure {
    /// α and β (ns, ns per unit) with their 95% CIs.
    Line {
        alpha: f64,
        alpha_ci: (f64, f64),
        beta: f64,
        beta_ci: (f64, f64),
    },
    /// Requests per second.
    Rate(f64),
    /// The median time (ns) at `n`.
    At { n: u64, ns: f64 },
}

impl Figure {
    /// The number a column sorts by (smaller is faster, except a rate).
    pub fn key(&self) -> f64 {
        match self {
            Figure::Line { alpha, .. } => *alpha,
            Figure::Rate(r) => -r,
            Figure::At { ns, .. } => *ns,
        }
    }

    /// As a compact table cell: the figures, their CIs in the cell's
    /// tooltip, and the verdict's kind when it is not "ok".
    pub fn html(&self, verdict: &str) -> String {
        let kind = verdict.split([',', ' ']).next().unwrap_or("");
        let v = if kind.is_empty() || kind == "ok" {
            String::new()
        } else {
            format!(
                " <span class=\"badge v-{}\" title=\"{}\">{}</span>",
                escape(kind),
                escape(verdict),
                escape(kind)
            )
        };
        match self {
            Figure::Line {
                alpha,
                alpha_ci,
                beta,
                beta_ci,
            } => format!(
                "<span title=\"α 95% CI [{}, {}] · β 95% CI [{}, {}]\">α {}<br>β {}</span>{v}",
                fmt_ns(alpha_ci.0),
                fmt_ns(alpha_ci.1),
                fmt_ns(beta_ci.0),
                fmt_ns(beta_ci.1),
                fmt_ns(*alpha),
                fmt_ns(*beta)
            ),
            Figure::Rate(r) => format!("{r:.0} req/s{v}"),
            Figure::At { n, ns } => format!("{} at n = {n}{v}", fmt_ns(*ns)),
        }
    }
}

/// What the machines and seeds pages need of a run.
#[derive(Debug, Clone)]
pub struct RunHeads {
    pub env: toll_measure::env::Fingerprint,
    pub heads: Vec<Head>,
}

/// A run's machine and every series' headline, in the run's order.
pub fn of(run: &Run) -> RunHeads {
    RunHeads {
        env: run.env.clone(),
        heads: series(run),
    }
}

fn series(run: &Run) -> Vec<Head> {
    run.series
        .iter()
        .filter_map(|s| {
            // The stored decision's figures, the ones every view prints.
            let figure = if let Some(d) = s.fit.as_ref().and_then(|f| f.decision.as_ref()) {
                Figure::Line {
                    alpha: d.alpha.value,
                    alpha_ci: d.alpha.ci,
                    beta: d.beta.value,
                    beta_ci: d.beta.ci,
                }
            } else if let Some(rps) = s.points.iter().rev().find_map(|p| {
                p.extra
                    .as_ref()?
                    .pointer("/report/requests_per_second")?
                    .as_f64()
            }) {
                Figure::Rate(rps)
            } else {
                let p = s
                    .points
                    .iter()
                    .rev()
                    .find(|p| p.status == PointStatus::Ok && p.summary.is_some())?;
                Figure::At {
                    n: p.n,
                    ns: p.summary.as_ref()?.median,
                }
            };
            Some(Head {
                label: s.label.clone(),
                verdict: if s.fit.is_some() {
                    verdict(&run.family, s)
                } else {
                    String::new()
                },
                figure,
            })
        })
        .collect()
}
