//! What the kernel and the machine do to every crossing, beside the CPU
//! model: SMT, the microcode, turbo, the clock source, a container and its
//! seccomp filter, each speculative-execution mitigation, and the kernel
//! flags that change them. A system call costs several times more with
//! page-table isolation; a container's seccomp filter runs on every call:
//! two runs that differ here differ for that reason first.

use serde::{Deserialize, Serialize};

/// The machine's platform, as read from /proc and /sys (each None or empty
/// where the kernel does not say).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Platform {
    /// SMT control: on, off, forceoff, notsupported, notimplemented.
    pub smt: Option<String>,
    /// The CPU's microcode revision (/proc/cpuinfo).
    pub microcode: Option<String>,
    /// Turbo/boost on (cpufreq's `boost`, or intel_pstate's `no_turbo` read
    /// the other way round).
    pub boost: Option<bool>,
    /// The clock source the kernel reads time from (tsc, kvm-clock, hpet…).
    pub clock_source: Option<String>,
    /// The container toll runs in (docker, podman, kubernetes, lxc…).
    pub container: Option<String>,
    /// This process's seccomp mode: 0 none, 1 strict, 2 a filter.
    pub seccomp: Option<u32>,
    /// Each entry of /sys/devices/system/cpu/vulnerabilities: (name, state).
    pub mitigations: Vec<(String, String)>,
    /// The kernel command line's flags that change the figures
    /// (`mitigations=`, `nosmt`, `pti=`, `isolcpus=`, …).
    pub kernel_flags: Vec<String>,
}

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The command line's flags that change what toll measures.
pub fn figure_flags(cmdline: &str) -> Vec<String> {
    const PREFIXES: [&str; 14] = [
        "mitigations=",
        "nosmt",
        "pti=",
        "nopti",
        "spectre_v2=",
        "nospectre",
        "retbleed=",
        "isolcpus=",
        "nohz_full=",
        "idle=",
        "processor.max_cstate=",
        "intel_idle.max_cstate=",
        "intel_pstate=",
        "clocksource=",
    ];
    cmdline
        .split_whitespace()
        .filter(|w| PREFIXES.iter().any(|p| w.starts_with(p)))
        .map(String::from)
        .collect()
}

/// A container, from the markers the runtimes leave: /.dockerenv,
/// /run/.containerenv, `container=` in PID 1's environment as systemd
/// reads it, and the cgroup path.
fn container() -> Option<String> {
    if std::path::Path::new("/.dockerenv").exists() {
        return Some("docker".into());
    }
    if std::path::Path::new("/run/.containerenv").exists() {
        return Some("podman".into());
    }
    if let Ok(c) = std::env::var("container") {
        if !c.is_empty() {
            return Some(c);
        }
    }
    let cgroup = read("/proc/self/cgroup").unwrap_or_default();
    ["kubepods", "docker", "containerd", "lxc", "libpod"]
        .into_iter()
        .find(|m| cgroup.contains(m))
        .map(String::from)
}

/// This process's seccomp mode, from /proc/self/status.
fn seccomp(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Seccomp:"))
        .and_then(|v| v.trim().parse().ok())
}

impl Platform {
    /// Read this machine's platform.
    pub fn capture() -> Platform {
        let cpuinfo = read("/proc/cpuinfo").unwrap_or_default();
        let microcode = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("microcode"))
            .and_then(|v| v.split(':').nth(1))
            .map(|v| v.trim().to_string());
        let boost = read("/sys/devices/system/cpu/cpufreq/boost")
            .map(|b| b == "1")
            .or_else(|| read("/sys/devices/system/cpu/intel_pstate/no_turbo").map(|n| n == "0"));
        let mut mitigations: Vec<(String, String)> =
            std::fs::read_dir("/sys/devices/system/cpu/vulnerabilities")
                .map(|d| {
                    d.flatten()
                        .filter_map(|e| {
                            let name = e.file_name().to_string_lossy().into_owned();
                            let state = read(&e.path().to_string_lossy())?;
                            Some((name, state))
                        })
                        .collect()
                })
                .unwrap_or_default();
        mitigations.sort();
        Platform {
            smt: read("/sys/devices/system/cpu/smt/control"),
            microcode,
            boost,
            clock_source: read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
            container: container(),
            seccomp: seccomp(&read("/proc/self/status").unwrap_or_default()),
            mitigations,
            kernel_flags: figure_flags(&read("/proc/cmdline").unwrap_or_default()),
        }
    }

    /// The platform as (name, words) rows, for `show` and `compare`.
    pub fn rows(&self) -> Vec<(String, String)> {
        let or = |v: &Option<String>| v.clone().unwrap_or_else(|| "–".into());
        let mut rows = vec![
            ("smt".to_string(), or(&self.smt)),
            ("microcode".into(), or(&self.microcode)),
            (
                "boost".into(),
                self.boost
                    .map_or("–".into(), |b| if b { "on" } else { "off" }.into()),
            ),
            ("clock source".into(), or(&self.clock_source)),
            (
                "container".into(),
                self.container.clone().unwrap_or_else(|| "none".into()),
            ),
            (
                "seccomp".into(),
                match self.seccomp {
                    Some(0) => "none".into(),
                    Some(1) => "strict".into(),
                    Some(2) => "a filter".into(),
                    Some(k) => k.to_string(),
                    None => "–".into(),
                },
            ),
            (
                "kernel flags".into(),
                if self.kernel_flags.is_empty() {
                    "none that change the figures".into()
                } else {
                    self.kernel_flags.join(" ")
                },
            ),
        ];
        // The ones that cost something or leave a hole, each with its
        // state; the rest counted.
        let (clear, named): (Vec<_>, Vec<_>) = self
            .mitigations
            .iter()
            .partition(|(_, state)| state == "Not affected");
        if !self.mitigations.is_empty() {
            let mut words: Vec<String> = named.iter().map(|(n, s)| format!("{n}: {s}")).collect();
            if !clear.is_empty() {
                words.push(format!("{} more not affected", clear.len()));
            }
            rows.push(("mitigations".into(), words.join("; ")));
        }
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_flags_that_change_figures_are_kept() {
        let cmdline = "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet mitigations=off nosmt isolcpus=2,3 console=ttyS0";
        assert_eq!(
            figure_flags(cmdline),
            ["mitigations=off", "nosmt", "isolcpus=2,3"]
        );
    }

    #[test]
    fn the_seccomp_mode_reads_from_status() {
        assert_eq!(
            seccomp("Name:\ttoll\nSeccomp:\t2\nSeccomp_filters:\t1\n"),
            Some(2)
        );
        assert_eq!(seccomp("Name:\ttoll\n"), None);
    }

    #[test]
    fn this_machine_is_read_and_shown() {
        let p = Platform::capture();
        let rows = p.rows();
        assert!(rows.iter().any(|(k, _)| k == "clock source"));
        if std::path::Path::new("/sys/devices/system/cpu/vulnerabilities").exists() {
            assert!(!p.mitigations.is_empty(), "{p:?}");
        }
    }
}
