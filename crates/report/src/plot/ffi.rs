//! `toll ffi`'s picture: α per binding as dots with their intervals on a
//! log axis (the crossings span decades: a C call at 2 ns, a JNI call at
//! 20, a safe Haskell call at 100, ctypes at 400), above the t(n) lines of
//! every binding. With `--vs-link`, each runtime's empty round trip over
//! its cheapest link sits on the same axis, so "binding or helper
//! process?" reads as a distance.

use super::canvas::{err, PlotError};
use super::compose::stack;
use super::dots::{DotChart, DotRow};
use super::{Chart, Scale};
use crate::ffi_link::VsLinkRow;
use std::path::Path;
use toll_store::{PointStatus, Run, Series};

/// The words of the dots' axis.
pub const ALPHA_UNIT: &str = "α: ns per call (the crossing)";

/// Both pictures of an ffi run.
#[derive(Debug, Clone)]
pub struct FfiCharts {
    /// A row per binding (and per runtime's link with `--vs-link`).
    pub alphas: DotChart,
    /// t(n) per binding; the links (one point each) are left out.
    pub lines: Chart,
}

/// A binding's α in ns with its interval: the stored decision's, or the
/// null call's median (with the CI of the median) when the fit has no α
/// above 0 or there is no fit; None when nothing was measured.
fn alpha(s: &Series) -> Option<((f64, f64, f64), bool)> {
    if let Some(d) = s.fit.as_ref().and_then(|f| f.decision.as_ref()) {
        if d.alpha.value > 0.0 {
            return Some(((d.alpha.value, d.alpha.ci.0, d.alpha.ci.1), true));
        }
    }
    let p = s
        .points
        .iter()
        .find(|p| p.n == 0 && p.status == PointStatus::Ok)?;
    let m = p.summary.as_ref()?;
    Some(((m.median, m.ci_low, m.ci_high), false))
}

impl FfiCharts {
    /// The pictures of a stored ffi run; None for another family's.
    pub fn for_run(run: &Run) -> Option<FfiCharts> {
        if run.family != "ffi" {
            return None;
        }
        let bindings: Vec<&Series> = run
            .series
            .iter()
            .filter(|s| s.attrs.get("binding").is_some())
            .collect();
        let mut rows: Vec<(String, DotRow)> = bindings
            .iter()
            .map(|s| {
                let (measured, label) = match alpha(s) {
                    Some((a, true)) => (Some(a), s.label.clone()),
                    Some((a, false)) => (Some(a), format!("{} (null call)", s.label)),
                    None => (None, format!("{} (not measured here)", s.label)),
                };
                let row = DotRow {
                    label,
                    measured,
                    original: None,
                };
                (ALPHA_UNIT.to_string(), row)
            })
            .collect();
        let links = bindings.iter().filter_map(|s| {
            serde_json::from_value::<VsLinkRow>(s.attrs.get("vs_link")?.clone()).ok()
        });
        for l in links {
            if let (Some(link), Some(trip)) = (l.link, l.trip_ns) {
                let row = DotRow {
                    label: format!("{} ⇄ toll over {link}: a round trip", l.runtime),
                    measured: Some(trip),
                    original: None,
                };
                rows.push((ALPHA_UNIT.to_string(), row));
            }
        }
        let mut lines = Chart::for_run(run);
        lines
            .series
            .retain(|p| bindings.iter().any(|s| s.label == p.label));
        lines.title = format!("toll ffi — run {}: t(n) per binding", run.id);
        Some(FfiCharts {
            alphas: DotChart::grouped(
                format!("toll ffi — run {}: α per binding, 95% CIs", run.id),
                "",
                rows,
            ),
            lines,
        })
    }

    /// Both pictures in one SVG, the dots above the lines; either alone
    /// when the other has nothing to draw.
    pub fn svg(&self, scale: Scale) -> Result<String, PlotError> {
        let mut parts = Vec::new();
        if self.alphas.has_marks() {
            parts.push(self.alphas.svg()?);
        }
        if self.lines.has_lines() {
            parts.push(self.lines.svg(scale)?);
        }
        match parts.len() {
            0 => Err(PlotError("no binding measured: nothing to plot".into())),
            1 => Ok(parts.remove(0)),
            _ => stack(&parts),
        }
    }

    /// Write both pictures to `path` as one SVG, atomically.
    pub fn write(&self, path: &Path, scale: Scale) -> Result<(), PlotError> {
        let svg = self.svg(scale)?;
        crate::atomic::write(path, svg.as_bytes()).map_err(err)
    }
}
