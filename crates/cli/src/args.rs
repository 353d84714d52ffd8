//! Raw command-line arguments (clap). Nothing below the CLI sees these types:
//! each command turns them into a validated config first.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Measure what it costs to cross a boundary, as t(n) = α + β·n.
#[derive(Debug, Parser)]
#[command(name = "toll", version, about, max_term_width = 100)]
pub struct Cli {
    /// Results database: a SQLite file, or a postgres://USER@HOST/DB URL for a
    /// shared store (default: $TOLL_DB, else the user's data directory).
    #[arg(long, global = true, value_name = "PATH|URL")]
    pub db: Option<PathBuf>,

    /// Check the arguments and the toolchains, say what would be measured,
    /// and exit without measuring or storing anything.
    #[arg(long, global = true)]
    pub dry_run: bool,

    /// Print tables and notes at their full width, unwrapped (by default
    /// every line fits a terminal of 100 columns).
    #[arg(long, global = true)]
    pub wide: bool,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Send n int32 items to a peer process over pipes, sockets or shared memory (E1).
    Transfer(TransferArgs),
    /// Make N units (processes, threads, tasks) that wait: µs and memory per unit (E2).
    Spawn(SpawnArgs),
    /// Pass a token M times round a ring of N units: ns per hop (E2).
    Ring(RingArgs),
    /// Load an HTTP server: ab's report and flags, wrk's speed, HDR percentiles (E5).
    Http(Box<HttpArgs>),
    /// Time whole programs, as hyperfine does: start-up vs per-iteration cost, user/sys/RSS (E5).
    Exec(Box<ExecArgs>),
    /// Read a file by read, pread, mmap or io_uring; sequential or random; cold or warm (E4).
    File(FileArgs),
    /// Time null remote calls: raw, HTTP/1.1, h2c, gRPC; direct or via a broker; blocking or pipelined (E3).
    Rpc(Box<RpcArgs>),
    /// Re-run the seed experiments E1–E5 as they were designed: the original figures beside this machine's, and what still holds.
    Replicate(ReplicateArgs),
    /// List stored runs, newest first.
    Runs(RunsArgs),
    /// Show one stored run in full (default: the newest).
    Show(ShowArgs),
    /// Stored runs as one self-contained HTML page with plots, or Markdown for an issue.
    Report(ReportArgs),
    /// Export a stored run as JSON or CSV (every sample).
    Export(ExportArgs),
    /// Load runs exported elsewhere (`toll export --format json`, `--json`) into this store.
    Import(ImportArgs),
    /// Delete stored runs.
    Rm(RmArgs),
    /// Compare two stored runs of one family: each point's change with its CI and Mann–Whitney p.
    Compare(RunCompareArgs),
    /// Predict t(n) with its CI from the newest stored model of a series.
    Predict(PredictArgs),
    /// Serve a results board over the store: machines side by side, runs, compare, seeds; an API to push to.
    Board(BoardArgs),
    /// Send a stored run to a results board (`toll board`), with a write token.
    Push(PushArgs),
    /// Which runtimes this machine has, what each can do, and how to add the rest.
    Doctor,
    /// Print a shell completion script: `toll completions bash > /etc/bash_completion.d/toll`.
    Completions(CompletionsArgs),
    /// Print toll's manual page (roff), or write one per command to a directory.
    Man(ManArgs),
    /// The far end of --remote: serve toll's control protocol on stdin/stdout
    /// (`ssh HOST toll agent` starts it; so can any launcher).
    Agent,
    /// Run the built-in Rust worker on stdin/stdout (toll starts it itself).
    #[command(hide = true)]
    Worker,
    /// Run the built-in Rust RPC server on stdin/stdout (spec/rpc.md; toll starts it itself).
    #[command(hide = true)]
    RpcServer,
}

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
    #[arg(long, value_name = "WHEN", default_value = "per-call")]
    pub lookup: String,
    /// Call styles, comma-separated: blocking (one call, wait, next) or
    /// pipelined (--in-flight calls outstanding per connection).
    #[arg(long, value_name = "LIST")]
    pub mode: Option<String>,
    /// Calls outstanding per connection when pipelined (1 to 1024).
    #[arg(
        long,
        value_name = "K",
        default_value = "8",
        allow_hyphen_values = true
    )]
    pub in_flight: String,
    /// Connections per series (1 to 1024); the calls are shared out over them.
    #[arg(
        long,
        value_name = "C",
        default_value = "1",
        allow_hyphen_values = true
    )]
    pub connections: String,
    /// The server's runtime: rust (built into toll), go or python.
    #[arg(long, value_name = "RUNTIME", default_value = "rust")]
    pub runtime: String,
    /// Call a server already running at HOST:PORT (one --stack, direct) instead of starting one.
    #[arg(long, value_name = "HOST:PORT", conflicts_with_all = ["remote", "remote_cmd", "link"])]
    pub server: Option<String>,
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
        allow_hyphen_values = true
    )]
    pub sizes: String,
    /// Calls per trial (E3: 1600), 1 to 10000000.
    #[arg(
        long,
        value_name = "N",
        default_value = "1600",
        allow_hyphen_values = true
    )]
    pub calls: String,
    /// Trials per point, in rounds (E3: 10), 1 to 10000.
    #[arg(
        long,
        value_name = "N",
        default_value = "10",
        allow_hyphen_values = true
    )]
    pub trials: String,
    /// Untimed calls per series before the first round.
    #[arg(
        long,
        value_name = "N",
        default_value = "200",
        allow_hyphen_values = true
    )]
    pub warmup: String,
    /// A call not answered within this stops the run (stored as partial), e.g. 5s, 500ms.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "5s",
        allow_hyphen_values = true
    )]
    pub timeout: String,
    /// Seed of the rounds' order.
    #[arg(long, default_value = "2003", value_name = "N")]
    pub seed: u64,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw the time per call by series (payload sweeps as lines) to an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The plot's axes: log where the values span decades (auto), or
    /// linear or log throughout.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
}

