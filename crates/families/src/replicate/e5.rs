//! E5 as it was run, with the servers toll can start: `ab -c 20 -n 10000`
//! on a 92-byte page and `ab -c 20 -n 1000` on a 1 MiB file (no
//! keep-alive, as ab's default), repeated (E5 repeated until stable) so
//! each figure has a CI across repetitions; then E5's loop of 10^8
//! iterations under `toll exec` (e5_loop.rs: C, Java, Go, Rust, Python, and
//! E5's *6 /3 variant), start-up (α) separated from the cost per iteration
//! (β), t(10^8) = α + β·10^8 beside E5's `time` figures. Apache httpd and
//! Tomcat are rows marked not yet built (issue 19), as are the compilers
//! and VMs this machine cannot have.

use super::e5_loop;
use super::findings::{self, Figure};
use super::originals as o;
use super::web::{self, Server};
use super::{Ctx, Experiment, Report, INTERRUPTED};
use crate::http::request::RequestSpec;
use crate::http::{self, HttpConfig, Target};
use std::time::Duration;
use toll_measure::mean_ci::mean_ci;

/// Why Apache's and Tomcat's rows are empty.
const APACHE: &str = "not yet built: issue 19 (Apache httpd, Debian's apache2)";
const TOMCAT: &str = "not yet built: issue 19 (Tomcat, Debian's tomcat10)";

pub fn run(ctx: &mut Ctx) -> Report {
    let p = ctx.preset;
    let reps: usize = p.pick(6, 3, 2);
    let (small_n, large_n) = p.pick((10_000, 1_000), (10_000, 1_000), (200, 40));
    let mut report = Report::new(
        Experiment::E5,
        format!(
            "toll http -c 20 -n {small_n} (92 B) and -n {large_n} (1 MiB), no keep-alive, {reps} repetitions each, nginx; \
             {}",
            e5_loop::design(p)
        ),
    );
    let server = if ctx.stopped() {
        Err(INTERRUPTED.to_string())
    } else {
        web::start_nginx(&ctx.scratch)
    };
    // A missing nginx marks its rows with the install command; a failed one is an error.
    if let Err(why) = server.as_ref().map(|_| ()).map_err(String::as_str) {
        if !why.contains("not installed") && why != INTERRUPTED {
            report.failed("nginx", why);
        }
    }
    let small = load(ctx, &mut report, &server, web::SMALL.0, small_n, reps);
    let large = load(ctx, &mut report, &server, web::LARGE.0, large_n, reps);
    drop(server);
    let nginx = "nginx, against E5's best";
    report.row(
        "apache 1.3, Debian defaults",
        "92 B req/s",
        "req/s",
        Ok(o::E5_APACHE13_DEFAULT_RPS),
        Err(APACHE.into()),
        None,
    );
    report.row(
        "apache 1.3, tuned",
        "92 B req/s",
        "req/s",
        Ok(o::E5_APACHE13_TUNED_RPS),
        Err(APACHE.into()),
        None,
    );
    report.row(
        "tomcat 5 (Coyote)",
        "92 B req/s",
        "req/s",
        Ok(o::E5_TOMCAT_RPS),
        Err(TOMCAT.into()),
        None,
    );
    report.row(
        nginx,
        "92 B req/s",
        "req/s",
        Ok(o::E5_APACHE13_TUNED_RPS),
        small.pick(|l| l.rps),
        small.run,
    );
    report.row(
        nginx,
        "92 B p50",
        "ms",
        Ok(o::E5_APACHE13_P50_MS),
        small.pick(|l| l.p50),
        small.run,
    );
    report.row(
        nginx,
        "92 B p99",
        "ms",
        Ok(o::E5_APACHE13_P99_MS),
        small.pick(|l| l.p99),
        small.run,
    );
    report.row(
        "apache 2.0.49 worker",
        "1 MiB req/s",
        "req/s",
        Ok(o::E5_APACHE2_BIG_RPS),
        Err(APACHE.into()),
        None,
    );
    report.row(
        nginx,
        "1 MiB req/s",
        "req/s",
        Ok(o::E5_APACHE2_BIG_RPS),
        large.pick(|l| l.rps),
        large.run,
    );
    report.row(
        nginx,
        "1 MiB KB/s",
        "KB/s",
        Ok(o::E5_APACHE2_BIG_KBS),
        large.pick(|l| l.kbs),
        large.run,
    );
    e5_loop::run(ctx, &mut report);
    findings(&mut report);
    report
}

