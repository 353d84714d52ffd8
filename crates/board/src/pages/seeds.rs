//! Seeds: the five experiments toll was born from, each with its original
//! figures beside this board's latest and best runs of the family that
//! measures the same thing today.

use super::Problem;
use crate::cache::Board;
use crate::headline::Figure;
use crate::layout::page;
use std::collections::HashMap;
use std::fmt::Write;
use toll_report::html::escape;
use toll_report::table::fmt_ns;
use toll_store::{RunRow, RunStatus};

/// One seed experiment: its name, the original figures, and the families
/// that measure it now.
struct Seed {
    id: &'static str,
    title: &'static str,
    original: &'static [&'static str],
    families: &'static [&'static str],
}

/// The figures as published (../shared/docs/EXPERIMENTS.md). Historical
/// hardware: references for the shape of a result, not targets.
const SEEDS: &[Seed] = &[
    Seed {
        id: "E1",
        title: "Transfer time over a link (MathLink, ~1999–2004)",
        original: &[
            "t(n) = 0.454 ms + 22.2 µs·n (n integers of 123, one way)",
            "7.53 s for 100,000 integers",
            "Linux: pipe 16× faster than TCP; Windows 95: TCP 5× slower than FileMap",
        ],
        families: &["transfer"],
    },
    Seed {
        id: "E2",
        title: "Process spawn and the process ring (Erlang vs Squeak vs Haskell, 2007)",
        original: &[
            "Erlang spawn: 3.0–5.6 µs per process (CPU), 4.2–6.9 µs wall, flat to 200,000",
            "Squeak spawn: 4–5 µs to 20,000, then 32.9 µs at 30,000, 92.8 µs at 60,000",
            "Erlang ring, M = 1000: N = 100 62 ms, N = 1000 438 ms, N = 10000 7234 ms (440–720 ns per hop)",
        ],
        families: &["spawn", "ring"],
    },
    Seed {
        id: "E3",
        title: "Null-RPC overhead (Ninf, NetSolve, Condor MW, early 2000s)",
        original: &[
            "1600 null calls × 10 trials, mean per call (published as charts)",
            "a broker (MetaServer) adds per-call cost; non-blocking calls cost less than blocking",
            "over the Internet the protocol needing more round trips loses most",
        ],
        families: &["rpc"],
    },
    Seed {
        id: "E4",
        title: "Many sequential and random reads: plain reads or mmap? (Python, 2010)",
        original: &[
            "sequential total: file 501 ms, mmap read 492 ms, mmap slice 169 ms",
            "random, per read: file 18.1 µs, mmap read 10.8 µs, mmap slice 10.3 µs",
        ],
        families: &["file"],
    },
    Seed {
        id: "E5",
        title: "Web server throughput with ab, and a C vs JVM loop (2004)",
        original: &[
            "92 B page: Apache 1.3 default 525.73 req/s, Tomcat 681.01, Apache tuned 683.48",
            "1 MiB: Apache 2.0.49 worker 130.40 req/s",
            "10^8-iteration loop: gcc 19.6 s, icc 13.6 s, Java server VM 7.5 s, client VM 58 s",
        ],
        families: &["http", "exec"],
    },
];

/// How many of a family's newest complete runs "best" looks among.
const BEST_AMONG: usize = 200;

/// The seeds page (kept by the board until the list of runs changes).
pub fn render(board: &Board) -> Result<bytes::Bytes, Problem> {
    board.seeds_page(|rows| make(board, rows))
}

fn make(board: &Board, rows: &[RunRow]) -> Result<String, Problem> {
    let mut by_family: HashMap<&str, Vec<&RunRow>> = HashMap::new();
    for r in rows.iter().filter(|r| r.status == RunStatus::Complete) {
        by_family.entry(r.family.as_str()).or_default().push(r);
    }
    let mut h = String::from(
        "<p class=\"muted\">The experiments toll was born from, with their figures as published \
         (2000–2010 hardware: the shape of a result, not a target), beside this board's newest run of each \
         family and its fastest: the lowest α of the series its runs share most, among the newest 200.</p>\n",
    );
    for s in SEEDS {
        let _ = write!(
            h,
            "<h2 id=\"{0}\">{0} — {1}</h2>\n<div class=\"grid\"><div><h3>Published</h3><ul class=\"model\">",
            s.id,
            escape(s.title)
        );
        for o in s.original {
            let _ = write!(h, "<li>{}</li>", escape(o));
        }
        h.push_str("</ul></div><div><h3>On this board</h3><ul class=\"model\">");
        for f in s.families {
            let runs = by_family.get(f).map(Vec::as_slice).unwrap_or(&[]);
            match runs.first() {
                None => {
                    let _ = write!(
                        h,
                        "<li><code>toll {f}</code>: no complete run yet — <code>toll push RUN --to URL</code> adds one</li>"
                    );
                }
                Some(latest) => {
                    let _ = write!(
                        h,
                        "<li><code>toll {f}</code> newest: <a href=\"/runs/{0}\">run {0}</a> ({1}, {2}) {3}</li>",
                        latest.id,
                        escape(&latest.host),
                        escape(latest.started_at.get(..10).unwrap_or("")),
                        escape(&latest.summary)
                    );
                    if let Some((id, label, alpha, host)) = best(board, runs)? {
                        let _ = write!(
                            h,
                            "<li><code>toll {f}</code> fastest {}: α {} in <a href=\"/runs/{id}\">run {id}</a> ({})</li>",
                            escape(&label),
                            fmt_ns(alpha),
                            escape(&host)
                        );
                    }
                }
            }
        }
        h.push_str("</ul></div></div>\n");
    }
    Ok(page(
        "Seeds: the original experiments beside today's",
        "/seeds",
        &h,
    ))
}

/// Among a family's newest runs, the series label they share most and the
/// run with its lowest α.
fn best(board: &Board, runs: &[&RunRow]) -> Result<Option<(i64, String, f64, String)>, Problem> {
    let mut count: HashMap<String, usize> = HashMap::new();
    let mut found: Vec<(i64, String, f64, String)> = Vec::new();
    for r in runs.iter().take(BEST_AMONG) {
        for head in board.heads(r)?.heads.iter() {
            if let Figure::Line { .. } = head.figure {
                *count.entry(head.label.clone()).or_default() += 1;
            }
            // Only an α told apart from 0 can be the fastest.
            if let Some(alpha) = head.figure.alpha() {
                found.push((r.id, head.label.clone(), alpha, r.host.clone()));
            }
        }
    }
    let Some(label) = count
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(l, _)| l)
    else {
        return Ok(None);
    };
    Ok(found
        .into_iter()
        .filter(|f| f.1 == label)
        .min_by(|a, b| a.2.total_cmp(&b.2)))
}
