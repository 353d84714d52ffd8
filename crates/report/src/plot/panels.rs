//! Small multiples: a t(n) chart with more series than the palette has
//! colours (`toll transfer --peer all`: every peer over every transport) is
//! drawn as a panel per group — per peer for transfer, per runtime for
//! spawn, ring, ffi, file and rpc — every panel on the same x and y ranges,
//! so a line is read against the others across panels as within one.
//!
//! A panel per peer rather than per transport: a peer has at most four
//! transports, so its lines never outnumber the colours, while a panel per
//! transport would hold every peer. Within a panel colours never repeat: a
//! group larger than the palette is split over panels (`rust, 1 of 2`).
//! Where every panel's members come from one short list (pipe, unix, tcp,
//! shm) each member keeps its colour and marker in every panel and one
//! legend beside the panels names them; otherwise each panel has its own.
//!
//! Each panel is drawn apart and nested in the picture as an `<svg
//! class="panel">` ([`super::compose`]).

use super::canvas::{err, Area, PlotError, Ticked, FONT, WIDTH};
use super::chart::Chart;
use super::compose::nest;
use super::lines::{draw_series, Frame, Look};
use super::style::{
    draw_entries, draw_key, draw_key_row, legend_label, style_keys, Entry, MARKERS, PALETTE,
};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One panel: its title and the chart's series it draws, by index.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Panel {
    pub title: String,
    pub series: Vec<usize>,
}

/// How a chart splits into panels.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Split {
    pub panels: Vec<Panel>,
    /// Each series' colour, an index into [`PALETTE`] (and [`MARKERS`]).
    pub colour: Vec<usize>,
    /// The members every panel draws from, in colour order, when each keeps
    /// its colour across panels (one legend names them); None when each
    /// panel has its own legend.
    pub shared: Option<Vec<String>>,
}

/// A series' name within its group's panel: `pipe` of `rust/pipe`.
fn member(label: &str, group: &str) -> String {
    if group.is_empty() {
        return label.to_string();
    }
    label
        .strip_prefix(group)
        .and_then(|l| l.strip_prefix('/'))
        .unwrap_or(label)
        .to_string()
}

/// The panels of `chart`; None when its series fit the palette (one panel,
/// drawn as ever).
pub(super) fn split(chart: &Chart) -> Option<Split> {
    let k = PALETTE.len();
    if chart.series.len() <= k {
        return None;
    }
    // The groups in the order their first series comes.
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, s) in chart.series.iter().enumerate() {
        match groups.iter_mut().find(|g| g.0 == s.group) {
            Some(g) => g.1.push(i),
            None => groups.push((&s.group, vec![i])),
        }
    }
    let mut panels = Vec::new();
    for (name, members) in groups {
        // A group too large for the palette: over as few panels as it
        // needs, as evenly as they go.
        let parts = members.len().div_ceil(k);
        let per = members.len().div_ceil(parts);
        for (j, chunk) in members.chunks(per).enumerate() {
            let title = match (name.is_empty(), parts) {
                (false, 1) => name.to_string(),
                (false, _) => format!("{name}, {} of {parts}", j + 1),
                (true, _) => format!("{} of {parts}", j + 1),
            };
            panels.push(Panel {
                title,
                series: chunk.to_vec(),
            });
        }
    }
    let names: Vec<String> = chart
        .series
        .iter()
        .map(|s| member(&s.label, &s.group))
        .collect();
    let mut members: Vec<&str> = Vec::new();
    for n in &names {
        if !members.contains(&n.as_str()) {
            members.push(n);
        }
    }
    let distinct_within = panels.iter().all(|p| {
        p.series
            .iter()
            .enumerate()
            .all(|(j, &i)| !p.series[..j].iter().any(|&o| names[o] == names[i]))
    });
    let shared = members.len() <= k && distinct_within;
    let mut colour = vec![0; chart.series.len()];
    for p in &panels {
        for (j, &i) in p.series.iter().enumerate() {
            colour[i] = if shared {
                members.iter().position(|m| *m == names[i]).unwrap_or(0)
            } else {
                j
            };
        }
    }
    Some(Split {
        panels,
        colour,
        shared: shared.then(|| members.iter().map(|m| m.to_string()).collect()),
    })
}

/// Height of a panel's title and of its plot, pixels.
const PANEL_TITLE_H: u32 = 26;
const PANEL_PLOT_H: u32 = 250;
/// A row of a panel's own legend.
const ROW_H: i32 = 18;
/// The column left of the panels for the y axis' words.
const LEFT: u32 = 30;

