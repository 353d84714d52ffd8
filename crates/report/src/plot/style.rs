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

pub(super) fn draw_legend(
    area: &Area,
    chart: &Chart,
    keys: &[(&str, bool)],
) -> Result<(), PlotError> {
    let text = |s: &str, x: i32, y: i32, c: RGBAColor| {
        Text::new(
            s.to_string(),
            (x, y),
            (FONT, 16)
                .into_font()
                .color(&c)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        )
    };
    let mut y = 22;
    for (i, s) in chart.series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        let style = if s.model.is_some() {
            color.stroke_width(2)
        } else {
            color.mix(0.7).stroke_width(1)
        };
        area.draw(&PathElement::new(vec![(6, y), (34, y)], style))
            .map_err(err)?;
        draw_marker(area, MARKERS[i % MARKERS.len()], (20, y), color)?;
        area.draw(&text(&legend_label(&s.label), 44, y, BLACK.to_rgba()))
            .map_err(err)?;
        y += 22;
    }
    y += 10;
    let grey = BLACK.mix(0.65);
    area.draw(&PathElement::new(
        vec![(20, y - 7), (20, y + 7)],
        grey.stroke_width(1),
    ))
    .map_err(err)?;
    area.draw(&text("95% CI of the median", 44, y, grey))
        .map_err(err)?;
    y += 22;
    for &(k, solid) in keys {
        if solid {
            area.draw(&PathElement::new(
                vec![(6, y), (34, y)],
                grey.stroke_width(2),
            ))
            .map_err(err)?;
        } else {
            area.draw(&DashedPathElement::new(
                vec![(6, y), (34, y)],
                5,
                4,
                grey.stroke_width(1),
            ))
            .map_err(err)?;
        }
        area.draw(&text(k, 44, y, grey)).map_err(err)?;
        y += 22;
    }
    Ok(())
}
