//! `toll ffi`'s table: one row per (runtime, binding, way of passing) with
//! the null call's median and the model t(n) = α + β·n (α: the crossing,
//! β: each byte passed in — and, under `--touch all`, summed by C's loop),
//! their intervals and verdict; a binding this machine lacks is a row that
//! says what to install, a way a binding does not offer a row saying why. The family fills an
//! [`FfiView`] (`toll_families::ffi::report`), or a stored run gives one
//! ([`view_of_run`], for the pages); this module renders it, with
//! `--vs-link`'s section ([`crate::ffi_link`]).

use crate::ffi_link::{self, VsLinkRow};
use crate::table::Table;
use crate::{decided, legend};
use toll_measure::decision::Sign;
use toll_measure::{SeriesFit, Summary};
use toll_store::{PointStatus, Run};

/// What a `toll ffi` run's table shows.
#[derive(Debug, Clone)]
pub struct FfiView {
    /// Bytes per call swept.
    pub sizes: Vec<u64>,
    pub trials: u32,
    /// What the C side read: `receipt` (constant cost) or `all` (every byte).
    pub touch: String,
    pub series: Vec<FfiSeriesView>,
    /// `--vs-link`'s rows, one per runtime (empty without it).
    pub vs_link: Vec<VsLinkRow>,
}

/// One (runtime, binding) series.
#[derive(Debug, Clone)]
pub struct FfiSeriesView {
    pub runtime: String,
    pub binding: String,
    /// The way the bytes were passed: pinned, copied, string; or callback.
    pub pass: String,
    /// What the call goes through.
    pub how: String,
    /// ns per null call (the n = 0 point), when measured.
    pub null: Option<Summary>,
    pub fit: Option<SeriesFit>,
    /// Sizes measured.
    pub measured: usize,
    /// The first failure, (n, why).
    pub failure: Option<(u64, String)>,
    /// Why it is not measured here, and the command that installs what it needs.
    pub unavailable: Option<(String, Option<String>)>,
}

/// The command inside "(install: `…`)" of a reason, if it names one.
pub fn install_of(why: &str) -> Option<String> {
    let start = why.find("(install: `")? + "(install: `".len();
    let len = why[start..].find('`')?;
    Some(why[start..start + len].to_string())
}

/// The view of a stored `ffi` run, as every page renders it: the series
/// with a binding (the links `--vs-link` measured are its rows' other half).
pub fn view_of_run(run: &Run) -> FfiView {
    let sizes = run.config["sizes"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_u64()).collect())
        .unwrap_or_default();
    let trials = run.config["engine"]["trials"].as_u64().unwrap_or(0) as u32;
    // Runs from before `--touch` summed every byte, passed pinned.
    let touch = run.config["touch"].as_str().unwrap_or("all").to_string();
    let ours = run
        .series
        .iter()
        .filter(|s| s.attrs.get("binding").is_some());
    let text =
        |s: &toll_store::Series, k: &str| s.attrs[k].as_str().unwrap_or_default().to_string();
    FfiView {
        sizes,
        trials,
        touch,
        series: ours
            .clone()
            .map(|s| FfiSeriesView {
                runtime: text(s, "runtime"),
                binding: text(s, "binding"),
                pass: s.attrs["pass"].as_str().unwrap_or("pinned").to_string(),
                how: text(s, "how"),
                null: s
                    .points
                    .iter()
                    .find(|p| p.n == 0 && p.status == PointStatus::Ok)
                    .and_then(|p| p.summary.clone()),
                fit: s.fit.clone(),
                measured: s
                    .points
                    .iter()
                    .filter(|p| p.status == PointStatus::Ok)
                    .count(),
                failure: s.points.iter().find_map(|p| {
                    (p.status != PointStatus::Ok)
                        .then(|| (p.n, p.error.clone().unwrap_or_default()))
                }),
                unavailable: s.attrs["unavailable"]
                    .as_str()
                    .map(|why| (why.to_string(), install_of(why))),
            })
            .collect(),
        vs_link: ours
            .filter_map(|s| serde_json::from_value(s.attrs.get("vs_link")?.clone()).ok())
            .collect(),
    }
}

/// What each column measures, under what the C side read.
fn legend_line(touch: &str) -> String {
    let (zero, beta) = match touch {
        "all" => (
            "a sum of no bytes",
            "β: ns per KiB passed in and summed by the C loop (toll_ffi_sum reads every byte: its loop's speed, not only the crossing's)",
        ),
        _ => (
            "a receipt of no bytes",
            "β: ns per KiB passed (the C side proves receipt at constant cost: β is the crossing's own, a copy or an encoding where the way makes one)",
        ),
    };
    format!("t(0) ns: the median call at n = 0 ({zero}, the same call as at every n); α: the crossing, from the line t(n) = α + β·n through every size; {beta}\n")
}

