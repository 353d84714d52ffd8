//! E5's side experiment: its loop of 10^8 iterations (64-bit `%`, `+`,
//! `*4`, `/2`) under `toll exec`, start-up (α) separated from the cost per
//! iteration (β), t(10^8) = α + β·10^8 beside E5's `time` figures, which
//! counted start-up.

use super::findings::{self, Claim, Figure};
use super::originals::{self as o, Original};
use super::{Ctx, Report, INTERRUPTED, NOT_YET_BUILT};
use crate::exec::{self, ExecConfig, Order, Output, Parameter, RunCount};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use toll_peers::Runtime;

/// E5's loop, as examples/e5-loop has it.
const LOOP_C: &str = include_str!("../../../../examples/e5-loop/loop.c");
const LOOP_JAVA: &str = include_str!("../../../../examples/e5-loop/Loop.java");

/// Measure the loop and add its rows and findings to `report`.
pub fn run(ctx: &mut Ctx, report: &mut Report) {
    let p = ctx.preset;
    let loop_ns: Vec<u64> = p.pick(
        vec![0, 10_000_000, 50_000_000, 100_000_000],
        vec![0, 30_000_000, 100_000_000],
        vec![0, 100_000, 200_000],
    );
    let loop_runs = p.pick(5, 3, 2);
    let lp = run_loop(ctx, report, &loop_ns, loop_runs);
    let t_at = o::E5_LOOP_N as f64;
    report.row(
        "c, gcc -O3",
        "loop t(10^8)",
        "s",
        Ok(o::E5_LOOP_GCC_S),
        lp.at("c", t_at),
        lp.run,
    );
    report.row(
        "c, gcc -O3",
        "loop start-up α",
        "ms",
        Err("E5 timed the whole program".into()),
        lp.alpha("c"),
        lp.run,
    );
    report.row("c, icc", "loop t(10^8)", "s", Ok(o::E5_LOOP_ICC_S), Err("icc not installed: Intel's compiler is not packaged by Debian (its successor is oneAPI's icx)".into()), None);
    report.row(
        "java, server VM",
        "loop t(10^8)",
        "s",
        Ok(o::E5_LOOP_JAVA_SERVER_S),
        lp.at("java", t_at),
        lp.run,
    );
    report.row(
        "java, server VM",
        "loop start-up α",
        "ms",
        Err("E5 timed the whole program".into()),
        lp.alpha("java"),
        lp.run,
    );
    report.row(
        "java, client VM",
        "loop t(10^8)",
        "s",
        Ok(o::E5_LOOP_JAVA_CLIENT_S),
        Err("no client VM: 64-bit JDKs since 9 ship the server VM only".into()),
        None,
    );
    report.row(
        "java, IBM VM",
        "loop t(10^8)",
        "s",
        Ok(o::E5_LOOP_IBM_S),
        Err("IBM's VM not installed: IBM Semeru (OpenJ9) is not packaged by Debian".into()),
        None,
    );
    report.row(
        "icc and java, *6 and /3",
        "loop t(10^8)",
        "s",
        Ok(Original {
            value: 31.5,
            text: "icc 31.5 s, java 32.5 s",
        }),
        Err(format!("{NOT_YET_BUILT} (the loop's *6, /3 variant)")),
        None,
    );
    findings(report, &lp);
}

/// The loop's fitted series by language, or why there are none.
struct LoopFits {
    fits: Result<Vec<(String, toll_measure::Fit)>, String>,
    run: Option<i64>,
}

impl LoopFits {
    fn fit(&self, lang: &str) -> Result<&toll_measure::Fit, String> {
        let fits = self.fits.as_ref().map_err(Clone::clone)?;
        fits.iter()
            .find(|(l, _)| l == lang)
            .map(|(_, f)| f)
            .ok_or_else(|| match lang {
                "java" => format!("java not installed: {}", Runtime::Java.install_hint()),
                _ => format!("gcc not installed: {}", Runtime::C.install_hint()),
            })
    }

