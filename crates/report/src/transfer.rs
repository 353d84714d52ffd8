//! `toll transfer`'s table: one row per (peer, transport) with the smallest
//! size's time, the stored model (α, β and their CIs), the bandwidth it
//! implies, n½ and the model's time at the largest size, then the notes the
//! rows call for. The family fills a [`TransferView`]
//! (`toll_families::transfer::report`); this module only renders it.

use crate::table::Table;
use crate::{decided, legend};
use std::time::Duration;
use toll_measure::decision::{Sign, Verdict};
use toll_measure::SeriesFit;

/// Where the peer ran when it was not a child of toll on this machine.
#[derive(Debug, Clone, PartialEq)]
pub enum FarEnd {
    /// Started on another host by this launcher (`--remote`, `--remote-cmd`).
    Agent { launcher: String },
    /// Across a link toll built (`--link`), as the spec reads.
    Link { spec: String },
}

/// What a transfer run's table shows.
#[derive(Debug, Clone)]
pub struct TransferView {
    /// The sizes swept, in items, smallest first (at least one).
    pub sizes: Vec<u64>,
    /// Bytes per item.
    pub item_bytes: u64,
    /// The rounds always taken.
    pub rounds: u32,
    /// `--ci`: the CI half-width asked for, as a share of the median.
    pub ci_target: Option<f64>,
    /// `--max-time`: the most one series may spend past the minimum.
    pub max_time: Duration,
    /// Where harness and peer ran, in words.
    pub placement: String,
    /// The placement is the default one (the heading says how to change it).
    pub default_pin: bool,
    pub far: Option<FarEnd>,
    pub series: Vec<TransferSeries>,
}

/// One (peer, transport) series.
#[derive(Debug, Clone)]
pub struct TransferSeries {
    /// `peer/transport`, as stored.
    pub label: String,
    pub peer: String,
    pub transport: String,
    /// The median at the smallest size measured, ns.
    pub smallest_ns: Option<f64>,
    /// Sizes measured.
    pub measured: usize,
    pub fit: Option<SeriesFit>,
    /// Rounds taken.
    pub rounds: usize,
    /// Sizes whose CI missed the `--ci` target when time ran out.
    pub missed: Vec<u64>,
    /// Share of all CPUs other processes kept busy meanwhile.
    pub others_busy: f64,
    /// The busiest of those processes.
    pub busiest: Option<String>,
}

/// The results table: a heading, one row per (peer, transport), the notes.
pub fn render(v: &TransferView) -> String {
    let sizes = &v.sizes;
    let mut s = format!(
        "toll transfer: {} sizes ({}…{} items of {} bytes), {}\nplacement: {}{}\n\n",
        sizes.len(),
        sizes[0],
        sizes[sizes.len() - 1],
        v.item_bytes,
        match v.ci_target {
            None => format!("{} rounds (every size once a round, shuffled)", v.rounds),
            Some(t) => format!(
                "rounds until every CI is within ±{}% (at least {}, at most {:?} a series)",
                t * 100.0,
                v.rounds,
                v.max_time
            ),
        },
        v.placement,
        if v.default_pin {
            " — the default; --pin same|split|none changes it"
        } else {
            ""
        },
    );
    match &v.far {
        Some(FarEnd::Agent { launcher }) => s.insert_str(
            s.len() - 1,
            &format!("peer: far end started by `{launcher}`, over tcp\n"),
        ),
        Some(FarEnd::Link { spec }) => s.insert_str(
            s.len() - 1,
            &format!("peer: across an emulated link ({spec}: namespaces joined by veth, tbf, toll's delay relay), over tcp\n"),
        ),
        None => {}
    }
    // The model's time at the largest size of the sweep: E1's quoted
    // t(100000) with the default sizes.
    let largest = sizes[sizes.len() - 1];
    let quote = format!("t({largest})");
    let smallest = sizes[0];
    let measured_head = format!("t({smallest}) µs");
    let widened = v
        .series
        .iter()
        .filter_map(|r| r.fit.as_ref()?.decision.as_ref())
        .any(|d| d.widened);
    let (a_ci, b_ci) = decided::ci_headings(widened);
    let mut t = Table::new(&[
        "peer",
        "via",
        &measured_head,
        "α µs",
        &a_ci,
        "β ns/item",
        &b_ci,
        "MB/s",
        "MB/s 95% CI",
        "n½",
        &quote,
        "fit",
    ]);
    let mut notes = Notes {
        run_to_run: legend::run_to_run(v.series.iter().filter_map(|r| r.fit.as_ref())),
        ..Notes::default()
    };
    for r in &v.series {
        t.row(row(r, v.item_bytes, &mut notes));
        if !r.missed.is_empty() {
            let missed: Vec<String> = r.missed.iter().map(u64::to_string).collect();
            notes.missed.push(format!(
                "{} at n = {} ({} rounds)",
                r.label,
                missed.join(", "),
                r.rounds
            ));
        }
    }
    if t.fits() {
        s.push_str(&t.render());
    } else {
        // Too wide for the terminal (`--wide` prints it whole): the model
        // and its verdict, then what follows from it per row.
        s.push_str(&t.columns(&[0, 1, 2, 3, 4, 5, 6, 11]).render());
        s.push('\n');
        s.push_str(&t.columns(&[0, 1, 7, 8, 9, 10]).render());
    }
    s.push_str(&notes.render());
    s
}

