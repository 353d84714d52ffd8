//! Dot plots: one row per figure, its value on a log axis — this machine's
//! as a filled dot with its interval, the original's as a hollow diamond —
//! so a 2004 figure and one measured today sit on one axis and their
//! ratio reads as a distance. Rows are grouped by unit, each group with an
//! axis of its own: figures in µs and in req/s never share a scale.
//!
//! A log axis because the figures of one table span decades (a pipe's α
//! against a 1 MiB page) and a ratio is what a reader compares. A value
//! at or below 0 (a fitted α can be) has no place on it: the row keeps its
//! label and says so, and an interval reaching 0 runs to the axis' end.

use super::axis::Axis;
use super::canvas::{err, Area, PlotError, Ticked, FONT};
use super::style::PALETTE;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use toll_store::Run;

/// One row: a label and its figures, in its group's unit.
#[derive(Debug, Clone, PartialEq)]
pub struct DotRow {
    pub label: String,
    /// This machine's figure: (value, low, high).
    pub measured: Option<(f64, f64, f64)>,
    /// The original's figure.
    pub original: Option<f64>,
}

/// Rows that share a unit, and so an axis.
#[derive(Debug, Clone, PartialEq)]
pub struct DotGroup {
    /// The axis' words: the unit and what it counts.
    pub unit: String,
    pub rows: Vec<DotRow>,
}

/// A whole dot plot.
#[derive(Debug, Clone, PartialEq)]
pub struct DotChart {
    pub title: String,
    /// The legend's word for the hollow marks (`original (2007)`).
    pub original_label: String,
    pub groups: Vec<DotGroup>,
    /// One axis under every group, with these words, drawn below the last
    /// (`toll sys`: every crossing in ns, so a system call and a wake-up
    /// read as a distance); None gives each group an axis of its own.
    pub shared_axis: Option<String>,
    /// Tick labels as times from ns (`100 ns`, `1 µs`, `1 ms`) rather than
    /// bare numbers.
    pub ticks_ns: bool,
    /// The least the shared axis spans, whatever the figures (the atlas:
    /// 1 ns to 1 s, so two machines' pages read alike).
    pub span: Option<(f64, f64)>,
}

const WIDTH: u32 = 1000;
const LABEL_W: u32 = 400;
const ROW_H: u32 = 24;
const GROUP_HEAD: u32 = 30;
const AXIS_H: u32 = 46;
/// Below a group whose axis is the next one's: room for the ticks only.
const SHARED_GAP: u32 = 8;
const TOP: u32 = 70;
/// Characters of a row label that fit its column at the label font.
const LABEL_CHARS: usize = 54;

impl DotChart {
    /// Each group with its rows in order; a row enters its group, which is
    /// made where the unit is first met.
    pub fn grouped(
        title: impl Into<String>,
        original_label: impl Into<String>,
        rows: impl IntoIterator<Item = (String, DotRow)>,
    ) -> DotChart {
        let mut groups: Vec<DotGroup> = Vec::new();
        for (unit, row) in rows {
            match groups.iter_mut().find(|g| g.unit == unit) {
                Some(g) => g.rows.push(row),
                None => groups.push(DotGroup {
                    unit,
                    rows: vec![row],
                }),
            }
        }
        DotChart {
            title: title.into(),
            original_label: original_label.into(),
            groups,
            shared_axis: None,
            ticks_ns: false,
            span: None,
        }
    }

    /// The same chart with one axis of times in ns under every group,
    /// named `words`.
    pub fn on_one_ns_axis(mut self, words: impl Into<String>) -> DotChart {
        self.shared_axis = Some(words.into());
        self.ticks_ns = true;
        self
    }

    /// The same chart with its shared axis reaching at least `lo` and `hi`.
    pub fn spanning(mut self, lo: f64, hi: f64) -> DotChart {
        self.span = Some((lo, hi));
        self
    }

    /// Whether any row has a mark to draw (a figure above 0).
    pub fn has_marks(&self) -> bool {
        self.groups
            .iter()
            .flat_map(|g| &g.rows)
            .any(|r| r.measured.is_some_and(|m| m.0 > 0.0) || r.original.is_some_and(|o| o > 0.0))
    }

