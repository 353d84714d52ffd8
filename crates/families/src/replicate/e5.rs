//! E5 as it was run: Apache httpd (prefork, worker and event MPMs, each
//! with Debian's configuration, with E5's trap — children recycled every
//! 100 connections — and tuned), Tomcat and nginx, each started by toll on
//! a loopback port (web/). First `toll http compare` across all of them on
//! the 92-byte page: each warmed until its rate settles (E5's JVM needed
//! 5–6 runs), then A B … B A rounds, every rate as a ratio to the trap's.
//! Then E5's loads on each, warm (e5_server_load.rs), repeated so each figure has
//! a CI: `ab -c 20 -n 10000` on the page, `-n 1000` on a 1 MiB file. Then
//! E5's loop (e5_start_up_loop.rs: C, Java, Go, Rust, Python, and E5's *6 /3
//! variant, start-up apart from the cost per iteration). The findings come from the figures: whether
//! configuration still decides the result, whether tuned Apache still
//! matches Tomcat, whether the JVM still needs warming up, whether
//! recycling still puts a long tail on the latency.
//!
//! Every server's first rounds are cold (files, connections, caches), so
//! the JVM's warm-up is judged against a server without one: Tomcat's gain
//! (warm rate ÷ its first rounds', e5_server_load's [`warmup_gain`]) over nginx's
//! (tuned prefork's when nginx did not run), and it holds only beyond the
//! warm-up rule's own tolerance, once for each server. The tail is judged
//! on E5's own quantity, p99 ÷ p50 of one server: the recycling server's
//! over the tuned one's, paired round by round.

use super::e5_server_load::{self, warmup_gain, Compared, Loads, WARM_TOLERANCE};
use super::e5_start_up_loop;
use super::experiment::{Ctx, Experiment, Preset, INTERRUPTED};
use super::findings::{self, Claim, Figure, Finding};
use super::originals::{self as o, Original};
use super::report::Report;
use super::web::apache::{self, Mpm, Setup, Tuning};
use super::web::{self, nginx, tomcat, Ports, Server};

/// One of E5's servers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Apache(Setup),
    Tomcat,
    Nginx,
}

const TRAP: Kind = Kind::Apache(Setup {
    mpm: Mpm::Prefork,
    tuning: Tuning::Recycle,
});
const TUNED: Kind = Kind::Apache(Setup {
    mpm: Mpm::Prefork,
    tuning: Tuning::Tuned,
});
const WORKER: Kind = Kind::Apache(Setup {
    mpm: Mpm::Worker,
    tuning: Tuning::Debian,
});

impl Kind {
    fn label(self) -> String {
        match self {
            Kind::Apache(s) => s.label(),
            Kind::Tomcat => "tomcat".into(),
            Kind::Nginx => "nginx".into(),
        }
    }

    fn start(self, ctx: &Ctx, ports: &mut Ports) -> Result<Server, String> {
        match self {
            Kind::Apache(s) => apache::start(s, &ctx.scratch, ports),
            Kind::Tomcat => tomcat::start(&ctx.scratch, ports),
            Kind::Nginx => nginx::start(&ctx.scratch, ports),
        }
    }

    /// E5's 92-byte req/s for this server, or why E5 has none.
    fn small_original(self) -> Result<Original, String> {
        match self {
            TRAP => Ok(o::E5_APACHE13_DEFAULT_RPS),
            TUNED => Ok(o::E5_APACHE13_TUNED_RPS),
            Kind::Tomcat => Ok(o::E5_TOMCAT_RPS),
            _ => Err(self.no_original()),
        }
    }

    fn no_original(self) -> String {
        match self {
            Kind::Apache(Setup {
                tuning: Tuning::Debian,
                mpm: Mpm::Prefork,
            }) => "E5's Debian default was the trap; today's recycles never".into(),
            Kind::Apache(Setup {
                mpm: Mpm::Event, ..
            }) => "E5 did not run it (the event MPM came in 2005)".into(),
            _ => "E5 did not run it".into(),
        }
    }
}

