//! A series' trend across runs: one figure per run (α and β of its stored
//! model, or the median at one size) with its interval, one line per
//! machine, oldest run left and newest right — what a team looks at to see
//! whether a change of toll, a toolchain or a kernel moved a cost.
//!
//! The x axis is the runs in the order they were made, evenly spaced and
//! labelled by run number: runs come in bursts and pauses, and a time axis
//! would crowd a burst into one blur. Each panel's y axis starts at 0 (a
//! cost is read against nothing, so a 2% drift does not look like a cliff)
//! unless its figures span decades, when it turns logarithmic. A machine
//! has its colour and its marker shape, so two machines never differ by
//! colour alone; a hollow mark is a figure whose interval reaches 0.
//!
//! Each mark is one SVG element (a `circle`, `rect` or `polygon`) and each
//! interval one `polyline`, so a page's test can count them.

use super::axis::{self, Axis, Scale};
use super::canvas::{err, Area, PlotError, Ticked, FONT, WIDTH};
use super::style::{Marker, MARKERS, PALETTE};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One run's figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    /// The run's number (which of [`Trend::runs`] it sits over).
    pub run: i64,
    /// The figure, ns (or ns per unit).
    pub value: f64,
    /// Its interval, ns.
    pub ci: (f64, f64),
    /// The interval reaches 0: drawn hollow.
    pub near_zero: bool,
}

/// One machine's marks in one panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The machine's name, as the legend shows it.
    pub machine: String,
    pub marks: Vec<Mark>,
}

/// One figure's chart: α, β or a median.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// What the figure is: `α, fixed cost`.
    pub name: String,
    /// The figure is per unit of n (β): its unit reads `ns per unit`.
    pub per_unit: bool,
    /// One line per machine; a machine keeps its index (colour, marker)
    /// across panels when every panel lists the same machines in order.
    pub lines: Vec<Line>,
}

/// The whole trend: its title, the runs along x and a panel per figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Trend {
    pub title: String,
    /// Run numbers, oldest first: the x positions.
    pub runs: Vec<i64>,
    pub panels: Vec<Panel>,
}

/// Height of one panel, pixels.
const PANEL_H: u32 = 300;
/// Height of the title and of the legend's row.
const TITLE_H: u32 = 44;
const LEGEND_H: u32 = 34;
/// Most run numbers labelled along x; the rest are ticks only.
const MAX_LABELS: usize = 16;

impl Trend {
    /// How many marks the panels hold.
    pub fn marks(&self) -> usize {
        self.panels
            .iter()
            .flat_map(|p| &p.lines)
            .map(|l| l.marks.len())
            .sum()
    }

    /// The machines, in the order of the first panel that lists them all.
    fn machines(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for l in self.panels.iter().flat_map(|p| &p.lines) {
            if !out.contains(&l.machine.as_str()) {
                out.push(&l.machine);
            }
        }
        out
    }

    /// The trend as an SVG document.
    pub fn svg(&self) -> Result<String, PlotError> {
        if self.marks() == 0 {
            return Err(PlotError("no run has this figure: nothing to plot".into()));
        }
        let mut out = String::new();
        self.draw(&mut out)?;
        Ok(out)
    }

    fn draw(&self, out: &mut String) -> Result<(), PlotError> {
        let height = TITLE_H + LEGEND_H + PANEL_H * self.panels.len() as u32;
        let root = SVGBackend::with_string(out, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (top, rest) = root.split_vertically(TITLE_H);
        top.draw(&Text::new(
            self.title.clone(),
            (WIDTH as i32 / 2, TITLE_H as i32 / 2),
            (FONT, 21)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))
        .map_err(err)?;
        let (legend, rest) = rest.split_vertically(LEGEND_H);
        let machines = self.machines();
        self.draw_legend(&legend, &machines)?;
        let xa = self.x_axis();
        let panels = rest.split_evenly((self.panels.len(), 1));
        for (panel, area) in self.panels.iter().zip(&panels) {
            draw_panel(&root, area, panel, &xa, &machines, &self.runs)?;
        }
        root.present().map_err(err)?;
        Ok(())
    }

    /// Runs at 0, 1, 2…; labelled at most [`MAX_LABELS`] of them, the newest
    /// always.
    fn x_axis(&self) -> Axis {
        let k = self.runs.len().max(1);
        let every = k.div_ceil(MAX_LABELS).max(1);
        let major = (0..k)
            .filter(|i| (k - 1 - i).is_multiple_of(every))
            .map(|i| i as f64)
            .collect();
        Axis {
            log: false,
            lo: -0.6,
            hi: k as f64 - 0.4,
            zero_at: None,
            break_at: None,
            major,
            minor: (0..k).map(|i| i as f64).collect(),
        }
    }

    fn draw_legend(&self, area: &Area, machines: &[&str]) -> Result<(), PlotError> {
        let y = LEGEND_H as i32 / 2;
        let style = |c: RGBAColor| {
            (FONT, 15)
                .into_font()
                .color(&c)
                .pos(Pos::new(HPos::Left, VPos::Center))
        };
        let mut x = 84;
        for (i, m) in machines.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            area.draw(&PathElement::new(
                vec![(x - 12, y), (x + 12, y)],
                color.mix(0.5).stroke_width(1),
            ))
            .map_err(err)?;
            mark(area, MARKERS[i % MARKERS.len()], (x, y), color, true)?;
            let label = super::style::legend_label(m);
            area.draw(&Text::new(
                label.clone(),
                (x + 18, y),
                style(BLACK.to_rgba()),
            ))
            .map_err(err)?;
            x += 46 + 8 * label.chars().count() as i32;
        }
        let grey = BLACK.mix(0.65);
        area.draw(&Text::new(
            "bars: 95% CI · hollow: cannot be told from 0",
            (x + 6, y),
            style(grey),
        ))
        .map_err(err)?;
        Ok(())
    }
}

