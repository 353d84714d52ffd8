//! Tests of the fingerprint's parsers on fixed text.

use super::*;

/// Two sockets × one core × two threads, in a VM.
const CPUINFO_X86: &str = "\
processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz
physical id\t: 0
core id\t\t: 0
flags\t\t: fpu vme de pse tsc hypervisor lahf_lm

processor\t: 1
model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz
physical id\t: 0
core id\t\t: 0
flags\t\t: fpu vme de pse tsc hypervisor lahf_lm

processor\t: 2
model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz
physical id\t: 1
core id\t\t: 0
flags\t\t: fpu vme de pse tsc hypervisor lahf_lm

processor\t: 3
model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz
physical id\t: 1
core id\t\t: 0
flags\t\t: fpu vme de pse tsc hypervisor lahf_lm
";

/// A Raspberry Pi: no model name per CPU, no topology, no flags.
const CPUINFO_ARM: &str = "\
processor\t: 0
BogoMIPS\t: 108.00
Features\t: fp asimd evtstrm crc32 cpuid
CPU part\t: 0xd08

processor\t: 1
BogoMIPS\t: 108.00
Features\t: fp asimd evtstrm crc32 cpuid
CPU part\t: 0xd08

Hardware\t: BCM2835
Model\t\t: Raspberry Pi 4 Model B Rev 1.4
";

#[test]
fn cpuinfo_x86_with_hyperthreads_in_a_vm() {
    assert_eq!(
        parse_cpuinfo(CPUINFO_X86),
        CpuInfo {
            model: "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz".into(),
            logical: 4,
            physical: 2,
            hypervisor: true,
        }
    );
}

#[test]
fn cpuinfo_arm_without_topology() {
    assert_eq!(
        parse_cpuinfo(CPUINFO_ARM),
        CpuInfo {
            model: "BCM2835".into(),
            logical: 2,
            physical: 0,
            hypervisor: false,
        }
    );
    assert_eq!(parse_cpuinfo(""), CpuInfo::default());
}

#[test]
fn os_release_pretty_name() {
    let text =
        "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n";
    assert_eq!(
        parse_os_release(text).as_deref(),
        Some("Debian GNU/Linux 12 (bookworm)")
    );
    assert_eq!(
        parse_os_release("PRETTY_NAME=Alpine\n").as_deref(),
        Some("Alpine")
    );
    assert_eq!(parse_os_release("ID=arch\n"), None);
    assert_eq!(parse_os_release("PRETTY_NAME=\"\"\n"), None);
}

#[test]
fn meminfo_total_in_bytes() {
    let text = "MemTotal:       16323412 kB\nMemFree:         1234567 kB\n";
    assert_eq!(parse_meminfo(text), 16_323_412 * 1024);
    assert_eq!(parse_meminfo("MemFree: 1 kB\n"), 0);
    assert_eq!(parse_meminfo("MemTotal: lots\n"), 0);
}

#[test]
fn loadavg_fields() {
    assert_eq!(
        parse_loadavg("0.52 1.25 2.00 3/812 4974\n"),
        [0.52, 1.25, 2.0]
    );
    assert_eq!(parse_loadavg(""), [0.0; 3]);
    assert_eq!(parse_loadavg("0.5 x"), [0.5, 0.0, 0.0]);
}

#[test]
fn stat_cpu_line_and_busy_share() {
    let a = "cpu  100 0 50 800 50 0 0 0 30 0\ncpu0 50 0 25 400 25 0 0 0 0 0\n";
    let b = "cpu  400 0 150 1100 50 0 0 0 60 0\ncpu0 1 1 1 1\n";
    let (a, b) = (parse_stat_cpu(a).unwrap(), parse_stat_cpu(b).unwrap());
    // Guest time (30, 60) is inside user already and is not added again.
    assert_eq!(
        a,
        CpuTimes {
            idle: 850,
            total: 1000
        }
    );
    assert_eq!(
        b,
        CpuTimes {
            idle: 1150,
            total: 1700
        }
    );
    // 700 jiffies passed, 300 of them idle: 4/7 busy.
    assert!((others_busy_between(a, b, 0) - 4.0 / 7.0).abs() < 1e-12);
    assert_eq!(others_busy_between(a, a, 0), 0.0);
    assert_eq!(others_busy_between(b, a, 0), 0.0);
    assert_eq!(parse_stat_cpu("cpu0 1 2 3 4\n"), None);
    assert_eq!(parse_stat_cpu("cpu  1 2\n"), None);
}

