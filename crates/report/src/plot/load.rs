//! The pictures of an HTTP load (`toll http`, `toll http compare`) from its
//! stored run: latency by percentile ([`super::latency`]) and requests per
//! second over time ([`super::rate`]). A load is not a sweep over n, so it
//! has no t(n) to draw; these are what wrk2, oha and HdrHistogram users
//! look at first. `--plot` stacks the two in one SVG; `toll report` and
//! the board show them as two figures.
//!
//! What a run holds: `toll http` keeps ab's report (percentiles, and at a
//! constant rate the uncorrected ones), the latency histogram's buckets and
//! the requests completed in each 100 ms (runs stored before that have the
//! 1-second intervals of the point's samples); `toll http compare` keeps
//! each round's report and rate. A comparison's curve for a server is the
//! median over its measured rounds of each percentile, as its table's p50
//! and p99 are.

use super::axis::Scale;
use super::canvas::{err, PlotError, FONT, WIDTH};
use super::latency::{LatencyChart, LatencyCurve};
use super::rate::{from_intervals, RateChart, RateSeries};
use crate::http::HttpReport;
use plotters::prelude::*;
use serde_json::Value;
use std::path::Path;
use toll_measure::quantile::median;
use toll_store::{Point, Run};

/// A load run's two pictures.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadCharts {
    pub latency: LatencyChart,
    pub rate: RateChart,
}

/// Whether `family` is a load (or a sweep of loads), drawn by its own
/// pictures rather than t(n).
pub fn is_load(family: &str) -> bool {
    matches!(family, "http" | "http-compare" | "http-sweep")
}

fn report_of(p: &Point) -> Option<HttpReport> {
    serde_json::from_value(p.extra.as_ref()?.get("report")?.clone()).ok()
}

fn u64s(v: Option<&Value>) -> Vec<u64> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default()
}

impl LoadCharts {
    /// The pictures of a stored `http` or `http-compare` run; None for
    /// another family.
    pub fn for_run(run: &Run) -> Option<LoadCharts> {
        let (curves, series, target, per) = match run.family.as_str() {
            "http" => http(run),
            "http-compare" => compare(run),
            _ => return None,
        };
        let name = if run.family == "http" {
            "toll http"
        } else {
            "toll http compare"
        };
        Some(LoadCharts {
            latency: LatencyChart {
                title: format!("{name} — run {}: latency by percentile", run.id),
                curves,
            },
            rate: RateChart {
                title: "requests per second over time".into(),
                per: per.into(),
                series,
                target,
            },
        })
    }

    /// Both pictures in one SVG, the latency above the rate; a line in
    /// place of the rate where the load was too short to have one.
    pub fn svg(&self, scale: Scale) -> Result<String, PlotError> {
        const TOP: u32 = 520;
        let rate = self.rate.drawable();
        let height = TOP + if rate { 440 } else { 40 };
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            let (top, bottom) = root.split_vertically(TOP);
            self.latency.draw(&top, scale)?;
            if rate {
                self.rate.draw(&bottom)?;
            } else {
                bottom
                    .draw(&Text::new(
                        "No rate over time: the load was shorter than two 100 ms intervals.",
                        (84, 10),
                        (FONT, 15).into_font().color(&BLACK.mix(0.7)),
                    ))
                    .map_err(err)?;
            }
            root.present().map_err(err)?;
        }
        Ok(out)
    }

    /// Write both pictures to `path` as one SVG, atomically.
    pub fn write(&self, path: &Path, scale: Scale) -> Result<(), PlotError> {
        let svg = self.svg(scale)?;
        crate::atomic::write(path, svg.as_bytes()).map_err(err)
    }
}

type Parts = (
    Vec<LatencyCurve>,
    Vec<RateSeries>,
    Option<f64>,
    &'static str,
);

