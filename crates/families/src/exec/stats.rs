//! The figures of a `toll exec`: each benchmark's times with their CIs,
//! its warnings, its ratio to the first command with Mann–Whitney U, and
//! each command's fitted start-up and cost per iteration. Pure functions of
//! the runs, so the tests below feed them made-up times.

use super::child::Measured;
use super::config::{Bench, ExecOutcome};
use toll_measure::mean_ci::positive_mean_ci;
use toll_measure::quantile::median;
use toll_measure::{mann_whitney, Summary};
use toll_report::exec::{BenchFigures, ExecReport, FitFigures, Interval, Ratio, Warning};

/// A difference counts only with p below this and a CI that excludes 1.
pub const SIGNIFICANCE: f64 = 0.05;

/// The ratio of `other` to `base` (median times) with its CI, Mann–Whitney
/// U's p and the verdict: faster or slower only when both agree. The CI's
/// level is the one it earns at these counts, said where below 95%: paired
/// (interleaved runs), the order-statistic interval of the per-round ratios'
/// median (5 runs: 93.75%); unpaired (a stored baseline), the Hodges–Lehmann
/// ratio's distribution-free interval (3 runs a side: 90%).
pub fn compare(base: &[f64], other: &[f64], paired: bool) -> Option<Ratio> {
    let mb = median(base);
    let mo = median(other);
    if !(mb > 0.0 && mo.is_finite()) || base.is_empty() || other.is_empty() {
        return None;
    }
    let r = mo / mb;
    let (lo, hi, level) = if paired && base.len() == other.len() {
        let per: Vec<f64> = base
            .iter()
            .zip(other)
            .filter(|(b, o)| **b > 0.0 && o.is_finite())
            .map(|(b, o)| o / b)
            .collect();
        let (lo, hi) = toll_measure::median_ci::median_ci(&per);
        (lo, hi, toll_measure::median_ci::level(per.len()))
    } else {
        match toll_measure::hodges_lehmann::ratio(base, other) {
            Some(h) => (h.lo, h.hi, h.level),
            None => (r, r, 0.0),
        }
    };
    // The interval always holds the ratio printed.
    let (lo, hi) = (lo.min(r), hi.max(r));
    let p = mann_whitney::test(base, other)?.p;
    let verdict = if p < SIGNIFICANCE && hi < 1.0 {
        "faster"
    } else if p < SIGNIFICANCE && lo > 1.0 {
        "slower"
    } else {
        "within noise"
    };
    Some(Ratio {
        ratio: Interval { value: r, lo, hi },
        level,
        p,
        verdict: verdict.into(),
    })
}

