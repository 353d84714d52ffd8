//! The core-to-core matrix as a heat map (`toll sys`'s handoff): a cell
//! per ordered pair of CPUs, from the row's CPU to the column's, coloured
//! by its median one-way time on a scale from 0, so a pair twice as slow
//! reads twice as far along the colour bar (SMT siblings, one die, across
//! sockets). The diagonal is blank: a CPU does not hand a line to itself.
//!
//! The colours are viridis' (van der Walt and Smith, 2015): sequential,
//! even in lightness, legible to colour-blind readers and in grey. With 16
//! CPUs or fewer each cell also says its figure, so the picture reads
//! without the bar.

use super::axis::{nice_step, round_label};
use super::canvas::{err, PlotError, FONT, WIDTH};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The handoff matrix: each measured pair's median, ns.
#[derive(Debug, Clone, PartialEq)]
pub struct HeatMap {
    pub title: String,
    /// The CPUs of the rows and columns, in order.
    pub cpus: Vec<usize>,
    /// (from, to, median ns) per measured ordered pair.
    pub cells: Vec<(usize, usize, f64)>,
}

/// Viridis at nine even steps, dark to light.
const VIRIDIS: [(u8, u8, u8); 9] = [
    (0x44, 0x01, 0x54),
    (0x47, 0x2c, 0x7a),
    (0x3b, 0x51, 0x8b),
    (0x2c, 0x71, 0x8e),
    (0x21, 0x90, 0x8d),
    (0x27, 0xad, 0x81),
    (0x5c, 0xc8, 0x63),
    (0xaa, 0xdc, 0x32),
    (0xfd, 0xe7, 0x25),
];

