//! How series look: Okabe and Ito's colour-blind-safe palette without its
//! yellow, a marker shape per series besides its colour, and the legend
//! beside the plot that names each and keys the line styles.

use super::canvas::{err, Area, PlotError, FONT};
use super::chart::Chart;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Okabe–Ito without its yellow, strongest contrast on white first.
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0x00, 0x00, 0x00), // black
];

/// Marker shapes, cycled apart from the colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
}

pub(super) const MARKERS: [Marker; 4] = [
    Marker::Circle,
    Marker::Square,
    Marker::Triangle,
    Marker::Diamond,
];

pub(super) fn draw_marker(
    area: &Area,
    m: Marker,
    (x, y): (i32, i32),
    color: RGBColor,
) -> Result<(), PlotError> {
    let fill = color.filled();
    let edge = WHITE.stroke_width(1);
    let r = 5;
    match m {
        Marker::Circle => {
            area.draw(&Circle::new((x, y), r, fill)).map_err(err)?;
            area.draw(&Circle::new((x, y), r, edge)).map_err(err)
        }
        Marker::Square => {
            let c = [(x - r + 1, y - r + 1), (x + r - 1, y + r - 1)];
            area.draw(&Rectangle::new(c, fill)).map_err(err)?;
            area.draw(&Rectangle::new(c, edge)).map_err(err)
        }
        Marker::Triangle => {
            let p = vec![
                (x, y - r - 1),
                (x + r + 1, y + r - 1),
                (x - r - 1, y + r - 1),
            ];
            area.draw(&Polygon::new(p.clone(), fill)).map_err(err)?;
            area.draw(&PathElement::new([p.clone(), vec![p[0]]].concat(), edge))
                .map_err(err)
        }
        Marker::Diamond => {
            let p = vec![
                (x, y - r - 1),
                (x + r + 1, y),
                (x, y + r + 1),
                (x - r - 1, y),
            ];
            area.draw(&Polygon::new(p.clone(), fill)).map_err(err)?;
            area.draw(&PathElement::new([p.clone(), vec![p[0]]].concat(), edge))
                .map_err(err)
        }
    }
}

/// A series' label as the legend shows it: at most 40 characters, so a
/// long command leaves the plot its room (the report's tables have it whole).
pub(super) fn legend_label(label: &str) -> String {
    const MAX: usize = 40;
    if label.chars().count() <= MAX {
        return label.to_string();
    }
    let head: String = label.chars().take(MAX - 1).collect();
    format!("{head}…")
}

/// The line styles a chart uses, for the legend's key.
pub(super) fn style_keys(chart: &Chart) -> Vec<(&'static str, bool)> {
    let models = || chart.series.iter().filter_map(|s| s.model);
    let knees = models().any(|m| !m.line_fits && m.knee.is_some());
    let solid = match (chart.per_unit, knees) {
        (true, false) => "model (α + β·N) / N",
        (true, true) => "model / N: line or two segments",
        (false, false) => "fitted line α + β·n",
        (false, true) => "model: line, or two segments",
    };
    let mut keys = Vec::new();
    if models().next().is_some() {
        keys.push((solid, true));
    }
    if knees {
        keys.push(("a line, where it does not fit", false));
    }
    keys
}

/// One series as a legend names it.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub label: String,
    pub color: RGBColor,
    pub marker: Marker,
    /// Drawn with a model (a solid line) rather than joined points.
    pub model: bool,
}

/// Each of `chart`'s series as the legend names it, coloured by its place.
pub(super) fn entries(chart: &Chart) -> Vec<Entry> {
    chart
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| Entry {
            label: legend_label(&s.label),
            color: PALETTE[i % PALETTE.len()],
            marker: MARKERS[i % MARKERS.len()],
            model: s.model.is_some(),
        })
        .collect()
}

/// Text of a legend, `size` px, left-aligned at its point.
fn text(s: &str, (x, y): (i32, i32), size: u32, c: RGBAColor) -> Text<'static, (i32, i32), String> {
    Text::new(
        s.to_string(),
        (x, y),
        (FONT, size)
            .into_font()
            .color(&c)
            .pos(Pos::new(HPos::Left, VPos::Center)),
    )
}

/// `entries` one under the other from `y`, `step` px apart in type of
/// `size` px; the `y` below the last.
pub(super) fn draw_entries(
    area: &Area,
    entries: &[Entry],
    mut y: i32,
    (size, step): (u32, i32),
) -> Result<i32, PlotError> {
    for e in entries {
        let style = if e.model {
            e.color.stroke_width(2)
        } else {
            e.color.mix(0.7).stroke_width(1)
        };
        area.draw(&PathElement::new(vec![(6, y), (34, y)], style))
            .map_err(err)?;
        draw_marker(area, e.marker, (20, y), e.color)?;
        area.draw(&text(&e.label, (44, y), size, BLACK.to_rgba()))
            .map_err(err)?;
        y += step;
    }
    Ok(y)
}

/// The key's one entry, a line style or the CI's bar, at `(x, y)`: its
/// mark from `x` to `x + 28`, its words from `x + 38`.
fn draw_key_entry(
    area: &Area,
    (x, y): (i32, i32),
    words: &str,
    style: Option<bool>,
) -> Result<(), PlotError> {
    let grey = BLACK.mix(0.65);
    match style {
        None => area.draw(&PathElement::new(
            vec![(x + 14, y - 7), (x + 14, y + 7)],
            grey.stroke_width(1),
        )),
        Some(true) => area.draw(&PathElement::new(
            vec![(x, y), (x + 28, y)],
            grey.stroke_width(2),
        )),
        Some(false) => area.draw(&DashedPathElement::new(
            vec![(x, y), (x + 28, y)],
            5,
            4,
            grey.stroke_width(1),
        )),
    }
    .map_err(err)?;
    area.draw(&text(words, (x + 38, y), 16, grey)).map_err(err)
}

/// What the bars and line styles mean, one under the other from `y`.
pub(super) fn draw_key(area: &Area, keys: &[(&str, bool)], mut y: i32) -> Result<(), PlotError> {
    draw_key_entry(area, (6, y), "95% CI of the median", None)?;
    y += 22;
    for &(k, solid) in keys {
        draw_key_entry(area, (6, y), k, Some(solid))?;
        y += 22;
    }
    Ok(())
}

/// The same key in one row from `x`, for a picture whose legends are its
/// panels'.
pub(super) fn draw_key_row(
    area: &Area,
    keys: &[(&str, bool)],
    (mut x, y): (i32, i32),
) -> Result<(), PlotError> {
    let all = std::iter::once(("95% CI of the median", None))
        .chain(keys.iter().map(|&(k, solid)| (k, Some(solid))));
    for (words, style) in all {
        draw_key_entry(area, (x, y), words, style)?;
        x += 60 + 8 * words.chars().count() as i32;
    }
    Ok(())
}

pub(super) fn draw_legend(
    area: &Area,
    chart: &Chart,
    keys: &[(&str, bool)],
) -> Result<(), PlotError> {
    let y = draw_entries(area, &entries(chart), 22, (16, 22))?;
    draw_key(area, keys, y + 10)
}
