//! `toll http URL` and `toll http compare URL URL…` (E5): ab's flags with
//! ab's meaning, wrk's --duration, and the rounds of a comparison.

use crate::parsers::{checked, real_in, short_time_up_to, time_in, whole_in};
use crate::usage::usage;
use crate::values::time;
use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

/// The shortest time any flag takes.
const SHORTEST: Duration = Duration::from_millis(1);
/// The longest run (-t, --duration, compare's --max-time).
const LONGEST_RUN: Duration = Duration::from_secs(24 * 3600);
/// The longest wait for one answer (-s): the latency histograms end there.
const LONGEST_WAIT: Duration = Duration::from_secs(3600);
const MOST_REQUESTS: u64 = 1_000_000_000_000;
/// More connections would run out of sockets.
const MOST_CONNECTIONS: u64 = 100_000;
const MOST_THREADS: u64 = 1024;
const MOST_STREAMS: u64 = 1000;
/// Why --spin stops at 10ms.
const SPIN_IS_SHORT: &str = "spinning is for the microseconds between answers";
/// The most rounds of any kind (compare).
const MOST_ROUNDS: u64 = 1000;

/// `toll http URL` loads one server; `toll http compare URL URL…` several.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct HttpArgs {
    #[command(subcommand)]
    pub command: Option<HttpCommand>,
    /// The URL to load, e.g. http://127.0.0.1:8080/hello.html
    #[arg(value_name = "URL", required_unless_present = "urls_file")]
    pub url: Option<String>,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Requests from a file instead of one URL, one a line: `[METHOD] URL
    /// [@BODYFILE]` (`#` comments and blank lines skipped; a body file
    /// relative to the URL file's directory), every URL on one server.
    /// Each line's figures are reported beside the whole run's.
    #[arg(long = "urls", value_name = "FILE")]
    pub urls_file: Option<PathBuf>,
    /// How --urls picks each request's line: round-robin (the file's
    /// order, the default) or random (seeded by --seed).
    #[arg(long, value_enum, value_name = "ORDER")]
    pub pick: Option<PickArg>,
    /// The seed of --pick random (default 1): the same seed, threads and
    /// connections give the same order.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Load the server this long first, at the same concurrency (and
    /// rate), without measuring it: e.g. 5s for a JIT-compiled server.
    /// Said on stderr and stored with the run.
    #[arg(long, value_name = "TIME", value_parser = time_in(SHORTEST, LONGEST_RUN))]
    pub warmup: Option<Duration>,
    #[command(flatten)]
    pub sweep: SweepArgs,
    #[command(flatten)]
    pub agents: AgentArgs,
    /// Print the stored run as JSON instead of the report.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub plot: LoadPlotArgs,
}

/// The most requests per second a constant-rate loop is asked to
/// schedule (--rate's bound).
pub const MOST_RATE: f64 = 1e7;

/// `--sweep FROM..TO` and its steps: the offered rate stepped up, open
/// loop, to find the knee.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// Step the offered rate (requests/s, open loop) from FROM to TO and
    /// find the knee: the highest rate kept up (achieved ≥ 99%, p99 within
    /// --slo). Stops after two steps in a row that do not keep up.
    #[arg(long, value_name = "FROM..TO", value_parser = checked(sweep_range))]
    pub sweep: Option<(f64, f64)>,
    /// Steps from FROM to TO, a constant factor apart (--sweep).
    #[arg(long, value_name = "N", value_parser = whole_in::<usize>(2, 100))]
    pub steps: Option<usize>,
    /// The load of each step (--sweep), e.g. 2s.
    #[arg(long, value_name = "TIME",
          value_parser = time_in(Duration::from_millis(100), Duration::from_secs(3600)))]
    pub step_duration: Option<Duration>,
    /// Passes over the steps, low to high each (--sweep): each step's
    /// figures and the knee get an interval from them.
    #[arg(long, value_name = "N", value_parser = whole_in::<usize>(1, 20))]
    pub repeats: Option<usize>,
    /// The p99 a step keeps up within (--sweep): a multiple of the first
    /// step's p99, e.g. 5x (the default; never below 10 ms), or a time,
    /// e.g. 50ms.
    #[arg(long, value_name = "Nx|TIME", value_parser = checked(slo))]
    pub slo: Option<toll_families::http::sweep::Slo>,
}

