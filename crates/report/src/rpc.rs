//! `toll rpc`'s table (E3): per (series, size) E3's figure, the mean time
//! per call with its CI, beside the median, p99, calls/s and each side's CPU
//! per call; for the ladder each row's cost over the row above it, and for
//! other paths each one's cost over direct, as a difference of two means
//! with its CI; for a payload sweep the model per series. The family fills
//! an [`RpcView`] (`toll_families::rpc::report`); this module renders it.

use crate::decided;
use crate::table::Table;
use toll_measure::mean_ci::mean_diff_ci;
use toll_measure::SeriesFit;

/// What an rpc run's table shows.
#[derive(Debug, Clone)]
pub struct RpcView {
    /// The server that answered, in words.
    pub server: String,
    pub trials: u32,
    /// Calls per trial.
    pub calls: u64,
    /// Connections per series.
    pub connections: u32,
    /// E3's ladder: each row is compared with the row above it.
    pub ladder: bool,
    pub series: Vec<RpcSeries>,
}

/// One series: a stack on a path in a mode.
#[derive(Debug, Clone)]
pub struct RpcSeries {
    /// `rust/grpc/broker-per-call/pipelined-8`.
    pub label: String,
    /// The stack with its socket, as the ladder names it: `raw-unix`, `grpc`.
    pub stack: String,
    /// `direct`, `broker-per-call`, `haproxy`…
    pub path: String,
    /// The path is direct (the others are compared with it).
    pub direct: bool,
    /// None: blocking; Some(k): k calls in flight per connection.
    pub pipelined: Option<u32>,
    pub points: Vec<RpcPoint>,
    /// t(n) = α + β·n per call (a payload sweep only).
    pub fit: Option<SeriesFit>,
}

/// One size of a series: its figures, or why it failed.
#[derive(Debug, Clone)]
pub struct RpcPoint {
    /// Payload bytes per call.
    pub n: u32,
    pub result: Result<RpcFigures, String>,
}

/// A measured point's figures, ns unless named otherwise.
#[derive(Debug, Clone)]
pub struct RpcFigures {
    /// E3's figure: the mean time per call.
    pub mean: f64,
    /// Its 95% CI.
    pub mean_ci: (f64, f64),
    /// Each trial's time per call, for the differences between rows.
    pub per_call_trials: Vec<f64>,
    pub latency_p50: f64,
    pub latency_p99: f64,
    pub calls_per_s: f64,
    pub client_cpu: f64,
    /// None: the server was started elsewhere.
    pub server_cpu: Option<f64>,
    /// Client round trips per call.
    pub round_trips: f64,
}

fn us(ns: f64) -> String {
    if ns >= 100_000.0 {
        format!("{:.0}", ns / 1e3)
    } else {
        format!("{:.2}", ns / 1e3)
    }
}

fn ci(lo: f64, hi: f64) -> String {
    if lo.is_nan() || hi.is_nan() || lo == hi {
        return "–".into();
    }
    format!("[{}, {}]", us(lo), us(hi))
}

