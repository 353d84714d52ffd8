//! Runs stored by an older toll, read in today's shape.
//!
//! Up to export schema 2, run configs held durations as serde wrote a
//! `Duration` (`"warmup": {"secs": 0, "nanos": 100000000}`) or as floats
//! in seconds or microseconds (`"max_time_s": 60.0`, `"spin_us": 20.0`).
//! Since schema 3 every duration is whole nanoseconds under a `_ns` name.
//! The same holds for the figures a point keeps: `toll http`'s report
//! (`time_taken_s`) and `toll http compare`'s comparison and rounds
//! (`round_s`, `start_s`) are read as `_ns` ([`point_extra`]).
//! The stored text is left as it was written (a copy of the database read
//! by an older toll still reads); each config is upgraded as it is read,
//! so every reader — `show`, `export`, `compare`, the run-to-run history —
//! sees one shape.

use serde_json::{Map, Value};

/// Float durations of older configs: (old key, its new `_ns` key, ns per unit).
const FLOAT_KEYS: &[(&str, &str, f64)] = &[
    ("max_time_s", "max_time_ns", 1e9),
    ("time_limit_s", "time_limit_ns", 1e9),
    ("timeout_s", "timeout_ns", 1e9),
    ("round_s", "round_ns", 1e9),
    ("spin_us", "spin_ns", 1e3),
    ("coalesce_us", "coalesce_ns", 1e3),
];

/// serde's `{"secs": s, "nanos": n}`, as nanoseconds.
fn serde_duration(v: &Value) -> Option<u64> {
    let o = v.as_object()?;
    if o.len() != 2 {
        return None;
    }
    let secs = o.get("secs")?.as_u64()?;
    let nanos = o.get("nanos")?.as_u64()?;
    Some(secs.saturating_mul(1_000_000_000).saturating_add(nanos))
}

/// Rename every `{"secs", "nanos"}` value under `o`, at any depth, to `<key>_ns`.
fn durations(o: &mut Map<String, Value>) {
    let keys: Vec<String> = o.keys().cloned().collect();
    for k in keys {
        if let Some(ns) = o.get(&k).and_then(serde_duration) {
            o.remove(&k);
            o.insert(format!("{k}_ns"), ns.into());
        } else if let Some(inner) = o.get_mut(&k).and_then(Value::as_object_mut) {
            durations(inner);
        }
    }
}

/// Upgrade a run's config in place to today's shape (a no-op on configs
/// already in it).
pub fn config(config: &mut Value) {
    let Some(o) = config.as_object_mut() else {
        return;
    };
    durations(o);
    for (old, new, scale) in FLOAT_KEYS {
        let Some(v) = o.remove(*old) else {
            continue;
        };
        let ns = match v.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Value::from((x * scale).round() as u64),
            Some(_) => continue,
            None => v, // null: no limit, as before
        };
        o.insert((*new).into(), ns);
    }
}

/// Float seconds among a point's figures, at any depth: (old key, new key).
const RESULT_KEYS: &[(&str, &str)] = &[
    ("time_taken_s", "time_taken_ns"),
    ("round_s", "round_ns"),
    ("start_s", "start_ns"),
];

/// Upgrade a point's extra figures in place to today's shape (a no-op on
/// figures already in it).
pub fn point_extra(extra: &mut Value) {
    match extra {
        Value::Object(o) => {
            for (old, new) in RESULT_KEYS {
                if let Some(x) = o.get(*old).and_then(Value::as_f64) {
                    if x.is_finite() && x >= 0.0 {
                        o.remove(*old);
                        o.insert((*new).into(), Value::from((x * 1e9).round() as u64));
                    }
                }
            }
            o.values_mut().for_each(point_extra);
        }
        Value::Array(a) => a.iter_mut().for_each(point_extra),
        _ => {}
    }
}

/// Decide every fitted series of `run` that carries no decision yet (runs
/// stored or exported before decisions existed), from what the run kept:
/// its points' summaries and the share of the CPUs others used. A stored
/// decision is never remade.
pub fn decide(run: &mut crate::model::Run) {
    let per_unit = per_unit(&run.family);
    for s in &mut run.series {
        if let Some(fit) = s.fit.as_mut().filter(|f| f.decision.is_none()) {
            decide_fit(per_unit, &s.attrs, &s.points, fit);
        }
    }
}

/// Each series' fit of `run` as [`decide`] leaves it, without copying the
/// run (a pushed run may hold millions of samples).
pub fn decided_fits(run: &crate::model::Run) -> Vec<Option<toll_measure::SeriesFit>> {
    let per_unit = per_unit(&run.family);
    run.series
        .iter()
        .map(|s| {
            let mut fit = s.fit.clone();
            if let Some(f) = fit.as_mut().filter(|f| f.decision.is_none()) {
                decide_fit(per_unit, &s.attrs, &s.points, f);
            }
            fit
        })
        .collect()
}

/// Whether `family` fits time per unit (spawn, ring).
fn per_unit(family: &str) -> bool {
    matches!(family, "spawn" | "ring")
}

fn decide_fit(
    per_unit: bool,
    attrs: &Value,
    points: &[crate::model::Point],
    fit: &mut toll_measure::SeriesFit,
) {
    let ctx = toll_measure::decision::Context {
        per_unit,
        others_busy: attrs.get("others_busy").and_then(Value::as_f64),
        points: points
            .iter()
            .filter_map(|p| Some((p.n as f64, p.summary.clone()?)))
            .collect(),
    };
    toll_measure::decision::decide(fit, &ctx);
}

#[cfg(test)]
mod tests {
    use super::{config, point_extra};
    use serde_json::json;

    #[test]
    fn old_durations_become_whole_nanoseconds() {
        let mut c = json!({
            "sizes": [0, 10],
            "engine": {"trials": 10, "warmup": {"secs": 0, "nanos": 100_000_000},
                       "batch_time": {"secs": 2, "nanos": 5}, "max_iters": 10},
            "max_time_s": 60.0, "time_limit_s": null, "spin_us": 20.0, "coalesce_us": 0.0,
            "clock": {"resolution_ns": 20.0},
        });
        config(&mut c);
        assert_eq!(
            c,
            json!({
                "sizes": [0, 10],
                "engine": {"trials": 10, "warmup_ns": 100_000_000_u64,
                           "batch_time_ns": 2_000_000_005_u64, "max_iters": 10},
                "max_time_ns": 60_000_000_000_u64, "time_limit_ns": null,
                "spin_ns": 20_000, "coalesce_ns": 0,
                "clock": {"resolution_ns": 20.0},
            })
        );
        let again = c.clone();
        config(&mut c);
        assert_eq!(c, again, "today's shape is left alone");
        let mut odd = json!("not an object");
        config(&mut odd);
        assert_eq!(odd, json!("not an object"));
    }

    #[test]
    fn old_result_seconds_become_whole_nanoseconds() {
        let mut e = json!({
            "report": {"time_taken_s": 1.5, "requests": 10},
            "comparison": {"round_s": 2.0},
            "rounds": [{"seq": 1, "start_s": 0.25, "report": {"time_taken_s": 0.001}}],
        });
        point_extra(&mut e);
        assert_eq!(
            e,
            json!({
                "report": {"time_taken_ns": 1_500_000_000_u64, "requests": 10},
                "comparison": {"round_ns": 2_000_000_000_u64},
                "rounds": [{"seq": 1, "start_ns": 250_000_000_u64, "report": {"time_taken_ns": 1_000_000_u64}}],
            })
        );
        let again = e.clone();
        point_extra(&mut e);
        assert_eq!(e, again, "a no-op on today's shape");
    }
}
