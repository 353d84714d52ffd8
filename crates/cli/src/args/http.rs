//! `toll http URL` and `toll http compare URL URL…` (E5): ab's flags with
//! ab's meaning, wrk's --duration, and the rounds of a comparison.

use clap::{Args, Subcommand};
use std::path::PathBuf;

/// `toll http URL` loads one server; `toll http compare URL URL…` several.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct HttpArgs {
    #[command(subcommand)]
    pub command: Option<HttpCommand>,
    /// The URL to load, e.g. http://127.0.0.1:8080/hello.html
    #[arg(value_name = "URL", required = true)]
    pub url: Option<String>,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Print the stored run as JSON instead of the report.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub plot: LoadPlotArgs,
}

/// `--plot` of `toll http` and `toll http compare`: a load's pictures.
#[derive(Debug, Args)]
pub struct LoadPlotArgs {
    /// Draw latency by percentile (and, with --rate, corrected beside
    /// uncorrected) above requests per second over time, to an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The latency axis: log where the values span decades (auto), or
    /// linear or log.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
}

#[derive(Debug, Subcommand)]
pub enum HttpCommand {
    /// Load several servers in alternating rounds (A B, B A, …) after a warm-up,
    /// until the CI of each request-rate ratio is narrow.
    Compare(Box<CompareArgs>),
}

/// `toll http compare`: the servers and how many rounds. Rounds are timed,
/// so the load flags that end a run another way (-n, -t, --duration) and
/// --rate are hidden here (and refused with a reason if given).
#[derive(Debug, Args)]
#[command(
    mut_arg("requests", |a| a.hide(true)),
    mut_arg("time_limit", |a| a.hide(true)),
    mut_arg("duration", |a| a.hide(true)),
    mut_arg("rate", |a| a.hide(true))
)]
pub struct CompareArgs {
    /// Two or more URLs; every ratio is against the first.
    #[arg(value_name = "URL", required = true, num_args = 2..)]
    pub urls: Vec<String>,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Length of one round (one timed load of one server), e.g. 2s, 500ms.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "2s",
        allow_hyphen_values = true
    )]
    pub round: String,
    /// Warm-up rounds per server at most (warm once its last 3 rates are
    /// within 5% of their median); 0 skips the warm-up.
    #[arg(
        long,
        value_name = "N",
        default_value = "8",
        allow_hyphen_values = true
    )]
    pub warmup_max: String,
    /// Measured rounds of each server before the CIs may end the comparison.
    #[arg(
        long,
        value_name = "N",
        default_value = "5",
        allow_hyphen_values = true
    )]
    pub min_rounds: String,
    /// Measured rounds of each server at most.
    #[arg(
        long,
        value_name = "N",
        default_value = "30",
        allow_hyphen_values = true
    )]
    pub max_rounds: String,
    /// Target half-width of each ratio's 95% CI, in percent of the ratio.
    #[arg(
        long,
        value_name = "PCT",
        default_value = "2",
        allow_hyphen_values = true
    )]
    pub ci: String,
    /// Bound on the whole comparison, warm-up included, e.g. 10m.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "10m",
        allow_hyphen_values = true
    )]
    pub max_time: String,
    /// Print the stored run as JSON instead of the report.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub plot: LoadPlotArgs,
}

/// The load's flags, shared by `toll http` and `toll http compare`. ab's keep
/// ab's letters and meaning; the long ones are toll's own.
#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Number of requests (ab's -n; default 1, or 50000 with -t, or no limit with --duration).
    #[arg(short = 'n', value_name = "REQUESTS", allow_hyphen_values = true)]
    pub requests: Option<String>,
    /// Concurrency: requests in flight at once (ab's -c), one connection each unless --streams.
    #[arg(
        short = 'c',
        value_name = "CONCURRENCY",
        default_value = "1",
        allow_hyphen_values = true
    )]
    pub concurrency: String,
    /// Keep connections alive (HTTP/1.1 keep-alive, ab's -k).
    #[arg(short = 'k')]
    pub keep_alive: bool,
    /// Time limit in seconds (ab's -t; implies -n 50000 unless -n is given).
    #[arg(short = 't', value_name = "SECONDS")]
    pub time_limit: Option<String>,
    /// Extra header, "Name: value"; repeatable (ab's -H).
    #[arg(short = 'H', value_name = "HEADER")]
    pub headers: Vec<String>,
    /// Method (ab's -m; default GET, or POST with -p).
    #[arg(short = 'm', value_name = "METHOD")]
    pub method: Option<String>,
    /// File whose contents are the request body (ab's -p; POST unless -m).
    #[arg(short = 'p', value_name = "FILE")]
    pub post_file: Option<PathBuf>,
    /// Content-Type of the body (ab's -T; default text/plain).
    #[arg(short = 'T', value_name = "TYPE")]
    pub content_type: Option<String>,
    /// Seconds to wait for each request before counting it failed (ab's -s).
    #[arg(short = 's', value_name = "SECONDS", default_value = "30")]
    pub timeout: String,
    /// Accept responses of varying length instead of counting them failed (ab's -l).
    #[arg(short = 'l')]
    pub variable_length: bool,
    /// Run for this long, e.g. 10s, 500ms, 2m (wrk's -d).
    #[arg(long, value_name = "TIME")]
    pub duration: Option<String>,
    /// Event loops, one per thread (default: one per CPU, at most -c).
    #[arg(long, value_name = "N")]
    pub threads: Option<String>,
    /// Constant arrival rate (requests/s): an open model, latency timed from
    /// each request's intended start (coordinated omission corrected, as wrk2).
    #[arg(long, value_name = "PER_SECOND", allow_hyphen_values = true)]
    pub rate: Option<String>,
    /// Speak HTTP/2: h2c with prior knowledge on http://, h2 by ALPN on https://.
    #[arg(long)]
    pub http2: bool,
    /// Streams in flight on each HTTP/2 connection (-c counts streams; default 1,
    /// a connection per stream; more needs -k).
    #[arg(long, value_name = "N", requires = "http2")]
    pub streams: Option<String>,
    /// https: accept any certificate (self-signed, wrong name, expired).
    #[arg(long)]
    pub insecure: bool,
    /// Poll for events this long before sleeping, e.g. 10us (HTTP/1.1 on
    /// http:// only). With the server on the same host, every wake-up of an
    /// idle toll is work on the server's core; spinning saves it at the cost
    /// of toll's CPU.
    #[arg(long, value_name = "TIME")]
    pub spin: Option<String>,
    /// With requests in flight and none answered yet, nap on a timer for up
    /// to this long (default 10us; at most an eighth of the recent latency)
    /// instead of being woken by each answer: the server's core is spared a
    /// wake-up per answer. 0 turns it off (HTTP/1.1 on http:// without
    /// --rate or --spin).
    #[arg(long, value_name = "TIME")]
    pub coalesce: Option<String>,
}