/// --sweep FROM..TO: two rates, FROM below TO, within what the loop
/// schedules.
fn sweep_range(flag: &str, text: &str) -> anyhow::Result<(f64, f64)> {
    let (from, to) = text.split_once("..").ok_or_else(|| {
        usage(format!(
            "{flag} `{text}` is not a range: write FROM..TO in requests per second, e.g. {flag} 100..10000"
        ))
    })?;
    let rate = |t: &str| crate::values::real(flag, t, 0.01, MOST_RATE, "requests per second");
    let (from, to) = (rate(from)?, rate(to)?);
    if from >= to {
        return Err(usage(format!(
            "{flag} {text}: FROM must be below TO (the sweep steps up), e.g. {flag} {to}..{}",
            if from > to { from } else { to * 10.0 }
        )));
    }
    Ok((from, to))
}

/// --slo: `5x` (a multiple of the first step's p99, above 1) or a time.
fn slo(flag: &str, text: &str) -> anyhow::Result<toll_families::http::sweep::Slo> {
    use toll_families::http::sweep::Slo;
    let t = text.trim();
    if let Some(m) = t.strip_suffix('x').or_else(|| t.strip_suffix('×')) {
        return m
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|m| m.is_finite() && *m > 1.0 && *m <= 1000.0)
            .map(Slo::Times)
            .ok_or_else(|| {
                usage(format!(
                    "{flag} `{text}` is not a multiple above 1 and at most 1000 of the first step's p99: give e.g. 5x, or a time such as 50ms"
                ))
            });
    }
    time(flag, t, SHORTEST, LONGEST_WAIT).map(Slo::Fixed)
}

/// Where the load comes from when not from this machine: load agents.
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// Send the load from agents on other hosts, each started by `ssh HOST
    /// toll agent` (toll on that host's PATH): HOST[,HOST…]. Connections and
    /// requests are split across them, and their latency histograms added.
    #[arg(long, value_name = "HOST[,HOST…]", value_delimiter = ',')]
    pub remote: Vec<String>,
    /// Like --remote, with any command that runs `toll agent` (repeat it for
    /// more agents), e.g. 'kubectl exec -i POD -- toll agent'.
    #[arg(long, value_name = "CMD")]
    pub remote_cmd: Vec<String>,
    /// With agents: the fewest that must start and finish for the run to
    /// be stored (partial, naming the others); default: all of them.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub min_agents: Option<u64>,
    /// For checking the merge: each agent also sends back every latency,
    /// raw, written to FILE as JSON (one object per agent); not for real
    /// loads (docs/guide/agents.md).
    #[arg(long, value_name = "FILE", hide = true)]
    pub raw_latencies: Option<PathBuf>,
}