/// Every server of E5's design, the trap first (the base of the
/// comparison's ratios): each MPM with each tuning, Tomcat, nginx.
fn every_kind() -> Vec<Kind> {
    let mut out = vec![TRAP, TUNED];
    for mpm in Mpm::ALL {
        for tuning in [Tuning::Debian, Tuning::Recycle, Tuning::Tuned] {
            let k = Kind::Apache(Setup { mpm, tuning });
            if !out.contains(&k) {
                out.push(k);
            }
        }
    }
    out.extend([Kind::Tomcat, Kind::Nginx]);
    out
}

/// The servers a preset runs: all of them, or E5's own rows and one of
/// each other MPM (quick), or the trap, the fix, Tomcat and nginx (test).
fn kinds(preset: Preset) -> Vec<Kind> {
    let quick = |k: &Kind| match k {
        Kind::Apache(s) => s.mpm == Mpm::Prefork || s.tuning == Tuning::Debian,
        _ => true,
    };
    let test = |k: &Kind| matches!(*k, TRAP | TUNED | Kind::Tomcat | Kind::Nginx);
    every_kind()
        .into_iter()
        .filter(|k| match preset {
            Preset::Full => true,
            Preset::Quick => quick(k),
            Preset::Test => test(k),
        })
        .collect()
}

/// How many loopback ports E5 takes with `preset` (one per server).
pub fn servers_needed(preset: Preset) -> usize {
    kinds(preset).len()
}

/// A server of the run: started, or why not.
struct Entry {
    kind: Kind,
    server: Result<Server, String>,
}

pub fn run(ctx: &mut Ctx) -> Report {
    let p = ctx.preset;
    let reps: usize = p.pick(5, 3, 2);
    let (small_n, large_n) = p.pick((10_000, 1_000), (10_000, 1_000), (200, 40));
    let mut report = Report::new(Experiment::E5, String::new());
    let mut ports = Ports::new(ctx.port);
    let mut entries: Vec<Entry> = Vec::new();
    for kind in kinds(p) {
        let server = if ctx.stopped() {
            Err(INTERRUPTED.to_string())
        } else {
            ctx.observer
                .series_started(&format!("E5: starting {}", kind.label()), 0);
            kind.start(ctx, &mut ports)
        };
        // A missing package marks its rows with the install command; any
        // other failure is an error, and the rest goes on.
        if let Err(why) = &server {
            if !why.contains("not installed") && why != INTERRUPTED {
                report.failed(&kind.label(), why);
            }
        }
        entries.push(Entry { kind, server });
    }
    let versions: Vec<String> = {
        let mut v: Vec<String> = entries
            .iter()
            .filter_map(|e| e.server.as_ref().ok().map(|s| s.version.clone()))
            .collect();
        v.dedup();
        v
    };
    report.design = format!(
        "{} servers ({}), no access logs; toll http compare on the 92 B page (warm-up until 3 rounds agree within 5%); \
         then toll http -c 20 -n {small_n} (92 B) and -n {large_n} (1 MiB), no keep-alive, {reps} repetitions each; {}",
        entries.len(),
        if versions.is_empty() { "none started".into() } else { versions.join(", ") },
        e5_start_up_loop::design(p),
    );
    // The comparison: every started server, the trap first when it runs.
    let started: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i].server.is_ok())
        .collect();
    let labels: Vec<String> = started.iter().map(|&i| entries[i].kind.label()).collect();
    let urls: Vec<String> = started
        .iter()
        .filter_map(|&i| entries[i].server.as_ref().ok())
        .map(|s| s.url(web::SMALL.0))
        .collect();
    let compared = e5_server_load::compare(ctx, &mut report, &labels, &urls);
    // Each kind's place in the comparison, or why it has none.
    let slots: Vec<(Kind, Result<usize, String>)> = every_kind()
        .into_iter()
        .map(|kind| {
            let at = started
                .iter()
                .position(|&i| entries[i].kind == kind)
                .ok_or_else(|| {
                    entries
                        .iter()
                        .find(|e| e.kind == kind)
                        .and_then(|e| e.server.as_ref().err().cloned())
                        .unwrap_or_else(|| format!("not in the {} preset", p.name()))
                });
            (kind, at)
        })
        .collect();
    let slot = |kind: Kind| {
        slots
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or_else(|| Err("not a server of E5".into()), |(_, at)| at.clone())
    };
    let trap_slot = slot(TRAP);
    let mut figures = Vec::new();
    for e in &entries {
        let url = |file: &str| match &e.server {
            Ok(s) => Ok(s.url(file)),
            Err(why) => Err(why.clone()),
        };
        let small = e5_server_load::load(ctx, &mut report, url(web::SMALL.0), small_n, reps);
        let large = e5_server_load::load(ctx, &mut report, url(web::LARGE.0), large_n, reps);
        rows(&mut report, e.kind, &small, &large);
        if e.kind != TRAP {
            let ratio = match (&trap_slot, slot(e.kind)) {
                (Ok(base), Ok(s)) => compared.ratio(*base, s),
                (_, Err(why)) => Err(why),
                (Err(why), _) => Err(format!("the trap: {why}")),
            };
            let original = match e.kind {
                TUNED => Ok(o::E5_TUNED_OVER_TRAP),
                Kind::Tomcat => Ok(o::E5_TOMCAT_OVER_TRAP),
                k => Err(k.no_original()),
            };
            report.row(
                e.kind.label(),
                "92 B rate ÷ the trap's (http compare)",
                "×",
                original,
                ratio,
                compared.run,
            );
        }
        figures.push((e.kind, small, large));
    }
    let gain = |kind: Kind| -> Result<Figure, String> {
        let s = slot(kind)?;
        warmup_gain(&compared.warmup(s)?, &compared.measured(s)?)
    };
    let reference = if slot(Kind::Nginx).is_ok() {
        Kind::Nginx
    } else {
        TUNED
    };
    let warmup = Warmup {
        tomcat: gain(Kind::Tomcat),
        reference: gain(reference),
        label: reference.label(),
    };
    for (kind, g) in [
        (Kind::Tomcat, &warmup.tomcat),
        (reference, &warmup.reference),
    ] {
        report.row(
            kind.label(),
            WARM_GAIN,
            "×",
            if kind == Kind::Tomcat {
                Ok(o::E5_JVM_WARMUP)
            } else {
                Err(kind.no_original())
            },
            g.clone(),
            compared.run,
        );
    }
    // The servers are stopped before the loop runs.
    drop(entries);
    for kind in every_kind() {
        if !figures.iter().any(|(k, _, _)| *k == kind) {
            report.row(
                kind.label(),
                "92 B req/s",
                "req/s",
                kind.small_original(),
                Err(format!(
                    "not in the {} preset (toll replicate E5 runs every MPM and tuning)",
                    p.name()
                )),
                None,
            );
        }
    }
    findings(&mut report, &compared, &slot, warmup);
    e5_start_up_loop::run(ctx, &mut report);
    report
}