/// The leading runs slower than the settled ones: how many, their mean and
/// the settled mean. The settled level is the median of the second half;
/// a leading run is slow when it exceeds that by more than 5% and by more
/// than three of the second half's MADs. Needs at least 6 runs.
pub fn settling(times: &[f64]) -> Option<(usize, f64, f64)> {
    if times.len() < 6 {
        return None;
    }
    let tail = &times[times.len() / 2..];
    let m = median(tail);
    let mad = median(&tail.iter().map(|t| (t - m).abs()).collect::<Vec<_>>());
    let bar = m + (0.05 * m).max(3.0 * 1.4826 * mad);
    let k = times.iter().take_while(|&&t| t > bar).count();
    if k == 0 || k > times.len() / 2 {
        return None;
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    Some((k, mean(&times[..k]), mean(&times[k..])))
}

/// The warnings of one benchmark's runs.
pub fn warnings(runs: &[Measured], shell_ns: Option<f64>) -> Vec<Warning> {
    let times = super::wall(runs);
    let mut w = Vec::new();
    if times.is_empty() {
        return w;
    }
    let s = Summary::of(&times);
    match settling(&times) {
        Some((1, first, rest)) if first > 1.5 * rest => {
            w.push(Warning::FirstRunSlow {
                ratio: first / rest,
            });
        }
        Some((k, first, rest)) if k >= 2 => w.push(Warning::SettledAfter {
            runs: k,
            first_mean_ns: first,
            settled_mean_ns: rest,
        }),
        _ => {}
    }
    let severe = s.outliers.high_severe + s.outliers.low_severe;
    if severe > 0 && times.len() >= 5 {
        w.push(Warning::Outliers {
            count: severe,
            of: times.len(),
        });
    }
    if s.cv > toll_measure::summary::MAX_CV && times.len() >= 3 {
        w.push(Warning::WideSpread { cv: s.cv });
    }
    if let Some(sh) = shell_ns {
        if s.mean < sh {
            w.push(Warning::ShellDominates { shell_ns: sh });
        }
    }
    let failed: Vec<i32> = runs
        .iter()
        .map(|r| r.exit_code)
        .filter(|&c| c != 0)
        .collect();
    if let Some(&code) = failed.first() {
        w.push(Warning::FailuresIgnored {
            count: failed.len(),
            code,
        });
    }
    w
}

/// One benchmark's figures (None without runs).
pub fn bench_figures(b: &Bench, runs: &[Measured], shell_ns: Option<f64>) -> Option<BenchFigures> {
    if runs.is_empty() {
        return None;
    }
    let times = super::wall(runs);
    let s = Summary::of(&times);
    let (mlo, mhi) = positive_mean_ci(&times);
    let avg = |f: fn(&Measured) -> f64| runs.iter().map(f).sum::<f64>() / runs.len() as f64;
    let counted = |f: fn(&Measured) -> Option<u64>| {
        let v: Option<Vec<u64>> = runs.iter().map(f).collect();
        v.map(|v| v.iter().sum::<u64>() as f64 / v.len() as f64)
    };
    let rss: Vec<f64> = runs.iter().map(|r| r.max_rss_kb as f64).collect();
    Some(BenchFigures {
        label: b.label.clone(),
        command: b.command.clone(),
        params: b.params.clone(),
        runs: runs.len(),
        mean: Interval {
            value: s.mean,
            lo: mlo,
            hi: mhi,
        },
        median: Interval {
            value: s.median,
            lo: s.ci_low,
            hi: s.ci_high,
        },
        stddev: s.stddev,
        min: s.min,
        max: s.max,
        user_mean: avg(|m| m.user_ns),
        sys_mean: avg(|m| m.sys_ns),
        max_rss_kb_median: median(&rss),
        max_rss_kb_max: runs.iter().map(|r| r.max_rss_kb).max().unwrap_or(0),
        cycles_mean: counted(|m| m.cycles),
        instructions_mean: counted(|m| m.instructions),
        warnings: warnings(runs, shell_ns),
        vs_first: None,
        vs_baseline: None,
    })
}

/// The whole report of an outcome: each benchmark, its ratio to the first
/// command at the same parameter values (paired round by round), the fits.
pub fn report(o: &ExecOutcome, shell_name: Option<&str>) -> ExecReport {
    let shell_ns = o.shell.map(|s| s.wall_ns);
    let mut benches = Vec::new();
    for (i, b) in o.benches.iter().enumerate() {
        let Some(mut f) = bench_figures(b, &o.runs[i], shell_ns) else {
            continue;
        };
        if b.template > 0 {
            let first = o
                .benches
                .iter()
                .position(|x| x.template == 0 && x.params == b.params);
            if let Some(j) = first {
                f.vs_first = compare(&super::wall(&o.runs[j]), &super::wall(&o.runs[i]), true);
            }
        }
        benches.push(f);
    }
    let parameter = o
        .benches
        .first()
        .and_then(|b| b.params.first())
        .map(|(k, _)| k.clone())
        .unwrap_or_default();
    let fits = o
        .series
        .iter()
        .filter_map(|s| {
            // The series' stored decision: its model, figures and verdict.
            let d = s.fit.as_ref()?.decision.as_ref()?;
            Some(FitFigures {
                label: s.label.clone(),
                parameter: parameter.clone(),
                alpha: Interval {
                    value: d.alpha.value,
                    lo: d.alpha.ci.0,
                    hi: d.alpha.ci.1,
                },
                beta: Interval {
                    value: d.beta.value,
                    lo: d.beta.ci.0,
                    hi: d.beta.ci.1,
                },
                verdict: d.words(),
            })
        })
        .collect();
    ExecReport {
        benches,
        fits,
        shell: match (shell_name, o.shell) {
            (Some(n), Some(c)) => Some((n.to_string(), c.wall_ns)),
            _ => None,
        },
        counters_missing: o.counters_missing.clone(),
        rss_floor_kb: o.rss_floor_kb,
        baseline: None,
        notes: vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ns: f64) -> Measured {
        Measured {
            wall_ns: ns,
            user_ns: ns / 2.0,
            sys_ns: ns / 10.0,
            max_rss_kb: 1000,
            exit_code: 0,
            signal: None,
            cycles: None,
            instructions: None,
        }
    }

    #[test]
    fn a_slow_start_is_told_from_the_settled_runs() {
        // A JIT: 4 slow runs, then settled around 100.
        let mut t = vec![400.0, 300.0, 250.0, 180.0];
        t.extend((0..16).map(|i| 100.0 + (i % 3) as f64));
        let (k, first, rest) = settling(&t).unwrap();
        assert_eq!(k, 4);
        assert!((first - 282.5).abs() < 1e-9 && rest < 102.0);
        let runs: Vec<Measured> = t.iter().map(|&x| run(x)).collect();
        let w = warnings(&runs, None);
        assert!(
            matches!(w[0], Warning::SettledAfter { runs: 4, .. }),
            "{w:?}"
        );
        // One cold first run: caches.
        let mut t = vec![300.0];
        t.extend((0..9).map(|i| 100.0 + (i % 2) as f64));
        let runs: Vec<Measured> = t.iter().map(|&x| run(x)).collect();
        assert!(matches!(
            warnings(&runs, None)[0],
            Warning::FirstRunSlow { .. }
        ));
        // Steady runs: nothing to say.
        let runs: Vec<Measured> = (0..10).map(|i| run(100.0 + (i % 3) as f64)).collect();
        assert!(warnings(&runs, None).is_empty());
        assert!(settling(&[1.0, 2.0]).is_none());
    }

    #[test]
    fn noise_and_the_shell_are_named() {
        let runs: Vec<Measured> = [100.0, 300.0, 50.0, 250.0, 120.0, 400.0]
            .iter()
            .map(|&x| run(x))
            .collect();
        assert!(warnings(&runs, None)
            .iter()
            .any(|w| matches!(w, Warning::WideSpread { .. })));
        let runs: Vec<Measured> = (0..5).map(|_| run(100.0)).collect();
        assert!(matches!(
            warnings(&runs, Some(500.0))[0],
            Warning::ShellDominates { .. }
        ));
    }

    #[test]
    fn verdicts_need_significance_and_a_ci_off_one() {
        let a: Vec<f64> = (0..20).map(|i| 100.0 + (i % 5) as f64).collect();
        let b: Vec<f64> = a.iter().map(|v| v * 1.5).collect();
        let r = compare(&a, &b, true).unwrap();
        assert_eq!(r.verdict, "slower");
        assert!(r.p < 0.001 && (r.ratio.value - 1.5).abs() < 1e-9);
        assert_eq!(compare(&b, &a, true).unwrap().verdict, "faster");
        let c: Vec<f64> = (0..20).map(|i| 100.0 + ((i + 2) % 5) as f64).collect();
        assert_eq!(compare(&a, &c, true).unwrap().verdict, "within noise");
    }
}
