//! What every chart draws with: the picture's width and font, the error a
//! drawing gives, plotters' coordinate over toll's [`Axis`] (its ticks, its
//! faint minor lines), and a backend pixel in a panel's own terms.

use super::axis::Axis;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::prelude::{DrawingArea, SVGBackend};

/// Why a plot could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PlotError(pub(super) String);

pub(super) fn err<E: std::fmt::Display>(e: E) -> PlotError {
    PlotError(e.to_string())
}

pub(super) const WIDTH: u32 = 1000;
pub(super) const FONT: &str = "sans-serif";

/// A backend pixel (`backend_coord`) in the terms of `area`, a panel that
/// may not start at the picture's corner.
pub(super) fn on(area: &Area, (x, y): (i32, i32)) -> (i32, i32) {
    let (x0, y0) = area.get_base_pixel();
    (x - x0, y - y0)
}

/// An [`Axis`] as plotters' coordinate: linear in plot coordinates, its
/// own ticks for the labels and bold gridlines, its minor ones faint.
pub(super) struct Ticked<'a>(pub(super) &'a Axis);

impl Ranged for Ticked<'_> {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let a = self.0;
        let f = (v - a.lo) / (a.hi - a.lo);
        limit.0 + (f64::from(limit.1 - limit.0) * f).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.0.minor.clone()
        } else {
            self.0.major.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.0.lo..self.0.hi
    }
}

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
