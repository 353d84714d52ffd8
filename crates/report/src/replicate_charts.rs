//! The family runs' pictures that the seed experiments need in a shape of
//! their own on replicate.html: E2's spawn and ring as cost per unit
//! against N on log–log axes, a line per runtime ([`ScalingChart`]); E5's
//! `toll http compare` as requests per second per server with CIs
//! ([`ServersChart`]) and each server's latency by percentile, every
//! server by the name the experiment's table gives it rather than A, B, ….

use crate::http_compare::CompareReport;
use crate::plot::scaling::{ScalingChart, ScalingSeries};
use crate::plot::servers::{ServerBar, ServersChart};
use crate::plot::{plot_series_from_run, LoadCharts};
use serde_json::Value;
use std::collections::HashMap;
use toll_store::Run;

/// E2's runs of `family` (spawn or ring) on one log–log plot, ring in ns
/// per hop as E2 gives it; None for another family.
pub fn scaling(family: &str, runs: &[&Run], title: &str) -> Option<ScalingChart> {
    let (x, y, k) = match family {
        "spawn" => ("units (N)", "µs per unit", 1.0),
        "ring" => ("units in the ring (N)", "ns per hop", 1e3),
        _ => return None,
    };
    let series = runs
        .iter()
        .flat_map(|r| plot_series_from_run(r))
        .map(|s| ScalingSeries {
            label: s.label,
            points: s
                .points
                .into_iter()
                .map(|mut p| {
                    p.y *= k;
                    p.y_low *= k;
                    p.y_high *= k;
                    p
                })
                .collect(),
        })
        .collect();
    let chart = ScalingChart {
        title: title.to_string(),
        x_label: x.into(),
        y_label: y.into(),
        series,
    };
    chart.drawable().then_some(chart)
}

/// `http://host:port` of a URL: a server, whatever page was asked of it.
fn origin(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let end = rest.find('/').unwrap_or(rest.len());
    &url[..url.len() - rest.len() + end]
}

/// Each server's name by its origin: the subject of the table's rows that
/// name a `toll http` run of that server.
pub fn server_names(table: &Run, behind: &[Run]) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for row in table
        .config
        .get("rows")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(id), Some(subject)) = (
            row.get("run").and_then(Value::as_i64),
            row.get("subject").and_then(Value::as_str),
        ) else {
            continue;
        };
        let url = behind
            .iter()
            .find(|r| r.id == id && r.family == "http")
            .and_then(|r| r.config.get("url")?.as_str());
        if let Some(url) = url {
            names
                .entry(origin(url).to_string())
                .or_insert_with(|| subject.to_string());
        }
    }
    names
}

/// The comparison a `toll http compare` run stored.
fn report(run: &Run) -> Option<CompareReport> {
    run.series
        .iter()
        .flat_map(|s| &s.points)
        .filter_map(|p| p.extra.as_ref()?.get("comparison"))
        .find_map(|c| serde_json::from_value(c.clone()).ok())
}

/// A comparison's two pictures with the servers named: the rates with
/// their CIs, and the latency by percentile; None when it has no rates.
pub fn compare(
    run: &Run,
    names: &HashMap<String, String>,
) -> Option<(ServersChart, Option<crate::plot::latency::LatencyChart>)> {
    let r = report(run)?;
    let name = |label: &str, url: &str| match names.get(origin(url)) {
        Some(n) => format!("{n} ({label})"),
        None => format!("{label} {url}"),
    };
    let bars: Vec<ServerBar> = r
        .servers
        .iter()
        .filter_map(|s| {
            let e = s.rate.as_ref()?;
            Some(ServerBar {
                label: name(&s.label, &s.url),
                median: e.median,
                lo: e.lo,
                hi: e.hi,
            })
        })
        .collect();
    let page = r
        .servers
        .first()
        .map(|s| s.url.rsplit('/').next().unwrap_or("").to_string())
        .unwrap_or_default();
    let chart = ServersChart {
        title: format!(
            "toll http compare — run {}: requests per second, /{page}",
            run.id
        ),
        unit: format!(
            "requests per second (median of {} rounds, {:.0}% CI), -c {}",
            r.rounds,
            (toll_measure::median_ci::level(r.rounds) * 100.0).floor(),
            r.concurrency
        ),
        bars,
    };
    let latency = LoadCharts::for_run(run).map(|c| {
        let mut l = c.latency;
        for curve in &mut l.curves {
            let server = r.servers.iter().find(|s| {
                curve.label == s.label || curve.label.starts_with(&format!("{} ", s.label))
            });
            if let Some(s) = server {
                curve.label = name(&s.label, &s.url);
            }
        }
        l
    });
    Some((chart, latency))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_is_its_scheme_host_and_port() {
        assert_eq!(
            origin("http://127.0.0.1:41451/hello.html"),
            "http://127.0.0.1:41451"
        );
        assert_eq!(origin("http://x:1"), "http://x:1");
    }
}
