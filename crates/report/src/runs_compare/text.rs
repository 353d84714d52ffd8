//! `toll compare`'s text: what differs between the runs' settings, then
//! each series' α and β change and each point's change with its CI and
//! Mann–Whitney p, as benchstat prints them.

use super::*;

/// A share as a signed percentage: `+9.7%`, `−2.1%`.
pub(super) fn pct(x: f64) -> String {
    let v = x * 100.0;
    let s = sig3(v.abs());
    if v >= 0.0 {
        format!("+{s}%")
    } else {
        format!("−{s}%")
    }
}

/// A threshold as the user wrote it: `5%`, `2.5%`.
pub(super) fn threshold(x: f64) -> String {
    format!("{}%", (x * 1e4).round() / 1e2)
}

pub(super) fn short_time(t: &str) -> String {
    t.replace('T', " ").trim_end_matches('Z').to_string()
}

/// A fit parameter's line: `α  8.00 µs → 8.80 µs  +10.0% [+3.1%, +17.0%]  changed`.
fn param_line(name: &str, c: &ParamChange, show: impl Fn(f64) -> String) -> String {
    let rel = match c.relative() {
        Some((r, (lo, hi))) => format!("{} [{}, {}]", pct(r), pct(lo), pct(hi)),
        None => format!(
            "{} [{}, {}]",
            show(c.difference),
            show(c.difference_ci.0),
            show(c.difference_ci.1)
        ),
    };
    let word = match (c.significant, c.difference > 0.0) {
        (false, _) => "~",
        (true, true) => "higher",
        (true, false) => "lower",
    };
    format!(
        "{name}  {} → {}  {rel}  {word}",
        show(c.value.0),
        show(c.value.1)
    )
}

/// The comparison as text for a person: differences first, then each
/// series (the warnings are the caller's to print, on stderr).
pub fn render(c: &RunComparison) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "toll compare: {} runs, A = run {} → B = run {}",
        c.a.family, c.a.id, c.b.id
    );
    for (side, r) in [("A", &c.a), ("B", &c.b)] {
        let _ = writeln!(
            s,
            "  {side}  run {}  {}  {}  on {}  toll {}",
            r.id,
            short_time(&r.started_at),
            r.status,
            r.host,
            r.tool_version
        );
    }
    if let Some(w) = cross_machine_warning(c) {
        let _ = writeln!(s, "\n!! {w}");
    }
    let _ = writeln!(s);
    if c.differences.is_empty() {
        let _ = writeln!(s, "same machine, toolchains, toll, config and placement");
    } else {
        let _ = writeln!(s, "differences besides the code (A → B):");
        let width = c
            .differences
            .iter()
            .map(|d| d.what.chars().count())
            .max()
            .unwrap_or(0);
        for d in &c.differences {
            let _ = writeln!(s, "  {:<width$}  {} → {}", d.what, d.a, d.b);
        }
    }
    if let Some((wa, wb)) = c.wakeup {
        let (sa, xa, sb, xb) = (
            wa.same_core_ns,
            wa.cross_core_ns,
            wb.same_core_ns,
            wb.cross_core_ns,
        );
        let x = |v: Option<f64>| v.map(fmt_ns).unwrap_or_else(|| "–".into());
        let _ = writeln!(
            s,
            "placement probe (a thread's wake-up, one core / across cores): A {} / {}, B {} / {}",
            fmt_ns(sa),
            x(xa),
            fmt_ns(sb),
            x(xb)
        );
    }
    for sc in &c.series {
        let _ = writeln!(s, "\n{}", sc.label);
        let mut t = Table::new(&[
            "n",
            "A median",
            "B median",
            "change",
            "CI (95% unless said)",
            "p",
            "verdict",
        ]);
        let mut notes = Vec::new();
        for p in &sc.points {
            match (&p.change, p.verdict) {
                (Some(ch), Some(v)) => {
                    let verdict = match v {
                        Verdict::UnderThreshold => {
                            format!("under {}", threshold(c.rules.threshold))
                        }
                        v => v.word().into(),
                    };
                    t.row(vec![
                        p.n.to_string(),
                        fmt_ns(ch.median.0),
                        fmt_ns(ch.median.1),
                        pct(ch.change),
                        format!(
                            "[{}, {}]{}",
                            pct(ch.change_ci.0),
                            pct(ch.change_ci.1),
                            level_note(ch.change_level)
                        ),
                        format!("{:.3}", ch.test.p),
                        verdict,
                    ]);
                }
                _ => {
                    t.row(vec![p.n.to_string(), "–".into(), "–".into()]);
                    if let Some(note) = &p.note {
                        notes.push(format!("n = {}: {note}", p.n));
                    }
                }
            }
        }
        for line in t.render().lines() {
            let _ = writeln!(s, "  {line}");
        }
        for n in notes {
            let _ = writeln!(s, "  ! {n}");
        }
        for (side, ns) in [("A", &sc.only_in_a), ("B", &sc.only_in_b)] {
            if !ns.is_empty() {
                let list: Vec<String> = ns.iter().map(u64::to_string).collect();
                let _ = writeln!(s, "  measured in {side} only: n = {}", list.join(", "));
            }
        }
        if let Some(f) = &sc.fit {
            let _ = writeln!(s, "  {}", param_line("α", &f.alpha_ns, fmt_ns));
            let _ = writeln!(
                s,
                "  {}",
                param_line("β", &f.beta_ns, |v| format!("{} ns/n", sig3(v)))
            );
            for (side, fits) in [("A", f.line_fits.0), ("B", f.line_fits.1)] {
                if !fits {
                    let _ = writeln!(
                        s,
                        "  ! in run {side} a straight line does not describe the points: read α and β with care (`toll show`)"
                    );
                }
            }
        }
    }
    for (side, labels) in [("A", &c.only_in_a), ("B", &c.only_in_b)] {
        if !labels.is_empty() {
            let _ = writeln!(s, "\nonly in {side}: {}", labels.join(", "));
        }
    }
    let _ = writeln!(s, "\n{}", tally(c));
    let _ = writeln!(
        s,
        "change: median(B)/median(A) − 1, its CI Hodges–Lehmann's (its level said where below 95%); p: Mann–Whitney U, \
         two-sided; ~: not told apart; ~ run-to-run: told apart, but by no more than this machine moves between runs \
         (the series' run-to-run term); α, β: the fits' change, CI from both runs' intervals and that term (~: it holds 0)"
    );
    s
}

/// ` (90%)` after an interval whose level is below 95%; ` (none)` without one.
pub fn level_note(level: f64) -> String {
    if level <= 0.0 {
        " (no interval)".into()
    } else if level < 0.95 - 1e-9 {
        format!(" ({:.0}%)", (level * 100.0).floor())
    } else {
        String::new()
    }
}

/// The counts in a sentence: what was called, of how many judgements, and
/// what the level means for them.
pub fn tally(c: &RunComparison) -> String {
    let k = &c.counts;
    format!(
        "{} slower, {} faster, {} under the threshold, {} ~, {} ~ run-to-run; α/β changed: {}\n\
         {} judgements (each point, α and β) at α = {} with Benjamini–Hochberg: if nothing changed, \
         any call at all happens in at most {:.0}% of comparisons; threshold {}",
        k.slower,
        k.faster,
        k.under_threshold,
        k.same,
        k.run_to_run,
        k.params_changed,
        k.judged,
        c.rules.alpha,
        c.rules.alpha * 100.0,
        threshold(c.rules.threshold)
    )
}
