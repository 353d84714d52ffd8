//! What `toll sys` is asked and what it measures: the crossings, the
//! series each is made of (the plan), and the results' shapes.

use super::caches::{self, Cache, Level};
use super::pairs::{self, Wake};
use toll_measure::{EngineConfig, SeriesFit, Summary};
use toll_store::StoreError;

/// The crossings, in the order they are measured and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Crossing {
    Syscall,
    Fault,
    Signal,
    Wake,
    Handoff,
    Memory,
    Copy,
}

impl Crossing {
    pub const ALL: [Crossing; 7] = [
        Crossing::Syscall,
        Crossing::Fault,
        Crossing::Signal,
        Crossing::Wake,
        Crossing::Handoff,
        Crossing::Memory,
        Crossing::Copy,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Crossing::Syscall => "syscall",
            Crossing::Fault => "fault",
            Crossing::Signal => "signal",
            Crossing::Wake => "wake",
            Crossing::Handoff => "handoff",
            Crossing::Memory => "memory",
            Crossing::Copy => "copy",
        }
    }
}

impl std::str::FromStr for Crossing {
    type Err = String;
    fn from_str(s: &str) -> Result<Crossing, String> {
        Crossing::ALL
            .into_iter()
            .find(|c| c.name() == s)
            .ok_or_else(|| {
                let all: Vec<&str> = Crossing::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "unknown crossing `{s}`: the crossings are {}",
                    all.join(", ")
                )
            })
    }
}

/// What `toll sys` is asked.
#[derive(Debug, Clone)]
pub struct SysConfig {
    pub only: Vec<Crossing>,
    pub engine: EngineConfig,
    /// Pages per mapping for the fault series.
    pub pages: Vec<u64>,
    /// Bytes per memcpy.
    pub copy_sizes: Vec<u64>,
    /// The largest working set of the chase, bytes.
    pub memory_top: u64,
    /// The chase's working sets where not every power of two from 4 KiB
    /// to `memory_top` (the quick atlas: the sizes its rows read).
    pub memory_sizes: Option<Vec<u64>>,
    /// The CPUs this process may run on (wake, handoff).
    pub cpus: Vec<usize>,
}

/// The default pages per mapping, bytes per copy.
pub const DEFAULT_PAGES: &str = "1,4,16,64,256";
pub const DEFAULT_COPY: &str = "64,1Ki,16Ki,256Ki,4Mi,32Mi";

/// The chase's default top: four times the last-level cache the kernel
/// reports (the range), or 64 MiB where it reports none.
pub fn default_memory_top() -> u64 {
    caches::reported()
        .iter()
        .map(|c| c.bytes)
        .max()
        .map_or(64 << 20, |llc| 4 * llc)
}

/// The caches the kernel reports for CPU 0 (data and unified).
pub fn reported_caches() -> Vec<Cache> {
    caches::reported()
}

/// How one series is measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Probe {
    Syscall,
    Vdso,
    Touch,
    MapUnmap,
    SignalSelf,
    Wake(Wake, usize, usize),
    Handoff(usize, usize),
    Memory,
    Copy,
    /// Not on this machine, and why (a handoff with one CPU).
    Unavailable(String),
}

impl Probe {
    pub fn describe(&self) -> String {
        match self {
            Probe::Syscall => "syscall(SYS_getppid)".into(),
            Probe::Vdso => "clock_gettime(CLOCK_MONOTONIC) through the vDSO".into(),
            Probe::Touch => "mmap n anonymous pages, write one byte per page, munmap".into(),
            Probe::MapUnmap => "mmap n anonymous pages, munmap (no touch)".into(),
            Probe::SignalSelf => "raise(SIGURG) to this thread, a counting handler".into(),
            Probe::Wake(k, a, b) => {
                format!("{}: CPU {a} to CPU {b} and back", pairs::wake_words(*k))
            }
            Probe::Handoff(a, b) => {
                format!("a cache line by compare-and-swap, CPU {a} ⇄ CPU {b}; one way")
            }
            Probe::Memory => "a random cycle of dependent loads, one per 64-byte line".into(),
            Probe::Copy => "memcpy of n bytes between two touched buffers".into(),
            Probe::Unavailable(why) => why.clone(),
        }
    }
}