/// A server's rows: E5's figures of it, each with its original where E5
/// has one.
fn rows(report: &mut Report, kind: Kind, small: &Loads, large: &Loads) {
    let label = kind.label();
    let no = || Err(kind.no_original());
    report.row(
        &label,
        "92 B req/s",
        "req/s",
        kind.small_original(),
        small.pick(|l| l.rps),
        small.run,
    );
    if kind == TRAP {
        report.row(
            &label,
            "92 B p50",
            "ms",
            Ok(o::E5_APACHE13_P50_MS),
            small.pick(|l| l.p50),
            small.run,
        );
    }
    report.row(
        &label,
        "92 B p99",
        "ms",
        if kind == TRAP {
            Ok(o::E5_APACHE13_P99_MS)
        } else {
            no()
        },
        small.pick(|l| l.p99),
        small.run,
    );
    report.row(
        &label,
        "92 B p99 ÷ p50",
        "×",
        if kind == TRAP {
            Ok(o::E5_APACHE13_TAIL)
        } else {
            no()
        },
        small.pick(|l| l.p99 / l.p50),
        small.run,
    );
    report.row(
        &label,
        "1 MiB req/s",
        "req/s",
        if kind == WORKER {
            Ok(o::E5_APACHE2_BIG_RPS)
        } else {
            no()
        },
        large.pick(|l| l.rps),
        large.run,
    );
    if kind == WORKER {
        report.row(
            &label,
            "1 MiB KB/s",
            "KB/s",
            Ok(o::E5_APACHE2_BIG_KBS),
            large.pick(|l| l.kbs),
            large.run,
        );
    }
}

/// The row of each server's gain from warming up.
const WARM_GAIN: &str = "warm rate ÷ first warm-up rounds' (http compare)";