fn http(run: &Run) -> Parts {
    let (mut curves, mut rates) = (Vec::new(), Vec::new());
    let mut target = None;
    let mut per = "each 100 ms";
    let many = run.series.len() > 1;
    for s in &run.series {
        for p in &s.points {
            let Some(r) = report_of(p) else { continue };
            let extra = p.extra.as_ref();
            let buckets: Vec<(f64, u64)> = extra
                .and_then(|e| e.get("latency_ns_histogram"))
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|b| {
                            Some((b.get(0)?.as_u64()? as f64 / 1e6, b.get(1)?.as_u64()?))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let count = r.complete_requests;
            let name = |what: &str| {
                if many {
                    format!("{} {what}", s.label)
                } else {
                    what.to_string()
                }
            };
            match &r.uncorrected_percentiles {
                Some(unc) => {
                    target = r.target_rate;
                    curves.push(LatencyCurve {
                        label: name("corrected: from the intended start"),
                        percentiles: r.percentiles.clone(),
                        buckets,
                        count,
                        dashed: false,
                        detail: format!("{count} requests"),
                    });
                    curves.push(LatencyCurve {
                        label: name("uncorrected: from the send"),
                        percentiles: unc.clone(),
                        buckets: Vec::new(),
                        count,
                        dashed: true,
                        detail: format!("{count} requests"),
                    });
                }
                None => curves.push(LatencyCurve {
                    label: s.label.clone(),
                    percentiles: r.percentiles.clone(),
                    buckets,
                    count,
                    dashed: false,
                    detail: format!("{count} requests"),
                }),
            }
            let fine = extra.and_then(|e| e.get("per_interval"));
            let points = match fine {
                Some(f) => from_intervals(&u64s(f.get("ends_ns")), &u64s(f.get("requests"))),
                None => {
                    // Stored before the 100 ms intervals: the 1-second ones.
                    per = "each second";
                    let mut end = 0u64;
                    let (mut ends, mut counts) = (Vec::new(), Vec::new());
                    for x in &p.samples {
                        end += x.total_ns;
                        ends.push(end);
                        counts.push(x.iters);
                    }
                    from_intervals(&ends, &counts)
                }
            };
            rates.push(RateSeries {
                label: s.label.clone(),
                points,
                warmup: Vec::new(),
            });
        }
    }
    (curves, rates, target, per)
}

fn compare(run: &Run) -> Parts {
    let round_ns = run
        .config
        .get("round_ns")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let at = |r: &Value| -> Option<(f64, f64)> {
        let start = r.get("start_ns")?.as_u64()?;
        Some((
            (start + round_ns / 2) as f64 / 1e9,
            r.get("rate")?.as_f64()?,
        ))
    };
    let (mut curves, mut rates) = (Vec::new(), Vec::new());
    for s in &run.series {
        for p in &s.points {
            let Some(extra) = &p.extra else { continue };
            let rounds: &[Value] = extra
                .get("rounds")
                .and_then(Value::as_array)
                .map_or(&[], Vec::as_slice);
            let reports: Vec<HttpReport> = rounds
                .iter()
                .filter_map(|r| serde_json::from_value(r.get("report")?.clone()).ok())
                .collect();
            if let Some(first) = reports.first() {
                let percentiles = first
                    .percentiles
                    .iter()
                    .map(|&(pct, _)| {
                        let v: Vec<f64> = reports
                            .iter()
                            .filter_map(|r| r.percentiles.iter().find(|x| x.0 == pct))
                            .map(|x| x.1)
                            .collect();
                        (pct, median(&v))
                    })
                    .collect();
                let counts: Vec<f64> = reports.iter().map(|r| r.complete_requests as f64).collect();
                let count = median(&counts) as u64;
                curves.push(LatencyCurve {
                    label: s.label.clone(),
                    percentiles,
                    buckets: Vec::new(),
                    count,
                    dashed: false,
                    detail: format!("median of {} rounds of ~{count} requests", reports.len()),
                });
            }
            let warmup: &[Value] = extra
                .get("warmup")
                .and_then(Value::as_array)
                .map_or(&[], Vec::as_slice);
            rates.push(RateSeries {
                label: s.label.clone(),
                points: rounds.iter().filter_map(at).collect(),
                warmup: warmup.iter().filter_map(at).collect(),
            });
        }
    }
    (curves, rates, None, "each round")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use toll_measure::{Fingerprint, Sample};
    use toll_store::{PointStatus, RunStatus, Series};

    fn run(family: &str, config: Value, series: Vec<Series>) -> Run {
        Run {
            id: 7,
            family: family.into(),
            started_at: String::new(),
            finished_at: None,
            status: RunStatus::Complete,
            summary: String::new(),
            error: None,
            config,
            env: Fingerprint::default(),
            tool_version: "0".into(),
            series,
        }
    }

    fn point(extra: Value, samples: Vec<Sample>) -> Point {
        Point {
            n: 1000,
            status: PointStatus::Ok,
            error: None,
            summary: None,
            samples,
            extra: Some(extra),
        }
    }

    fn series(label: &str, points: Vec<Point>) -> Series {
        Series {
            id: 1,
            label: label.into(),
            attrs: json!({}),
            fit: None,
            points,
        }
    }

    fn report(rate: Option<f64>, scale: f64) -> HttpReport {
        let ps: Vec<(f64, f64)> = [50.0, 90.0, 99.0, 99.9, 100.0]
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, scale * (1 + i) as f64))
            .collect();
        HttpReport {
            complete_requests: 1000,
            uncorrected_percentiles: rate.map(|_| ps.iter().map(|&(p, v)| (p, v / 2.0)).collect()),
            percentiles: ps,
            target_rate: rate,
            ..HttpReport::default()
        }
    }

    #[test]
    fn a_rate_run_gives_both_curves_and_its_intervals() {
        let extra = json!({
            "report": report(Some(400.0), 1.0),
            "latency_ns_histogram": [[1_000_000, 900], [5_000_000, 100]],
            "per_interval": {"ends_ns": [100_000_000, 200_000_000], "requests": [40, 41]},
        });
        let r = run(
            "http",
            json!({}),
            vec![series("GET /", vec![point(extra, vec![])])],
        );
        let c = LoadCharts::for_run(&r).unwrap();
        assert_eq!(c.latency.curves.len(), 2);
        assert!(c.latency.curves[1].dashed && c.latency.curves[0].buckets.len() == 2);
        assert_eq!(c.rate.target, Some(400.0));
        assert_eq!(c.rate.series[0].points.len(), 2);
        assert_eq!(c.rate.per, "each 100 ms");
        let svg = c.svg(Scale::Auto).unwrap();
        assert!(
            svg.contains("latency by percentile") && svg.contains("requests per second over time")
        );
    }

    #[test]
    fn an_older_run_draws_its_1_second_intervals() {
        let s = |iters| Sample {
            iters,
            total_ns: 1_000_000_000,
        };
        let extra = json!({"report": report(None, 0.2)});
        let r = run(
            "http",
            json!({}),
            vec![series("GET /", vec![point(extra, vec![s(500), s(510)])])],
        );
        let c = LoadCharts::for_run(&r).unwrap();
        assert_eq!(c.latency.curves.len(), 1);
        assert_eq!(c.rate.per, "each second");
        assert_eq!(c.rate.series[0].points, vec![(0.5, 500.0), (1.5, 510.0)]);
        assert!(LoadCharts::for_run(&run("transfer", json!({}), vec![])).is_none());
    }

    #[test]
    fn a_comparison_draws_each_server_by_its_rounds() {
        let side = |label: &str, scale: f64| {
            let rounds: Vec<Value> = (0..3)
                .map(|k| json!({"seq": k, "start_ns": k * 1_000_000_000u64, "rate": 1000.0 * scale, "report": report(None, scale)}))
                .collect();
            series(
                label,
                vec![point(
                    json!({"rounds": rounds, "warmup": [{"seq": 0, "start_ns": 0, "rate": 10.0}]}),
                    vec![],
                )],
            )
        };
        let r = run(
            "http-compare",
            json!({"round_ns": 500_000_000u64}),
            vec![side("A GET /a", 1.0), side("B GET /b", 2.0)],
        );
        let c = LoadCharts::for_run(&r).unwrap();
        assert_eq!(c.latency.curves.len(), 2);
        assert_eq!(c.latency.curves[1].percentiles[0], (50.0, 2.0));
        assert!(c.latency.curves[0].detail.contains("median of 3 rounds"));
        assert_eq!(c.rate.series[1].points[0], (0.25, 2000.0));
        assert_eq!(c.rate.series[0].warmup.len(), 1);
        assert!(c.svg(Scale::Auto).is_ok());
    }
}
