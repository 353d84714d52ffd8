//! The environment fingerprint stored with every run.

use serde::{Deserialize, Serialize};

/// What machine a run was measured on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub hostname: String,
    pub cpu_model: String,
    pub logical_cpus: u32,
    pub physical_cores: u32,
    pub governor: Option<String>,
    pub kernel: String,
    pub distribution: String,
    pub memory_bytes: u64,
    pub virtualization: Option<String>,
    pub load_average: [f64; 3],
    /// Share of all CPUs busy (0–1) just before the run, from /proc/stat.
    pub busy_fraction: f64,
    /// (tool, version) of each toolchain used.
    pub toolchains: Vec<(String, String)>,
}

impl Fingerprint {
    /// Read the fingerprint of this machine (takes ~200 ms to sample CPU use).
    pub fn capture(toolchains: Vec<(String, String)>) -> Fingerprint {
        todo!()
    }

    /// A warning when the machine looks busy, with its remedy.
    pub fn busy_warning(&self) -> Option<String> {
        todo!()
    }
}