/// `--plot` of `toll http` and `toll http compare`: a load's pictures.
#[derive(Debug, Args)]
pub struct LoadPlotArgs {
    /// Draw latency by percentile (and, with --rate, corrected beside
    /// uncorrected) above requests per second over time, to an SVG file.
    #[arg(long, value_name = "FILE.svg", value_parser = crate::parsers::svg_file())]
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
/// --rate are hidden here (and refused with a reason if given); with load
/// agents every round is loaded from all of them.
#[derive(Debug, Args)]
#[command(
    mut_arg("requests", |a| a.hide(true)),
    mut_arg("time_limit", |a| a.hide(true)),
    mut_arg("duration", |a| a.hide(true)),
    mut_arg("rate", |a| a.hide(true)),
    mut_arg("min_agents", |a| a.hide(true))
)]
pub struct CompareArgs {
    /// Two or more URLs; every ratio is against the first.
    #[arg(value_name = "URL", required = true, num_args = 2..)]
    pub urls: Vec<String>,
    #[command(flatten)]
    pub load: LoadArgs,
    /// Every round from these load agents (--min-agents, if given, must be
    /// all of them: a round from fewer would be another load).
    #[command(flatten)]
    pub agents: AgentArgs,
    /// Length of one round (one timed load of one server), e.g. 2s, 500ms.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "2s",
        allow_hyphen_values = true,
        value_parser = checked(round)
    )]
    pub round: Duration,
    /// Warm-up rounds per server at most (warm once its last 3 rates are
    /// within 5% of their median); 0 skips the warm-up.
    #[arg(
        long,
        value_name = "N",
        default_value = "8",
        allow_hyphen_values = true,
        value_parser = whole_in::<usize>(0, MOST_ROUNDS)
    )]
    pub warmup_max: usize,
    /// Measured rounds of each server before the CIs may end the comparison.
    #[arg(
        long,
        value_name = "N",
        default_value = "5",
        allow_hyphen_values = true,
        value_parser = whole_in::<usize>(3, MOST_ROUNDS)
    )]
    pub min_rounds: usize,
    /// Measured rounds of each server at most.
    #[arg(
        long,
        value_name = "N",
        default_value = "30",
        allow_hyphen_values = true,
        value_parser = whole_in::<usize>(1, MOST_ROUNDS)
    )]
    pub max_rounds: usize,
    /// Target half-width of each ratio's 95% CI, in percent of the ratio.
    #[arg(
        long,
        value_name = "PCT",
        default_value = "2",
        allow_hyphen_values = true,
        value_parser = checked(ratio_ci)
    )]
    pub ci: f64,
    /// Bound on the whole comparison, warm-up included, e.g. 10m.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "10m",
        allow_hyphen_values = true,
        value_parser = time_in(SHORTEST, LONGEST_RUN)
    )]
    pub max_time: Duration,
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
    #[arg(short = 'n', value_name = "REQUESTS", allow_hyphen_values = true,
          value_parser = whole_in::<u64>(1, MOST_REQUESTS))]
    pub requests: Option<u64>,
    /// Concurrency: requests in flight at once (ab's -c), one connection each unless --streams.
    #[arg(
        short = 'c',
        value_name = "CONCURRENCY",
        default_value = "1",
        allow_hyphen_values = true,
        value_parser = whole_in::<usize>(1, MOST_CONNECTIONS)
    )]
    pub concurrency: usize,
    /// Keep connections alive (HTTP/1.1 keep-alive, ab's -k).
    #[arg(short = 'k')]
    pub keep_alive: bool,
    /// Time limit in seconds (ab's -t; implies -n 50000 unless -n is given).
    #[arg(short = 't', value_name = "SECONDS", value_parser = time_in(SHORTEST, LONGEST_RUN))]
    pub time_limit: Option<Duration>,
    /// Extra header, "Name: value"; repeatable (ab's -H).
    #[arg(short = 'H', value_name = "HEADER", value_parser = checked(header))]
    pub headers: Vec<(String, String)>,
    /// Method (ab's -m; default GET, or POST with -p).
    #[arg(short = 'm', value_name = "METHOD", value_parser = checked(method))]
    pub method: Option<String>,
    /// File whose contents are the request body (ab's -p; POST unless -m).
    #[arg(short = 'p', value_name = "FILE")]
    pub post_file: Option<PathBuf>,
    /// Content-Type of the body (ab's -T; default text/plain).
    #[arg(short = 'T', value_name = "TYPE")]
    pub content_type: Option<String>,
    /// Seconds to wait for each request before counting it failed (ab's -s).
    #[arg(short = 's', value_name = "SECONDS", default_value = "30",
          value_parser = time_in(SHORTEST, LONGEST_WAIT))]
    pub timeout: Duration,
    /// Accept responses of varying length instead of counting them failed (ab's -l).
    #[arg(short = 'l')]
    pub variable_length: bool,
    /// Run for this long, e.g. 10s, 500ms, 2m (wrk's -d).
    #[arg(long, value_name = "TIME", value_parser = time_in(SHORTEST, LONGEST_RUN))]
    pub duration: Option<Duration>,
    /// Event loops, one per thread (default: one per CPU, at most -c).
    #[arg(long, value_name = "N", value_parser = whole_in::<usize>(1, MOST_THREADS))]
    pub threads: Option<usize>,
    /// Constant arrival rate (requests/s): an open model, latency timed from
    /// each request's intended start (coordinated omission corrected, as wrk2).
    #[arg(long, value_name = "PER_SECOND", allow_hyphen_values = true,
          value_parser = real_in(0.01, 1e7, "requests per second"))]
    pub rate: Option<f64>,
    /// Speak HTTP/2: h2c with prior knowledge on http://, h2 by ALPN on https://.
    #[arg(long)]
    pub http2: bool,
    /// Streams in flight on each HTTP/2 connection (-c counts streams; default 1,
    /// a connection per stream; more needs -k).
    #[arg(long, value_name = "N", requires = "http2",
          value_parser = whole_in::<usize>(1, MOST_STREAMS))]
    pub streams: Option<usize>,
    /// https: accept any certificate (self-signed, wrong name, expired).
    #[arg(long)]
    pub insecure: bool,
    /// Poll for events this long before sleeping, e.g. 10us (HTTP/1.1 on
    /// http:// only). With the server on the same host, every wake-up of an
    /// idle toll is work on the server's core; spinning saves it at the cost
    /// of toll's CPU.
    #[arg(long, value_name = "TIME",
          value_parser = short_time_up_to(Duration::from_millis(10), SPIN_IS_SHORT))]
    pub spin: Option<Duration>,
    /// With requests in flight and none answered yet, nap on a timer for up
    /// to this long (default 100us; longer than an eighth of the recent
    /// latency only where trying showed the server absorbs it, 10us where
    /// the kernel does not stamp answers' arrival) instead of being woken
    /// by each answer: the server's core is spared a wake-up per answer. 0
    /// turns it off (without --rate or --spin).
    #[arg(long, value_name = "TIME", value_parser = checked(coalesce))]
    pub coalesce: Option<Duration>,
    /// How a plain HTTP/1.1 closed loop talks to the kernel: epoll (the
    /// default) or io_uring (one system call per request instead of up to
    /// seven; Linux 6.7 or later). Measured here, io_uring costs as much
    /// CPU per request without keep-alive and more with it. --rate,
    /// --spin, TLS and HTTP/2 use their own loops. TOLL_HTTP_IO=io_uring
    /// makes io_uring the default where it applies and the kernel has it.
    #[arg(long, value_enum, value_name = "API")]
    pub io: Option<IoArg>,
    /// Connect to this unix socket instead of the URL's host, the URL's
    /// path and Host header kept (curl's --unix-socket); http:// only, on
    /// HTTP/1.1 or h2c. In compare, N=PATH sends only the Nth URL through
    /// it (repeatable); a bare PATH sends every URL.
    #[arg(long, value_name = "PATH")]
    pub unix_socket: Vec<String>,
}