/// The chart as small multiples on `frame`'s axes, into `out`.
pub(super) fn draw(
    out: &mut String,
    chart: &Chart,
    frame: &Frame,
    split: &Split,
) -> Result<(), PlotError> {
    let look = |i: usize| Look {
        color: PALETTE[split.colour[i] % PALETTE.len()],
        marker: MARKERS[split.colour[i] % MARKERS.len()],
    };
    let entry = |i: usize, label: String| Entry {
        label: legend_label(&label),
        color: look(i).color,
        marker: look(i).marker,
        model: chart.series[i].model.is_some(),
    };
    let keys = style_keys(chart);
    // One legend beside the panels, or each panel's under its plot.
    let legend: Option<Vec<Entry>> = split.shared.as_ref().map(|members| {
        members
            .iter()
            .map(|m| {
                let of = |i: &usize| member(&chart.series[*i].label, &chart.series[*i].group) == *m;
                let first = (0..chart.series.len()).find(of).unwrap_or(0);
                Entry {
                    model: (0..chart.series.len())
                        .filter(of)
                        .any(|i| chart.series[i].model.is_some()),
                    ..entry(first, m.clone())
                }
            })
            .collect()
    });
    let legend_w = match &legend {
        Some(entries) => {
            let chars = entries
                .iter()
                .map(|e| e.label.chars().count())
                .chain(keys.iter().map(|(k, _)| k.chars().count()))
                .max()
                .unwrap_or(0);
            (chars as u32 * 8 + 60).clamp(190, 320)
        }
        None => 0,
    };
    let most = split
        .panels
        .iter()
        .map(|p| p.series.len())
        .max()
        .unwrap_or(0);
    let own_legend_h = if legend.is_some() {
        0
    } else {
        ROW_H as u32 * most as u32 + 8
    };
    let cols = if split.panels.len() <= 4 { 2 } else { 3 };
    let rows = split.panels.len().div_ceil(cols) as u32;
    let cell_w = (WIDTH - LEFT - legend_w) / cols as u32;
    let cell_h = PANEL_TITLE_H + PANEL_PLOT_H + own_legend_h;
    let notes = frame.notes();
    let below = 34 + 20 * notes.len() as u32 + if legend.is_some() { 0 } else { 30 };
    let (title_h, height) = {
        // The title's height as plotters lays it out (see `titled`).
        let t = 22 + 10;
        (t, t + rows * cell_h + below)
    };
    let mut base = String::new();
    {
        let root = SVGBackend::with_string(&mut base, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        root.draw(&Text::new(
            chart.title.clone(),
            (WIDTH as i32 / 2, 5),
            (FONT, 22)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(err)?;
        let grid_h = rows * cell_h;
        let words = |size: u32| {
            (FONT, size)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Center))
        };
        root.draw(&Text::new(
            frame.y_desc(chart),
            (14, (title_h + grid_h / 2) as i32),
            words(17).transform(FontTransform::Rotate270),
        ))
        .map_err(err)?;
        let grid_w = cell_w * cols as u32;
        let mut y = (title_h + grid_h + 16) as i32;
        root.draw(&Text::new(
            frame.x_desc(chart),
            ((LEFT + grid_w / 2) as i32, y),
            words(17),
        ))
        .map_err(err)?;
        y += 24;
        for note in &notes {
            root.draw(&Text::new(
                note.as_str(),
                (LEFT as i32 + 54, y),
                (FONT, 15)
                    .into_font()
                    .color(&BLACK.mix(0.7))
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(err)?;
            y += 20;
        }
        match &legend {
            Some(entries) => {
                let area = root.clone().shrink(
                    ((WIDTH - legend_w) as i32, title_h as i32),
                    (legend_w, grid_h),
                );
                let y = draw_entries(&area, entries, 22, (16, 22))?;
                draw_key(&area, &keys, y + 10)?;
            }
            None => draw_key_row(&root, &keys, (LEFT as i32 + 48, y + 4))?,
        }
        root.present().map_err(err)?;
    }
    let mut parts = Vec::new();
    for (k, panel) in split.panels.iter().enumerate() {
        let entries: Option<Vec<Entry>> = legend.is_none().then(|| {
            panel
                .series
                .iter()
                .map(|&i| entry(i, member(&chart.series[i].label, &chart.series[i].group)))
                .collect()
        });
        let svg = draw_panel(
            chart,
            frame,
            panel,
            &look,
            entries.as_deref(),
            (cell_w, cell_h),
        )?;
        let (col, row) = ((k % cols) as u32, (k / cols) as u32);
        parts.push(((LEFT + col * cell_w, title_h + row * cell_h), svg));
    }
    *out = nest(&base, &parts, "panel")?;
    Ok(())
}

/// One panel as its own SVG document of `size`: its title, its series on
/// the shared axes, and its own legend when it has one.
fn draw_panel(
    chart: &Chart,
    frame: &Frame,
    panel: &Panel,
    look: &dyn Fn(usize) -> Look,
    entries: Option<&[Entry]>,
    size: (u32, u32),
) -> Result<String, PlotError> {
    let (xa, ya) = (&frame.xa, &frame.ya);
    let mut out = String::new();
    {
        let root: Area = SVGBackend::with_string(&mut out, size).into_drawing_area();
        root.draw(&Text::new(
            panel.title.clone(),
            (size.0 as i32 / 2, PANEL_TITLE_H as i32 / 2 + 2),
            (FONT, 17)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))
        .map_err(err)?;
        let (_, rest) = root.split_vertically(PANEL_TITLE_H);
        let (plot, below) = rest.split_vertically(PANEL_PLOT_H);
        let mut cc = ChartBuilder::on(&plot)
            .margin_top(4)
            .margin_left(4)
            .margin_right(14)
            .margin_bottom(4)
            .x_label_area_size(26)
            .y_label_area_size(50)
            .build_cartesian_2d(Ticked(xa), Ticked(ya))
            .map_err(err)?;
        let x_fmt = |t: &f64| xa.label(*t);
        let y_fmt = |t: &f64| ya.label(*t);
        cc.configure_mesh()
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt)
            .label_style((FONT, 13))
            .bold_line_style(BLACK.mix(0.14))
            .light_line_style(BLACK.mix(0.05))
            .axis_style(BLACK.mix(0.6))
            .draw()
            .map_err(err)?;
        frame.draw_break(&mut cc)?;
        for &i in &panel.series {
            draw_series(&mut cc, &root, frame, chart, i, look(i))?;
        }
        if let Some(entries) = entries {
            draw_entries(&below, entries, ROW_H / 2 + 4, (14, ROW_H))?;
        }
        root.present().map_err(err)?;
    }
    Ok(out)
}