#[derive(Debug, Args)]
pub struct TransferArgs {
    /// Items per message: a list and/or ranges, e.g. 0:100000:10000 or
    /// 1k,64Ki,1Mi; `e1` is E1's own 0:100000:10000. The default mixes sizes
    /// near 0 (where α is measured) with E1's range (where β is).
    #[arg(
        long,
        default_value = "0,1,10,100,1k,4k,10k:100k:10k",
        value_name = "LIST",
        allow_hyphen_values = true
    )]
    pub sizes: String,
    /// Peers, comma-separated: rust, c, python, node, go, java, erlang, haskell,
    /// or all (every one this machine has; `toll doctor` lists them).
    #[arg(long, default_value = "rust", value_name = "LIST")]
    pub peer: String,
    /// Transports, comma-separated: pipe, unix, tcp, shm (default: all the peer supports).
    #[arg(long, value_name = "LIST")]
    pub via: Option<String>,
    /// Placement: same (one core), split (two cores) or none (the scheduler's choice).
    #[arg(long, default_value = "split", value_name = "WHERE")]
    pub pin: String,
    /// Busy-wait instead of sleeping on a futex in the shm transport.
    #[arg(long)]
    pub spin: bool,
    /// Keep adding rounds until every size's 95% CI half-width is within
    /// this share of its median, e.g. 2% (more than 0, less than 50%), or
    /// until --max-time.
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub ci: Option<String>,
    /// With --ci: the most one series may spend on rounds, e.g. 30s, 2m.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "60s",
        allow_hyphen_values = true
    )]
    pub max_time: String,
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
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The plot's axes: log where the values span decades (auto), or
    /// linear or log throughout.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
}

