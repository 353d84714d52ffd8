//! `toll compare RUN_A RUN_B`: two stored runs of one family, series by
//! series and point by point, as Go's benchstat compares benchmarks.
//!
//! What differs between the two runs besides the code — the machine, its
//! placement probe, the toolchains, toll itself, the config and each
//! series' placement — comes first, and a pair from two machines says so
//! loudly: a change across machines is the machines' as much as the code's.
//! Then each series present in both runs: every point's change of the
//! median with its interval, the Mann–Whitney p and a verdict (see
//! `toll_measure::change`), and for fitted series the change of α and β.
//! Series and points present on one side only are listed, not dropped.
//! [`render`] writes it as text for the terminal, [`html`] as a table with
//! change bars (`toll compare --html`, the board's compare page).

pub mod html;
mod model;
mod series;
pub mod text;

pub use model::{FitComparison, PointComparison, Rules, SeriesComparison};

use crate::show::keyed_value;
use crate::table::{fmt_ns, sig3, Table};
use serde::{Deserialize, Serialize};
use series::compare_series;
use std::fmt::Write;
use toll_measure::change::{ParamChange, Verdict};
use toll_measure::wakeup::WakeUp;
use toll_store::{Run, Series};

/// Which verdicts fail a gate (`--fail-on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailOn {
    /// Some point is slower.
    Regression,
    /// Some point is faster.
    Improvement,
    /// Some point is slower or faster.
    Change,
}

impl std::str::FromStr for FailOn {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "regression" => Ok(FailOn::Regression),
            "improvement" => Ok(FailOn::Improvement),
            "change" => Ok(FailOn::Change),
            _ => Err(format!(
                "--fail-on `{s}`: give regression, improvement or change"
            )),
        }
    }
}

/// Keys of series attributes that describe how a series went, not what it
/// measured, or what it found (the steps `toll sys`'s chase found, a
/// one-point series' figure with its run-to-run term): they
/// differ from run to run and are not differences.
const VOLATILE_ATTRS: &[&str] = &[
    "rounds",
    "others_busy",
    "busiest",
    "observed_last_cpu",
    "levels",
    "figure",
];

/// Config keys that are measured, not chosen (the clock's resolution, the
/// shell's own cost): they differ from run to run.
const MEASURED_CONFIG: &[&str] = &["clock", "shell_cost"];

/// Which run, briefly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRef {
    pub id: i64,
    pub family: String,
    pub started_at: String,
    pub status: String,
    pub host: String,
    pub cpu_model: String,
    pub tool_version: String,
}

impl RunRef {
    fn of(run: &Run) -> RunRef {
        RunRef {
            id: run.id,
            family: run.family.clone(),
            started_at: run.started_at.clone(),
            status: run.status.as_str().into(),
            host: run.env.hostname.clone(),
            cpu_model: run.env.cpu_model.clone(),
            tool_version: run.tool_version.clone(),
        }
    }
}

/// One thing that differs between the runs besides the code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difference {
    /// What: `host`, `toolchain python`, `config sizes`, `rust/pipe peer_cpu`, …
    pub what: String,
    /// Its value in A, and in B ("–": absent).
    pub a: String,
    pub b: String,
}

/// How many points got each verdict, and how many judgements were made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub slower: usize,
    pub faster: usize,
    pub same: usize,
    pub under_threshold: usize,
    /// Told apart within the runs, but within the machine's between-run noise.
    #[serde(default)]
    pub run_to_run: usize,
    /// Every judgement: each compared point, and α and β of each fit.
    #[serde(default)]
    pub judged: usize,
    /// α and β changes called.
    #[serde(default)]
    pub params_changed: usize,
}

/// The largest share of the CPUs other processes used while any series of
/// `run` was measured, when above the busy mark.
fn busiest(run: &Run) -> Option<f64> {
    run.series
        .iter()
        .filter_map(|s| {
            s.attrs
                .get("others_busy")
                .and_then(serde_json::Value::as_f64)
        })
        .chain([run.env.busy_fraction])
        .fold(None, |m: Option<f64>, b| Some(m.map_or(b, |m| m.max(b))))
        .filter(|b| *b > toll_measure::env::BUSY_SHARE)
}

