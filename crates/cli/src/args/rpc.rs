//! `toll rpc`'s flags (E3): stacks, paths, call styles, and the numbers
//! of a run, each checked against its range as it is parsed.

use super::plot_scale::PlotScale;
use crate::parsers::{checked, sizes, time_in, whole_in, List};
use crate::usage::usage;
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;
use toll_families::rpc::frame::MAX_FRAME;
use toll_families::rpc::{Lookup, ServerRuntime};

/// `toll rpc`: with none of --stack, --via, --path, --mode, the ladder.
#[derive(Debug, Args)]
pub struct RpcArgs {
    /// Stacks, comma-separated: raw, http1, h2, grpc, or all. Without
    /// --stack, --via, --path or --mode: E3's ladder (raw over unix and tcp,
    /// http1, h2, grpc, grpc through the broker; blocking and pipelined).
    #[arg(long, value_name = "LIST")]
    pub stack: Option<String>,
    /// The socket under raw: tcp or unix (raw only).
    #[arg(long, value_name = "SOCKET")]
    pub via: Option<String>,
    /// Paths, comma-separated: direct, broker (toll's MetaServer), haproxy, nginx.
    #[arg(long, value_name = "LIST")]
    pub path: Option<String>,
    /// With --path broker: ask the broker before every call (per-call, E3's) or once per connection.
    #[arg(long, value_name = "WHEN", default_value = "per-call", value_parser = checked(lookup))]
    pub lookup: Lookup,
    /// Call styles, comma-separated: blocking (one call, wait, next) or
    /// pipelined (--in-flight calls outstanding per connection).
    #[arg(long, value_name = "LIST")]
    pub mode: Option<String>,
    /// Calls outstanding per connection when pipelined (1 to 1024).
    #[arg(
        long,
        value_name = "K",
        default_value = "8",
        allow_hyphen_values = true,
        value_parser = whole_in::<u32>(1, 1024)
    )]
    pub in_flight: u32,
    /// Connections per series (1 to 1024); the calls are shared out over them.
    #[arg(
        long,
        value_name = "C",
        default_value = "1",
        allow_hyphen_values = true,
        value_parser = whole_in::<u32>(1, 1024)
    )]
    pub connections: u32,
    /// The server's runtime: rust (built into toll), go or python.
    #[arg(long, value_name = "RUNTIME", default_value = "rust",
          value_parser = checked(server_runtime))]
    pub runtime: ServerRuntime,
    /// Call a server already running at HOST:PORT (one --stack, direct) instead of starting one.
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["remote", "remote_cmd", "link"],
          value_parser = checked(server))]
    pub server: Option<SocketAddr>,
    /// Run the servers on another host, started there by `ssh HOST toll
    /// agent` (toll must be on that host's PATH); the calls cross the network.
    #[arg(long, value_name = "HOST", conflicts_with_all = ["remote_cmd", "link"])]
    pub remote: Option<String>,
    /// Like --remote, with any command that runs `toll agent` on the far
    /// host, e.g. 'ip netns exec B /usr/local/bin/toll agent'.
    #[arg(long, value_name = "CMD", conflicts_with = "link")]
    pub remote_cmd: Option<String>,
    /// Run the servers across an emulated link: loopback, lan (100 Mbit/s,
    /// 0.1 ms), wan (1.5 Mbit/s, 30 ms ± 5 ms) or
    /// delay=30ms,rate=1.5mbit,jitter=5ms. Builds network namespaces: needs root.
    #[arg(long, value_name = "LINK")]
    pub link: Option<String>,
    /// Request payload bytes, a list and/or ranges (0 is E3's null call);
    /// two sizes or more fit t(n) = α + β·n per series.
    #[arg(
        long,
        value_name = "LIST",
        default_value = "0",
        allow_hyphen_values = true,
        value_parser = checked(payloads)
    )]
    pub sizes: List<u32>,
    /// Calls per trial (E3: 1600), 1 to 10000000.
    #[arg(
        long,
        value_name = "N",
        default_value = "1600",
        allow_hyphen_values = true,
        value_parser = whole_in::<u64>(1, 10_000_000)
    )]
    pub calls: u64,
    /// Trials per point, in rounds (E3: 10), 1 to 10000.
    #[arg(
        long,
        value_name = "N",
        default_value = "10",
        allow_hyphen_values = true,
        value_parser = whole_in::<u32>(1, 10_000)
    )]
    pub trials: u32,
    /// Untimed calls per series before the first round.
    #[arg(
        long,
        value_name = "N",
        default_value = "200",
        allow_hyphen_values = true,
        value_parser = whole_in::<u64>(0, 10_000_000)
    )]
    pub warmup: u64,
    /// A call not answered within this stops the run (stored as partial), e.g. 5s, 500ms.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "5s",
        allow_hyphen_values = true,
        value_parser = time_in(Duration::from_millis(1), Duration::from_secs(3600))
    )]
    pub timeout: Duration,
    /// Seed of the rounds' order.
    #[arg(long, default_value = "2003", value_name = "N")]
    pub seed: u64,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw the time per call by series (payload sweeps as lines) to an SVG file.
    #[arg(long, value_name = "FILE.svg", value_parser = crate::parsers::svg_file())]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub scale: PlotScale,
}

/// --lookup: per-call (E3's) or once.
fn lookup(flag: &str, text: &str) -> anyhow::Result<Lookup> {
    match text.trim() {
        "per-call" => Ok(Lookup::PerCall),
        "once" => Ok(Lookup::Once),
        other => Err(usage(format!(
            "{flag} `{other}`: give per-call (E3's) or once"
        ))),
    }
}

/// --runtime: the server's.
fn server_runtime(flag: &str, text: &str) -> anyhow::Result<ServerRuntime> {
    match text.trim() {
        "rust" => Ok(ServerRuntime::Rust),
        "go" => Ok(ServerRuntime::Go),
        "python" => Ok(ServerRuntime::Python),
        other => Err(usage(format!(
            "unknown runtime `{other}` in {flag}: give rust, go or python"
        ))),
    }
}

/// --server: an IP address and a port (no name to resolve).
fn server(flag: &str, text: &str) -> anyhow::Result<SocketAddr> {
    text.trim().parse().map_err(|_| {
        usage(format!(
            "{flag} `{text}` is not HOST:PORT with an IP address, e.g. 127.0.0.1:50051"
        ))
    })
}

/// --sizes: payloads a call may carry (one frame, 64 MiB), at least one.
fn payloads(flag: &str, text: &str) -> anyhow::Result<List<u32>> {
    let mut out = vec![];
    for n in sizes(flag, text)? {
        if n > u64::from(MAX_FRAME) {
            return Err(usage(format!(
                "{flag}: {n} bytes is past the 64 MiB a call may carry: give smaller sizes"
            )));
        }
        out.push(n as u32);
    }
    if out.is_empty() {
        return Err(usage(format!(
            "{flag} is empty: give 0 (E3's null call) or a list"
        )));
    }
    Ok(out)
}
