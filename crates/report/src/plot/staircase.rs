//! The memory staircase (`toll sys`'s pointer chase): the time per
//! dependent load against the working set, both axes logarithmic, each
//! size's median with its interval; the steps toll found drawn as flat
//! segments, and a dashed line at each cache size the kernel reports, so
//! whether each step ends where a cache does reads at a glance.
//!
//! The x axis counts bytes in powers of two (4 KiB, 16 KiB … 64 MiB),
//! the sizes the chase doubles through, rather than powers of ten. The
//! caches' names sit above the plot and the legend under the title, so no
//! word covers a point; a cache past the sizes measured is a note below.

use super::axis::{round_label, Axis};
use super::canvas::{err, on, PlotError, Ticked, FONT, WIDTH};
use super::dots::time_label;
use super::style::PALETTE;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One working set's time per load.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Load {
    pub bytes: f64,
    /// Median ns per load, and its interval.
    pub ns: f64,
    pub low: f64,
    pub high: f64,
}

/// A step toll found: working sets from `first` to `last` bytes load in
/// about `ns` each.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    pub first: f64,
    pub last: f64,
    pub ns: f64,
}

/// The staircase of one chase.
#[derive(Debug, Clone, PartialEq)]
pub struct Staircase {
    pub title: String,
    pub loads: Vec<Load>,
    /// (name, bytes) per cache the kernel reports, smallest first.
    pub caches: Vec<(String, f64)>,
    pub steps: Vec<Step>,
}

