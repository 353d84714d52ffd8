//! SVG plots a person wants to look at: each series' medians with their
//! 95% CIs and its model drawn through them, on axes that show every series.
//!
//! - **Scales**: times that span decades (a Rust peer at 10 µs beside a
//!   Python one at 10 ms) squash the fast series flat on a linear axis, so
//!   `auto` turns an axis logarithmic when its values span decades (see
//!   [`axis::log_axes`]); `--plot-scale linear|log` forces either. Ticks sit
//!   at round values (1, 10, 100, 1k…), and a 0 on a log axis is drawn past
//!   a break (see [`axis`]).
//! - **Colours**: Okabe and Ito's palette for colour-blind readers
//!   (*Color Universal Design*, 2008) less its yellow, which vanishes on
//!   white; each series also has its own marker shape, so two series never
//!   differ by colour alone.
//! - **Models**: the fitted line `t(n) = α + β·n` solid where it describes
//!   the points; where it does not, the two-segment model solid and the
//!   line dashed. Families whose points are a cost per unit (spawn, ring)
//!   draw the model as t(N)/N = α/N + β.
//! - **Legend** to the right of the plot area, never over the data.
//! - **Many series** (`panels.rs`): past the palette's seven colours a chart
//!   becomes small multiples — a panel per peer or runtime, every panel on
//!   the same axes, no colour twice in a panel.
//! - **Loads** (`toll http`, `toll http compare`) are not sweeps over n:
//!   they are drawn as latency by percentile ([`latency`]) and requests per
//!   second over time ([`rate`]), from the stored run by [`load`].
//! - **Dot plots** ([`dots`]): figures of different kinds side by side on
//!   a log axis, the original's beside this machine's (`toll replicate`);
//!   `toll ffi`'s α per series above β per binding and way ([`ffi`]).
//! - **Scaling** ([`scaling`]): a cost per unit against N on log–log axes,
//!   a line per runtime (E2's spawn and ring); **servers** ([`servers`]):
//!   requests per second per server with CIs (E5's comparison).
//! - **`toll sys`** ([`sys`]): its figures as dots on one axis of time,
//!   the core-to-core handoffs as a heat map ([`heatmap`]), the memory
//!   staircase with the cache sizes marked ([`staircase`]).

pub mod axis;
mod canvas;
mod chart;
mod compose;
pub mod dots;
pub mod ffi;
pub mod heatmap;
pub mod latency;
mod lines;
pub mod load;
pub mod machines;
mod panels;
pub mod rate;
pub mod scaling;
mod series;
pub mod servers;
pub mod staircase;
mod style;
pub mod sweep;
pub mod sys;
pub mod trend;

pub use axis::{Axis, Scale};
pub use canvas::PlotError;
use canvas::{err, Ticked, FONT, WIDTH};
pub use chart::Chart;
pub use dots::{DotChart, DotGroup, DotRow};
pub use ffi::FfiCharts;
pub use load::{is_load, LoadCharts};
pub use series::{plot_series_from_run, Knee, Model, PlotPoint, PlotSeries};
pub use style::PALETTE;
pub use sys::SysCharts;

use lines::{draw_series, Frame, Look};
use plotters::prelude::*;
use std::path::Path;
use style::{draw_legend, legend_label, style_keys, MARKERS};
use toll_store::Run;

impl Chart {
    /// The plot of a stored run, as its family's `--plot` draws it: times
    /// in µs (ms for `toll exec`), n labelled in the family's words.
    pub fn for_run(run: &Run) -> Chart {
        let series = plot_series_from_run(run);
        let param = || {
            run.series
                .first()
                .and_then(|s| s.attrs.get("parameter"))
                .and_then(|p| p.as_str())
                .unwrap_or("n")
                .to_string()
        };
        let (x, y, per_unit, series) = match run.family.as_str() {
            "transfer" => (
                "items per message (n)".to_string(),
                "round trip (µs)",
                false,
                series,
            ),
            "spawn" => ("units (N)".into(), "µs per unit", true, series),
            "ring" => ("units in the ring (N)".into(), "µs per hop", true, series),
            "file" => ("bytes per read".into(), "µs per read", false, series),
            "ffi" => ("bytes per call (n)".into(), "µs per call", false, series),
            "rpc" => (
                "payload bytes per call".into(),
                "µs per call",
                false,
                series,
            ),
            "exec" => (
                param(),
                "time per run (ms)",
                false,
                series.into_iter().map(|s| s.scaled(1e3)).collect(),
            ),
            _ => ("n".into(), "time (µs)", false, series),
        };
        Chart {
            title: format!("toll {} — run {}", run.family, run.id),
            x_label: x,
            y_label: y.into(),
            per_unit,
            series,
        }
    }

