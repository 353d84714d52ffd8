//! A run's headline figures, one per series: α and β of its stored model
//! where it has one, else the figure its family leads with (an HTTP run's
//! requests per second, or the time at its largest n) — and each size's
//! median, which a trend of a series without a model follows.

use crate::terms::{self, Term};
use toll_measure::decision::{self, Sign};
use toll_measure::summary::Summary;
use toll_report::decided;
use toll_report::html::escape;
use toll_report::table::fmt_ns;
use toll_store::{PointStatus, Run};

/// One series' headline.
#[derive(Debug, Clone)]
pub struct Head {
    pub label: String,
    pub figure: Figure,
    /// The stored verdict's words (ok, noisy, curve…), empty without a fit.
    pub verdict: String,
    /// Each measured size and its summary (median and interval), by n.
    pub medians: Vec<(u64, Summary)>,
    /// What it was measured under (sizes, placement, toll's version…).
    pub terms: Vec<Term>,
}

/// What a series leads with.
#[derive(Debug, Clone)]
pub enum Figure {
    /// The stored decision's α and β (ns, ns per unit), with their intervals.
    Line {
        alpha: decision::Figure,
        beta: decision::Figure,
        /// The intervals hold the run-to-run term.
        widened: bool,
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
            Figure::Line { alpha, .. } => alpha.value,
            Figure::Rate(r) => -r,
            Figure::At { ns, .. } => *ns,
        }
    }

    /// As a compact table cell: the figures, their CIs in the cell's
    /// tooltip, and the verdict's kind when it is not "ok".
    pub fn html(&self, verdict: &str) -> String {
        let kind = verdict.split([',', ' ', ';']).next().unwrap_or("");
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
            Figure::Line { alpha, beta, .. } => {
                let (a, a_ci) = decided::cells(alpha, fmt_ns);
                let (b, b_ci) = decided::cells(beta, fmt_ns);
                format!(
                    "<span title=\"α 95% CI {} · β 95% CI {}\">α {}<br>β {}</span>{v}",
                    escape(&a_ci),
                    escape(&b_ci),
                    escape(&a),
                    escape(&b)
                )
            }
            Figure::Rate(r) => format!("{r:.0} req/s{v}"),
            Figure::At { n, ns } => format!("{} at n = {n}{v}", fmt_ns(*ns)),
        }
    }

    /// α when it can be told from 0.
    pub fn alpha(&self) -> Option<f64> {
        match self {
            Figure::Line { alpha, .. } if alpha.sign == Sign::Positive => Some(alpha.value),
            _ => None,
        }
    }
}

/// What the machines, seeds and trend pages need of a run.
#[derive(Debug, Clone)]
pub struct RunHeads {
    /// When the run started: a run number used again after a removal is
    /// another run.
    pub started_at: String,
    pub env: toll_measure::env::Fingerprint,
    pub heads: Vec<Head>,
}

impl RunHeads {
    /// Series `label`'s headline.
    pub fn get(&self, label: &str) -> Option<&Head> {
        self.heads.iter().find(|h| h.label == label)
    }
}

/// A run's machine and every series' headline, in the run's order.
pub fn of(run: &Run) -> RunHeads {
    RunHeads {
        started_at: run.started_at.clone(),
        env: run.env.clone(),
        heads: series(run),
    }
}

fn series(run: &Run) -> Vec<Head> {
    run.series
        .iter()
        .filter_map(|s| {
            let medians: Vec<(u64, Summary)> = s
                .points
                .iter()
                .filter(|p| p.status == PointStatus::Ok)
                .filter_map(|p| Some((p.n, p.summary.clone()?)))
                .collect();
            // The stored decision's figures, the ones every view prints.
            let figure = if let Some(d) = decided::of(s) {
                Figure::Line {
                    alpha: d.alpha,
                    beta: d.beta,
                    widened: d.widened,
                }
            } else if let Some(rps) = s.points.iter().rev().find_map(|p| {
                p.extra
                    .as_ref()?
                    .pointer("/report/requests_per_second")?
                    .as_f64()
            }) {
                Figure::Rate(rps)
            } else {
                let (n, last) = medians.last()?;
                Figure::At {
                    n: *n,
                    ns: last.median,
                }
            };
            Some(Head {
                label: s.label.clone(),
                verdict: if s.fit.is_some() {
                    decided::verdict(s)
                } else {
                    String::new()
                },
                figure,
                medians,
                terms: terms::of(run, s),
            })
        })
        .collect()
}
