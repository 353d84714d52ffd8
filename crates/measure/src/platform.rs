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
    /// Transparent huge pages: always, madvise or never (None where the
    /// kernel has none, and in runs stored before it was read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thp: Option<String>,
    /// What takes memory back from under a run: a running DAMON scheme's
    /// action (`DAMON pageout`: cold pages written out, to be faulted in
    /// again), a virtio balloon (the host reclaims the guest's free pages,
    /// and backs them again on the next touch). Empty where none; None in
    /// runs stored before it was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reclaim: Option<Vec<String>>,
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

/// The choice in brackets of a sysfs selector such as THP's
/// `always [madvise] never`.
fn chosen(selector: &str) -> Option<String> {
    let start = selector.find('[')? + 1;
    let len = selector[start..].find(']')?;
    Some(selector[start..start + len].to_string())
}

/// What reclaims memory from under a run: each running kdamond's scheme
/// actions, and a virtio balloon device.
fn reclaim() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let kdamonds = std::path::Path::new("/sys/kernel/mm/damon/admin/kdamonds");
    for d in std::fs::read_dir(kdamonds).into_iter().flatten().flatten() {
        if read(&d.path().join("state").to_string_lossy()).as_deref() != Some("on") {
            continue;
        }
        let schemes = |ctx: &std::path::Path| -> Vec<String> {
            std::fs::read_dir(ctx.join("schemes"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|s| read(&s.path().join("action").to_string_lossy()))
                .collect()
        };
        let actions: Vec<String> = std::fs::read_dir(d.path().join("contexts"))
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|c| schemes(&c.path()))
            .collect();
        if actions.is_empty() {
            out.push("DAMON monitoring".into());
        }
        out.extend(actions.into_iter().map(|a| format!("DAMON {a}")));
    }
    let balloon = std::path::Path::new("/sys/bus/virtio/drivers/virtio_balloon");
    let bound = std::fs::read_dir(balloon)
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| e.file_name().to_string_lossy().starts_with("virtio"));
    if bound {
        out.push("virtio balloon".into());
    }
    out.sort();
    out.dedup();
    out
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
            thp: read("/sys/kernel/mm/transparent_hugepage/enabled").and_then(|s| chosen(&s)),
            reclaim: Some(reclaim()),
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
        // Read since: a run stored before has no row (not a difference).
        if let Some(thp) = &self.thp {
            rows.push(("transparent huge pages".into(), thp.clone()));
        }
        if let Some(r) = &self.reclaim {
            let words = if r.is_empty() {
                "none".to_string()
            } else {
                r.join(", ")
            };
            rows.push(("memory reclaim".into(), words));
        }
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
    fn the_chosen_setting_is_the_one_in_brackets() {
        assert_eq!(chosen("always [madvise] never").as_deref(), Some("madvise"));
        assert_eq!(chosen("[always] madvise never").as_deref(), Some("always"));
        assert_eq!(chosen("always madvise never"), None);
    }

    #[test]
    fn a_run_stored_before_thp_and_reclaim_were_read_has_no_rows_for_them() {
        let old: Platform = serde_json::from_str(
            r#"{"smt":"on","microcode":null,"boost":null,"clock_source":"tsc","container":null,
                "seccomp":0,"mitigations":[],"kernel_flags":[]}"#,
        )
        .unwrap();
        assert_eq!((old.thp.clone(), old.reclaim.clone()), (None, None));
        let keys: Vec<String> = old.rows().into_iter().map(|r| r.0).collect();
        assert!(!keys
            .iter()
            .any(|k| k == "transparent huge pages" || k == "memory reclaim"));
        let new = Platform {
            thp: Some("madvise".into()),
            reclaim: Some(vec!["DAMON pageout".into(), "virtio balloon".into()]),
            ..old
        };
        let rows = new.rows();
        assert!(rows.contains(&(
            "memory reclaim".into(),
            "DAMON pageout, virtio balloon".into()
        )));
        assert!(rows.contains(&("transparent huge pages".into(), "madvise".into())));
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