/// --pick's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PickArg {
    RoundRobin,
    Random,
}

/// --io's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum IoArg {
    #[value(name = "io_uring")]
    IoUring,
    Epoll,
}

/// --round: a timed load of one server, long enough to measure the server
/// more than its connection set-up, at most an hour.
fn round(flag: &str, text: &str) -> anyhow::Result<Duration> {
    let round = time(flag, text, SHORTEST, Duration::from_secs(3600))?;
    if round < Duration::from_millis(100) {
        return Err(usage(format!(
            "{flag} {text} is too short: give at least 100ms, so a round measures the server more than its connection set-up"
        )));
    }
    Ok(round)
}

/// compare's --ci: a percentage of the ratio, as a share.
fn ratio_ci(flag: &str, text: &str) -> anyhow::Result<f64> {
    text.trim()
        .trim_end_matches('%')
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0 && *v < 100.0)
        .map(|v| v / 100.0)
        .ok_or_else(|| {
            usage(format!(
                "{flag} `{text}` is not a percentage between 0 and 100 (the CI's half-width, e.g. 2)"
            ))
        })
}

/// -H: "Name: value", the name one word.
fn header(flag: &str, text: &str) -> anyhow::Result<(String, String)> {
    let (name, value) = text
        .split_once(':')
        .filter(|(n, _)| !n.trim().is_empty() && !n.contains(char::is_whitespace))
        .ok_or_else(|| {
            usage(format!(
                "{flag} `{text}` is not a header: write it as \"Name: value\""
            ))
        })?;
    Ok((name.trim().to_string(), value.trim().to_string()))
}

/// -m: an HTTP method, in capitals.
fn method(flag: &str, text: &str) -> anyhow::Result<String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(usage(format!(
            "{flag} `{text}` is not an HTTP method such as GET, HEAD or POST"
        )));
    }
    Ok(text.to_ascii_uppercase())
}

/// --coalesce: a nap of at most a millisecond, or 0 (or off) for none.
fn coalesce(flag: &str, text: &str) -> anyhow::Result<Duration> {
    if matches!(text.trim(), "0" | "off") {
        return Ok(Duration::ZERO);
    }
    crate::values::short_time(
        flag,
        text,
        Duration::from_millis(1),
        "a nap is for the microseconds between answers",
    )
}