    /// t(n) = α + β·n in seconds, the CI α's and β's added end to end.
    fn at(&self, lang: &str, n: f64) -> Result<Figure, String> {
        let f = self.fit(lang)?;
        Ok(Figure::new(
            f.alpha + f.beta * n,
            f.alpha_ci.0 + f.beta_ci.0 * n,
            f.alpha_ci.1 + f.beta_ci.1 * n,
        )
        .scaled(1e-9))
    }

    /// α, ms.
    fn alpha(&self, lang: &str) -> Result<Figure, String> {
        let f = self.fit(lang)?;
        Ok(Figure::new(f.alpha, f.alpha_ci.0, f.alpha_ci.1).scaled(1e-6))
    }

    /// β, ns per iteration.
    fn beta(&self, lang: &str) -> Result<Figure, String> {
        let f = self.fit(lang)?;
        Ok(Figure::new(f.beta, f.beta_ci.0, f.beta_ci.1))
    }
}

/// Build the loop in C and Java under `dir`: each language's command
/// template, or nothing for a language whose compiler is missing.
fn build_loop(dir: &Path) -> Vec<(&'static str, String)> {
    let _ = std::fs::create_dir_all(dir);
    let mut out = vec![];
    let c_src = dir.join("loop.c");
    let c_bin = dir.join("loop-c");
    if std::fs::write(&c_src, LOOP_C).is_ok()
        && Command::new("gcc")
            .arg("-O3")
            .arg("-o")
            .arg(&c_bin)
            .arg(&c_src)
            .status()
            .is_ok_and(|s| s.success())
    {
        out.push(("c", format!("{} {{n}}", c_bin.display())));
    }
    if let Ok(java) = Runtime::Java.detect() {
        let javac = java.program.with_file_name("javac");
        let src = dir.join("Loop.java");
        if std::fs::write(&src, LOOP_JAVA).is_ok()
            && Command::new(&javac)
                .arg("-d")
                .arg(dir)
                .arg(&src)
                .status()
                .is_ok_and(|s| s.success())
        {
            out.push((
                "java",
                format!(
                    "{} -cp {} Loop {{n}}",
                    java.program.display(),
                    dir.display()
                ),
            ));
        }
    }
    out
}

fn run_loop(ctx: &mut Ctx, report: &mut Report, ns: &[u64], runs: usize) -> LoopFits {
    if ctx.stopped() {
        return LoopFits {
            fits: Err(INTERRUPTED.into()),
            run: None,
        };
    }
    let langs = build_loop(&ctx.scratch.join("e5-loop"));
    if langs.is_empty() {
        return LoopFits {
            fits: Err(format!("no compiler: {}", Runtime::C.install_hint())),
            run: None,
        };
    }
    let values = ns.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let param = match Parameter::list("n", &values) {
        Ok(p) => p,
        Err(e) => {
            return LoopFits {
                fits: Err(format!("failed: {e}")),
                run: None,
            }
        }
    };
    let cfg = ExecConfig {
        commands: langs.iter().map(|(_, c)| c.clone()).collect(),
        names: langs.iter().map(|(l, _)| Some(l.to_string())).collect(),
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
    };
    match exec::run(&cfg, ctx.store, ctx.observer, ctx.stop) {
        Err(e) => {
            report.failed("exec (E5's loop)", &e);
            LoopFits {
                fits: Err(format!("failed: {e}")),
                run: None,
            }
        }
        Ok(out) => {
            report.runs.push(out.run_id);
            if let Some(e) = &out.error {
                report.failed("exec (E5's loop)", e);
            }
            let fits = out
                .series
                .iter()
                .filter_map(|s| {
                    let first = *s.benches.first()?;
                    let lang = langs.get(out.benches[first].template)?.0;
                    Some((lang.to_string(), s.fit.as_ref()?.primary().clone()))
                })
                .collect();
            LoopFits {
                fits: Ok(fits),
                run: Some(out.run_id),
            }
        }
    }
}

fn findings(report: &mut Report, lp: &LoopFits) {
    // β: the loop's own cost, start-up apart (E5's `time` included it).
    let c_over_java = lp.beta("c").and_then(|c| {
        c.over(lp.beta("java")?)
            .ok_or_else(|| "Java's β interval reaches 0".into())
    });
    report.findings.push(findings::from_ratio(
        "the JVM's server VM runs the loop faster than gcc -O3",
        c_over_java,
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
}
