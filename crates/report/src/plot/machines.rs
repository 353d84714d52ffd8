//! Machines side by side (the board's atlas page): one row per crossing,
//! each machine's figure a dot with its interval in a colour of its own
//! (and a marker shape of its own, so colour is never the only cue), all on
//! one log axis of time from at least 1 ns to 1 s — a ratio between two
//! machines reads as a distance, the same on every row.

use super::axis::Axis;
use super::canvas::{err, PlotError, Ticked, FONT};
use super::dots::time_label;
use super::style::PALETTE;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One crossing: its name and each machine's (value, low, high) in ns.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineRow {
    pub label: String,
    pub figures: Vec<Option<(f64, f64, f64)>>,
}

/// Every machine's figures for the crossings they share.
#[derive(Debug, Clone, PartialEq)]
pub struct MachinesChart {
    pub title: String,
    /// The machines, in the columns' order: their colour is their index's.
    pub machines: Vec<String>,
    pub rows: Vec<MachineRow>,
}

const WIDTH: u32 = 1000;
const LABEL_W: u32 = 380;
const ROW_H: u32 = 26;
const AXIS_H: u32 = 46;
const LABEL_CHARS: usize = 50;

fn short(label: &str) -> String {
    if label.chars().count() <= LABEL_CHARS {
        return label.to_string();
    }
    let mut s: String = label.chars().take(LABEL_CHARS - 1).collect();
    s.push('…');
    s
}

impl MachinesChart {
    /// The chart as an SVG document; an error when nothing is above 0.
    pub fn svg(&self) -> Result<String, PlotError> {
        let mut values: Vec<f64> = self
            .rows
            .iter()
            .flat_map(|r| r.figures.iter().flatten().map(|f| f.0))
            .filter(|v| *v > 0.0)
            .collect();
        if values.is_empty() {
            return Err(PlotError("no figure above 0 to plot".into()));
        }
        values.extend([1.0, 1e9]);
        let xa = Axis::new(&values, true);
        let legend_rows = self.machines.len().div_ceil(2) as u32;
        let top = 40 + 22 * legend_rows;
        let height = top + ROW_H * self.rows.len() as u32 + AXIS_H + 10;
        let mut out = String::new();
        {
            let root = SVGBackend::with_string(&mut out, (WIDTH, height)).into_drawing_area();
            root.fill(&WHITE).map_err(err)?;
            let left = Pos::new(HPos::Left, VPos::Center);
            let text = |s: &str, size: u32, pos: Pos| {
                Text::new(
                    s.to_string(),
                    (0, 0),
                    (FONT, size).into_font().color(&BLACK).pos(pos),
                )
            };
            root.draw(&(EmptyElement::at((12, 20)) + text(&self.title, 20, left)))
                .map_err(err)?;
            for (i, m) in self.machines.iter().enumerate() {
                let (x, y) = (14 + 490 * (i as i32 % 2), 48 + 22 * (i as i32 / 2));
                mark(&root, (x + 8, y), i)?;
                root.draw(&(EmptyElement::at((x + 22, y)) + text(&short(m), 14, left)))
                    .map_err(err)?;
            }
            let body = root.clone().shrink((0, top), (WIDTH, height - top));
            let n = self.rows.len() as f64;
            let mut cc = ChartBuilder::on(&body)
                .margin_right(24)
                .x_label_area_size(AXIS_H)
                .y_label_area_size(LABEL_W)
                .build_cartesian_2d(Ticked(&xa), 0.0..n.max(1.0))
                .map_err(err)?;
            let fmt = |t: &f64| time_label(10f64.powf(*t));
            cc.configure_mesh()
                .disable_y_mesh()
                .y_labels(0)
                .x_label_formatter(&fmt)
                .x_desc("time of one crossing, log scale")
                .axis_desc_style((FONT, 14))
                .label_style((FONT, 14))
                .bold_line_style(BLACK.mix(0.14))
                .light_line_style(BLACK.mix(0.05))
                .axis_style(BLACK.mix(0.6))
                .draw()
                .map_err(err)?;
            let k = self.machines.len().max(1) as f64;
            for (i, r) in self.rows.iter().enumerate() {
                let y0 = n - i as f64 - 0.5;
                let (_, ly) = cc.backend_coord(&(xa.lo, y0));
                root.draw(&(EmptyElement::at((12, ly)) + text(&short(&r.label), 13, left)))
                    .map_err(err)?;
                for (j, f) in r.figures.iter().enumerate() {
                    let Some((v, lo, hi)) = f.filter(|f| f.0 > 0.0) else {
                        continue;
                    };
                    // Each machine a little apart within the row.
                    let y = y0 + 0.3 - 0.6 * (j as f64 + 0.5) / k;
                    let at = |v: f64| xa.map_clamped(v.max(f64::MIN_POSITIVE)).clamp(xa.lo, xa.hi);
                    let color = PALETTE[j % PALETTE.len()];
                    cc.draw_series(std::iter::once(PathElement::new(
                        vec![(at(lo), y), (at(hi), y)],
                        color.mix(0.8).stroke_width(2),
                    )))
                    .map_err(err)?;
                    let p = cc.backend_coord(&(at(v), y));
                    mark(&root, p, j)?;
                }
            }
            root.present().map_err(err)?;
        }
        Ok(out)
    }
}

/// Machine `i`'s mark: its colour, and a circle, a square or a triangle.
fn mark<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    (x, y): (i32, i32),
    i: usize,
) -> Result<(), PlotError> {
    let c = PALETTE[i % PALETTE.len()].filled();
    match (i / PALETTE.len() + i) % 3 {
        0 => area.draw(&Circle::new((x, y), 5, c)).map_err(err),
        1 => area
            .draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], c))
            .map_err(err),
        _ => area
            .draw(&Polygon::new(
                vec![(x, y - 5), (x + 5, y + 4), (x - 5, y + 4)],
                c,
            ))
            .map_err(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_machine_has_its_colour_on_one_axis_from_1_ns_to_1_s() {
        let c = MachinesChart {
            title: "atlas".into(),
            machines: vec!["laptop".into(), "vm".into()],
            rows: vec![
                MachineRow {
                    label: "syscall".into(),
                    figures: vec![Some((100.0, 95.0, 105.0)), Some((400.0, 380.0, 420.0))],
                },
                MachineRow {
                    label: "start-up (c)".into(),
                    figures: vec![None, Some((9e5, 8e5, 1e6))],
                },
            ],
        };
        let svg = c.svg().unwrap();
        for want in ["\n1 ns\n", "\n1 s\n", "laptop", "vm", "#0072B2", "#D55E00"] {
            assert!(svg.contains(want), "{want}");
        }
        let empty = MachinesChart { rows: vec![], ..c };
        assert!(empty.svg().is_err());
    }
}
