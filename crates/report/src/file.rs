//! `toll file`'s report: the heading (the file, its storage, the reads and
//! the cache states), then E4's table (µs per read per runtime, method,
//! pattern and cache, with E4's 2010 figure beside its cells) or, for a
//! `--sizes` sweep, a row per size and the model t(n) = α + β·n per series.
//! The family fills a [`FileView`] (`toll_families::file::report`); this
//! module only renders it.

use crate::decided;
use crate::table::Table;
use toll_measure::{SeriesFit, Summary};

/// What a file run's report shows.
#[derive(Debug, Clone)]
pub struct FileView {
    /// The file read, in words.
    pub file: String,
    /// toll made its file in this run.
    pub made_file: bool,
    /// What the file is stored on, in words.
    pub storage: String,
    /// What a trial reads, in words.
    pub reads: String,
    /// The cache states, in words.
    pub cache: String,
    pub trials: u32,
    /// A `--sizes` sweep (a model per series) rather than E4's reads.
    pub sweep: bool,
    pub series: Vec<FileSeries>,
}

/// One (method, pattern, cache) series.
#[derive(Debug, Clone)]
pub struct FileSeries {
    /// `runtime/method/pattern/cache`.
    pub label: String,
    pub runtime: String,
    pub method: String,
    pub pattern: String,
    pub cache: String,
    pub points: Vec<FilePoint>,
    /// t(n) = α + β·n per read (a sweep only).
    pub fit: Option<SeriesFit>,
    /// E4's 2010 figure for the series' first point, with its unit, where
    /// E4 measured that cell.
    pub e4: Option<(f64, &'static str)>,
}

/// One point: its reads, and its figures or why it failed.
#[derive(Debug, Clone)]
pub struct FilePoint {
    /// Bytes per read on average: the point's n.
    pub bytes: u64,
    /// Reads per trial.
    pub reads: u64,
    pub result: Result<FileFigures, String>,
}

/// A measured point's figures.
#[derive(Debug, Clone)]
pub struct FileFigures {
    /// The file's resident share before each trial, 0 to 1.
    pub resident: Vec<f64>,
    /// ns per read.
    pub per_read: Summary,
    /// ns of a whole pass.
    pub total: Summary,
    /// MB/s at the median pass.
    pub mb_per_s: f64,
}

/// The heading, the table of cells, and for a sweep the model per series.
pub fn render(v: &FileView) -> String {
    let mut s = format!(
        "toll file: {}{} on {}\n",
        v.file,
        if v.made_file { ", made now" } else { "" },
        v.storage
    );
    s.push_str(&format!(
        "reads: {}; {} trial{} each\ncache: {}, checked by mincore before every trial\n\n",
        v.reads,
        v.trials,
        if v.trials == 1 { "" } else { "s" },
        v.cache
    ));
    if v.sweep {
        s.push_str(&sweep_table(v));
        s.push_str(&models(v));
    } else {
        s.push_str(&e4_table(v));
    }
    for series in &v.series {
        for p in &series.points {
            if let Err(why) = &p.result {
                s.push_str(&format!("note: {} at {} B: {why}\n", series.label, p.bytes));
            }
        }
    }
    s
}

/// A median's 95% CI in µs, or a dash for a single trial.
fn ci_us(m: &Summary) -> String {
    if m.count < 2 {
        return "–".into();
    }
    format!("[{:.3}, {:.3}]", m.ci_low / 1e3, m.ci_high / 1e3)
}

/// The resident share before the trials: one figure, or the range.
fn resident(r: &[f64]) -> String {
    let lo = r.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = r.iter().copied().fold(0.0, f64::max);
    if r.is_empty() {
        "–".into()
    } else if (hi - lo) * 100.0 < 0.5 {
        format!("{:.0}%", hi * 100.0)
    } else {
        format!("{:.0}–{:.0}%", lo * 100.0, hi * 100.0)
    }
}

fn e4_table(v: &FileView) -> String {
    let mut t = Table::new(&[
        "runtime", "method", "pattern", "cache", "resident", "µs/read", "95% CI", "total ms",
        "MB/s", "E4 2010",
    ]);
    let mut any_e4 = false;
    for series in &v.series {
        let p = &series.points[0];
        let mut cells = vec![
            series.runtime.clone(),
            series.method.clone(),
            series.pattern.clone(),
            series.cache.clone(),
        ];
        match &p.result {
            Ok(f) => cells.extend([
                resident(&f.resident),
                format!("{:.3}", f.per_read.median / 1e3),
                ci_us(&f.per_read),
                format!("{:.1}", f.total.median / 1e6),
                format!("{:.0}", f.mb_per_s),
            ]),
            Err(_) => cells.extend(["failed", "–", "–", "–", "–"].map(String::from)),
        }
        any_e4 |= series.e4.is_some();
        cells.push(match series.e4 {
            Some((figure, unit)) => format!("{figure} {unit}"),
            None => String::new(),
        });
        t.row(cells);
    }
    let mut s = t.render();
    if any_e4 {
        s.push_str("E4 2010: Python 2.6.6 on an SSD, the page cache dropped before each test; seq: the whole pass (against total ms), random: per read (against µs/read)\n");
    }
    s
}

fn sweep_table(v: &FileView) -> String {
    let mut t = Table::new(&[
        "runtime", "method", "pattern", "cache", "bytes", "reads", "resident", "µs/read", "95% CI",
        "MB/s",
    ]);
    for series in &v.series {
        for p in &series.points {
            let mut cells = vec![
                series.runtime.clone(),
                series.method.clone(),
                series.pattern.clone(),
                series.cache.clone(),
                p.bytes.to_string(),
                p.reads.to_string(),
            ];
            match &p.result {
                Ok(f) => cells.extend([
                    resident(&f.resident),
                    format!("{:.3}", f.per_read.median / 1e3),
                    ci_us(&f.per_read),
                    format!("{:.0}", f.mb_per_s),
                ]),
                Err(_) => cells.extend(["failed", "–", "–", "–"].map(String::from)),
            }
            t.row(cells);
        }
    }
    t.render()
}

/// t(n) = α + β·n per read, for each series of a sweep: the stored
/// decision of each.
fn models(view: &FileView) -> String {
    let decisions: Vec<_> = view
        .series
        .iter()
        .filter_map(|s| Some((s, s.fit.as_ref()?.decision.as_ref()?)))
        .collect();
    if decisions.is_empty() {
        return String::new();
    }
    let widened = decisions.iter().any(|(_, d)| d.widened);
    let (a_ci, b_ci) = decided::ci_headings(widened);
    let mut t = Table::new(&[
        "runtime",
        "method",
        "pattern",
        "cache",
        "α µs/read",
        &a_ci,
        "β ns/byte",
        &b_ci,
        "MB/s",
        "fit",
    ]);
    for (s, d) in &decisions {
        let (alpha, alpha_ci) = decided::cells(&d.alpha, |v| format!("{:.3}", v / 1e3));
        let (beta, beta_ci) = decided::cells(&d.beta, |v| format!("{v:.4}"));
        t.row(vec![
            s.runtime.clone(),
            s.method.clone(),
            s.pattern.clone(),
            s.cache.clone(),
            alpha,
            alpha_ci,
            beta,
            beta_ci,
            d.beta
                .shown()
                .map_or_else(|| "–".into(), |b| format!("{:.0}", 1e3 / b)),
            d.words(),
        ]);
    }
    format!(
        "\nmodel t(n) = α + β·n per read of n bytes (MB/s = 1/β):\n{}{}",
        t.render(),
        decided::legend(widened)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resident_share_is_one_figure_or_its_range() {
        assert_eq!(resident(&[]), "–");
        assert_eq!(resident(&[0.0, 0.001]), "0%");
        assert_eq!(resident(&[0.0, 1.0]), "0–100%");
    }
}