/// A series' label: `runtime/binding`, and its way when not pinned.
fn label(s: &FfiSeriesView) -> String {
    match s.pass.as_str() {
        "pinned" | "" => format!("{}/{}", s.runtime, s.binding),
        way => format!("{}/{}/{way}", s.runtime, s.binding),
    }
}

/// What the callback table's columns measure.
const CALLBACK_LEGEND: &str = "callbacks: n is upcalls per call (C calls the language back n times, the language counts them); t(0) ns: the call down alone; α: the call down, from the line t(n) = α + β·n; β: ns per upcall\n";

/// The callback series, in their own table: their n is upcalls, not bytes.
fn is_callback(s: &FfiSeriesView) -> bool {
    s.pass == "callback"
}

/// The line above the table.
fn caption(v: &FfiView) -> String {
    let sizes: Vec<String> = v.sizes.iter().map(u64::to_string).collect();
    format!(
        "toll ffi: bytes per call = {}{}; {} rounds (every size once a round, shuffled); the worker times each batch of calls itself; the C side reads {}",
        sizes.join(", "),
        match v.series.iter().any(is_callback) {
            true => " (upcalls per call for the callbacks)",
            false => "",
        },
        v.trials,
        match v.touch.as_str() {
            "all" => "every byte (--touch all)",
            _ => "n and three bytes (--touch receipt)",
        }
    )
}

/// The table, its legend and notes.
pub fn render(v: &FfiView) -> String {
    let mut out = format!("{}\n\n", caption(v));
    let (mut table_text, mut notes, mut near_zero) = table(v, false);
    let (cb_table, cb_notes, cb_near_zero) = table(v, true);
    if v.series.iter().any(is_callback) {
        table_text.push('\n');
        table_text.push_str(&cb_table);
        notes.extend(cb_notes);
        near_zero |= cb_near_zero;
    }
    out.push_str(&table_text);
    out.push_str(&legend_line(&v.touch));
    if v.series.iter().any(is_callback) {
        out.push_str(CALLBACK_LEGEND);
    }
    out.push_str(decided::FIT_LEGEND);
    out.push('\n');
    out.push_str(&legend::run_to_run(
        v.series.iter().filter_map(|s| s.fit.as_ref()),
    ));
    if near_zero {
        out.push_str(decided::NEAR_ZERO_LEGEND);
        out.push('\n');
    }
    out.push_str("bindings and ways:\n");
    for s in v.series.iter().filter(|s| s.unavailable.is_none()) {
        out.push_str(&format!("  {}: {}\n", label(s), s.how));
    }
    for n in notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out.push_str(&ffi_link::render(&v.vs_link));
    out
}

/// The tables alone, each under its caption, for a page that has its own
/// legend and notes (`toll report`, the board): blocks the page's reader
/// of printed reports turns into tables ([`crate::printed`]).
pub fn page_tables(v: &FfiView) -> String {
    let mut out = format!("{}\n{}", caption(v), table(v, false).0);
    if v.series.iter().any(is_callback) {
        out.push_str(&format!(
            "\ncallbacks: n upcalls per call, β ns per upcall\n{}",
            table(v, true).0
        ));
    }
    if let Some(t) = ffi_link::table(&v.vs_link) {
        out.push_str(&format!("\n{}\n{t}", ffi_link::CAPTION));
        if let Some(n) = ffi_link::dagger(&v.vs_link) {
            out.push_str(&format!("\n{n}\n"));
        }
    }
    out
}

