//! E5's side experiment: its loop of 10^8 iterations (64-bit `%`, `+`,
//! `*4`, `/2`) under `toll exec`, start-up (α) separated from the cost per
//! iteration (β), t(10^8) = α + β·10^8 beside E5's `time` figures, which
//! counted start-up. E5 ran it in C (gcc -O3, icc) and on three JVMs; here
//! it runs in C and Java, and in Go, Rust and Python beside them (E5 did
//! not), and C and Java also run E5's variant with `*6` and `/3`. Python is
//! some 20× slower per iteration, so it has an exec run of its own over smaller
//! n, and its t(10^8) is the fitted line extrapolated.

pub(crate) mod build;

use super::experiment::{Ctx, Preset, INTERRUPTED};
use super::findings::{self, Claim, Figure};
use super::originals::{self as o, Original};
use super::report::Report;
use crate::exec::{self, ExecConfig, Order, Output, Parameter, RunCount};
use build::{Lang, Missing};
use std::time::Duration;
use toll_measure::Fit;

/// The variant's argument to every examples/e5-loop program.
const VARIANT: &str = "6/3";
const WHOLE: &str = "E5 timed the whole program";
const NOT_IN_E5: &str = "E5 did not run it";
const NO_ICC: &str =
    "icc not installed: Intel's compiler is not packaged by Debian (its successor is oneAPI's icx)";

/// How much of the loop a preset runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// n for C, Java, Go and Rust (and the variant).
    pub ns: Vec<u64>,
    /// n for Python.
    pub py_ns: Vec<u64>,
    /// Measured runs of each (command, n), after one warm-up round.
    pub runs: usize,
}

impl Plan {
    pub fn of(p: Preset) -> Plan {
        Plan {
            ns: p.pick(
                vec![0, 10_000_000, 50_000_000, 100_000_000],
                vec![0, 30_000_000, 100_000_000],
                vec![0, 100_000, 200_000],
            ),
            py_ns: p.pick(
                vec![0, 2_000_000, 5_000_000, 10_000_000],
                vec![0, 1_000_000, 3_000_000],
                vec![0, 20_000, 40_000],
            ),
            runs: p.pick(5, 3, 2),
        }
    }
}

/// The loop's part of E5's design line.
pub fn design(p: Preset) -> String {
    let plan = Plan::of(p);
    format!(
        "toll exec -N -L n {} on E5's loop (C -O3, Java, Go, Rust; C and Java also with *6 and /3), \
         -L n {} in Python, {} runs each",
        list(&plan.ns),
        list(&plan.py_ns),
        plan.runs
    )
}

