//! The data of a plot: each series' points with their CIs and its model,
//! in the plot's units, and how a stored run becomes them.

use toll_store::{PointStatus, Run};

/// One point: a median with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotPoint {
    pub x: f64,
    pub y: f64,
    pub y_low: f64,
    pub y_high: f64,
}

/// The two-segment model: α and a slope up to the break, β beyond it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Knee {
    pub alpha: f64,
    pub beta_small: f64,
    /// Where the large-size segment crosses n = 0.
    pub alpha_large: f64,
    pub beta: f64,
    pub break_n: f64,
}

/// A series' model in the plot's units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    pub alpha: f64,
    pub beta: f64,
    /// The straight line describes the points.
    pub line_fits: bool,
    /// The two-segment model, where the line does not fit and one was found.
    pub knee: Option<Knee>,
}

impl Model {
    /// A line that fits, with no two-segment model.
    pub fn line(alpha: f64, beta: f64) -> Model {
        Model {
            alpha,
            beta,
            line_fits: true,
            knee: None,
        }
    }

    pub(super) fn line_at(&self, n: f64) -> f64 {
        self.alpha + self.beta * n
    }
}

impl Knee {
    pub(super) fn at(&self, n: f64) -> f64 {
        if n <= self.break_n {
            self.alpha + self.beta_small * n
        } else {
            self.alpha_large + self.beta * n
        }
    }
}

/// One series of the plot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PlotSeries {
    pub label: String,
    pub points: Vec<PlotPoint>,
    pub model: Option<Model>,
    /// What the series belongs to (its peer or runtime): a chart with more
    /// series than colours draws a panel per group; empty for none.
    pub group: String,
}

impl PlotSeries {
    /// The same series with every time divided by `k` (µs → ms: 1000).
    pub fn scaled(mut self, k: f64) -> PlotSeries {
        for p in &mut self.points {
            p.y /= k;
            p.y_low /= k;
            p.y_high /= k;
        }
        if let Some(m) = &mut self.model {
            m.alpha /= k;
            m.beta /= k;
            if let Some(knee) = &mut m.knee {
                knee.alpha /= k;
                knee.beta_small /= k;
                knee.alpha_large /= k;
                knee.beta /= k;
            }
        }
        self
    }
}

/// Each series of a stored run as plot data in µs: medians with their CIs,
/// and the primary fit with its two-segment model.
pub fn plot_series_from_run(run: &Run) -> Vec<PlotSeries> {
    run.series
        .iter()
        .map(|s| PlotSeries {
            label: s.label.clone(),
            points: s
                .points
                .iter()
                .filter(|p| p.status == PointStatus::Ok)
                .filter_map(|p| {
                    p.summary.as_ref().map(|m| PlotPoint {
                        x: p.n as f64,
                        y: m.median / 1e3,
                        y_low: m.ci_low / 1e3,
                        y_high: m.ci_high / 1e3,
                    })
                })
                .collect(),
            model: s.fit.as_ref().map(|f| {
                let p = f.primary();
                Model {
                    alpha: p.alpha / 1e3,
                    beta: p.beta / 1e3,
                    line_fits: f.line_fits(),
                    knee: f
                        .check
                        .as_ref()
                        .and_then(|c| c.piecewise.as_ref())
                        .map(|k| Knee {
                            alpha: k.alpha / 1e3,
                            beta_small: k.beta_small / 1e3,
                            alpha_large: large_intercept(s, k) / 1e3,
                            beta: k.beta / 1e3,
                            break_n: k.break_n,
                        }),
                }
            }),
            group: group_of(s),
        })
        .collect()
}

/// A stored series' group: its peer (`toll transfer`) or its runtime
/// (spawn, ring, ffi, file, rpc); empty where it has neither (exec).
fn group_of(s: &toll_store::Series) -> String {
    ["peer", "runtime"]
        .iter()
        .find_map(|k| s.attrs.get(*k)?.as_str())
        .unwrap_or("")
        .to_string()
}

/// Where the large-size segment of `k` crosses n = 0, in ns. The store
/// keeps its slope, not its intercept: where the break is the segments'
/// crossing the intercept follows from the small segment; where the break
/// was held to the last small or first large n, it is the median of the
/// large points' t − β·n (the line through them with slope β).
fn large_intercept(s: &toll_store::Series, k: &toll_measure::model::Piecewise) -> f64 {
    let crossing = k.alpha + (k.beta_small - k.beta) * k.break_n;
    if k.break_n > k.split.0 && k.break_n < k.split.1 {
        return crossing;
    }
    let mut rest: Vec<f64> = s
        .points
        .iter()
        .filter(|p| p.status == PointStatus::Ok && p.n as f64 >= k.split.1)
        .filter_map(|p| Some(p.summary.as_ref()?.median - k.beta * p.n as f64))
        .collect();
    if rest.is_empty() {
        return crossing;
    }
    rest.sort_by(f64::total_cmp);
    let m = rest.len() / 2;
    if rest.len() % 2 == 1 {
        rest[m]
    } else {
        0.5 * (rest[m - 1] + rest[m])
    }
}
