//! `toll transfer`'s flags (E1): sizes, peers, transports, placement,
//! rounds, each checked as it is parsed.

use super::plot_scale::PlotScale;
use crate::parsers::{checked, ci_share, comma_list, parsed, time_in, List, Sizes};
use crate::usage::usage;
use clap::Args;
use std::path::PathBuf;
use std::time::Duration;
use toll_families::placement::Pin;
use toll_families::sizes::parse_sizes;
use toll_peers::Transport;

#[derive(Debug, Args)]
pub struct TransferArgs {
    /// Items per message: a list and/or ranges, e.g. 0:100000:10000 or
    /// 1k,64Ki,1Mi; `e1` is E1's own 0:100000:10000. The default mixes sizes
    /// near 0 (where α is measured) with E1's range (where β is).
    #[arg(
        long,
        default_value = "0,1,10,100,1k,4k,10k:100k:10k",
        value_name = "LIST",
        allow_hyphen_values = true,
        value_parser = checked(sizes)
    )]
    pub sizes: Sizes,
    /// Peers, comma-separated: rust, c, python, node, go, java, erlang, haskell,
    /// or all (every one this machine has; `toll doctor` lists them).
    #[arg(long, default_value = "rust", value_name = "LIST")]
    pub peer: String,
    /// Transports, comma-separated: pipe, unix, tcp, shm (default: all the peer supports).
    #[arg(long, value_name = "LIST", value_parser = comma_list::<Transport>())]
    pub via: Option<List<Transport>>,
    /// Placement: same (one core), split (two cores) or none (the scheduler's choice).
    #[arg(long, default_value = "split", value_name = "WHERE", value_parser = parsed::<Pin>())]
    pub pin: Pin,
    /// Busy-wait instead of sleeping on a futex in the shm transport.
    #[arg(long)]
    pub spin: bool,
    /// Keep adding rounds until every size's 95% CI half-width is within
    /// this share of its median, e.g. 2% (more than 0, less than 50%), or
    /// until --max-time.
    #[arg(long, value_name = "PCT", allow_hyphen_values = true, value_parser = ci_share())]
    pub ci: Option<f64>,
    /// With --ci: the most one series may spend on rounds, e.g. 30s, 2m.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "60s",
        allow_hyphen_values = true,
        value_parser = time_in(Duration::from_millis(1), Duration::from_secs(86_400))
    )]
    pub max_time: Duration,
    /// Rounds per size, every size once a round (1 to 100000): the least
    /// number with --ci.
    #[arg(long, default_value_t = 10, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub trials: u32,
    /// Warm-up per size, in milliseconds (0 to 60000).
    #[arg(long, default_value_t = 100, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(0..=60_000))]
    pub warmup_ms: u64,
    /// Target length of one timed batch, in milliseconds (1 to 10000).
    #[arg(long, default_value_t = 10, value_name = "MS",
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub batch_ms: u64,
    /// Run the peer on another host, started there by `ssh HOST toll agent`
    /// (toll must be on that host's PATH); the data crosses the network over tcp.
    #[arg(long, value_name = "HOST", conflicts_with_all = ["remote_cmd", "link"])]
    pub remote: Option<String>,
    /// Like --remote, with any command that runs `toll agent` on the far
    /// host, e.g. 'ip netns exec B /usr/local/bin/toll agent'.
    #[arg(long, value_name = "CMD", conflicts_with = "link")]
    pub remote_cmd: Option<String>,
    /// With --remote or --remote-cmd: this machine's address as the far host
    /// reaches it (default: the address ssh came from, else this machine's
    /// address on the route to the far host).
    #[arg(long, value_name = "IP")]
    pub remote_addr: Option<String>,
    /// Run the peer across an emulated link: loopback, lan (100 Mbit/s,
    /// 0.1 ms), wan (1.5 Mbit/s, 30 ms ± 5 ms) or
    /// delay=30ms,rate=1.5mbit,jitter=5ms. Builds network namespaces: needs root.
    #[arg(long, value_name = "LINK")]
    pub link: Option<String>,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw the points with their CIs and the fitted lines to an SVG file.
    #[arg(long, value_name = "FILE.svg", value_parser = crate::parsers::svg_file())]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub scale: PlotScale,
}

/// --sizes: a list and/or ranges, or `e1`, E1's own.
fn sizes(_flag: &str, text: &str) -> anyhow::Result<Sizes> {
    match text.trim() {
        "e1" | "E1" => parse_sizes(toll_families::transfer::E1_SIZES),
        other => parse_sizes(other),
    }
    .map_err(|e| usage(e.to_string()))
}