#[test]
fn busy_warning_counts_other_processes_not_the_load_average() {
    let calm = Fingerprint {
        logical_cpus: 2,
        busy_fraction: 0.05,
        ..Fingerprint::default()
    };
    assert_eq!(calm.busy_warning(), None);
    // A high load average left by an earlier run is no reason to warn: only
    // what other processes did just now counts.
    let after_a_run = Fingerprint {
        load_average: [2.48, 1.0, 0.5],
        ..calm.clone()
    };
    assert_eq!(after_a_run.busy_warning(), None);

    let loaded = Fingerprint {
        busy_fraction: 0.5,
        busiest: Some(("cargo".into(), 0.97)),
        ..calm.clone()
    };
    assert_eq!(
        loaded.busy_warning().as_deref(),
        Some(
            "machine is busy: other processes used 50% of 2 CPUs just before the run \
             (busiest: cargo, 97% of a CPU) — results will be noisy; let that work finish \
             or stop it, then run again"
        )
    );
    let unnamed = Fingerprint {
        busy_fraction: 0.4,
        ..calm.clone()
    };
    let w = unnamed.busy_warning().unwrap();
    assert!(
        w.contains("used 40% of 2 CPUs just before the run —"),
        "{w}"
    );
    assert!(!w.contains("--pin"), "{w}");
    // Exactly at the threshold is still calm.
    let edge = Fingerprint {
        busy_fraction: 0.25,
        ..calm
    };
    assert_eq!(edge.busy_warning(), None);
    assert!(Fingerprint::default().busy_warning().is_none());
}

#[test]
fn proc_stat_lines_give_name_and_cpu_ticks() {
    let line =
        "4974 (my (odd) prog) S 1 4974 4974 0 -1 4194560 100 0 0 0 250 31 0 0 20 0 1 0 77 0 0";
    assert_eq!(parse_proc_stat(line), Some(("my (odd) prog".into(), 281)));
    assert_eq!(parse_children_ticks(line), Some(0));
    let reaped = "4974 (sh) S 1 4974 4974 0 -1 4194560 100 0 0 0 250 31 40 2 20 0 1 0 77 0 0";
    assert_eq!(parse_children_ticks(reaped), Some(42));
    assert_eq!(parse_proc_stat("12 (x) S 1 2"), None);
    assert_eq!(parse_proc_stat(""), None);
}

#[test]
fn own_time_is_not_counted_as_others_busy() {
    let a = CpuTimes { idle: 0, total: 0 };
    let b = CpuTimes {
        idle: 50,
        total: 100,
    };
    assert!((others_busy_between(a, b, 0) - 0.5).abs() < 1e-12);
    assert!((others_busy_between(a, b, 30) - 0.2).abs() < 1e-12);
    assert_eq!(others_busy_between(a, b, 80), 0.0);
}

#[test]
fn a_process_that_kept_a_cpu_busy_is_named() {
    use std::collections::HashMap;
    let before: HashMap<u32, (String, u64)> = [
        (1, ("idle".into(), 10)),
        (2, ("spin".into(), 100)),
        (9, ("toll".into(), 0)),
    ]
    .into();
    let after: HashMap<u32, (String, u64)> = [
        (1, ("idle".into(), 10)),
        (
            2,
            ("spin".into(), 100 + (clock_ticks_per_second() * 0.3) as u64),
        ),
        (9, ("toll".into(), 1000)),
    ]
    .into();
    let got = busiest_process(&before, &after, 9, Duration::from_millis(300)).unwrap();
    assert_eq!(got.0, "spin");
    assert!((got.1 - 1.0).abs() < 0.05, "{got:?}");
    let quiet: HashMap<u32, (String, u64)> = [(2, ("spin".into(), 100))].into();
    assert_eq!(
        busiest_process(&before, &quiet, 9, Duration::from_millis(300)),
        None
    );
}

#[test]
fn capture_reads_this_machine() {
    let toolchains = vec![("rustc".to_string(), "1.85.0".to_string())];
    let f = Fingerprint::capture(toolchains.clone());
    assert!(f.logical_cpus >= 1);
    assert!(f.physical_cores >= 1 && f.physical_cores <= f.logical_cpus);
    assert!((0.0..=1.0).contains(&f.busy_fraction));
    assert_eq!(f.toolchains, toolchains);
    if cfg!(target_os = "linux") {
        assert!(!f.kernel.is_empty() && f.memory_bytes > 0, "{f:?}");
    }
    let back: Fingerprint = serde_json::from_str(&serde_json::to_string(&f).unwrap()).unwrap();
    assert_eq!(back, f);
}