/// Bytes as a tick or a cache reads: 4 KiB, 2 MiB, 260 MiB.
pub fn size_label(bytes: f64) -> String {
    let units = [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in units {
        if bytes >= size as f64 {
            return format!("{} {unit}", round_label(bytes / size as f64));
        }
    }
    format!("{} B", round_label(bytes))
}

const HEIGHT: u32 = 600;
/// Where the plot starts: below the title, the legend and two rows of
/// cache names.
const PLOT_TOP: u32 = 112;

impl Staircase {
    /// Whether any size was measured above 0.
    pub fn has_loads(&self) -> bool {
        self.loads.iter().any(|l| l.ns > 0.0 && l.bytes > 0.0)
    }

    /// The caches inside the sizes measured, and the words for those not.
    fn shown_caches(&self, xa: &Axis) -> (Vec<(String, f64)>, Vec<String>) {
        let (mut shown, mut notes) = (Vec::new(), Vec::new());
        let (lo, hi) = sizes(self);
        for (name, bytes) in &self.caches {
            let at = bytes.log2();
            if at >= xa.lo && at <= xa.hi {
                shown.push((name.clone(), *bytes));
            } else {
                let side = if *bytes > hi {
                    "above the largest"
                } else {
                    "below the smallest"
                };
                let end = if *bytes > hi { hi } else { lo };
                notes.push(format!(
                    "{name} ({}) lies {side} working set measured ({}): not marked",
                    size_label(*bytes),
                    size_label(end)
                ));
            }
        }
        (shown, notes)
    }

    /// The staircase as an SVG document; an error when nothing was measured.
    pub fn svg(&self) -> Result<String, PlotError> {
        if !self.has_loads() {
            return Err(PlotError("no working set measured".into()));
        }
        let mut out = String::new();
        draw(&mut out, self)?;
        Ok(out)
    }
}

/// The smallest and largest working set measured.
fn sizes(s: &Staircase) -> (f64, f64) {
    s.loads
        .iter()
        .filter(|l| l.bytes > 0.0)
        .fold((f64::MAX, 0.0f64), |(lo, hi), l| {
            (lo.min(l.bytes), hi.max(l.bytes))
        })
}

/// The x axis in log2 of bytes: a labelled tick at every power of two
/// while at most ten fit, else at every second or fourth.
fn bytes_axis(lo: f64, hi: f64) -> Axis {
    let (a, b) = (lo.log2() - 0.4, hi.log2() + 0.4);
    let first = a.ceil() as i32;
    let last = b.floor() as i32;
    let span = (last - first + 1).max(1);
    let stride = [1, 2, 4, 8]
        .into_iter()
        .find(|s| span / s <= 10)
        .unwrap_or(16);
    let (mut major, mut minor) = (Vec::new(), Vec::new());
    for k in first..=last {
        // Every tick on a multiple of the stride: 4 KiB, 16 KiB, 64 KiB.
        if k.rem_euclid(stride) == 0 {
            major.push(f64::from(k));
        } else {
            minor.push(f64::from(k));
        }
    }
    Axis {
        log: false,
        lo: a,
        hi: b,
        zero_at: None,
        break_at: None,
        major,
        minor,
    }
}

fn draw(out: &mut String, s: &Staircase) -> Result<(), PlotError> {
    let (lo, hi) = sizes(s);
    let xa = bytes_axis(lo, hi);
    let mut ys: Vec<f64> = Vec::new();
    for l in s.loads.iter().filter(|l| l.ns > 0.0) {
        ys.push(l.ns);
        ys.extend(
            [l.low, l.high]
                .into_iter()
                .filter(|e| *e > l.ns / 10.0 && *e < l.ns * 10.0),
        );
    }
    ys.extend(s.steps.iter().map(|st| st.ns).filter(|v| *v > 0.0));
    let ya = Axis::new(&ys, true);
    let (caches, notes) = s.shown_caches(&xa);
    let notes_h = 20 * notes.len() as u32;
    let root = SVGBackend::with_string(out, (WIDTH, HEIGHT + notes_h)).into_drawing_area();
    root.fill(&WHITE).map_err(err)?;
    let ink = BLACK.to_rgba();
    let grey = BLACK.mix(0.65);
    let text = |w: &str, at: (i32, i32), size: u32, color: RGBAColor, pos: Pos| {
        Text::new(
            w.to_string(),
            at,
            (FONT, size).into_font().color(&color).pos(pos),
        )
    };
    let left = Pos::new(HPos::Left, VPos::Center);
    root.draw(&text(&s.title, (12, 22), 21, ink, left))
        .map_err(err)?;
    let (point, stair) = (PALETTE[0], PALETTE[1]);
    let cache_line = BLACK.mix(0.45);
    // The legend, on one line under the title.
    let y = 50;
    root.draw(&PathElement::new(
        vec![(20, y - 8), (20, y + 8)],
        point.stroke_width(2),
    ))
    .map_err(err)?;
    root.draw(&Circle::new((20, y), 5, point.filled()))
        .map_err(err)?;
    let words = "ns per load: the median, its 95% CI";
    root.draw(&text(words, (34, y), 15, ink, left))
        .map_err(err)?;
    root.draw(&PathElement::new(
        vec![(330, y), (362, y)],
        stair.stroke_width(4),
    ))
    .map_err(err)?;
    root.draw(&text("a step toll found", (372, y), 15, ink, left))
        .map_err(err)?;
    root.draw(&DashedPathElement::new(
        vec![(540, y - 9), (540, y + 9)],
        4,
        3,
        cache_line.stroke_width(1),
    ))
    .map_err(err)?;
    root.draw(&text(
        "a cache size the kernel reports",
        (552, y),
        15,
        ink,
        left,
    ))
    .map_err(err)?;

    let plot = root
        .clone()
        .shrink((0, PLOT_TOP), (WIDTH, HEIGHT - PLOT_TOP));
    let mut cc = ChartBuilder::on(&plot)
        .margin_left(12)
        .margin_right(28)
        .margin_bottom(8)
        .x_label_area_size(52)
        .y_label_area_size(72)
        .build_cartesian_2d(Ticked(&xa), Ticked(&ya))
        .map_err(err)?;
    let x_fmt = |t: &f64| size_label(2f64.powf(*t));
    let y_fmt = |t: &f64| time_label(10f64.powf(*t));
    cc.configure_mesh()
        .x_desc("working set (bytes chased), log scale")
        .y_desc("time per dependent load, log scale")
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .axis_desc_style((FONT, 17))
        .label_style((FONT, 15))
        .bold_line_style(BLACK.mix(0.14))
        .light_line_style(BLACK.mix(0.05))
        .axis_style(BLACK.mix(0.6))
        .draw()
        .map_err(err)?;
    // The caches: a dashed line through the plot, the name above it, on
    // the first of two rows where it does not run into the one before.
    let mut row_end = [i32::MIN; 2];
    for (name, bytes) in &caches {
        let x = bytes.log2();
        cc.draw_series(std::iter::once(DashedPathElement::new(
            vec![(x, ya.lo), (x, ya.hi)],
            6,
            4,
            cache_line.stroke_width(1),
        )))
        .map_err(err)?;
        let (px, _) = cc.backend_coord(&(x, ya.hi));
        let words = format!("{name} {}", size_label(*bytes));
        let w = 8 * words.chars().count() as i32;
        let row = if row_end[0] < px - w / 2 - 6 { 0 } else { 1 };
        row_end[row] = px + w / 2;
        let at = (px, PLOT_TOP as i32 - 10 - 18 * (1 - row as i32));
        let centre = Pos::new(HPos::Center, VPos::Center);
        root.draw(&text(&words, at, 14, ink, centre)).map_err(err)?;
    }
    // The steps, under the points: a segment across each step's sizes.
    let mut step_words = Vec::new();
    for st in s.steps.iter().filter(|st| st.ns > 0.0 && st.first > 0.0) {
        let Some(y) = ya.map(st.ns) else { continue };
        let (f, l) = (st.first.log2(), st.last.log2());
        cc.draw_series(std::iter::once(PathElement::new(
            vec![(f - 0.2, y), (l + 0.2, y)],
            stair.mix(0.75).stroke_width(4),
        )))
        .map_err(err)?;
        // Its time goes under it between two of its points, where no
        // marker is; under its one point when it has one.
        let mid = (f + l) / 2.0;
        let x = match l - f >= 1.0 {
            true => ((mid - 0.5).round() + 0.5).clamp(f + 0.5, l - 0.5),
            false => mid,
        };
        step_words.push((on(&plot, cc.backend_coord(&(x, y))), time_label(st.ns)));
    }
    // The points, joined faintly in order of size, each with its interval.
    let mut shown: Vec<(f64, Load)> = s
        .loads
        .iter()
        .filter(|l| l.bytes > 0.0)
        .filter_map(|l| Some((ya.map(l.ns)?, *l)))
        .collect();
    shown.sort_by(|a, b| a.1.bytes.total_cmp(&b.1.bytes));
    let path: Vec<(f64, f64)> = shown.iter().map(|(y, l)| (l.bytes.log2(), *y)).collect();
    cc.draw_series(std::iter::once(PathElement::new(
        path,
        point.mix(0.5).stroke_width(1),
    )))
    .map_err(err)?;
    for (y, l) in &shown {
        let x = l.bytes.log2();
        let (a, b) = (ya.map_clamped(l.low), ya.map_clamped(l.high));
        let bar = point.mix(0.8).stroke_width(2);
        cc.draw_series([
            PathElement::new(vec![(x, a), (x, b)], bar),
            PathElement::new(vec![(x - 0.08, a), (x + 0.08, a)], bar),
            PathElement::new(vec![(x - 0.08, b), (x + 0.08, b)], bar),
        ])
        .map_err(err)?;
        let p = cc.backend_coord(&(x, *y));
        root.draw(&Circle::new(p, 5, point.filled())).map_err(err)?;
        root.draw(&Circle::new(p, 5, WHITE.stroke_width(1)))
            .map_err(err)?;
    }
    // The steps' times last, on a pale ground, so no line hides a digit.
    for ((px, py), words) in &step_words {
        let half = 4 * words.chars().count() as i32;
        let ground = [(px - half - 3, py + 7), (px + half + 3, py + 23)];
        plot.draw(&Rectangle::new(ground, WHITE.mix(0.85).filled()))
            .map_err(err)?;
        let top = Pos::new(HPos::Center, VPos::Top);
        plot.draw(&text(words, (*px, py + 9), 13, stair.to_rgba(), top))
            .map_err(err)?;
    }
    for (k, note) in notes.iter().enumerate() {
        let at = (84, (HEIGHT + 20 * k as u32 + 4) as i32);
        root.draw(&text(note, at, 15, grey, left)).map_err(err)?;
    }
    root.present().map_err(err)?;
    drop(cc);
    Ok(())
}

/// How many dashed vertical lines `svg` has (the cache markers and the
/// legend's): the columns of its dashes, which plotters draws one by one.
#[cfg(test)]
pub(super) fn dashed_columns(svg: &str) -> usize {
    let mut xs: Vec<&str> = svg
        .lines()
        .filter(|l| l.contains("opacity=\"0.45\""))
        .filter_map(|l| {
            let pts = l.split("points=\"").nth(1)?;
            let mut ends = pts.split_whitespace().map(|p| p.split(',').next());
            let (a, b) = (ends.next()??, ends.next()??);
            (a == b).then_some(a)
        })
        .collect();
    xs.sort_unstable();
    xs.dedup();
    xs.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stairs(top_kib: u32, caches: &[(&str, f64)]) -> Staircase {
        let loads: Vec<Load> = (2..=top_kib.ilog2())
            .map(|k| {
                let bytes = f64::from(1u32 << k) * 1024.0;
                let ns = if bytes <= 48.0 * 1024.0 { 1.5 } else { 6.0 };
                Load {
                    bytes,
                    ns,
                    low: ns * 0.98,
                    high: ns * 1.05,
                }
            })
            .collect();
        Staircase {
            title: "t".into(),
            loads,
            caches: caches.iter().map(|(n, b)| (n.to_string(), *b)).collect(),
            steps: vec![
                Step {
                    first: 4096.0,
                    last: 32768.0,
                    ns: 1.5,
                },
                Step {
                    first: 65536.0,
                    last: f64::from(top_kib) * 1024.0,
                    ns: 6.0,
                },
            ],
        }
    }

    #[test]
    fn a_dashed_marker_per_cache_inside_the_sizes_a_note_for_the_rest() {
        let caches = [
            ("L1d", 48.0 * 1024.0),
            ("L2", 2.0 * 1048576.0),
            ("L3", 260.0 * 1048576.0),
        ];
        let svg = stairs(16 * 1024, &caches).svg().unwrap();
        assert!(svg.contains(">\nL1d 48 KiB\n<") && svg.contains(">\nL2 2 MiB\n<"));
        assert!(!svg.contains("L3 260 MiB"));
        assert!(svg.contains("L3 (260 MiB) lies above the largest working set measured (16 MiB)"));
        // Dashes: the legend's and one per cache marked.
        assert_eq!(dashed_columns(&svg), 3, "{svg}");
    }

    #[test]
    fn ticks_and_caches_read_in_binary_sizes() {
        assert_eq!(size_label(4096.0), "4 KiB");
        assert_eq!(size_label(48.0 * 1024.0), "48 KiB");
        assert_eq!(size_label(272_629_760.0), "260 MiB");
        assert_eq!(size_label(100.0), "100 B");
        let a = bytes_axis(4096.0, 64.0 * 1048576.0);
        assert_eq!(a.major.first(), Some(&12.0));
        assert!(a.major.len() <= 10 && a.major.contains(&20.0), "{a:?}");
    }

    #[test]
    fn a_point_and_a_step_each_drawn() {
        let s = stairs(1024, &[]);
        let svg = s.svg().unwrap();
        // The legend's, then a dot and its white edge per point.
        assert_eq!(svg.matches("<circle").count(), 1 + 2 * s.loads.len());
        assert!(svg.contains("1.5 ns") && svg.contains("6 ns"));
    }

    #[test]
    fn nothing_measured_is_an_error() {
        let mut s = stairs(64, &[]);
        s.loads.iter_mut().for_each(|l| l.ns = 0.0);
        assert!(s.svg().is_err());
    }
}