/// What the rows' notes say, one line per kind.
#[derive(Default)]
struct Notes {
    no_model: Vec<String>,
    noisy: Vec<String>,
    any_curve: bool,
    any_flat: bool,
    near_zero: bool,
    missed: Vec<String>,
    busy: Vec<String>,
    /// The legend of the CIs' run-to-run term.
    run_to_run: String,
}

impl Notes {
    fn render(&self) -> String {
        let mut s = String::from(
            "fit: ok = one line fits every size within its noise; curve = it does not \
             (α from the small sizes, β from the large, break where they meet); flat = β \
             not above 0; noisy = a size's spread is too wide to trust; busy = other \
             processes used over a quarter of the CPUs while it was measured\n",
        );
        s.push_str(&self.run_to_run);
        if !self.busy.is_empty() {
            s.push_str(&format!(
                "note: busy rows (share of all CPUs others used): {}; let that work finish and run again\n",
                self.busy.join(", ")
            ));
        }
        if self.any_curve {
            s.push_str("note: curve rows: `toll show` has the lack-of-fit test and both segments; --plot draws the points\n");
        }
        if self.any_flat {
            s.push_str("note: flat rows: the cost does not grow measurably with n over these sizes, so no bandwidth is given\n");
        }
        if !self.noisy.is_empty() {
            s.push_str(&format!(
                "note: spread too wide to trust at some sizes of {} (try more --trials or a quieter machine)\n",
                self.noisy.join(", ")
            ));
        }
        if self.near_zero {
            s.push_str(decided::NEAR_ZERO_LEGEND);
            s.push('\n');
        }
        if !self.missed.is_empty() {
            s.push_str(&format!(
                "note: --max-time ran out before these sizes' CIs met --ci: {} (raise --max-time, or accept a wider --ci)\n",
                self.missed.join("; ")
            ));
        }
        if !self.no_model.is_empty() {
            s.push_str(&format!(
                "note: a line needs three sizes or more; no model for {}\n",
                self.no_model.join(", ")
            ));
        }
        s
    }
}

fn row(r: &TransferSeries, item_bytes: u64, notes: &mut Notes) -> Vec<String> {
    let mut cells = vec![r.peer.clone(), r.transport.clone()];
    let small = r.smallest_ns.map(|m| format!("{:.2}", m / 1e3));
    cells.push(small.unwrap_or_else(|| "–".into()));
    let Some(d) = r.fit.as_ref().and_then(|f| f.decision.as_ref()) else {
        cells.extend(std::iter::repeat_n("–".to_string(), 8));
        cells.push(decided::no_model(r.measured));
        notes.no_model.push(r.label.clone());
        return cells;
    };
    // Every figure and the verdict are the series' stored decision.
    match d.verdict {
        Verdict::Curve => notes.any_curve = true,
        Verdict::Flat => notes.any_flat = true,
        _ => {}
    }
    if !d.noisy_sizes.is_empty() {
        notes.noisy.push(r.label.clone());
    }
    if d.alpha.sign != Sign::Positive || d.beta.sign != Sign::Positive {
        notes.near_zero = true;
    }
    // Other work on the machine while measuring: said first, whatever else.
    if d.busy {
        notes.busy.push(format!(
            "{} ({:.0}%{})",
            r.label,
            r.others_busy * 100.0,
            r.busiest
                .as_ref()
                .map(|name| format!(", busiest {name}"))
                .unwrap_or_default()
        ));
    }
    // MB/s = bytes per item / ns per item × 1000; only for a β clearly above 0.
    let mbps = |b: f64| item_bytes as f64 / b * 1e3;
    let (rate, rate_ci) = match d.beta.shown() {
        Some(beta) => (
            format!("{:.0}", mbps(beta)),
            format!("[{:.0}, {:.0}]", mbps(d.beta.ci.1), mbps(d.beta.ci.0)),
        ),
        None => ("–".to_string(), "–".to_string()),
    };
    let (alpha, alpha_ci) = decided::cells(&d.alpha, |v| format!("{:.2}", v / 1e3));
    let (beta, beta_ci) = decided::cells(&d.beta, |v| format!("{v:.4}"));
    cells.extend([
        alpha,
        alpha_ci,
        beta,
        beta_ci,
        rate,
        rate_ci,
        d.n_half
            .map(|n| format!("{n:.0}"))
            .unwrap_or_else(|| "–".into()),
        d.at_largest
            .map(|(_, t)| format!("{:.1} µs", t / 1e3))
            .unwrap_or_else(|| "–".into()),
        d.words(),
    ]);
    cells
}