/// The whole comparison: what `--json` prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunComparison {
    pub a: RunRef,
    pub b: RunRef,
    pub rules: Rules,
    /// The runs come from two machines (host or CPU model differ).
    pub cross_machine: bool,
    pub differences: Vec<Difference>,
    /// The placement probe of A and of B, when both have one.
    pub wakeup: Option<(WakeUp, WakeUp)>,
    pub series: Vec<SeriesComparison>,
    /// Series in one run only.
    pub only_in_a: Vec<String>,
    pub only_in_b: Vec<String>,
    pub counts: Counts,
    /// What limits the comparison, each with its remedy (besides
    /// `cross_machine`, which [`cross_machine_warning`] words).
    pub warnings: Vec<String>,
}

/// The loud line for a pair from two machines, if it is one.
pub fn cross_machine_warning(c: &RunComparison) -> Option<String> {
    c.cross_machine.then(|| {
        format!(
            "ACROSS MACHINES: A ran on {} ({}), B on {} ({}). Every change below mixes the machines' difference with the code's.",
            c.a.host, c.a.cpu_model, c.b.host, c.b.cpu_model
        )
    })
}

/// Two runs that cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error("run {a} is a {fa} run and run {b} a {fb} run: compare two runs of one family (see `toll runs`)")]
    Families {
        a: i64,
        fa: String,
        b: i64,
        fb: String,
    },
    #[error(
        "--alpha {0} is out of range: give a significance level above 0 and below 1, e.g. 0.05"
    )]
    Alpha(f64),
    #[error("--threshold {0} is out of range: give a share from 0 to 1 (0% to 100%), e.g. 5%")]
    Threshold(f64),
    #[error("{label}: run {a}'s latencies end at {ea}, run {b}'s at {eb}: they measure different spans, so a change between them is partly that; compare runs measured alike, or give --mixed-latency to compare them anyway")]
    MixedLatency {
        label: String,
        a: i64,
        ea: String,
        b: i64,
        eb: String,
    },
}

/// Where a series' latencies end, in words, from its `latency_end` attribute.
fn latency_end_words(s: &Series) -> Option<&'static str> {
    match s.attrs.get("latency_end")?.as_str()? {
        "kernel-stamp" => Some("the kernel's arrival stamp"),
        "client-read" => Some("the client's read"),
        "mixed" => Some("the kernel's stamp for some answers, the client's read for others"),
        _ => None,
    }
}