/// One repetition's figures.
struct Load {
    rps: f64,
    kbs: f64,
    p50: f64,
    p99: f64,
}

/// A load's repetitions, or why there are none.
struct Loads {
    reps: Result<Vec<Load>, String>,
    run: Option<i64>,
}

impl Loads {
    /// The mean over the repetitions with its 95% CI (Student's t).
    fn pick(&self, f: impl Fn(&Load) -> f64) -> Result<Figure, String> {
        let reps = self.reps.as_ref().map_err(Clone::clone)?;
        let v: Vec<f64> = reps.iter().map(f).collect();
        if v.is_empty() {
            return Err(INTERRUPTED.into());
        }
        let (lo, hi) = mean_ci(&v);
        Ok(Figure::new(v.iter().sum::<f64>() / v.len() as f64, lo, hi))
    }
}

fn load(
    ctx: &mut Ctx,
    report: &mut Report,
    server: &Result<Server, String>,
    file: &str,
    requests: u64,
    reps: usize,
) -> Loads {
    let server = match server {
        Ok(s) => s,
        Err(why) => {
            return Loads {
                reps: Err(why.clone()),
                run: None,
            }
        }
    };
    let url = server.url(file);
    let target = match Target::resolve(&url) {
        Ok(t) => t,
        Err(e) => {
            return Loads {
                reps: Err(format!("failed: {e}")),
                run: None,
            }
        }
    };
    let concurrency = 20.min(requests as usize);
    let mut cfg = HttpConfig {
        target,
        spec: RequestSpec {
            method: None,
            headers: vec![],
            body: None,
            content_type: None,
            keep_alive: false,
        },
        concurrency,
        requests: Some(requests),
        time_limit: None,
        threads: std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(concurrency),
        timeout: Duration::from_secs(30),
        variable_length: false,
        rate: None,
        http2: false,
        streams: 1,
        insecure: false,
        spin: Duration::ZERO,
        coalesce: Duration::from_micros(10),
    };
    if let Err(e) = http::preflight(&mut cfg) {
        report.failed(&format!("http {url}"), &e);
        return Loads {
            reps: Err(format!("failed: {e}")),
            run: None,
        };
    }
    let mut out = vec![];
    let mut run = None;
    for _ in 0..reps {
        if ctx.stopped() {
            break;
        }
        let measured = http::load(&cfg, ctx.stop, &mut |_, _| {}).and_then(|o| {
            let rep = http::report(&cfg, &o);
            let id = http::store_run(ctx.store, &cfg, &o, &rep)?;
            Ok((o, rep, id))
        });
        match measured {
            Ok((o, rep, id)) => {
                report.runs.push(id);
                run = Some(id);
                if o.interrupted || rep.complete_requests == 0 {
                    continue;
                }
                let pct = |p: f64| {
                    rep.percentiles
                        .iter()
                        .find(|(at, _)| *at == p)
                        .map_or(f64::NAN, |(_, ms)| *ms)
                };
                out.push(Load {
                    rps: rep.requests_per_second,
                    kbs: rep.transfer_rate_kb_s,
                    p50: pct(50.0),
                    p99: pct(99.0),
                });
            }
            Err(e) => {
                report.failed(&format!("http {url}"), &e);
                return Loads {
                    reps: Err(format!("failed: {e}")),
                    run,
                };
            }
        }
    }
    Loads { reps: Ok(out), run }
}

fn findings(report: &mut Report) {
    report.findings.push(findings::not_checked(
        "configuration decides the result (Debian's Apache recycled its children every 100 requests)",
        &format!("{APACHE}, with MaxConnectionsPerChild 100 and tuned"),
        "E5: 525.73 req/s recycling, 683.48 tuned",
    ));
    report.findings.push(findings::not_checked(
        "a JVM server needs warming up (4× slower for its first 5–6 runs)",
        TOMCAT,
        "E5: Tomcat 681.01 req/s once warm",
    ));
}
