//! `toll ffi --vs-link`: after the bindings, each measured runtime's worker
//! answers the round trip of an empty message over every link it speaks,
//! toll and the worker pinned to one core ([`crate::transfer`]'s sweep,
//! stored as series of this run); each runtime's cheapest binding is set
//! beside its cheapest link, their ratio with a bootstrap interval, decided
//! here and stored on that binding's series (`attrs.vs_link`).

use super::config::{FfiConfig, FfiError, FfiSeries};
use crate::observer::Observer;
use crate::transfer::{self, SmallestTrips};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use toll_measure::ratio::median_ratio;
use toll_measure::{Sample, Summary};
use toll_peers::{FfiLaunch, Runtime};
use toll_report::ffi_link::{VsLinkRow, WithCi};
use toll_store::{PointStatus, Run, Store};

/// The runtimes in the order measured, each with its worker when one of
/// its bindings measured a null call.
fn runtimes(series: &[FfiSeries]) -> Vec<(Runtime, bool)> {
    let mut out: Vec<(Runtime, bool)> = Vec::new();
    for s in series {
        let null = s.points.iter().any(|p| p.n == 0 && p.result.is_ok());
        match out.iter_mut().find(|(r, _)| *r == s.target.runtime) {
            Some((_, any)) => *any |= null,
            None => out.push((s.target.runtime, null)),
        }
    }
    out
}

/// Measure the links, decide each runtime's row, store it; the rows.
#[allow(clippy::too_many_arguments)]
pub(super) fn measure(
    cfg: &FfiConfig,
    store: &Store,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
    run_id: i64,
    cpu_model: &str,
    series: &[FfiSeries],
    prepared: &BTreeMap<Runtime, Result<FfiLaunch, String>>,
) -> Result<Vec<VsLinkRow>, FfiError> {
    let chosen = runtimes(series);
    let peers: Vec<_> = chosen
        .iter()
        .filter(|(r, any)| *any && r.transfers())
        .filter_map(|(r, _)| Some((*r, prepared.get(r)?.as_ref().ok()?.launch.clone())))
        .collect();
    let trips = if peers.is_empty() {
        SmallestTrips::default()
    } else {
        observer.note("--vs-link: the round trip of an empty message over each link, toll and the worker on one core");
        transfer::smallest_round_trips(
            peers,
            &cfg.engine,
            store,
            run_id,
            cpu_model,
            observer,
            stop,
        )?
    };
    let run = store.load_run(run_id)?;
    let mut rows = Vec::new();
    for (runtime, _) in chosen {
        let (row, on) = decide(&run, runtime, &trips);
        if let Some(id) = on {
            let s = run.series.iter().find(|s| s.id == id).expect("stored");
            let mut attrs = s.attrs.clone();
            attrs["vs_link"] = serde_json::to_value(&row).expect("plain values");
            store.set_series_attrs(id, &attrs)?;
        }
        rows.push(row);
    }
    Ok(rows)
}

/// ns per call of a stored series' n = 0 point, and its summary.
fn null_of(s: &toll_store::Series) -> Option<(Vec<f64>, Summary)> {
    let p = s
        .points
        .iter()
        .find(|p| p.n == 0 && p.status == PointStatus::Ok)?;
    Some((
        p.samples.iter().map(Sample::per_op_ns).collect(),
        p.summary.clone()?,
    ))
}

fn with_ci(s: &Summary) -> WithCi {
    (s.median, s.ci_low, s.ci_high)
}

/// A runtime's row, and the series it is stored on (its cheapest binding,
/// or its first series when none measured).
fn decide(run: &Run, runtime: Runtime, trips: &SmallestTrips) -> (VsLinkRow, Option<i64>) {
    let name = runtime.name();
    let of_runtime = |key: &'static str| {
        run.series
            .iter()
            .filter(move |s| s.attrs.get(key).is_some() && attr_is(s, runtime_key(key), name))
    };
    let cheapest = |key: &'static str| {
        of_runtime(key)
            .filter_map(|s| Some((s, null_of(s)?)))
            .min_by(|a, b| a.1 .1.median.total_cmp(&b.1 .1.median))
    };
    let mut row = VsLinkRow {
        runtime: name.into(),
        binding: None,
        call_ns: None,
        call_level: None,
        link: None,
        trip_ns: None,
        trip_level: None,
        ratio: None,
        why: None,
    };
    let Some((call, (call_ns, call_sum))) = cheapest("binding") else {
        row.why = Some("no binding measured a call at n = 0 here".into());
        return (row, of_runtime("binding").next().map(|s| s.id));
    };
    row.binding = call.attrs["binding"].as_str().map(str::to_string);
    row.call_ns = Some(with_ci(&call_sum));
    row.call_level = call_sum.ci_level;
    match cheapest("transport") {
        Some((link, (trip_ns, trip_sum))) => {
            row.link = link.attrs["transport"].as_str().map(str::to_string);
            row.trip_ns = Some(with_ci(&trip_sum));
            row.trip_level = trip_sum.ci_level;
            row.ratio = median_ratio(&call_ns, &trip_ns, false);
            if row.ratio.is_none() {
                row.why = Some("the call's median at n = 0 is not above 0: no ratio".into());
            }
        }
        None => {
            row.why = Some(
                trips
                    .failed
                    .iter()
                    .find(|(r, _)| *r == runtime)
                    .map(|(_, why)| why.clone())
                    .unwrap_or_else(|| {
                        if runtime.transfers() {
                            "no link measured (the run was interrupted)".into()
                        } else {
                            format!("the {name} worker answers no transfer")
                        }
                    }),
            );
        }
    }
    (row, Some(call.id))
}

/// The attribute naming a series' runtime: `runtime` for a binding's,
/// `peer` for a link's.
fn runtime_key(key: &str) -> &'static str {
    if key == "binding" {
        "runtime"
    } else {
        "peer"
    }
}

/// A stored series' string attribute equals `value`.
fn attr_is(s: &toll_store::Series, key: &str, value: &str) -> bool {
    s.attrs.get(key).and_then(|v| v.as_str()) == Some(value)
}
