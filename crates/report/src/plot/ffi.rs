//! `toll ffi`'s picture: α per series as dots with their intervals on a
//! log axis (the crossings span decades: a C call at 2 ns, a JNI call at
//! 20, a safe Haskell call at 100, ctypes at 400), with the figures people
//! quote as hollow diamonds (`crate::ffi_quotes`); beside it, β per
//! binding and way on log axes of their own: ns per KiB passed, and ns per
//! upcall for the callbacks. With `--vs-link`, each runtime's empty round
//! trip over its cheapest link sits on α's axis, so "binding or helper
//! process?" reads as a distance.

use super::canvas::{err, PlotError};
use super::compose::stack;
use super::dots::{DotChart, DotRow};
use crate::ffi_link::VsLinkRow;
use crate::ffi_quotes;
use std::path::Path;
use toll_store::{PointStatus, Run, Series};

/// The words of the dots' axis.
pub const ALPHA_UNIT: &str = "α: ns per call (the crossing)";

/// The words of β's axes: bytes passed, and upcalls.
pub const BETA_PER_KIB: &str = "β: ns per KiB passed";
pub const BETA_PER_UPCALL: &str = "β: ns per upcall (callbacks)";

/// Both pictures of an ffi run.
#[derive(Debug, Clone)]
pub struct FfiCharts {
    /// A row per series (and per runtime's link with `--vs-link`), the
    /// quoted figures as hollow diamonds.
    pub alphas: DotChart,
    /// β per series, a group per unit; a β that cannot be told from 0 is a
    /// row without a dot, saying so.
    pub betas: DotChart,
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

/// A series' β row: per KiB for a way of passing, per upcall for a
/// callback; None when it has no fit (its α row says why).
fn beta(s: &Series) -> Option<(String, DotRow)> {
    let d = s.fit.as_ref()?.decision.as_ref()?;
    let (unit, scale) = match s.attrs.get("pass").and_then(|p| p.as_str()) {
        Some("callback") => (BETA_PER_UPCALL, 1.0),
        _ => (BETA_PER_KIB, 1024.0),
    };
    let b = &d.beta;
    let (label, measured) = match b.value > 0.0 && b.ci.0 > 0.0 {
        true => (
            s.label.clone(),
            Some((b.value * scale, b.ci.0 * scale, b.ci.1 * scale)),
        ),
        false => (format!("{} (≈ 0: cannot be told from 0)", s.label), None),
    };
    let row = DotRow {
        label,
        measured,
        original: None,
    };
    Some((unit.to_string(), row))
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
                    None => {
                        let why = s.attrs.get("unavailable").and_then(|w| w.as_str());
                        let word = match why {
                            Some(w) if w.contains(" does not ") => "way not offered",
                            _ => "not measured here",
                        };
                        (None, format!("{} ({word})", s.label))
                    }
                };
                let row = DotRow {
                    label,
                    measured,
                    original: ffi_quotes::quote(&s.label),
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
        Some(FfiCharts {
            alphas: DotChart::grouped(
                format!("toll ffi — run {}: α per series, 95% CIs", run.id),
                ffi_quotes::SOURCE,
                rows,
            ),
            betas: DotChart::grouped(
                format!("toll ffi — run {}: β per binding and way, 95% CIs", run.id),
                "",
                bindings.iter().filter_map(|s| beta(s)),
            ),
        })
    }

    /// Both pictures in one SVG, α above β; either alone when the other
    /// has nothing to draw.
    pub fn svg(&self) -> Result<String, PlotError> {
        let mut parts = Vec::new();
        if self.alphas.has_marks() {
            parts.push(self.alphas.svg()?);
        }
        if self.betas.has_marks() {
            parts.push(self.betas.svg()?);
        }
        match parts.len() {
            0 => Err(PlotError("no binding measured: nothing to plot".into())),
            1 => Ok(parts.remove(0)),
            _ => stack(&parts),
        }
    }

    /// Write both pictures to `path` as one SVG, atomically.
    pub fn write(&self, path: &Path) -> Result<(), PlotError> {
        let svg = self.svg()?;
        crate::atomic::write(path, svg.as_bytes()).map_err(err)
    }
}