/// One series to measure.
#[derive(Debug, Clone)]
pub struct Planned {
    pub label: String,
    pub crossing: Crossing,
    pub probe: Probe,
    pub ns: Vec<u64>,
    /// What one operation is ("call", "page", "byte", "load").
    pub per: &'static str,
    /// Fitted t(n) = α + β·n.
    pub fitted: bool,
}

/// The series `cfg` asks for, in order.
pub fn plan(cfg: &SysConfig) -> Vec<Planned> {
    let one = |label: &str, crossing, probe, per| Planned {
        label: label.into(),
        crossing,
        probe,
        ns: vec![0],
        per,
        fitted: false,
    };
    let (a, b) = (cfg.cpus[0], cfg.cpus.get(1).copied());
    let mut out = Vec::new();
    for &c in &cfg.only {
        match c {
            Crossing::Syscall => {
                out.push(one("syscall/getppid", c, Probe::Syscall, "call"));
                out.push(one("syscall/vdso-clock", c, Probe::Vdso, "call"));
            }
            Crossing::Fault => {
                for (label, probe) in [
                    ("fault/touch", Probe::Touch),
                    ("fault/map-unmap", Probe::MapUnmap),
                ] {
                    out.push(Planned {
                        label: label.into(),
                        crossing: c,
                        probe,
                        ns: cfg.pages.clone(),
                        per: "mapping",
                        fitted: true,
                    });
                }
            }
            Crossing::Signal => {
                out.push(one("signal/self", c, Probe::SignalSelf, "signal"));
                out.push(one(
                    "signal/process",
                    c,
                    Probe::Wake(Wake::SignalProcess, a, a),
                    "round trip",
                ));
            }
            Crossing::Wake => {
                for (kind, word) in [
                    (Wake::FutexThread, "futex-thread"),
                    (Wake::PipeThread, "pipe-thread"),
                    (Wake::PipeProcess, "pipe-process"),
                ] {
                    out.push(one(
                        &format!("wake/{word}/same-core"),
                        c,
                        Probe::Wake(kind, a, a),
                        "round trip",
                    ));
                    if let Some(b) = b {
                        out.push(one(
                            &format!("wake/{word}/cross-core"),
                            c,
                            Probe::Wake(kind, a, b),
                            "round trip",
                        ));
                    }
                }
            }
            Crossing::Handoff => {
                if cfg.cpus.len() < 2 {
                    out.push(one(
                        "handoff",
                        c,
                        Probe::Unavailable(
                            "a handoff needs two CPUs, and this process may use one".into(),
                        ),
                        "handoff",
                    ));
                }
                for &x in &cfg.cpus {
                    for &y in cfg.cpus.iter().filter(|&&y| y != x) {
                        out.push(one(
                            &format!("handoff/{x}-{y}"),
                            c,
                            Probe::Handoff(x, y),
                            "handoff",
                        ));
                    }
                }
            }
            Crossing::Memory => out.push(Planned {
                label: "memory/chase".into(),
                crossing: c,
                probe: Probe::Memory,
                ns: cfg
                    .memory_sizes
                    .clone()
                    .unwrap_or_else(|| caches::sizes(cfg.memory_top)),
                per: "load",
                fitted: false,
            }),
            Crossing::Copy => out.push(Planned {
                label: "copy/memcpy".into(),
                crossing: c,
                probe: Probe::Copy,
                ns: cfg.copy_sizes.clone(),
                per: "copy",
                fitted: true,
            }),
        }
    }
    out
}

#[derive(Debug, thiserror::Error)]
pub enum SysError {
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// One measured point.
#[derive(Debug, Clone)]
pub struct SysPoint {
    pub n: u64,
    /// ns per operation over the trials, or why there is none.
    pub result: Result<Summary, String>,
    /// Minor faults per page touched (the touch series).
    pub faults_per_page: Option<f64>,
}

/// One measured series.
#[derive(Debug, Clone)]
pub struct SysSeries {
    pub label: String,
    pub crossing: Crossing,
    pub per: &'static str,
    pub points: Vec<SysPoint>,
    pub fit: Option<SeriesFit>,
    /// The chase's steps (the memory series).
    pub levels: Option<Vec<Level>>,
    pub others_busy: f64,
    /// A one-point series' figure with its run-to-run term.
    pub figure: Option<toll_measure::run_to_run::Figure>,
}