    /// The same chart under another title.
    pub fn titled(mut self, title: impl Into<String>) -> Chart {
        self.title = title.into();
        self
    }

    /// Whether there is anything to draw: some series with two points or more.
    pub fn has_lines(&self) -> bool {
        self.series.iter().any(|s| s.points.len() >= 2)
    }

    /// How many panels the chart is drawn on: one, or when it has more
    /// series than [`PALETTE`] has colours a panel per peer or runtime.
    pub fn panels(&self) -> usize {
        panels::split(self).map_or(1, |s| s.panels.len())
    }

    /// The words a caption adds when the chart is drawn as small multiples.
    pub fn panels_note(&self) -> Option<String> {
        let k = self.panels();
        (k > 1).then(|| {
            format!(
                "{} series, more than the {} colours: {k} panels, one per peer or runtime, every panel on the same axes.",
                self.series.len(),
                PALETTE.len()
            )
        })
    }

    /// The chart as an SVG document.
    pub fn svg(&self, scale: Scale) -> Result<String, PlotError> {
        let mut out = String::new();
        draw(&mut out, self, scale)?;
        Ok(out)
    }

    /// Write the chart to `path` as SVG: to a temporary file beside it,
    /// renamed into place, so a failure leaves nothing half-written.
    pub fn write(&self, path: &Path, scale: Scale) -> Result<(), PlotError> {
        let svg = self.svg(scale)?;
        crate::atomic::write(path, svg.as_bytes()).map_err(err)
    }
}

fn draw(out: &mut String, chart: &Chart, scale: Scale) -> Result<(), PlotError> {
    let frame = Frame::of(chart, scale)?;
    if let Some(split) = panels::split(chart) {
        return panels::draw(out, chart, &frame, &split);
    }
    let (xa, ya) = (&frame.xa, &frame.ya);
    let keys = style_keys(chart);
    let legend_chars = chart
        .series
        .iter()
        .map(|s| legend_label(&s.label).chars().count())
        .chain(keys.iter().map(|(k, _)| k.chars().count()))
        .max()
        .unwrap_or(0);
    let legend_w = (legend_chars as u32 * 8 + 60).clamp(190, 360);
    let entries = chart.series.len() + keys.len() + 2;
    let height = (150 + 22 * entries as u32).max(600);
    let root = SVGBackend::with_string(out, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let body = root
        .titled(&chart.title, (FONT, 22).into_font().color(&BLACK))
        .map_err(err)?;
    let (plot_area, legend_area) = body.split_horizontally(WIDTH - legend_w);
    let notes = frame.notes();
    let plot_h = plot_area.dim_in_pixel().1;
    let notes_h = 20 * notes.len() as u32;
    let (plot_area, notes_area) = plot_area.split_vertically(plot_h - notes_h);
    let mut cc = ChartBuilder::on(&plot_area)
        .margin_top(8)
        .margin_left(12)
        .margin_right(16)
        .margin_bottom(8)
        .x_label_area_size(52)
        .y_label_area_size(72)
        .build_cartesian_2d(Ticked(xa), Ticked(ya))
        .map_err(err)?;
    let x_fmt = |t: &f64| xa.label(*t);
    let y_fmt = |t: &f64| ya.label(*t);
    cc.configure_mesh()
        .x_desc(frame.x_desc(chart))
        .y_desc(frame.y_desc(chart))
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .axis_desc_style((FONT, 17))
        .label_style((FONT, 16))
        .bold_line_style(BLACK.mix(0.14))
        .light_line_style(BLACK.mix(0.05))
        .axis_style(BLACK.mix(0.6))
        .draw()
        .map_err(err)?;
    frame.draw_break(&mut cc)?;
    for i in 0..chart.series.len() {
        let look = Look {
            color: PALETTE[i % PALETTE.len()],
            marker: MARKERS[i % MARKERS.len()],
        };
        draw_series(&mut cc, &root, &frame, chart, i, look)?;
    }
    for (k, note) in notes.iter().enumerate() {
        notes_area
            .draw(&Text::new(
                note.as_str(),
                (84, 4 + 20 * k as i32),
                (FONT, 15).into_font().color(&BLACK.mix(0.7)),
            ))
            .map_err(err)?;
    }
    draw_legend(&legend_area, chart, &keys)?;
    root.present().map_err(err)?;
    drop(cc);
    Ok(())
}

#[cfg(test)]
mod tests;