/// The unit a panel's figures read best in: (ns per unit, name).
fn unit(max_ns: f64) -> (f64, &'static str) {
    match max_ns {
        m if m >= 1e9 => (1e9, "s"),
        m if m >= 1e6 => (1e6, "ms"),
        m if m >= 1e3 => (1e3, "µs"),
        _ => (1.0, "ns"),
    }
}

fn draw_panel(
    root: &Area,
    area: &Area,
    panel: &Panel,
    xa: &Axis,
    machines: &[&str],
    runs: &[i64],
) -> Result<(), PlotError> {
    let marks = || panel.lines.iter().flat_map(|l| &l.marks);
    let top = marks().map(|m| m.value.max(m.ci.1)).fold(0.0f64, f64::max);
    let (scale, name) = unit(top);
    let log_y = axis::log_axes(
        Scale::Auto,
        0.0,
        axis::decades(marks().filter(|m| !m.near_zero).map(|m| m.value)),
    )
    .1;
    // The axis holds the figures and their intervals (on a log axis only
    // the part within a decade of the figure, as the run plots do).
    let mut ys = Vec::new();
    for m in marks() {
        let v = m.value / scale;
        ys.push(v.max(0.0));
        for end in [m.ci.0 / scale, m.ci.1 / scale] {
            if !log_y || (end > v / 10.0 && end < v * 10.0) {
                ys.push(end);
            }
        }
    }
    let ya = Axis::new(&ys, log_y);
    let x_label = |t: &f64| {
        runs.get(t.round() as usize)
            .map(|r| r.to_string())
            .unwrap_or_default()
    };
    let y_fmt = |t: &f64| ya.label(*t);
    let mut cc = ChartBuilder::on(area)
        .margin_top(10)
        .margin_left(12)
        .margin_right(24)
        .margin_bottom(6)
        .x_label_area_size(46)
        .y_label_area_size(72)
        .build_cartesian_2d(Ticked(xa), Ticked(&ya))
        .map_err(err)?;
    cc.configure_mesh()
        .x_desc("run, oldest → newest")
        .y_desc(format!(
            "{} ({name}{}{})",
            panel.name,
            if panel.per_unit { " per unit" } else { "" },
            if log_y { ", log scale" } else { "" }
        ))
        .x_label_formatter(&x_label)
        .y_label_formatter(&y_fmt)
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 14))
        .bold_line_style(BLACK.mix(0.14))
        .light_line_style(BLACK.mix(0.04))
        .axis_style(BLACK.mix(0.6))
        .draw()
        .map_err(err)?;
    let at = |run: i64| runs.iter().position(|&r| r == run).map(|i| i as f64);
    for line in &panel.lines {
        let i = machines
            .iter()
            .position(|m| *m == line.machine)
            .unwrap_or(0);
        let color = PALETTE[i % PALETTE.len()];
        let mut pts: Vec<(f64, f64, f64, f64, bool)> = line
            .marks
            .iter()
            .filter_map(|m| {
                let v = (m.value / scale).max(0.0);
                Some((
                    at(m.run)?,
                    ya.map_clamped(v),
                    ya.map_clamped(m.ci.0 / scale),
                    ya.map_clamped((m.ci.1 / scale).max(v)),
                    m.near_zero,
                ))
            })
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        if pts.len() >= 2 {
            cc.draw_series(LineSeries::new(
                pts.iter().map(|p| (p.0, p.1)),
                color.mix(0.45).stroke_width(1),
            ))
            .map_err(err)?;
        }
        let cap = 0.12f64.min(0.3 * (xa.hi - xa.lo) / 20.0).max(0.02);
        let bar = color.mix(0.8).stroke_width(1);
        cc.draw_series(pts.iter().map(|&(x, _, lo, hi, _)| {
            PathElement::new(
                vec![
                    (x - cap, lo),
                    (x + cap, lo),
                    (x, lo),
                    (x, hi),
                    (x - cap, hi),
                    (x + cap, hi),
                ],
                bar,
            )
        }))
        .map_err(err)?;
        for &(x, y, _, _, hollow) in &pts {
            let p = cc.backend_coord(&(x, y));
            mark(root, MARKERS[i % MARKERS.len()], p, color, !hollow)?;
        }
    }
    Ok(())
}