fn list(ns: &[u64]) -> String {
    ns.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// Measure the loop and add its rows and findings to `report`.
pub fn run(ctx: &mut Ctx, report: &mut Report) {
    let plan = Plan::of(ctx.preset);
    let lp = measure(ctx, report, &plan);
    rows(report, &lp, &plan);
    findings(report, &lp);
}

fn rows(report: &mut Report, lp: &LoopFits, plan: &Plan) {
    let t = "loop t(10^8)";
    let a = "loop start-up α";
    let lang = |report: &mut Report,
                subject: &str,
                key: &str,
                t_fig: &str,
                orig: Result<Original, String>| {
        report.row(subject, t_fig, "s", orig, lp.at(key), lp.run(key));
        let orig_a = if key == "c" || key == "java" {
            no(WHOLE)
        } else {
            no(NOT_IN_E5)
        };
        report.row(subject, a, "ms", orig_a, lp.alpha(key), lp.run(key));
    };
    lang(report, "c, gcc -O3", "c", t, Ok(o::E5_LOOP_GCC_S));
    report.row("c, icc", t, "s", Ok(o::E5_LOOP_ICC_S), no(NO_ICC), None);
    lang(
        report,
        "java, server VM",
        "java",
        t,
        Ok(o::E5_LOOP_JAVA_SERVER_S),
    );
    report.row(
        "java, client VM",
        t,
        "s",
        Ok(o::E5_LOOP_JAVA_CLIENT_S),
        no("no client VM: 64-bit JDKs since 9 ship the server VM only"),
        None,
    );
    report.row(
        "java, IBM VM",
        t,
        "s",
        Ok(o::E5_LOOP_IBM_S),
        no("IBM's VM not installed: IBM Semeru (OpenJ9) is not packaged by Debian"),
        None,
    );
    lang(report, "go, go build", "go", t, no(NOT_IN_E5));
    lang(report, "rust, rustc -O", "rust", t, no(NOT_IN_E5));
    let py_max = plan.py_ns.iter().copied().max().unwrap_or(0);
    let py_t = format!("{t}, extrapolated from n ≤ {}", power(py_max));
    lang(report, "python (CPython)", "python", &py_t, no(NOT_IN_E5));
    let c63 = variant("c");
    let java63 = variant("java");
    report.row(
        "c, gcc -O3, *6 and /3",
        t,
        "s",
        no("E5 ran *6 and /3 with icc (31.5 s), not gcc"),
        lp.at(&c63),
        lp.run(&c63),
    );
    report.row(
        "c, icc, *6 and /3",
        t,
        "s",
        Ok(o::E5_LOOP63_ICC_S),
        no(NO_ICC),
        None,
    );
    report.row(
        "java, server VM, *6 and /3",
        t,
        "s",
        Ok(o::E5_LOOP63_JAVA_SERVER_S),
        lp.at(&java63),
        lp.run(&java63),
    );
}

/// A cell left empty, with why.
fn no<T>(why: &str) -> Result<T, String> {
    Err(why.to_string())
}

/// The series name of a language's loop with `*6` and `/3`.
fn variant(key: &str) -> String {
    format!("{key} {VARIANT}")
}

/// 3000000 as `3·10^6`, 100000 as `10^5`; other numbers as they are.
fn power(n: u64) -> String {
    if n == 0 {
        return "0".into();
    }
    let (mut m, mut e) = (n, 0);
    while m % 10 == 0 {
        m /= 10;
        e += 1;
    }
    match (m, e) {
        (_, 0) => n.to_string(),
        (1, e) => format!("10^{e}"),
        (m, e) if m < 10 => format!("{m}·10^{e}"),
        _ => n.to_string(),
    }
}

/// One series' fitted line, or why it has none, and the run it came from.
#[derive(Debug, Clone)]
struct Series {
    fit: Result<Fit, String>,
    run: Option<i64>,
}

/// The loop's fitted series by name (`c`, `java 6/3`, …).
#[derive(Debug, Default)]
struct LoopFits(Vec<(String, Series)>);

impl LoopFits {
    fn missing(&mut self, key: &str, why: &str) {
        self.0.push((
            key.to_string(),
            Series {
                fit: Err(why.to_string()),
                run: None,
            },
        ));
    }

    fn fit(&self, key: &str) -> Result<&Fit, String> {
        match self.0.iter().find(|(k, _)| k == key) {
            Some((_, s)) => s.fit.as_ref().map_err(Clone::clone),
            None => Err(format!("{key} was not measured")),
        }
    }

    /// The run behind a measured series.
    fn run(&self, key: &str) -> Option<i64> {
        self.0
            .iter()
            .find(|(k, s)| k == key && s.fit.is_ok())
            .and_then(|(_, s)| s.run)
    }

    /// t(10^8) = α + β·10^8 in seconds, the CI α's and β's added end to end.
    fn at(&self, key: &str) -> Result<Figure, String> {
        let f = self.fit(key)?;
        let n = o::E5_LOOP_N as f64;
        Ok(Figure::new(
            f.alpha + f.beta * n,
            f.alpha_ci.0 + f.beta_ci.0 * n,
            f.alpha_ci.1 + f.beta_ci.1 * n,
        )
        .scaled(1e-9))
    }

    /// α, ms.
    fn alpha(&self, key: &str) -> Result<Figure, String> {
        let f = self.fit(key)?;
        Ok(Figure::new(f.alpha, f.alpha_ci.0, f.alpha_ci.1).scaled(1e-6))
    }

    /// β, ns per iteration.
    fn beta(&self, key: &str) -> Result<Figure, String> {
        let f = self.fit(key)?;
        Ok(Figure::new(f.beta, f.beta_ci.0, f.beta_ci.1))
    }
}

/// Build every language, then time them: C, Java, Go and Rust (and C's and
/// Java's variant) interleaved in one exec run, Python in one of its own.
fn measure(ctx: &mut Ctx, report: &mut Report, plan: &Plan) -> LoopFits {
    let mut fits = LoopFits::default();
    let keys = |lang: Lang| {
        let mut k = vec![lang.key().to_string()];
        if matches!(lang, Lang::C | Lang::Java) {
            k.push(variant(lang.key()));
        }
        k
    };
    let (mut fast, mut slow) = (vec![], vec![]);
    for lang in Lang::ALL {
        if ctx.stopped() {
            keys(lang).iter().for_each(|k| fits.missing(k, INTERRUPTED));
            continue;
        }
        match build::build(lang, &ctx.scratch.join("e5-loop")) {
            Err(m) => {
                if let Missing::Failed(why) = &m {
                    report.failed(&format!("building E5's loop in {}", lang.key()), why);
                }
                let why = match &m {
                    Missing::NotInstalled(w) => w.clone(),
                    Missing::Failed(w) => format!("build failed: {w}"),
                };
                keys(lang).iter().for_each(|k| fits.missing(k, &why));
            }
            Ok(cmd) if lang == Lang::Python => slow.push((lang.key().to_string(), cmd)),
            Ok(cmd) => {
                for k in keys(lang) {
                    let c = if k == lang.key() {
                        cmd.clone()
                    } else {
                        format!("{cmd} {VARIANT}")
                    };
                    fast.push((k, c));
                }
            }
        }
    }
    let slow_name = "exec (E5's loop in Python)";
    fits.0.extend(time(
        ctx,
        report,
        "exec (E5's loop)",
        &fast,
        &plan.ns,
        plan.runs,
    ));
    fits.0
        .extend(time(ctx, report, slow_name, &slow, &plan.py_ns, plan.runs));
    fits
}

/// One `toll exec -N -L n …` over `series` (name, command with `{n}`).
fn time(
    ctx: &mut Ctx,
    report: &mut Report,
    what: &str,
    series: &[(String, String)],
    ns: &[u64],
    runs: usize,
) -> Vec<(String, Series)> {
    let each = |fit: Result<Fit, String>, run| {
        series
            .iter()
            .map(|(k, _)| {
                let s = Series {
                    fit: fit.clone(),
                    run,
                };
                (k.clone(), s)
            })
            .collect::<Vec<_>>()
    };
    if series.is_empty() {
        return vec![];
    }
    if ctx.stopped() {
        return each(Err(INTERRUPTED.into()), None);
    }
    let param = match Parameter::list("n", &list(ns)) {
        Ok(p) => p,
        Err(e) => return each(Err(format!("failed: {e}")), None),
    };
    let cfg = ExecConfig {
        commands: series.iter().map(|(_, c)| c.clone()).collect(),
        names: series.iter().map(|(k, _)| Some(k.clone())).collect(),
        params: vec![param],
        shell: None,
        warmup: 1,
        runs: RunCount::Exact(runs),
        ci_target: None,
        max_time: Duration::from_secs(600),
        prepare: None,
        setup: None,
        cleanup: None,
        ignore_failure: false,
        input: None,
        output: Output::Null,
        pin: None,
        order: Order::Alternate,
        launch: Default::default(),
    };
    match exec::run(&cfg, ctx.store, ctx.observer, ctx.stop) {
        Err(e) => {
            report.failed(what, &e);
            each(Err(format!("failed: {e}")), None)
        }
        Ok(out) => {
            report.runs.push(out.run_id);
            if let Some(e) = &out.error {
                report.failed(what, e);
            }
            let why = if ctx.stopped() {
                INTERRUPTED.to_string()
            } else {
                format!("no line fitted: see run {}", out.run_id)
            };
            series
                .iter()
                .enumerate()
                .map(|(i, (k, _))| {
                    let fit = out
                        .series
                        .iter()
                        .find(|s| {
                            s.benches
                                .first()
                                .is_some_and(|&b| out.benches[b].template == i)
                        })
                        .and_then(|s| s.fit.as_ref())
                        .map(decided_line)
                        .ok_or_else(|| why.clone());
                    let s = Series {
                        fit,
                        run: Some(out.run_id),
                    };
                    (k.clone(), s)
                })
                .collect()
        }
    }
}

/// The model exec's stored decision shows — the line, or for a curve its
/// two segments' α and β — as the line this table reads α and β from, so
/// the table says what `toll show` and the report say of the same run.
fn decided_line(f: &toll_measure::fit::SeriesFit) -> Fit {
    let d = f
        .decision
        .clone()
        .unwrap_or_else(|| toll_measure::decision::decision(f, &Default::default()));
    Fit {
        alpha: d.alpha.value,
        alpha_ci: d.alpha.ci,
        beta: d.beta.value,
        beta_ci: d.beta.ci,
        ..f.primary().clone()
    }
}

/// β ÷ β of two series, or why not.
fn beta_ratio(lp: &LoopFits, top: &str, bottom: &str) -> Result<Figure, String> {
    lp.beta(top)?
        .over(lp.beta(bottom)?)
        .ok_or_else(|| format!("{bottom}'s β interval reaches 0"))
}

fn findings(report: &mut Report, lp: &LoopFits) {
    let (c63, java63) = (variant("c"), variant("java"));
    // β: the loop's own cost, start-up apart (E5's `time` included it).
    report.findings.push(findings::from_ratio(
        "the JVM's server VM runs the loop faster than gcc -O3",
        beta_ratio(lp, "c", "java"),
        Claim::Above(1.0),
        "C's ns per iteration ÷ Java's (start-up apart)",
        &format!(
            "E5: {} (19.6 s ÷ 7.5 s, start-up included)",
            findings::times(o::E5_LOOP_GCC_S.value / o::E5_LOOP_JAVA_SERVER_S.value)
        ),
    ));
    let java_over_c = lp.alpha("java").and_then(|j| {
        j.over(lp.alpha("c")?)
            .ok_or_else(|| "C's α interval reaches 0".into())
    });
    report.findings.push(findings::from_ratio(
        "a JVM's start-up costs more than a C program's (E5's `time` counted it)",
        java_over_c,
        Claim::Above(1.0),
        "Java's α ÷ C's",
        "E5: not separated",
    ));
    report.findings.push(findings::from_ratio(
        "with *6 and /3 the server VM's lead is gone: Java runs the loop slower than C",
        beta_ratio(lp, &java63, &c63),
        Claim::Above(1.0),
        "Java's ns per iteration ÷ gcc -O3's, *6 and /3 (start-up apart)",
        &format!(
            "E5: {} (java 32.5 s ÷ icc 31.5 s, start-up included; E5 ran no gcc)",
            findings::times(o::E5_LOOP63_JAVA_SERVER_S.value / o::E5_LOOP63_ICC_S.value)
        ),
    ));
    report.findings.push(findings::from_ratio(
        "*6 and /3 cost the JVM more than *4 and /2",
        beta_ratio(lp, &java63, "java"),
        Claim::Above(1.0),
        "Java's ns per iteration, *6 and /3 ÷ *4 and /2",
        &format!(
            "E5: {} (32.5 s ÷ 7.5 s)",
            findings::times(o::E5_LOOP63_JAVA_SERVER_S.value / o::E5_LOOP_JAVA_SERVER_S.value)
        ),
    ));
    report.findings.push(findings::from_ratio(
        "*6 and /3 cost C more than *4 and /2",
        beta_ratio(lp, &c63, "c"),
        Claim::Above(1.0),
        "gcc -O3's ns per iteration, *6 and /3 ÷ *4 and /2",
        &format!(
            "E5: {} with icc (31.5 s ÷ 13.6 s)",
            findings::times(o::E5_LOOP63_ICC_S.value / o::E5_LOOP_ICC_S.value)
        ),
    ));
}

#[cfg(test)]
mod tests {
    use super::super::findings::Verdict;
    use super::*;
    use crate::replicate::experiment::Experiment;

    fn line(alpha: f64, beta: f64) -> Fit {
        Fit {
            method: toll_measure::FitMethod::WeightedLeastSquares,
            alpha,
            beta,
            alpha_ci: (alpha * 0.9, alpha * 1.1),
            beta_ci: (beta * 0.95, beta * 1.05),
            r2: 1.0,
            n_half: None,
        }
    }

    #[test]
    fn powers_of_ten_read_as_such() {
        assert_eq!(power(3_000_000), "3·10^6");
        assert_eq!(power(100_000), "10^5");
        assert_eq!(power(0), "0");
        assert_eq!(power(123), "123");
        assert_eq!(power(12_000), "12000");
    }

    #[test]
    fn python_runs_smaller_n_than_the_compiled_languages() {
        for p in [Preset::Full, Preset::Quick, Preset::Test] {
            let plan = Plan::of(p);
            let max = |ns: &[u64]| ns.iter().copied().max().unwrap();
            assert!(max(&plan.py_ns) * 5 <= max(&plan.ns), "{p:?}");
            assert!(plan.ns.contains(&0) && plan.py_ns.contains(&0));
            assert!(design(p).contains(&list(&plan.py_ns)));
        }
    }

    #[test]
    fn every_language_has_its_rows_measured_or_marked() {
        let mut lp = LoopFits::default();
        for (k, a, b) in [
            ("c", 1e6, 4.0),
            ("java", 40e6, 5.0),
            ("rust", 1e6, 4.0),
            ("python", 15e6, 90.0),
            ("c 6/3", 1e6, 7.0),
            ("java 6/3", 40e6, 8.0),
        ] {
            lp.0.push((
                k.into(),
                Series {
                    fit: Ok(line(a, b)),
                    run: Some(7),
                },
            ));
        }
        lp.missing("go", "go not installed: apt-get install golang-go");
        let mut r = Report::new(Experiment::E5, String::new());
        let plan = Plan::of(Preset::Quick);
        rows(&mut r, &lp, &plan);
        findings(&mut r, &lp);
        // c: α + β·10^8 = 1 ms + 0.4 s.
        let c = r.figure("c, gcc -O3", "loop t(10^8)").unwrap();
        assert!((c.value - 0.401).abs() < 1e-9, "{c:?}");
        let py = r
            .rows
            .iter()
            .find(|x| x.subject == "python (CPython)" && x.figure.starts_with("loop t(10^8)"))
            .unwrap();
        assert_eq!(py.figure, "loop t(10^8), extrapolated from n ≤ 3·10^6");
        assert_eq!(py.original.as_ref().unwrap_err(), NOT_IN_E5);
        assert!((py.measured.as_ref().unwrap().value - 9.015).abs() < 1e-9);
        let go = r.figure("go, go build", "loop start-up α").unwrap_err();
        assert_eq!(go, "go not installed: apt-get install golang-go");
        assert!(r
            .rows
            .iter()
            .all(|x| x.measured.is_ok() == x.run_id.is_some()));
        let java63 = r
            .rows
            .iter()
            .find(|x| x.subject == "java, server VM, *6 and /3")
            .unwrap();
        assert_eq!(java63.original.as_ref().unwrap().value, 32.5);
        assert!(java63.measured.is_ok());
        // Java's 8 ns ÷ C's 7 ns on the variant: slower, so E5's lesson holds.
        let gone = r
            .findings
            .iter()
            .find(|f| f.text.contains("lead is gone"))
            .unwrap();
        assert_eq!(gone.verdict, Verdict::Holds, "{}", gone.text);
        assert!(gone.text.contains("1.14×"), "{}", gone.text);
        assert!(gone.text.contains("E5: 1.03×"), "{}", gone.text);
        // And the server VM beats C on E5's own loop no longer (4 ÷ 5).
        assert_eq!(r.findings[0].verdict, Verdict::NoLongerHolds);
    }

    #[test]
    fn an_interrupted_or_missing_series_says_why() {
        let mut lp = LoopFits::default();
        lp.missing("c", INTERRUPTED);
        assert_eq!(lp.at("c").unwrap_err(), INTERRUPTED);
        assert_eq!(lp.run("c"), None);
        assert_eq!(lp.beta("java").unwrap_err(), "java was not measured");
        let mut r = Report::new(Experiment::E5, String::new());
        findings(&mut r, &lp);
        assert!(r.findings.iter().all(|f| f.verdict == Verdict::NotChecked));
    }
}