    /// Whether any row has an original.
    fn has_originals(&self) -> bool {
        self.groups
            .iter()
            .flat_map(|g| &g.rows)
            .any(|r| r.original.is_some())
    }

    /// The chart as an SVG document; an error when nothing has a mark.
    pub fn svg(&self) -> Result<String, PlotError> {
        if !self.has_marks() {
            return Err(PlotError("no figure above 0 to plot".into()));
        }
        let mut out = String::new();
        draw(&mut out, self)?;
        Ok(out)
    }
}

/// The dot plot of a run whose series have a point or a few each (E3's
/// calls, E4's reads): one row per point, its median with its CI, in the
/// unit `unit` (µs as [`super::plot_series_from_run`] gives it).
pub fn rows_of_run(run: &Run, unit: &str, suffix: &str) -> Vec<(String, DotRow)> {
    super::plot_series_from_run(run)
        .into_iter()
        .flat_map(|s| {
            let many = s.points.len() > 1;
            s.points
                .into_iter()
                .map(move |p| {
                    let mut label = s.label.clone();
                    if many {
                        label.push_str(&format!(" @ {}", super::axis::round_label(p.x)));
                    }
                    label.push_str(suffix);
                    (
                        unit.to_string(),
                        DotRow {
                            label,
                            measured: Some((p.y, p.y_low, p.y_high)),
                            original: None,
                        },
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A label cut to fit its column, in the middle: its start names the
/// subject, its end the figure (`… cold` against `… warm`).
fn short(label: &str) -> String {
    let n = label.chars().count();
    if n <= LABEL_CHARS {
        return label.to_string();
    }
    let head = (LABEL_CHARS - 1) / 2;
    let tail = LABEL_CHARS - 1 - head;
    let start: String = label.chars().take(head).collect();
    let end: String = label.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// The values a group's axis must hold: every mark, and each interval's
/// ends within a decade of its value (a wide interval runs off the end
/// rather than squashing every row).
fn axis_values(g: &DotGroup) -> Vec<f64> {
    let mut v = Vec::new();
    for r in &g.rows {
        if let Some((m, lo, hi)) = r.measured.filter(|m| m.0 > 0.0) {
            v.push(m);
            v.extend(
                [lo, hi]
                    .into_iter()
                    .filter(|e| *e > m / 10.0 && *e < m * 10.0),
            );
        }
        v.extend(r.original.filter(|o| *o > 0.0));
    }
    v
}

/// A time in ns as a tick reads: `500 ns`, `2 µs`, `1 ms`, `1 s`.
pub fn time_label(ns: f64) -> String {
    let (v, unit) = match ns.abs() {
        a if a >= 1e9 => (ns / 1e9, "s"),
        a if a >= 1e6 => (ns / 1e6, "ms"),
        a if a >= 1e3 => (ns / 1e3, "µs"),
        _ => (ns, "ns"),
    };
    format!("{} {unit}", super::axis::round_label(v))
}

fn draw(out: &mut String, chart: &DotChart) -> Result<(), PlotError> {
    let last = chart.groups.len().saturating_sub(1);
    // Each group's own axis area: under the last alone when they share one.
    let axis_h = |i: usize| match chart.shared_axis {
        Some(_) if i < last => SHARED_GAP,
        _ => AXIS_H,
    };
    let heights: Vec<u32> = chart
        .groups
        .iter()
        .enumerate()
        .map(|(i, g)| GROUP_HEAD + ROW_H * g.rows.len() as u32 + axis_h(i))
        .collect();
    let shared = chart.shared_axis.as_ref().map(|_| {
        let mut all: Vec<f64> = chart.groups.iter().flat_map(axis_values).collect();
        all.extend(chart.span.iter().flat_map(|&(lo, hi)| [lo, hi]));
        Axis::new(&all, true)
    });
    let height = TOP + heights.iter().sum::<u32>() + 10;
    let root = SVGBackend::with_string(out, (WIDTH, height)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let text = |s: &str, size: u32, color: RGBAColor, pos: Pos| {
        Text::new(
            s.to_string(),
            (0, 0),
            (FONT, size).into_font().color(&color).pos(pos),
        )
    };
    let left = Pos::new(HPos::Left, VPos::Center);
    let ink = BLACK.to_rgba();
    let grey = BLACK.mix(0.65);
    let (mine, theirs) = (PALETTE[0], PALETTE[1]);
    root.draw(&(EmptyElement::at((12, 22)) + text(&chart.title, 21, ink, left)))
        .map_err(err)?;
    // The legend, on one line under the title.
    let y = 50;
    root.draw(&PathElement::new(
        vec![(14, y), (40, y)],
        mine.stroke_width(2),
    ))
    .map_err(err)?;
    root.draw(&Circle::new((27, y), 5, mine.filled()))
        .map_err(err)?;
    root.draw(
        &(EmptyElement::at((48, y)) + text("this machine, with its interval", 15, ink, left)),
    )
    .map_err(err)?;
    if chart.has_originals() {
        diamond(&root, (310, y), theirs)?;
        root.draw(&(EmptyElement::at((324, y)) + text(&chart.original_label, 15, ink, left)))
            .map_err(err)?;
    }
    let axes = match chart.shared_axis {
        Some(_) => "one log axis for every row",
        None => "log axes, one per unit",
    };
    root.draw(&(EmptyElement::at((620, y)) + text(axes, 15, grey, left)))
        .map_err(err)?;

    let mut top = TOP;
    for (i, (g, h)) in chart.groups.iter().zip(&heights).enumerate() {
        let area = root.clone().shrink((0, top), (WIDTH, *h));
        top += h;
        let xa = match &shared {
            Some(a) => a.clone(),
            None => Axis::new(&axis_values(g), true),
        };
        let desc = match &chart.shared_axis {
            Some(words) if i == last => format!("{words}, log scale"),
            Some(_) => String::new(),
            None => format!("{}, log scale", g.unit),
        };
        let labelled = chart.shared_axis.is_none() || i == last;
        area.draw(
            &(EmptyElement::at((12, (GROUP_HEAD / 2) as i32 + 2)) + text(&g.unit, 16, grey, left)),
        )
        .map_err(err)?;
        let body = area
            .clone()
            .shrink((0, GROUP_HEAD), (WIDTH, *h - GROUP_HEAD));
        let n = g.rows.len() as f64;
        let mut cc = ChartBuilder::on(&body)
            .margin_right(24)
            .x_label_area_size(axis_h(i))
            .y_label_area_size(LABEL_W)
            .build_cartesian_2d(Ticked(&xa), 0.0..n)
            .map_err(err)?;
        let x_fmt = |t: &f64| match (labelled, chart.ticks_ns) {
            (false, _) => String::new(),
            (true, true) => time_label(10f64.powf(*t)),
            (true, false) => xa.label(*t),
        };
        cc.configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_label_formatter(&x_fmt)
            .x_desc(desc)
            .axis_desc_style((FONT, 14))
            .label_style((FONT, 14))
            .bold_line_style(BLACK.mix(0.14))
            .light_line_style(BLACK.mix(0.05))
            .axis_style(BLACK.mix(0.6))
            .draw()
            .map_err(err)?;
        let (x_lo, x_hi) = (xa.lo, xa.hi);
        for (i, r) in g.rows.iter().enumerate() {
            let y = n - i as f64 - 0.5;
            // Every other row banded, so a label finds its marks.
            if i % 2 == 1 {
                cc.draw_series(std::iter::once(Rectangle::new(
                    [(x_lo, y - 0.5), (x_hi, y + 0.5)],
                    BLACK.mix(0.03).filled(),
                )))
                .map_err(err)?;
            }
            let shown_m = r
                .measured
                .filter(|m| m.0 > 0.0)
                .and_then(|m| Some((xa.map(m.0)?, m)));
            let shown_o = r.original.and_then(|o| xa.map(o));
            let mut label = short(&r.label);
            if r.measured.is_some_and(|m| m.0 <= 0.0) {
                label = short(&format!("{} (≤ 0: off the log axis)", r.label));
            }
            let (_, ly) = cc.backend_coord(&(x_lo, y));
            root.draw(&(EmptyElement::at((12, ly)) + text(&label, 14, ink, left)))
                .map_err(err)?;
            // A faint line from the original to this machine: the ratio.
            if let (Some((mx, _)), Some(ox)) = (shown_m, shown_o) {
                cc.draw_series(std::iter::once(PathElement::new(
                    vec![(ox, y), (mx, y)],
                    BLACK.mix(0.25).stroke_width(1),
                )))
                .map_err(err)?;
            }
            if let Some((mx, (_, lo, hi))) = shown_m {
                // An end past the axis runs to its edge, without a cap.
                let end = |v: f64| {
                    let at = xa.map(v).filter(|x| (x_lo..=x_hi).contains(x));
                    (
                        at.unwrap_or_else(|| xa.map_clamped(v).clamp(x_lo, x_hi)),
                        at.is_some(),
                    )
                };
                let ((a, cap_a), (b, cap_b)) = (end(lo.min(hi)), end(hi.max(lo)));
                let bar = mine.mix(0.8).stroke_width(2);
                let mut marks = vec![PathElement::new(vec![(a, y), (b, y)], bar)];
                for (x, cap) in [(a, cap_a), (b, cap_b)] {
                    if cap {
                        marks.push(PathElement::new(vec![(x, y - 0.22), (x, y + 0.22)], bar));
                    }
                }
                cc.draw_series(marks).map_err(err)?;
                let p = cc.backend_coord(&(mx, y));
                root.draw(&Circle::new(p, 5, mine.filled())).map_err(err)?;
                root.draw(&Circle::new(p, 5, WHITE.stroke_width(1)))
                    .map_err(err)?;
            }
            if let Some(ox) = shown_o {
                let p = cc.backend_coord(&(ox, y));
                diamond(&root, p, theirs)?;
            }
        }
    }
    root.present().map_err(err)?;
    Ok(())
}

/// A hollow diamond: the original's mark.
fn diamond(area: &Area, (x, y): (i32, i32), color: RGBColor) -> Result<(), PlotError> {
    let r = 7;
    let p = vec![(x, y - r), (x + r, y), (x, y + r), (x - r, y), (x, y - r)];
    area.draw(&Polygon::new(p.clone(), WHITE.filled()))
        .map_err(err)?;
    area.draw(&PathElement::new(p, color.stroke_width(2)))
        .map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(label: &str, m: Option<(f64, f64, f64)>, o: Option<f64>) -> (String, DotRow) {
        let unit = if label.starts_with('r') {
            "req/s"
        } else {
            "µs"
        };
        (
            unit.to_string(),
            DotRow {
                label: label.into(),
                measured: m,
                original: o,
            },
        )
    }

    #[test]
    fn rows_group_by_unit_and_draw_both_marks() {
        let c = DotChart::grouped(
            "E9 against the original",
            "original (2004)",
            [
                row("pipe α", Some((12.0, 10.0, 15.0)), Some(450.0)),
                row("rate", Some((5200.0, 5000.0, 5400.0)), Some(525.0)),
                row("tcp α", Some((-3.0, -20.0, 14.0)), Some(450.0)),
            ],
        );
        assert_eq!(c.groups.len(), 2);
        assert_eq!(c.groups[0].rows.len(), 2);
        let svg = c.svg().unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("viewBox"));
        assert!(svg.contains("µs, log scale") && svg.contains("req/s, log scale"));
        assert!(svg.contains("off the log axis"), "a value ≤ 0 says so");
        assert!(svg.contains("original (2004)"));
    }

    #[test]
    fn nothing_above_zero_is_an_error_not_an_empty_picture() {
        let c = DotChart::grouped("x", "o", [row("a", Some((-1.0, -2.0, 0.0)), None)]);
        assert!(!c.has_marks());
        assert!(c.svg().is_err());
    }

    #[test]
    fn long_labels_are_cut_to_their_column() {
        let l = "apache prefork, recycled every 100 (E5's trap) · 92 B p99 ÷ p50";
        let l = format!("{l}{l}");
        let s = short(&l);
        assert_eq!(s.chars().count(), LABEL_CHARS);
        assert!(
            s.starts_with("apache prefork") && s.ends_with("p99 ÷ p50"),
            "{s}"
        );
    }
}
