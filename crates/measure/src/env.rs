//! The environment fingerprint stored with every run.
//!
//! Everything is read best-effort from Linux's /proc, /sys and /etc: a file
//! that is missing or unreadable leaves its field at the default (empty,
//! zero, None), so capturing never fails and never panics.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::fs;
use std::thread;
use std::time::Duration;

/// What machine a run was measured on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// The machine's host name.
    pub hostname: String,
    /// CPU model, from /proc/cpuinfo.
    pub cpu_model: String,
    /// Logical CPUs (hardware threads) the kernel lists.
    pub logical_cpus: u32,
    /// Distinct physical cores; the logical count where the topology is not shown.
    pub physical_cores: u32,
    /// cpufreq scaling governor of CPU 0 (`performance`, `powersave`, …), if any.
    pub governor: Option<String>,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// Distribution, from /etc/os-release PRETTY_NAME.
    pub distribution: String,
    /// Total memory, bytes.
    pub memory_bytes: u64,
    /// The hypervisor's vendor when running in a virtual machine; None on bare metal.
    pub virtualization: Option<String>,
    /// 1-, 5- and 15-minute load averages.
    pub load_average: [f64; 3],
    /// Share of all CPUs (0–1) that other processes kept busy over a short
    /// window just before the run: /proc/stat's busy time less toll's own.
    pub busy_fraction: f64,
    /// The process that used the most CPU in that window, when one was busy:
    /// (command name, share of one CPU).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub busiest: Option<(String, f64)>,
    /// (tool, version) of each toolchain used.
    pub toolchains: Vec<(String, String)>,
    /// The placement probe: a thread's wake-up on the same core and across
    /// cores (None in runs stored before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wakeup: Option<crate::wakeup::WakeUp>,
    /// SMT, microcode, boost, clock source, container, seccomp, each
    /// mitigation and the kernel flags that change the figures (None in
    /// runs stored before they were read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<crate::platform::Platform>,
}

/// How long CPU use is sampled for `busy_fraction`: long enough to see a
/// steady load, short enough that a run that just ended (toll's own previous
/// run, say) no longer counts, as it would in the load average.
const BUSY_SAMPLE: Duration = Duration::from_millis(300);

impl Fingerprint {
    /// Read the fingerprint of this machine (takes ~300 ms to sample CPU use).
    pub fn capture(toolchains: Vec<(String, String)>) -> Fingerprint {
        let before = parse_stat_cpu(&read("/proc/stat"));
        let procs_before = process_times();
        let cpu = parse_cpuinfo(&read("/proc/cpuinfo"));
        let logical_cpus = if cpu.logical > 0 {
            cpu.logical
        } else {
            thread::available_parallelism()
                .map_or(1, |n| u32::try_from(n.get()).unwrap_or(u32::MAX))
        };
        let virtualization = cpu.hypervisor.then(|| {
            [
                "/sys/class/dmi/id/sys_vendor",
                "/sys/class/dmi/id/product_name",
            ]
            .iter()
            .map(|path| read(path).trim().to_string())
            .find(|vendor| !vendor.is_empty())
            .unwrap_or_else(|| "hypervisor".to_string())
        });
        let distribution = parse_os_release(&read("/etc/os-release"))
            .or_else(|| parse_os_release(&read("/usr/lib/os-release")))
            .unwrap_or_default();
        let governor = read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
        let governor = Some(governor.trim().to_string()).filter(|g| !g.is_empty());
        let fingerprint = Fingerprint {
            hostname: nix::unistd::gethostname()
                .map(|h| h.to_string_lossy().into_owned())
                .unwrap_or_default(),
            cpu_model: cpu.model,
            logical_cpus,
            physical_cores: if cpu.physical > 0 {
                cpu.physical
            } else {
                logical_cpus
            },
            governor,
            kernel: nix::sys::utsname::uname()
                .map(|u| u.release().to_string_lossy().into_owned())
                .unwrap_or_default(),
            distribution,
            memory_bytes: parse_meminfo(&read("/proc/meminfo")),
            virtualization,
            load_average: parse_loadavg(&read("/proc/loadavg")),
            busy_fraction: 0.0,
            busiest: None,
            toolchains,
            wakeup: None,
            platform: Some(crate::platform::Platform::capture()),
        };
        thread::sleep(BUSY_SAMPLE);
        let after = parse_stat_cpu(&read("/proc/stat"));
        let procs_after = process_times();
        let mine = std::process::id();
        let own = match (procs_before.get(&mine), procs_after.get(&mine)) {
            (Some(a), Some(b)) => b.1.saturating_sub(a.1),
            _ => 0,
        };
        let busy_fraction = match (before, after) {
            (Some(a), Some(b)) => others_busy_between(a, b, own),
            _ => 0.0,
        };
        let busiest = busiest_process(&procs_before, &procs_after, mine, BUSY_SAMPLE);
        Fingerprint {
            busy_fraction,
            busiest,
            // After the busy window, so its own threads do not count as busy.
            wakeup: crate::wakeup::probe_reused(),
            ..fingerprint
        }
    }