/// What `toll spawn` and `toll ring` share.
#[derive(Debug, Args)]
pub struct UnitArgs {
    /// Runtimes, comma-separated: rust, c, python, node, go, java, erlang, haskell, squeak,
    /// or all (every one this machine has; `toll doctor` lists them).
    #[arg(long, default_value = "all", value_name = "LIST")]
    pub runtime: String,
    /// Unit kinds, comma-separated: a unit (thread, goroutine, …), a pair
    /// (java/virtual-thread) or a class (os-process, os-thread, green). Default: all.
    #[arg(long, value_name = "LIST")]
    pub unit: Option<String>,
    /// Rounds, every N timed once a round in shuffled order (1 to 10000).
    #[arg(long, default_value_t = 5, value_name = "K",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub trials: u32,
    /// Time ceiling per point, in seconds (more than 0, at most 86400): a
    /// point that takes longer is stopped and failed.
    #[arg(
        long,
        default_value = "60",
        value_name = "SECONDS",
        allow_hyphen_values = true
    )]
    pub max_time: String,
    /// Memory ceiling per point, in MiB of the machine's memory (1 to
    /// 16777216): a point that takes more is stopped and failed.
    #[arg(long, default_value_t = 4096, value_name = "MIB",
          value_parser = clap::value_parser!(u64).range(1..=16_777_216))]
    pub max_mem: u64,
    /// The largest N accepted.
    #[arg(long, default_value_t = 1_000_000, value_name = "N")]
    pub max_units: u64,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw the cost per unit against N, one line per runtime and unit, to an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The plot's axes: log where the values span decades (auto), or
    /// linear or log throughout.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
}

#[derive(Debug, Args)]
pub struct SpawnArgs {
    /// How many units at each point: a list and/or ranges (1k, 10k,
    /// 1000:5000:1000); `e2` is E2's full range, 1000,10000,100000,300000.
    #[arg(
        short = 'n',
        long = "n",
        default_value = "100,1000,10000",
        value_name = "LIST",
        allow_hyphen_values = true
    )]
    pub n: String,
    #[command(flatten)]
    pub common: UnitArgs,
}

#[derive(Debug, Args)]
pub struct RingArgs {
    /// Units in the ring at each point (at least 2); `e2` is E2's 100,1000,10000
    /// with M = 1000.
    #[arg(
        short = 'n',
        long = "n",
        default_value = "10,100,1000",
        value_name = "LIST",
        allow_hyphen_values = true
    )]
    pub n: String,
    /// Times the token goes round the ring (default 100; 1000 with -n e2).
    #[arg(short = 'm', long = "m", value_name = "M", allow_hyphen_values = true)]
    pub m: Option<String>,
    /// The largest M accepted.
    #[arg(long, default_value_t = 1_000_000, value_name = "M")]
    pub max_rounds: u64,
    #[command(flatten)]
    pub common: UnitArgs,
}

/// `toll file`: which file, which readers, which reads, which cache state.
#[derive(Debug, Args)]
pub struct FileArgs {
    /// Read this file (opened read-only, never written) instead of toll's own.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["dir", "file_size"])]
    pub file: Option<PathBuf>,
    /// Where toll keeps its own file of random bytes, made once and reused
    /// (default: file/ in toll's cache directory, $TOLL_CACHE_DIR or ~/.cache/toll).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Size of toll's own file, e.g. 100M (E4's), 4Mi.
    #[arg(long, value_name = "BYTES", default_value = "100M")]
    pub file_size: String,
    /// Runtimes, comma-separated: rust (in toll), c, python, or all (every
    /// one of them this machine has).
    #[arg(long, default_value = "all", value_name = "LIST")]
    pub runtime: String,
    /// Methods, comma-separated; each is measured on every chosen runtime
    /// that has it. rust: read, pread, mmap-copy, mmap-slice, io_uring;
    /// c: pread, mmap; python: read, mmap-read, mmap-slice (E4's three).
    /// Default: all of each runtime's.
    #[arg(long, value_name = "LIST")]
    pub method: Option<String>,
    /// Patterns, comma-separated: seq (E4: 50- and 450-byte reads in turn
    /// through the file), random (E4: 450-byte reads at seeded random offsets).
    #[arg(long, default_value = "seq,random", value_name = "LIST")]
    pub pattern: String,
    /// Sweep the read size instead of E4's reads, e.g. 64,512,4Ki,64Ki:
    /// fits α (per read) and β (per byte) for each method.
    #[arg(long, value_name = "LIST", allow_hyphen_values = true)]
    pub sizes: Option<String>,
    /// Random reads per trial (E4: 200000); with --sizes, also the most
    /// sequential reads per trial (1 to 100000000).
    #[arg(
        long,
        default_value = "200000",
        value_name = "N",
        allow_hyphen_values = true
    )]
    pub reads: String,
    /// Cache state before each trial: cold (the file's pages evicted, as
    /// E4), warm (read once first), or both.
    #[arg(long, default_value = "both", value_name = "STATE")]
    pub cache: String,
    /// Cold trials also drop the machine's whole page cache (root only).
    #[arg(long)]
    pub drop_caches: bool,
    /// Trials per point, in rounds: every point once a round (1 to 1000).
    #[arg(
        long,
        default_value = "5",
        value_name = "N",
        allow_hyphen_values = true
    )]
    pub trials: String,
    /// Seed of the random offsets (the same offsets for every method).
    #[arg(long, default_value = "2010", value_name = "N")]
    pub seed: u64,
    /// Print the stored run as JSON on stdout instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Draw µs per read against the read size, one line per series, to an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The plot's axes: log where the values span decades (auto), or
    /// linear or log throughout.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
}

