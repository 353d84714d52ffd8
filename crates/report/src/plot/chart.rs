//! A whole t(n) plot as data: its words and its series, drawn by
//! [`super::Chart::svg`] and its legend by the style module.

use super::series::PlotSeries;

/// A whole plot: its words and its series.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// The points are a cost per unit of n, the model a total: draw it as
    /// t(n)/n (`toll spawn`, `toll ring`).
    pub per_unit: bool,
    pub series: Vec<PlotSeries>,
}