    /// A warning when other processes kept more than a quarter of the CPUs
    /// busy just before the run, naming the busiest and the remedy. toll's
    /// own earlier run does not count: the window is short and starts now.
    pub fn busy_warning(&self) -> Option<String> {
        if self.busy_fraction <= BUSY_SHARE {
            return None;
        }
        let cpus = self.logical_cpus.max(1);
        let unit = if cpus == 1 { "CPU" } else { "CPUs" };
        let who = match &self.busiest {
            Some((name, share)) => format!(" (busiest: {name}, {:.0}% of a CPU)", share * 100.0),
            None => String::new(),
        };
        Some(format!(
            "machine is busy: other processes used {:.0}% of {cpus} {unit} just before the run{who} — \
             results will be noisy; let that work finish or stop it, then run again",
            self.busy_fraction * 100.0
        ))
    }
}

/// This machine's CPU model, as the fingerprint records it.
pub fn cpu_model() -> String {
    parse_cpuinfo(&read("/proc/cpuinfo")).model
}

/// Other processes' CPU use over a stretch of measuring (a series), so a
/// table can say which rows were measured on a busy machine.
#[derive(Debug, Clone)]
pub struct OthersBusy {
    stat: Option<CpuTimes>,
    procs: std::collections::HashMap<u32, (String, u64)>,
    /// Reaped children's CPU ticks of toll and its peer at the start.
    children: std::collections::HashMap<u32, u64>,
    started: std::time::Instant,
}

/// Other processes that kept more than this share of the CPUs busy make a
/// measurement `busy`, as they make a run's start (see
/// [`Fingerprint::busy_warning`]).
pub const BUSY_SHARE: f64 = 0.25;

impl OthersBusy {
    /// Start watching; `ours` are toll's peers (their reaped children, a
    /// spawn's processes, are theirs too).
    pub fn start(ours: &[u32]) -> OthersBusy {
        let mine = std::process::id();
        OthersBusy {
            stat: parse_stat_cpu(&read("/proc/stat")),
            procs: process_times(),
            children: ours
                .iter()
                .chain(std::iter::once(&mine))
                .map(|&pid| (pid, children_ticks(pid)))
                .collect(),
            started: std::time::Instant::now(),
        }
    }

    /// Since the start: the share of all CPUs (0–1) that processes other
    /// than toll and `ours` (its peer) kept busy, and the busiest of them
    /// with its share of one CPU.
    pub fn share(&self, ours: &[u32]) -> (f64, Option<(String, f64)>) {
        let after = parse_stat_cpu(&read("/proc/stat"));
        let procs = process_times();
        let mine = std::process::id();
        let own: u64 = ours
            .iter()
            .chain(std::iter::once(&mine))
            .filter_map(|pid| {
                let after = procs.get(pid)?.1 + children_ticks(*pid);
                let before = self.procs.get(pid).map_or(0, |b| b.1)
                    + self.children.get(pid).copied().unwrap_or(0);
                Some(after.saturating_sub(before))
            })
            .sum();
        let share = match (self.stat, after) {
            (Some(a), Some(b)) => others_busy_between(a, b, own),
            _ => 0.0,
        };
        let mut busiest = None;
        let window = self.started.elapsed();
        let others: std::collections::HashMap<_, _> = procs
            .into_iter()
            .filter(|(pid, _)| !ours.contains(pid))
            .collect();
        if window > Duration::ZERO {
            busiest = busiest_process(&self.procs, &others, mine, window);
        }
        (share, busiest)
    }
}

/// CPU time (user + system, in clock ticks) of every process, by pid, with
/// its command name.
fn process_times() -> std::collections::HashMap<u32, (String, u64)> {
    let mut out = std::collections::HashMap::new();
    let Ok(dir) = fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(p) = parse_proc_stat(&read(&format!("/proc/{pid}/stat"))) {
            out.insert(pid, p);
        }
    }
    out
}

/// CPU ticks of a process's reaped children (cutime + cstime), 0 when unreadable.
fn children_ticks(pid: u32) -> u64 {
    parse_children_ticks(&read(&format!("/proc/{pid}/stat"))).unwrap_or(0)
}

/// cutime + cstime from one /proc/PID/stat line.
fn parse_children_ticks(text: &str) -> Option<u64> {
    let rest: Vec<&str> = text
        .get(text.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    // After the name: … utime(11) stime(12) cutime(13) cstime(14).
    Some(rest.get(13)?.parse::<u64>().ok()? + rest.get(14)?.parse::<u64>().ok()?)
}

/// (comm, utime + stime) from one /proc/PID/stat line. The command name is
/// in parentheses and may itself hold spaces or parentheses.
fn parse_proc_stat(text: &str) -> Option<(String, u64)> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // After the name: state(0) ppid(1) … utime(11) stime(12).
    let utime: u64 = rest.get(11)?.parse().ok()?;
    let stime: u64 = rest.get(12)?.parse().ok()?;
    Some((name, utime + stime))
}

