//! Where the harness and its peer run. On a small machine placement decides
//! latency by ~10× (waking another core costs tens of µs), so it is part of
//! every result.

use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// What the user asked for with `--pin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pin {
    /// Both ends on one core.
    Same,
    /// The ends on two different cores.
    Split,
    /// Left to the scheduler.
    None,
}

impl Pin {
    /// The default placement, stated in every output.
    pub const DEFAULT: Pin = Pin::Split;

    pub fn name(self) -> &'static str {
        match self {
            Pin::Same => "same",
            Pin::Split => "split",
            Pin::None => "none",
        }
    }
}

impl fmt::Display for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Pin {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "same" => Ok(Pin::Same),
            "split" => Ok(Pin::Split),
            "none" => Ok(Pin::None),
            _ => Err(format!(
                "unknown placement `{s}`: valid placements are same, split, none"
            )),
        }
    }
}

/// The cores chosen for a placement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    pub pin: Pin,
    /// The harness's core (None: the scheduler's choice).
    pub harness_cpu: Option<usize>,
    /// The peer's core (None: the scheduler's choice).
    pub peer_cpu: Option<usize>,
}

/// Why a placement cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum PlacementError {
    #[error("--pin split needs two CPUs, but toll may only use {0}: use --pin same or --pin none")]
    TooFewCpus(usize),
    #[error("cannot set CPU affinity: {0}")]
    Affinity(#[from] nix::Error),
}

fn allowed_cpus() -> Result<Vec<usize>, PlacementError> {
    let set = sched_getaffinity(Pid::from_raw(0))?;
    Ok((0..CpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .collect())
}

impl Placement {
    /// Choose cores for `pin` among those this process may use.
    pub fn choose(pin: Pin) -> Result<Placement, PlacementError> {
        let cpus = allowed_cpus()?;
        let (harness_cpu, peer_cpu) = match pin {
            Pin::None => (None, None),
            Pin::Same => (cpus.first().copied(), cpus.first().copied()),
            Pin::Split if cpus.len() < 2 => return Err(PlacementError::TooFewCpus(cpus.len())),
            Pin::Split => (Some(cpus[0]), Some(cpus[1])),
        };
        Ok(Placement {
            pin,
            harness_cpu,
            peer_cpu,
        })
    }

    /// Run `start` (which spawns the peer) with this thread on the peer's core,
    /// so the child inherits it, then move this thread to the harness's core.
    pub fn spawn_on_peer_cpu<T>(&self, start: impl FnOnce() -> T) -> Result<T, PlacementError> {
        if let Some(cpu) = self.peer_cpu {
            pin_self(cpu)?;
        }
        let out = start();
        if let Some(cpu) = self.harness_cpu {
            pin_self(cpu)?;
        }
        Ok(out)
    }

    /// A short description, e.g. `split (harness cpu0, peer cpu1)`.
    pub fn describe(&self) -> String {
        match (self.harness_cpu, self.peer_cpu) {
            (Some(h), Some(p)) => format!("{} (harness cpu{h}, peer cpu{p})", self.pin),
            _ => format!("{} (the scheduler places both)", self.pin),
        }
    }
}

fn pin_self(cpu: usize) -> Result<(), PlacementError> {
    let mut set = CpuSet::new();
    set.set(cpu)?;
    sched_setaffinity(Pid::from_raw(0), &set)?;
    Ok(())
}

/// The CPU a process (0 = this one) last ran on, from /proc/PID/stat.
pub fn last_cpu(pid: u32) -> Option<usize> {
    let path = if pid == 0 {
        "/proc/thread-self/stat".to_string()
    } else {
        format!("/proc/{pid}/stat")
    };
    let stat = std::fs::read_to_string(path).ok()?;
    // Field 39 ("processor"), counting from the state, which follows the ')'.
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(36)?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_describes() {
        assert_eq!("split".parse::<Pin>(), Ok(Pin::Split));
        assert!("both"
            .parse::<Pin>()
            .unwrap_err()
            .contains("same, split, none"));
        let p = Placement {
            pin: Pin::Same,
            harness_cpu: Some(0),
            peer_cpu: Some(0),
        };
        assert_eq!(p.describe(), "same (harness cpu0, peer cpu0)");
    }

    #[test]
    fn reads_own_cpu() {
        let cpu = last_cpu(0).expect("own cpu");
        assert!(allowed_cpus().unwrap().contains(&cpu));
    }
}