/// Tomcat's gain from warming up and a server's without a JIT, the
/// reference's label with it.
struct Warmup {
    tomcat: Result<Figure, String>,
    reference: Result<Figure, String>,
    label: String,
}

impl Warmup {
    /// Tomcat's gain ÷ the reference's, conservative; Err(why) when either
    /// is missing.
    fn ratio(&self) -> Result<Figure, String> {
        let t = self.tomcat.clone().map_err(|e| format!("tomcat: {e}"))?;
        let r = self
            .reference
            .clone()
            .map_err(|e| format!("{}: {e}", self.label))?;
        t.over(r)
            .ok_or_else(|| format!("{}'s gain reaches 0", self.label))
    }
}

/// The JVM's warm-up lesson: Tomcat's gain over its first rounds beyond
/// the reference's over theirs, by more than the warm-up rule's tolerance
/// for each (a gain within it is what the rule calls settled).
fn warmup_finding(w: &Warmup) -> Finding {
    let seed = o::E5_JVM_WARMUP;
    findings::from_ratio(
        "a JVM server needs warming up",
        w.ratio(),
        Claim::Above((1.0 + WARM_TOLERANCE).powi(2)),
        &format!(
            "Tomcat's warm rate ÷ its first {} warm-up rounds', over the same of {}",
            e5_server_load::FIRST_ROUNDS,
            w.label
        ),
        &format!("E5: Tomcat's gain {}", seed.text),
    )
}

/// The tail lesson on E5's own quantity: p99 ÷ p50 of the recycling server
/// over the same of the tuned one.
fn tail_finding(ratio: Result<Figure, String>) -> Finding {
    let (p99, p50) = (o::E5_APACHE13_P99_MS, o::E5_APACHE13_P50_MS);
    findings::from_ratio(
        "recycling puts a long tail on the latency",
        ratio,
        Claim::Above(1.0),
        "p99 ÷ p50 of the recycling prefork over the same of the tuned one, 92 B, paired rounds",
        &format!(
            "E5: p99 ÷ p50 of the recycling Apache 1.3 {} ({} ÷ {})",
            findings::times(p99.value / p50.value),
            p99.text,
            p50.text
        ),
    )
}

fn findings(
    report: &mut Report,
    compared: &Compared,
    slot: &dyn Fn(Kind) -> Result<usize, String>,
    warmup: Warmup,
) {
    let pair = |a: Kind, b: Kind| compared.ratio(slot(a)?, slot(b)?);
    let (tomcat, tuned) = (o::E5_TOMCAT_RPS, o::E5_APACHE13_TUNED_RPS);
    report.findings.push(findings::from_ratio(
        "configuration decides the result (Debian's Apache recycled its children every 100 requests)",
        pair(TRAP, TUNED),
        Claim::Above(1.0),
        "tuned prefork's rate ÷ the recycling one's, paired rounds",
        &format!("E5: {}", o::E5_TUNED_OVER_TRAP.text),
    ));
    report.findings.push(findings::from_ratio(
        "tuned, Apache matches Tomcat",
        pair(TUNED, Kind::Tomcat),
        Claim::Near(0.1),
        "Tomcat's rate ÷ tuned prefork's, paired rounds",
        // Three digits: the two rates differ in the third.
        &format!(
            "E5: {:.3}× ({} ÷ {})",
            tomcat.value / tuned.value,
            tomcat.text,
            tuned.text
        ),
    ));
    report.findings.push(warmup_finding(&warmup));
    let tails = |kind: Kind| -> Result<(Vec<f64>, Vec<f64>), String> {
        let s = slot(kind)?;
        Ok((compared.percentile(s, 50.0)?, compared.percentile(s, 99.0)?))
    };
    let ratio = tails(TUNED).and_then(|(b50, b99)| {
        let (t50, t99) = tails(TRAP)?;
        e5_server_load::tail_ratio((&b50, &b99), (&t50, &t99))
    });
    report.findings.push(tail_finding(ratio));
    report.findings.push(findings::not_checked(
        "Apache 2 serves large files clearly better than 1.3",
        "Apache 1.3 is not packaged any more (its last release was in 2010)",
        &format!(
            "E5: Apache 2.0.49 worker {}, 1 MiB",
            o::E5_APACHE2_BIG_RPS.text
        ),
    ));
}

#[cfg(test)]
#[path = "e5_tests.rs"]
mod tests;
