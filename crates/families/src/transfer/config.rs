//! What a `toll transfer` run is asked (its validated config), what it
//! gives back (each series' result), and why it can fail.

use crate::far::Far;
use crate::link::LinkError;
use crate::placement::{Pin, Placement, PlacementError};
use serde::Serialize;
use toll_measure::{EngineConfig, SeriesFit, Summary};
use toll_peers::{PeerError, Runtime, Transport};
use toll_store::{RunStatus, StoreError};

/// Bytes per item.
pub const ITEM_BYTES: u64 = 4;
/// The default sweep: sizes near 0, where α is measured rather than
/// extrapolated, and across E1's range, where β is.
pub const DEFAULT_SIZES: &str = "0,1,10,100,1k,4k,10k:100k:10k";
/// E1's own sizes (`--sizes e1`): 0, 10000, …, 100000 items.
pub const E1_SIZES: &str = "0:100000:10000";

/// A validated `toll transfer` request.
#[derive(Debug, Clone, Serialize)]
pub struct TransferConfig {
    pub sizes: Vec<u64>,
    pub peers: Vec<Runtime>,
    /// None: every transport each peer supports.
    pub transports: Option<Vec<Transport>>,
    pub pin: Pin,
    pub spin: bool,
    /// `engine.trials` is the number of rounds always taken.
    pub engine: EngineConfig,
    /// `--ci`: more rounds until every point's CI half-width is within this
    /// share of its median.
    pub ci_target: Option<f64>,
    /// `--max-time`: the most one series may spend on rounds past the minimum.
    pub max_time: std::time::Duration,
    /// Where the peer runs when it is not a child of toll on this machine.
    pub far: Option<Far>,
}

/// Why a transfer could not run, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    #[error(transparent)]
    Peer(#[from] PeerError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Placement(#[from] PlacementError),
    #[error("the {peer} peer does not support the {transport} transport (it supports {supported}): drop it from --via or pick another --peer")]
    Unsupported {
        peer: Runtime,
        transport: Transport,
        supported: String,
    },
    #[error("--spin with --pin same would have both ends spin on one core: use --pin split or drop --spin")]
    SpinOnOneCore,
    #[error("--spin applies only to the shm transport: add --via shm")]
    SpinWithoutShm,
    #[error("cannot make a scratch directory: {0}")]
    Scratch(std::io::Error),
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error("a peer on another host or across a link speaks tcp only, not {0}: use --via tcp")]
    FarTransport(Transport),
}

/// One measured series.
#[derive(Debug, Clone, Serialize)]
pub struct SeriesResult {
    pub label: String,
    pub peer: Runtime,
    pub transport: Transport,
    pub points: Vec<(u64, Summary)>,
    pub fit: Option<SeriesFit>,
    /// Rounds taken.
    pub rounds: usize,
    /// Sizes whose CI missed the `--ci` target when time ran out.
    pub missed: Vec<u64>,
    /// Share of all CPUs that other processes kept busy while the series
    /// was measured (see `toll_measure::env::OthersBusy`).
    pub others_busy: f64,
    /// The busiest of them, with its share of one CPU.
    pub busiest: Option<(String, f64)>,
    /// Why a size failed, when one did (the sizes after it were not tried).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl SeriesResult {
    /// Other processes kept the machine busy while this series was measured.
    pub fn busy(&self) -> bool {
        self.others_busy > toll_measure::env::BUSY_SHARE
    }
}

/// What a run produced.
#[derive(Debug)]
pub struct TransferOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub placement: Placement,
    pub series: Vec<SeriesResult>,
    /// Why the run stopped early, if it did.
    pub error: Option<TransferError>,
}