impl RunComparison {
    /// Compare run `b` against run `a` (the base) under `rules`.
    pub fn of(a: &Run, b: &Run, rules: Rules) -> Result<RunComparison, CompareError> {
        if a.family != b.family {
            return Err(CompareError::Families {
                a: a.id,
                fa: a.family.clone(),
                b: b.id,
                fb: b.family.clone(),
            });
        }
        if !(rules.alpha > 0.0 && rules.alpha < 1.0) {
            return Err(CompareError::Alpha(rules.alpha));
        }
        if !(0.0..=1.0).contains(&rules.threshold) {
            return Err(CompareError::Threshold(rules.threshold));
        }
        let cross_machine = a.env.hostname != b.env.hostname || a.env.cpu_model != b.env.cpu_model;
        let mut differences = machine_differences(a, b);
        let mut series = Vec::new();
        let mut only_in_a = Vec::new();
        for sa in &a.series {
            match b.series.iter().find(|sb| sb.label == sa.label) {
                Some(sb) => {
                    if let (Some(ea), Some(eb), false) = (
                        latency_end_words(sa),
                        latency_end_words(sb),
                        rules.mixed_latency,
                    ) {
                        if ea != eb {
                            return Err(CompareError::MixedLatency {
                                label: sa.label.clone(),
                                a: a.id,
                                ea: ea.into(),
                                b: b.id,
                                eb: eb.into(),
                            });
                        }
                    }
                    differences.extend(attr_differences(sa, sb));
                    series.push(compare_series(sa, sb, rules));
                }
                None => only_in_a.push(sa.label.clone()),
            }
        }
        let only_in_b = b
            .series
            .iter()
            .filter(|sb| !a.series.iter().any(|sa| sa.label == sb.label))
            .map(|s| s.label.clone())
            .collect();
        // Every judgement at once: Benjamini–Hochberg over the points' and
        // the fits' p-values, so an A/A pair calls a change in at most
        // `alpha` of comparisons however many points it judges.
        let ps: Vec<f64> = series
            .iter()
            .flat_map(|s| {
                let points = s
                    .points
                    .iter()
                    .filter_map(|p| p.change.as_ref().map(|c| c.p()));
                let fit = s.fit.iter().flat_map(|f| [f.alpha_ns.p, f.beta_ns.p]);
                points.chain(fit)
            })
            .collect();
        let cut = toll_measure::change::bh_level(&ps, rules.alpha);
        for s in &mut series {
            for p in &mut s.points {
                p.verdict = p.change.as_ref().map(|c| c.verdict(cut, rules.threshold));
            }
            if let Some(f) = s.fit.as_mut() {
                for c in [&mut f.alpha_ns, &mut f.beta_ns] {
                    c.significant = c.p < cut;
                }
            }
        }
        let mut counts = Counts {
            judged: ps.len(),
            ..Counts::default()
        };
        let mut warnings = Vec::new();
        let mut too_few = None;
        for f in series.iter().filter_map(|s| s.fit.as_ref()) {
            counts.params_changed +=
                usize::from(f.alpha_ns.significant) + usize::from(f.beta_ns.significant);
        }
        for p in series.iter().flat_map(|s| &s.points) {
            match p.verdict {
                Some(Verdict::Slower) => counts.slower += 1,
                Some(Verdict::Faster) => counts.faster += 1,
                Some(Verdict::Same) => counts.same += 1,
                Some(Verdict::UnderThreshold) => counts.under_threshold += 1,
                Some(Verdict::RunToRun) => counts.run_to_run += 1,
                None => {}
            }
            if let Some(c) = &p.change {
                if c.min_p >= rules.alpha && too_few.is_none() {
                    too_few = Some(c);
                }
            }
        }
        if let Some(c) = too_few {
            warnings.push(format!(
                "with {} and {} trials a point's smallest possible p is {:.3}, not below α = {}: no change can be shown there; measure with more trials (e.g. --trials 10)",
                c.count.0, c.count.1, c.min_p, rules.alpha
            ));
        }
        for r in [a, b] {
            if let Some(busy) = busiest(r) {
                warnings.push(format!(
                    "run {} was measured while other processes used {:.0}% of the CPUs: its times carry their load, and a change may be theirs; compare runs measured on a quiet machine",
                    r.id,
                    busy * 100.0
                ));
            }
            if r.status != toll_store::RunStatus::Complete {
                warnings.push(format!(
                    "run {} is {}: only the points it measured are compared",
                    r.id,
                    r.status.as_str()
                ));
            }
        }
        let wakeup = a.env.wakeup.zip(b.env.wakeup);
        Ok(RunComparison {
            a: RunRef::of(a),
            b: RunRef::of(b),
            rules,
            cross_machine,
            differences,
            wakeup,
            series,
            only_in_a,
            only_in_b,
            counts,
            warnings,
        })
    }

    /// Whether the comparison fails a `--fail-on` gate.
    pub fn fails(&self, on: FailOn) -> bool {
        match on {
            FailOn::Regression => self.counts.slower > 0,
            FailOn::Improvement => self.counts.faster > 0,
            FailOn::Change => self.counts.slower + self.counts.faster > 0,
        }
    }
}

fn text(key: &str, v: Option<&serde_json::Value>) -> String {
    v.map(|v| keyed_value(key, v)).unwrap_or_else(|| "–".into())
}

fn differ(out: &mut Vec<Difference>, what: impl Into<String>, a: String, b: String) {
    if a != b {
        out.push(Difference {
            what: what.into(),
            a,
            b,
        });
    }
}