#[derive(Debug, Args)]
pub struct ReplicateArgs {
    /// Which experiments: E1, E2, E3, E4, E5, all, or a comma-separated list (E1,E5).
    #[arg(value_name = "E1|E2|E3|E4|E5|all")]
    pub experiments: String,
    /// Smaller sizes and fewer trials: all five in about 5 minutes on a 2-vCPU machine.
    #[arg(long)]
    pub quick: bool,
    /// The tests' preset: the smallest run that still fills every row.
    #[arg(long, hide = true, conflicts_with = "quick")]
    pub test_preset: bool,
    /// Print the stored tables as JSON on stdout instead of the text tables.
    #[arg(long)]
    pub json: bool,
    /// E5's servers listen on 127.0.0.1 from this port up, one port each
    /// (default: free ports the system picks).
    #[arg(long, value_name = "PORT")]
    pub port: Option<String>,
}

#[derive(Debug, Args)]
pub struct RunsArgs {
    /// Print the list as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Run id (default: the newest run).
    pub run: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Run ids, or `last` (default: the newest run).
    #[arg(value_name = "RUN")]
    pub runs: Vec<String>,
    /// Write to this file (whole or not at all) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// html (one self-contained page, plots inline) or md (GitHub Markdown,
    /// no plots). Default: md for an -o FILE.md, html otherwise.
    #[arg(long, value_name = "FORMAT", value_parser = ["html", "md"])]
    pub format: Option<String>,
    /// The plots' axes: log where the values span decades (auto), or
    /// linear or log throughout.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Run id, or `last`.
    pub run: String,
    /// json or csv.
    #[arg(long, default_value = "json")]
    pub format: String,
    /// Write to this file instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BoardArgs {
    #[command(subcommand)]
    pub command: Option<BoardCommand>,
    /// Address to listen on: loopback unless told otherwise (port 0: any
    /// free port; the board prints its URL).
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT")]
    pub listen: String,
    /// The largest run a push may send, e.g. 32Mi.
    #[arg(long, default_value = "32Mi", value_name = "SIZE")]
    pub max_body: String,
    /// Pushes a token may make a minute (after a burst of up to 10).
    #[arg(long, default_value_t = 60, value_name = "N")]
    pub writes_per_minute: u32,
}

#[derive(Debug, Subcommand)]
pub enum BoardCommand {
    /// Write tokens: who may push runs to the board.
    #[command(subcommand)]
    Token(TokenCommand),
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Make a token for NAME and print it once (only its hash is stored).
    Add { name: String },
    /// Revoke NAME's token.
    Rm { name: String },
    /// List the tokens' names.
    List,
}

#[derive(Debug, Args)]
pub struct PushArgs {
    /// Run id, or `last`.
    pub run: String,
    /// The board's URL, as `toll board` printed it: http://HOST:PORT.
    #[arg(long, value_name = "URL")]
    pub to: String,
    /// The write token (default: $TOLL_TOKEN).
    #[arg(long, env = "TOLL_TOKEN", hide_env_values = true, value_name = "TOKEN")]
    pub token: Option<String>,
}

/// Exit status of `toll compare`, for a CI job to gate on.
const COMPARE_EXIT: &str =
    "Exit status: 0 the comparison ran and --fail-on (if given) found nothing; \
3 --fail-on found what it names; 2 a mistake in the arguments (a bad run id, \
runs of two families); 1 any other error (no such run, an unreadable database).";