/// The heading, one row per (series, size), the ladder's differences, and
/// for a sweep the model per series.
pub fn render(v: &RpcView) -> String {
    let mut s = format!(
        "toll rpc: {}\n{} trial{} of {} calls per point, {} connection{} per series, E3's figure: mean µs per call\n\n",
        v.server,
        v.trials,
        if v.trials == 1 { "" } else { "s" },
        v.calls,
        v.connections,
        if v.connections == 1 { "" } else { "s" },
    );
    let mut headers = vec![
        "stack",
        "path",
        "mode",
        "bytes",
        "µs/call",
        "95% CI",
        "median µs",
        "p99 µs",
        "calls/s",
        "client CPU µs",
        "server CPU µs",
        "round trips",
    ];
    // The ladder: each row over the one above; paths: each over direct.
    let over_direct =
        !v.ladder && v.series.iter().any(|s| s.direct) && v.series.iter().any(|s| !s.direct);
    if v.ladder {
        headers.extend(["+ µs over row above", "95% CI"]);
    } else if over_direct {
        headers.extend(["+ µs over direct", "95% CI"]);
    }
    let mut t = Table::new(&headers);
    for (i, series) in v.series.iter().enumerate() {
        for p in &series.points {
            let mode = match series.pipelined {
                None => "blocking".to_string(),
                Some(k) => format!("pipelined ×{k}"),
            };
            let mut cells = vec![
                series.stack.clone(),
                series.path.clone(),
                mode,
                p.n.to_string(),
            ];
            match &p.result {
                Ok(f) => {
                    cells.extend([
                        us(f.mean),
                        ci(f.mean_ci.0, f.mean_ci.1),
                        us(f.latency_p50),
                        us(f.latency_p99),
                        format!("{:.0}", f.calls_per_s),
                        us(f.client_cpu),
                        f.server_cpu.map_or("–".into(), us),
                        format!("{:.2}", f.round_trips),
                    ]);
                    if v.ladder {
                        let above =
                            (i > 0 && v.series[i - 1].pipelined == series.pipelined).then(|| i - 1);
                        cells.extend(difference(&v.series, above, i, p.n));
                    } else if over_direct {
                        let direct = v.series.iter().position(|d| {
                            d.direct
                                && !series.direct
                                && d.stack == series.stack
                                && d.pipelined == series.pipelined
                        });
                        cells.extend(difference(&v.series, direct, i, p.n));
                    }
                }
                Err(_) => {
                    let dashes = if v.ladder || over_direct { 10 } else { 8 };
                    cells.extend(std::iter::repeat_n("–".to_string(), dashes));
                    cells[4] = "failed".into();
                }
            }
            t.row(cells);
        }
    }
    s.push_str(&t.render());
    s.push_str("µs/call: a trial's time over its calls (E3's figure), its 95% CI from the trials; median and p99: each call's own latency; CPU: per call, from getrusage on each side\n");
    if v.ladder {
        s.push_str("+ over row above: the difference of two means with its 95% CI (Welch); round trips: the client's per call (a per-call broker look-up is one more)\n");
    } else if over_direct {
        s.push_str("+ over direct: what the path adds to the same stack and mode called directly, a difference of two means with its 95% CI (Welch)\n");
    }
    s.push_str(&models(&v.series));
    for series in &v.series {
        for p in &series.points {
            if let Err(why) = &p.result {
                s.push_str(&format!("note: {} at {} B: {why}\n", series.label, p.n));
            }
        }
    }
    s
}

/// Row `i`'s mean minus row `base`'s at size `n` (blank without a base).
fn difference(series: &[RpcSeries], base: Option<usize>, i: usize, n: u32) -> [String; 2] {
    let none = || ["".to_string(), "".to_string()];
    let Some(base) = base else {
        return none();
    };
    let trials = |s: &RpcSeries| {
        s.points
            .iter()
            .find(|p| p.n == n)
            .and_then(|p| p.result.as_ref().ok())
            .map(|f| f.per_call_trials.clone())
    };
    let (Some(a), Some(b)) = (trials(&series[base]), trials(&series[i])) else {
        return none();
    };
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let d = mean(&b) - mean(&a);
    let (lo, hi) = mean_diff_ci(&a, &b);
    let sign = |v: f64| {
        if v >= 0.0 {
            format!("+{}", us(v))
        } else {
            format!("−{}", us(-v))
        }
    };
    let ci = if lo.is_nan() {
        "–".into()
    } else {
        format!("[{}, {}]", sign(lo), sign(hi))
    };
    [sign(d), ci]
}

/// t(n) = α + β·n per call, for each series of a payload sweep: the
/// stored decision of each.
fn models(series: &[RpcSeries]) -> String {
    let decisions: Vec<_> = series
        .iter()
        .filter_map(|s| Some((s, s.fit.as_ref()?.decision.as_ref()?)))
        .collect();
    if decisions.is_empty() {
        return String::new();
    }
    let widened = decisions.iter().any(|(_, d)| d.widened);
    let (a_ci, b_ci) = decided::ci_headings(widened);
    let mut t = Table::new(&["series", "α µs/call", &a_ci, "β ns/byte", &b_ci, "fit"]);
    for (s, d) in &decisions {
        let (alpha, alpha_ci) = decided::cells(&d.alpha, |v| format!("{:.3}", v / 1e3));
        let (beta, beta_ci) = decided::cells(&d.beta, |v| format!("{v:.4}"));
        t.row(vec![
            s.label.clone(),
            alpha,
            alpha_ci,
            beta,
            beta_ci,
            d.words(),
        ]);
    }
    format!(
        "\nmodel t(n) = α + β·n per call of n payload bytes:\n{}{}",
        t.render(),
        decided::legend(widened)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_keep_two_decimals_below_100() {
        assert_eq!(us(12_500.0), "12.50");
        assert_eq!(us(123_456.0), "123");
        assert_eq!(ci(1000.0, 1000.0), "–");
        assert_eq!(ci(1000.0, 2000.0), "[1.00, 2.00]");
    }
}