/// The machine, toll, the toolchains and the run's config.
pub fn machine_differences(a: &Run, b: &Run) -> Vec<Difference> {
    let (ea, eb) = (&a.env, &b.env);
    let mut out = Vec::new();
    differ(&mut out, "host", ea.hostname.clone(), eb.hostname.clone());
    let cpu =
        |e: &toll_measure::Fingerprint| format!("{} ({} logical)", e.cpu_model, e.logical_cpus);
    differ(&mut out, "cpu", cpu(ea), cpu(eb));
    let gib = |e: &toll_measure::Fingerprint| {
        format!("{:.1} GiB", e.memory_bytes as f64 / (1u64 << 30) as f64)
    };
    differ(&mut out, "memory", gib(ea), gib(eb));
    let or = |v: &Option<String>, none: &str| v.clone().unwrap_or_else(|| none.into());
    differ(
        &mut out,
        "virtualization",
        or(&ea.virtualization, "bare metal"),
        or(&eb.virtualization, "bare metal"),
    );
    differ(
        &mut out,
        "governor",
        or(&ea.governor, "–"),
        or(&eb.governor, "–"),
    );
    differ(&mut out, "kernel", ea.kernel.clone(), eb.kernel.clone());
    // The platform (SMT, mitigations, container, …), where both runs say.
    if let (Some(pa), Some(pb)) = (&ea.platform, &eb.platform) {
        let (ra, rb) = (pa.rows(), pb.rows());
        let mut keys: Vec<&String> = ra.iter().chain(&rb).map(|r| &r.0).collect();
        keys.sort();
        keys.dedup();
        let of = |rows: &[(String, String)], k: &String| {
            rows.iter().find(|r| &r.0 == k).map(|r| r.1.clone())
        };
        // A row one run lacks was read only by a later toll: not a
        // difference between the machines.
        for k in keys {
            if let (Some(va), Some(vb)) = (of(&ra, k), of(&rb, k)) {
                differ(&mut out, k.clone(), va, vb);
            }
        }
    }
    differ(
        &mut out,
        "system",
        ea.distribution.clone(),
        eb.distribution.clone(),
    );
    differ(
        &mut out,
        "toll",
        a.tool_version.clone(),
        b.tool_version.clone(),
    );
    let mut tools: Vec<&String> = ea
        .toolchains
        .iter()
        .chain(&eb.toolchains)
        .map(|t| &t.0)
        .collect();
    tools.sort();
    tools.dedup();
    for tool in tools {
        let version = |e: &toll_measure::Fingerprint| {
            e.toolchains
                .iter()
                .find(|t| &t.0 == tool)
                .map(|t| t.1.clone())
                .unwrap_or_else(|| "–".into())
        };
        differ(
            &mut out,
            format!("toolchain {tool}"),
            version(ea),
            version(eb),
        );
    }
    let empty = serde_json::Map::new();
    let (ca, cb) = (
        a.config.as_object().unwrap_or(&empty),
        b.config.as_object().unwrap_or(&empty),
    );
    let mut keys: Vec<&String> = ca.keys().chain(cb.keys()).collect();
    keys.sort();
    keys.dedup();
    for k in keys
        .into_iter()
        .filter(|k| !MEASURED_CONFIG.contains(&k.as_str()))
    {
        differ(
            &mut out,
            format!("config {k}"),
            text(k, ca.get(k)),
            text(k, cb.get(k)),
        );
    }
    out
}

/// A series' own attributes: placement, peer and runtime versions, ….
fn attr_differences(sa: &Series, sb: &Series) -> Vec<Difference> {
    let empty = serde_json::Map::new();
    let (aa, ab) = (
        sa.attrs.as_object().unwrap_or(&empty),
        sb.attrs.as_object().unwrap_or(&empty),
    );
    let mut keys: Vec<&String> = aa.keys().chain(ab.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut out = Vec::new();
    for k in keys
        .into_iter()
        .filter(|k| !VOLATILE_ATTRS.contains(&k.as_str()))
    {
        differ(
            &mut out,
            format!("{} {k}", sa.label),
            text(k, aa.get(k)),
            text(k, ab.get(k)),
        );
    }
    out
}

#[cfg(test)]
mod tests;