/// The process other than `mine` that used the most CPU between two
/// samples `window` apart, with its share of one CPU; None below 10%.
fn busiest_process(
    before: &std::collections::HashMap<u32, (String, u64)>,
    after: &std::collections::HashMap<u32, (String, u64)>,
    mine: u32,
    window: Duration,
) -> Option<(String, f64)> {
    let ticks = clock_ticks_per_second() * window.as_secs_f64();
    after
        .iter()
        .filter(|(pid, _)| **pid != mine)
        .filter_map(|(pid, (name, t))| {
            let t0 = before.get(pid).map_or(0, |b| b.1);
            Some((name.clone(), t.checked_sub(t0)? as f64 / ticks))
        })
        .filter(|(_, share)| *share >= 0.1)
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

fn clock_ticks_per_second() -> f64 {
    nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
        .ok()
        .flatten()
        .map_or(100.0, |t| t as f64)
}

/// The file's text, or an empty string if it cannot be read.
fn read(path: &str) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

/// `key : value` lines, as /proc/cpuinfo and /proc/meminfo write them.
fn fields(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim(), v.trim()))
}

/// What /proc/cpuinfo says (zeros where it does not say).
#[derive(Debug, Default, PartialEq)]
struct CpuInfo {
    model: String,
    logical: u32,
    physical: u32,
    hypervisor: bool,
}

fn parse_cpuinfo(text: &str) -> CpuInfo {
    // x86 says "model name"; other architectures use one of the others.
    const MODEL_KEYS: [&str; 5] = ["model name", "cpu model", "Processor", "cpu", "Hardware"];
    let mut info = CpuInfo::default();
    let mut model_rank = MODEL_KEYS.len();
    let mut cores = BTreeSet::new();
    // Each processor's block is separated from the next by a blank line.
    for block in text.split("\n\n") {
        let (mut package, mut core) = (None, None);
        for (key, value) in fields(block) {
            match key {
                "processor" => info.logical += 1,
                "physical id" => package = Some(value),
                "core id" => core = Some(value),
                "flags" => info.hypervisor |= value.split_whitespace().any(|f| f == "hypervisor"),
                _ => {}
            }
            if let Some(rank) = MODEL_KEYS.iter().position(|k| *k == key) {
                if rank < model_rank && !value.is_empty() {
                    model_rank = rank;
                    info.model = value.to_string();
                }
            }
        }
        if let (Some(package), Some(core)) = (package, core) {
            cores.insert((package, core));
        }
    }
    info.physical = u32::try_from(cores.len()).unwrap_or(u32::MAX);
    info
}

/// PRETTY_NAME from os-release, unquoted.
fn parse_os_release(text: &str) -> Option<String> {
    text.lines()
        .find_map(|line| line.trim().strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
        .filter(|v| !v.is_empty())
}

/// MemTotal from /proc/meminfo, in bytes (0 if absent).
fn parse_meminfo(text: &str) -> u64 {
    fields(text)
        .find(|(key, _)| *key == "MemTotal")
        .and_then(|(_, value)| {
            let mut parts = value.split_whitespace();
            let amount: u64 = parts.next()?.parse().ok()?;
            let scale = match parts.next() {
                Some("kB") => 1024,
                _ => 1,
            };
            Some(amount.saturating_mul(scale))
        })
        .unwrap_or(0)
}

/// The three load averages from /proc/loadavg (zeros where unreadable).
fn parse_loadavg(text: &str) -> [f64; 3] {
    let mut load = [0.0; 3];
    for (slot, field) in load.iter_mut().zip(text.split_whitespace()) {
        *slot = field.parse().unwrap_or(0.0);
    }
    load
}

/// Idle and total jiffies of all CPUs together, from /proc/stat.
#[derive(Debug, Clone, Copy, PartialEq)]
struct CpuTimes {
    idle: u64,
    total: u64,
}

fn parse_stat_cpu(text: &str) -> Option<CpuTimes> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map_while(|f| f.parse().ok())
        .collect();
    if v.len() < 4 {
        return None;
    }
    // user nice system idle iowait irq softirq steal; guest time is already
    // counted in user and nice, so the later fields are left out.
    Some(CpuTimes {
        idle: v[3] + v.get(4).copied().unwrap_or(0),
        total: v.iter().take(8).sum(),
    })
}

/// Share of CPU time that was not idle (or waiting on I/O) between two
/// samples, less `own` ticks (toll's own use in the window).
fn others_busy_between(before: CpuTimes, after: CpuTimes, own: u64) -> f64 {
    let total = after.total.saturating_sub(before.total);
    if total == 0 {
        return 0.0;
    }
    let idle = after.idle.saturating_sub(before.idle);
    let busy = total.saturating_sub(idle).saturating_sub(own);
    (busy as f64 / total as f64).clamp(0.0, 1.0)
}

#[cfg(test)]
#[path = "env_tests.rs"]
mod tests;