/// The table's text, its notes, and whether a figure is near 0: of the
/// ways of passing, or (`callbacks`) of the callback series, β per upcall.
fn table(v: &FfiView, callbacks: bool) -> (String, Vec<String>, bool) {
    let widened = v
        .series
        .iter()
        .filter_map(|s| s.fit.as_ref()?.decision.as_ref())
        .any(|d| d.widened);
    let (a_ci, b_ci) = decided::ci_headings(widened);
    let mut t = Table::new(&[
        "runtime",
        "binding",
        "way",
        "t(0) ns",
        "α ns",
        &a_ci,
        if callbacks {
            "β ns/upcall"
        } else {
            "β ns/KiB"
        },
        &b_ci,
        "fit",
    ]);
    let per_unit = if callbacks { 1.0 } else { 1024.0 };
    let mut notes = Vec::new();
    let mut near_zero = false;
    for s in v.series.iter().filter(|s| is_callback(s) == callbacks) {
        let label = label(s);
        let null = s
            .null
            .as_ref()
            .map(|m| format!("{:.1}", m.median))
            .unwrap_or_else(|| "–".into());
        let mut cells = vec![s.runtime.clone(), s.binding.clone(), s.pass.clone(), null];
        if let Some((why, install)) = &s.unavailable {
            let word = match install {
                Some(cmd) => format!("missing: {cmd}"),
                None if why.contains(" does not pass `") || why.contains(" does not call back") => {
                    "way not offered".into()
                }
                None => "not available".into(),
            };
            cells.extend(["–".into(), "–".into(), "–".into(), "–".into(), word]);
            notes.push(format!("{label}: {why}"));
        } else if let Some(d) = s.fit.as_ref().and_then(|f| f.decision.as_ref()) {
            near_zero |= d.alpha.sign != Sign::Positive || d.beta.sign != Sign::Positive;
            let (a, ac) = decided::cells(&d.alpha, |x| format!("{x:.1}"));
            let (b, bc) = decided::cells(&d.beta, |x| format!("{:.1}", x * per_unit));
            cells.extend([a, ac, b, bc, d.words()]);
        } else {
            cells.extend([
                "–".into(),
                "–".into(),
                "–".into(),
                "–".into(),
                decided::no_model(s.measured),
            ]);
        }
        t.row(cells);
        if s.unavailable.is_none() {
            if let Some((n, why)) = &s.failure {
                notes.push(format!("{label} failed at n = {n}: {why}"));
            }
        }
    }
    (t.render(), notes, near_zero)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(binding: &str, pass: &str, unavailable: Option<&str>) -> FfiSeriesView {
        FfiSeriesView {
            runtime: "haskell".into(),
            binding: binding.into(),
            pass: pass.into(),
            how: "a call".into(),
            null: None,
            fit: None,
            measured: 0,
            failure: None,
            unavailable: unavailable.map(|w| (w.to_string(), None)),
        }
    }

    #[test]
    fn callbacks_are_a_table_of_their_own_per_upcall() {
        let why = "unsafe does not call back: an unsafe foreign call may not call back";
        let v = FfiView {
            sizes: vec![0, 1024],
            trials: 3,
            touch: "receipt".into(),
            series: vec![
                row("safe", "pinned", None),
                row("unsafe", "callback", Some(why)),
            ],
            vs_link: vec![],
        };
        let blocks = crate::printed::blocks(&page_tables(&v));
        assert_eq!(blocks.len(), 2, "{blocks:?}");
        let crate::printed::Block::Table {
            caption,
            header,
            rows,
        } = &blocks[1]
        else {
            panic!("{blocks:?}")
        };
        assert!(
            caption.as_deref().unwrap().contains("β ns per upcall"),
            "{caption:?}"
        );
        assert!(header.iter().any(|h| h == "β ns/upcall"), "{header:?}");
        assert_eq!(rows.len(), 1, "{rows:?}");
        let text = render(&v);
        assert!(
            text.contains("(upcalls per call for the callbacks)"),
            "{text}"
        );
        assert!(text.contains("β: ns per upcall"), "{text}");
        let cb = text
            .lines()
            .find(|l| l.starts_with("haskell") && l.contains("callback"))
            .unwrap();
        assert!(cb.contains("way not offered"), "{cb}");
        assert!(
            text.contains(&format!("note: haskell/unsafe/callback: {why}")),
            "{text}"
        );
    }

    #[test]
    fn a_missing_binding_is_a_row_with_its_install_command() {
        let why = "not available here: cffi does not import (install: `pip install cffi`)";
        assert_eq!(install_of(why).as_deref(), Some("pip install cffi"));
        let v = FfiView {
            sizes: vec![0, 1024],
            trials: 3,
            touch: "receipt".into(),
            series: vec![FfiSeriesView {
                runtime: "python".into(),
                binding: "cffi".into(),
                pass: "pinned".into(),
                how: "cffi's ABI mode".into(),
                null: None,
                fit: None,
                measured: 0,
                failure: None,
                unavailable: Some((why.into(), install_of(why))),
            }],
            vs_link: vec![],
        };
        // On a page: a captioned table the page's reader keeps whole.
        let blocks = crate::printed::blocks(&page_tables(&v));
        assert_eq!(blocks.len(), 1, "{blocks:?}");
        let crate::printed::Block::Table {
            caption,
            header,
            rows,
        } = &blocks[0]
        else {
            panic!("{blocks:?}")
        };
        assert!(caption
            .as_deref()
            .unwrap()
            .starts_with("toll ffi: bytes per call"));
        assert_eq!(header.len(), 9, "{header:?}");
        assert_eq!(rows.len(), 1, "no legend in the table: {rows:?}");
        let text = render(&v);
        let row = text
            .lines()
            .find(|l| l.contains("cffi") && l.contains("missing"))
            .unwrap();
        assert!(row.contains("missing: pip install cffi"), "{text}");
        // The table itself fits 100 columns; the prose lines are wrapped by the terminal's writer.
        let table = text
            .lines()
            .filter(|l| l.starts_with("runtime") || l.starts_with("python"));
        assert!(
            table.into_iter().all(|l| l.chars().count() <= 100),
            "{text}"
        );
    }
}