/// A marker as one SVG element: filled, or its outline only.
fn mark(
    area: &Area,
    m: Marker,
    (x, y): (i32, i32),
    color: RGBColor,
    filled: bool,
) -> Result<(), PlotError> {
    let style = if filled {
        color.filled()
    } else {
        color.stroke_width(2)
    };
    let r = 5;
    let outline = |p: Vec<(i32, i32)>| -> Result<(), PlotError> {
        if filled {
            area.draw(&Polygon::new(p, style)).map_err(err)
        } else {
            let closed = [p.clone(), vec![p[0]]].concat();
            area.draw(&PathElement::new(closed, style)).map_err(err)
        }
    };
    match m {
        Marker::Circle => area.draw(&Circle::new((x, y), r, style)).map_err(err),
        Marker::Square => area
            .draw(&Rectangle::new(
                [(x - r + 1, y - r + 1), (x + r - 1, y + r - 1)],
                style,
            ))
            .map_err(err),
        Marker::Triangle => outline(vec![
            (x, y - r - 1),
            (x + r + 1, y + r - 1),
            (x - r - 1, y + r - 1),
        ]),
        Marker::Diamond => outline(vec![
            (x, y - r - 1),
            (x + r + 1, y),
            (x, y + r + 1),
            (x - r - 1, y),
        ]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(machine: &str, runs: &[i64], base: f64) -> Line {
        Line {
            machine: machine.into(),
            marks: runs
                .iter()
                .enumerate()
                .map(|(k, &run)| {
                    let v = base * (1.0 + 0.1 * k as f64);
                    Mark {
                        run,
                        value: v,
                        ci: (v * 0.9, v * 1.1),
                        near_zero: false,
                    }
                })
                .collect(),
        }
    }

    fn trend(panels: Vec<Panel>, runs: Vec<i64>) -> Trend {
        Trend {
            title: "toll transfer rust/pipe".into(),
            runs,
            panels,
        }
    }

    #[test]
    fn one_mark_and_one_interval_per_run_and_panel() {
        let runs = vec![3, 5, 9, 12];
        let t = trend(
            vec![
                Panel {
                    name: "α, fixed cost".into(),
                    per_unit: false,
                    lines: vec![line("a", &runs, 4_000.0)],
                },
                Panel {
                    name: "β, cost per unit".into(),
                    per_unit: true,
                    lines: vec![line("a", &runs, 2.5)],
                },
            ],
            runs,
        );
        let svg = t.svg().unwrap();
        // One circle per mark, and the legend's.
        assert_eq!(svg.matches("<circle").count(), t.marks() + 1);
        assert!(svg.matches("<polyline").count() >= t.marks());
        assert!(svg.contains("α, fixed cost (µs)"), "α in µs");
        assert!(svg.contains("β, cost per unit (ns per unit)"));
        // Run numbers label the x axis, the newest among them.
        let texts: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim()))
            .collect();
        assert!(texts.contains(&"12") && texts.contains(&"3"), "{texts:?}");
    }

    #[test]
    fn machines_keep_their_marker_and_a_near_zero_figure_is_hollow() {
        let mut b = line("b", &[2, 4], 10.0);
        b.marks[0].near_zero = true;
        b.marks[0].ci = (0.0, 12.0);
        let t = trend(
            vec![Panel {
                name: "median at n = 1000".into(),
                per_unit: false,
                lines: vec![line("a", &[1, 3], 10.0), b],
            }],
            vec![1, 2, 3, 4],
        );
        let svg = t.svg().unwrap();
        // a: circles (2 and its legend's); b: squares (2 and the legend's).
        assert_eq!(svg.matches("<circle").count(), 3);
        assert_eq!(svg.matches("<rect").count() - 1, 3, "one is the background");
        let hollow = svg
            .split("<rect")
            .skip(1)
            .filter(|r| r.split('>').next().unwrap_or("").contains("fill=\"none\""))
            .count();
        assert_eq!(hollow, 1, "the near-zero mark is hollow");
    }

    #[test]
    fn nothing_to_draw_is_an_error_not_an_empty_picture() {
        let t = trend(
            vec![Panel {
                name: "α".into(),
                per_unit: false,
                lines: vec![],
            }],
            vec![],
        );
        assert!(t.svg().is_err());
    }

    #[test]
    fn decades_apart_turn_the_axis_logarithmic() {
        let mut l = line("a", &[1, 2], 1_000.0);
        l.marks[1].value = 1e7;
        l.marks[1].ci = (0.9e7, 1.1e7);
        let t = trend(
            vec![Panel {
                name: "α".into(),
                per_unit: false,
                lines: vec![l],
            }],
            vec![1, 2],
        );
        assert!(t.svg().unwrap().contains("log scale"));
    }
}