#[derive(Debug, Args)]
#[command(after_help = COMPARE_EXIT)]
pub struct RunCompareArgs {
    /// The base run: a run id from `toll runs`, or `last`.
    #[arg(value_name = "RUN_A")]
    pub a: String,
    /// The run compared with it (changes are B against A).
    #[arg(value_name = "RUN_B")]
    pub b: String,
    /// Significance level of the Mann–Whitney test: a point whose p is not
    /// below it is "~".
    #[arg(long, default_value = "0.05", value_name = "P")]
    pub alpha: String,
    /// Smallest change of a median that counts as slower or faster, e.g. 5%.
    #[arg(long, default_value = "0%", value_name = "PCT")]
    pub threshold: String,
    /// Exit with status 3 when some point is slower (regression), faster
    /// (improvement) or either (change), beyond --threshold.
    #[arg(long, value_name = "WHAT")]
    pub fail_on: Option<String>,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the comparison as one self-contained HTML page (each
    /// point's change with its CI as a bar against 0) to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// The family: transfer, spawn, ring, exec, file or rpc.
    pub family: String,
    /// The n to predict t(n) at (items, units, bytes, iterations: the family's n), e.g. 100000 or 100k.
    #[arg(short = 'n', value_name = "N", allow_hyphen_values = true)]
    pub n: String,
    /// The run to answer from (default: the newest complete run with the series).
    #[arg(long, value_name = "RUN")]
    pub run: Option<String>,
    /// The series by its label, as `toll show` prints it (rust/pipe, go/goroutine, …).
    #[arg(long, value_name = "LABEL")]
    pub series: Option<String>,
    /// transfer: the peer (rust, c, python, …).
    #[arg(long)]
    pub peer: Option<String>,
    /// transfer: the transport (pipe, unix, tcp, shm).
    #[arg(long)]
    pub via: Option<String>,
    /// transfer: the placement (same, split, none).
    #[arg(long)]
    pub pin: Option<String>,
    /// spawn, ring, file: the runtime (rust, go, java, …).
    #[arg(long)]
    pub runtime: Option<String>,
    /// spawn, ring: the unit (thread, process, goroutine, …).
    #[arg(long)]
    pub unit: Option<String>,
    /// file: the read method (read, pread, mmap-slice, …).
    #[arg(long)]
    pub method: Option<String>,
    /// file: the pattern (seq, random).
    #[arg(long)]
    pub pattern: Option<String>,
    /// file: the cache state (cold, warm).
    #[arg(long)]
    pub cache: Option<String>,
    /// exec: the command as written.
    #[arg(long)]
    pub command: Option<String>,
    /// rpc: the stack (raw, http1, h2, grpc).
    #[arg(long)]
    pub stack: Option<String>,
    /// rpc: the path (direct, broker-per-call, broker-once, haproxy, nginx).
    #[arg(long)]
    pub path: Option<String>,
    /// rpc: the call style (blocking, pipelined).
    #[arg(long)]
    pub mode: Option<String>,
    /// Print the answer as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// JSON files, each one run as `toll export RUN --format json` writes it.
    #[arg(required = true, value_name = "FILE.json")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RmArgs {
    /// Run ids to delete.
    #[arg(required = true)]
    pub runs: Vec<String>,
}

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

/// `toll exec CMD…`: hyperfine's flags with hyperfine's meaning.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// The commands to time; `{name}` is replaced by each value of a parameter.
    #[arg(value_name = "CMD", required = true)]
    pub commands: Vec<String>,
    /// Untimed runs of each command before the timed ones.
    #[arg(short = 'w', long, value_name = "N", default_value = "0")]
    pub warmup: String,
    /// Timed runs of each command, exactly (default: at least --min-runs, and enough for 3 s).
    #[arg(short = 'r', long, value_name = "N")]
    pub runs: Option<String>,
    /// The fewest timed runs of each command.
    #[arg(short = 'm', long, value_name = "N", default_value = "10")]
    pub min_runs: String,
    /// The most timed runs of each command.
    #[arg(short = 'M', long, value_name = "N")]
    pub max_runs: Option<String>,
    /// Bound on the whole measurement, e.g. 30s, 10m: a run still going then is killed.
    #[arg(
        long,
        value_name = "TIME",
        default_value = "10m",
        allow_hyphen_values = true
    )]
    pub max_time: String,
    /// Keep adding runs until every command's median has a 95% CI within
    /// this share of it, e.g. 2% (or until --max-time).
    #[arg(long, value_name = "PCT", allow_hyphen_values = true)]
    pub ci: Option<String>,
    /// Run this before each timed run, untimed (e.g. to clear a cache).
    #[arg(short = 'p', long, value_name = "CMD")]
    pub prepare: Option<String>,
    /// Run this once before each command's runs.
    #[arg(short = 's', long, value_name = "CMD")]
    pub setup: Option<String>,
    /// Run this once after each command's runs.
    #[arg(short = 'c', long, value_name = "CMD")]
    pub cleanup: Option<String>,
    /// Run the command directly, without a shell (no start-up to subtract).
    #[arg(short = 'N', long = "shell-none")]
    pub no_shell: bool,
    /// The shell that reads each command; its own start-up is measured and subtracted.
    #[arg(short = 'S', long, value_name = "SHELL", default_value = "sh")]
    pub shell: String,
    /// A parameter and its values: -L n 1000,10000 runs every command once per value.
    #[arg(short = 'L', long = "parameter-list", value_names = ["NAME", "VALUES"], num_args = 2, action = clap::ArgAction::Append, allow_hyphen_values = true)]
    pub parameter_list: Vec<String>,
    /// A numeric parameter from LO to HI in steps of --step.
    #[arg(short = 'P', long, value_names = ["NAME", "LO", "HI"], num_args = 3, allow_hyphen_values = true)]
    pub parameter_scan: Vec<String>,
    /// The step of --parameter-scan (default 1).
    #[arg(
        short = 'D',
        long = "step",
        value_name = "STEP",
        requires = "parameter_scan",
        allow_hyphen_values = true
    )]
    pub step: Option<String>,
    /// Time a command even when it exits with a failing status.
    #[arg(short = 'i', long = "ignore-failure")]
    pub ignore_failure: bool,
    /// The file each run reads as its stdin (default: none, /dev/null).
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Where each run's stdout goes: null (default), pipe, inherit, or a file.
    #[arg(long, value_name = "WHERE", default_value = "null")]
    pub output: String,
    /// Run toll and the commands on this CPU.
    #[arg(long, value_name = "CPU")]
    pub pin: Option<String>,
    /// The order of each round: alternate (A B, B A, …) or shuffle.
    #[arg(long, value_name = "ORDER", default_value = "alternate")]
    pub order: String,
    /// Names for the commands in the report, in order.
    #[arg(short = 'n', long = "command-name", value_name = "NAME")]
    pub command_names: Vec<String>,
    /// Compare with a stored `toll exec` run (its id, or `last`).
    #[arg(long, value_name = "RUN")]
    pub baseline: Option<String>,
    /// Draw t(n) against the parameter, with the fitted lines, to an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// The plot's axes: log where the values span decades (auto), or
    /// linear or log throughout.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
    /// Write hyperfine's JSON (times in seconds) with toll's figures to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Write hyperfine's CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Write hyperfine's Markdown table to FILE.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// Print the stored run as JSON instead of the report.
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;
    use toll_peers::Runtime;

    /// The help's list of peers and runtimes is written out by hand: it must
    /// name every runtime of the registry.
    #[test]
    fn help_names_every_runtime_of_the_registry() {
        let mut cli = Cli::command();
        for (sub, flag) in [
            ("transfer", "peer"),
            ("spawn", "runtime"),
            ("ring", "runtime"),
        ] {
            let cmd = cli.find_subcommand_mut(sub).unwrap();
            let arg = cmd
                .get_arguments()
                .find(|a| a.get_id() == flag)
                .unwrap_or_else(|| panic!("{sub} has --{flag}"));
            let help = arg.get_help().unwrap().to_string();
            // Squeak's worker spawns and rings only: transfer does not name it.
            for r in Runtime::ALL
                .into_iter()
                .filter(|r| sub != "transfer" || r.transfers())
            {
                assert!(
                    help.split([',', ' ', ':']).any(|w| w == r.name()),
                    "`toll {sub} --help` does not name {r}: {help}"
                );
            }
        }
    }
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write toll.1 and one toll-COMMAND.1 per command here (made if missing)
    /// instead of printing toll.1.
    #[arg(short, long, value_name = "DIR")]
    pub output: Option<PathBuf>,
}