/// The colour at `f` in [0, 1] along viridis, between its two nearest steps.
pub fn viridis(f: f64) -> RGBColor {
    let f = if f.is_finite() {
        f.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let at = f * (VIRIDIS.len() - 1) as f64;
    let i = (at.floor() as usize).min(VIRIDIS.len() - 2);
    let t = at - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + t * (f64::from(b) - f64::from(a))).round() as u8;
    let (a, b) = (VIRIDIS[i], VIRIDIS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Whether text on `c` should be white: its lightness below the middle.
fn dark(c: RGBColor) -> bool {
    0.299 * f64::from(c.0) + 0.587 * f64::from(c.1) + 0.114 * f64::from(c.2) < 140.0
}

/// Rectangles in the colour bar.
pub const BAR_STEPS: usize = 48;
/// Above this many CPUs the cells are too small for their figures.
pub const WRITTEN_UP_TO: usize = 16;
const GRID: i32 = 560;
const LEFT: i32 = 110;
const TOP: i32 = 110;

impl HeatMap {
    /// Whether any pair was measured.
    pub fn has_cells(&self) -> bool {
        self.cells.iter().any(|c| c.2.is_finite() && c.2 > 0.0)
    }

    /// The unit the cells and bar speak (ns or µs), and its size in ns.
    fn unit(&self) -> (&'static str, f64) {
        let top = self.cells.iter().map(|c| c.2).fold(0.0, f64::max);
        if top >= 1e3 {
            ("µs", 1e3)
        } else {
            ("ns", 1.0)
        }
    }

    /// What a cell is, and the fastest and slowest pair, in `unit`.
    fn subtitle(&self, unit: &str, per: f64) -> String {
        let measured = self.cells.iter().filter(|c| c.2.is_finite() && c.2 > 0.0);
        let by = |a: &&(usize, usize, f64), b: &&(usize, usize, f64)| a.2.total_cmp(&b.2);
        let words = "each cell: the median one-way time from the row's CPU to the column's";
        match (measured.clone().min_by(by), measured.clone().max_by(by)) {
            (Some(f), Some(s)) if measured.count() > 1 => format!(
                "{words}; fastest {} {unit} ({} → {}), slowest {} {unit} ({} → {})",
                round_label(f.2 / per),
                f.0,
                f.1,
                round_label(s.2 / per),
                s.0,
                s.1
            ),
            _ => words.to_string(),
        }
    }

    /// The map as an SVG document; an error when no pair was measured.
    pub fn svg(&self) -> Result<String, PlotError> {
        if !self.has_cells() {
            return Err(PlotError("no pair of CPUs measured".into()));
        }
        let mut out = String::new();
        draw(&mut out, self)?;
        Ok(out)
    }
}

fn draw(out: &mut String, map: &HeatMap) -> Result<(), PlotError> {
    let k = map.cpus.len().max(1);
    // Cells no larger than a hand's width: a 2 × 2 need not fill the page.
    let cell = (GRID / k as i32).clamp(2, 100);
    let grid = cell * k as i32;
    let height = (TOP + grid + 60) as u32;
    let root = SVGBackend::with_string(out, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let ink = BLACK.to_rgba();
    let grey = BLACK.mix(0.65);
    let text = |s: &str, at: (i32, i32), size: u32, color: RGBAColor, pos: Pos| {
        Text::new(
            s.to_string(),
            at,
            (FONT, size).into_font().color(&color).pos(pos),
        )
    };
    let centre = Pos::new(HPos::Center, VPos::Center);
    let left = Pos::new(HPos::Left, VPos::Center);
    let right = Pos::new(HPos::Right, VPos::Center);
    root.draw(&text(&map.title, (12, 22), 21, ink, left))
        .map_err(err)?;
    let (unit, per) = map.unit();
    root.draw(&text(&map.subtitle(unit, per), (12, 50), 15, grey, left))
        .map_err(err)?;
    // The scale: from 0 to a round value at or above the slowest pair.
    let top = map.cells.iter().map(|c| c.2).fold(0.0, f64::max) / per;
    let step = nice_step(top / 4.0);
    let hi = (top / step).ceil().max(1.0) * step;
    // Label every CPU while they fit, else every m-th.
    let every = (14 / cell).max(1) as usize;
    let every = [1, 2, 4, 8, 16, 32, 64]
        .into_iter()
        .find(|&m| m >= every)
        .unwrap_or(128);
    root.draw(&text(
        "to CPU →",
        (LEFT + grid / 2, TOP - 36),
        15,
        grey,
        centre,
    ))
    .map_err(err)?;
    root.draw(&text("from CPU ↓", (LEFT - 12, TOP - 36), 15, grey, right))
        .map_err(err)?;
    let written = k <= WRITTEN_UP_TO;
    let size = (cell / 4).clamp(10, 16) as u32;
    for (r, &from) in map.cpus.iter().enumerate() {
        let y = TOP + r as i32 * cell;
        if r % every == 0 {
            let label = from.to_string();
            root.draw(&text(&label, (LEFT - 8, y + cell / 2), 13, ink, right))
                .map_err(err)?;
            let x = LEFT + r as i32 * cell + cell / 2;
            root.draw(&text(&label, (x, TOP - 12), 13, ink, centre))
                .map_err(err)?;
        }
        for (c, &to) in map.cpus.iter().enumerate() {
            let x = LEFT + c as i32 * cell;
            let corners = [(x, y), (x + cell, y + cell)];
            let found = map.cells.iter().find(|p| p.0 == from && p.1 == to);
            let value = found.map(|p| p.2 / per).filter(|v| v.is_finite());
            let fill = match value {
                _ if from == to => BLACK.mix(0.04),
                Some(v) => viridis(v / hi).to_rgba(),
                None => WHITE.to_rgba(),
            };
            root.draw(&Rectangle::new(corners, fill.filled()))
                .map_err(err)?;
            if !written || from == to {
                continue;
            }
            let (words, color) = match value {
                Some(v) => {
                    let c = viridis(v / hi);
                    let on = if dark(c) { WHITE } else { BLACK };
                    (round_label(v), on.to_rgba())
                }
                None => ("–".to_string(), grey),
            };
            let at = (x + cell / 2, y + cell / 2);
            root.draw(&text(&words, at, size, color, centre))
                .map_err(err)?;
        }
    }
    // A frame round the grid, so pale cells keep their edge.
    root.draw(&Rectangle::new(
        [(LEFT, TOP), (LEFT + grid, TOP + grid)],
        BLACK.mix(0.4).stroke_width(1),
    ))
    .map_err(err)?;
    bar(&root, (LEFT + grid + 70, TOP), grid, hi, unit)?;
    root.present().map_err(err)?;
    Ok(())
}

/// The colour bar at `(x, y)`, `h` tall: 0 at the bottom, `hi` at the top.
fn bar(
    root: &super::canvas::Area,
    (x, y): (i32, i32),
    h: i32,
    hi: f64,
    unit: &str,
) -> Result<(), PlotError> {
    let w = 22;
    let h = h.max(120);
    for i in 0..BAR_STEPS {
        let f0 = i as f64 / BAR_STEPS as f64;
        let f1 = (i + 1) as f64 / BAR_STEPS as f64;
        let y0 = y + h - (f64::from(h) * f1).round() as i32;
        let y1 = y + h - (f64::from(h) * f0).round() as i32;
        let c = viridis((f0 + f1) / 2.0);
        root.draw(&Rectangle::new([(x, y0), (x + w, y1)], c.filled()))
            .map_err(err)?;
    }
    let style = |size: u32| {
        (FONT, size)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center))
    };
    let step = nice_step(hi / 4.0);
    let mut v = 0.0;
    while v <= hi * (1.0 + 1e-9) {
        let ty = y + h - (f64::from(h) * v / hi).round() as i32;
        root.draw(&PathElement::new(
            vec![(x + w, ty), (x + w + 5, ty)],
            BLACK.stroke_width(1),
        ))
        .map_err(err)?;
        root.draw(&Text::new(round_label(v), (x + w + 9, ty), style(13)))
            .map_err(err)?;
        v += step;
    }
    root.draw(&Text::new(
        format!("one way, {unit}"),
        (x - 4, y - 20),
        style(14),
    ))
    .map_err(err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(k: usize, skip: Option<(usize, usize)>) -> HeatMap {
        let cpus: Vec<usize> = (0..k).collect();
        let mut cells = Vec::new();
        for &a in &cpus {
            for &b in &cpus {
                if a != b && Some((a, b)) != skip {
                    cells.push((a, b, 40.0 + (a + b) as f64 * 10.0));
                }
            }
        }
        HeatMap {
            title: "t".into(),
            cpus,
            cells,
        }
    }

    #[test]
    fn a_rect_per_cell_the_bar_and_the_background() {
        for k in [2, 4, 20] {
            let svg = map(k, None).svg().unwrap();
            // The frame is a rect too.
            let rects = svg.matches("<rect").count();
            assert_eq!(rects, 1 + k * k + 1 + BAR_STEPS, "{k} CPUs");
        }
    }

    #[test]
    fn small_matrices_write_their_figures_large_ones_do_not() {
        let svg = map(2, None).svg().unwrap();
        // 40 + 10 from 0 to 1 and from 1 to 0.
        assert_eq!(svg.matches(">\n50\n<").count(), 2, "{svg}");
        let big = map(20, None).svg().unwrap();
        assert!(!big.contains(">\n50\n<"));
        // A pair not measured says so.
        let gap = map(3, Some((0, 2))).svg().unwrap();
        assert!(gap.contains(">\n–\n<"));
    }

    #[test]
    fn the_scale_runs_dark_to_light() {
        let l = |c: RGBColor| u32::from(c.0) + u32::from(c.1) + u32::from(c.2);
        assert_eq!(viridis(0.0), RGBColor(0x44, 0x01, 0x54));
        assert_eq!(viridis(1.0), RGBColor(0xfd, 0xe7, 0x25));
        assert!(l(viridis(0.25)) < l(viridis(0.75)));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        assert!(dark(viridis(0.0)) && !dark(viridis(1.0)));
    }

    #[test]
    fn nothing_measured_is_an_error() {
        let m = HeatMap {
            title: "t".into(),
            cpus: vec![0],
            cells: vec![],
        };
        assert!(m.svg().is_err());
    }
}
