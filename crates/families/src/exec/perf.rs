//! Cycles and instructions of a timed program, from the kernel's hardware
//! counters (perf_event_open(2)), when the kernel and the machine allow.
//!
//! The counters are opened on toll itself, disabled, with `inherit` and
//! `enable_on_exec`: toll never execs, so its own counter stays off; each
//! child gets a copy at fork that turns on when the child execs the
//! program (and so do the program's own children), and the kernel adds a
//! child's counts into toll's counter when it exits. Reset before a run
//! and read after `wait4`, the counter holds that run's cycles and
//! instructions, and nothing of toll's. User space only
//! (`exclude_kernel`), which `kernel.perf_event_paranoid` ≤ 2 allows.
//! A VM without a virtual PMU has no such counters: [`Counters::open`]
//! says why, and toll says so in one line.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// The first 64 bytes of `struct perf_event_attr` (PERF_ATTR_SIZE_VER0),
/// all a counting event needs.
#[repr(C)]
#[derive(Default)]
struct Attr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

const PERF_TYPE_HARDWARE: u32 = 0;
const CPU_CYCLES: u64 = 0;
const INSTRUCTIONS: u64 = 1;
const DISABLED: u64 = 1 << 0;
const INHERIT: u64 = 1 << 1;
const EXCLUDE_KERNEL: u64 = 1 << 5;
const EXCLUDE_HV: u64 = 1 << 6;
const ENABLE_ON_EXEC: u64 = 1 << 12;
/// `_IO('$', 3)`.
const IOC_RESET: u64 = 0x2403;

/// Open cycle and instruction counters, inherited by the programs toll runs.
pub struct Counters {
    cycles: OwnedFd,
    instructions: OwnedFd,
}

fn open_one(config: u64) -> Result<OwnedFd, String> {
    let attr = Attr {
        kind: PERF_TYPE_HARDWARE,
        size: std::mem::size_of::<Attr>() as u32,
        config,
        flags: DISABLED | INHERIT | EXCLUDE_KERNEL | EXCLUDE_HV | ENABLE_ON_EXEC,
        ..Attr::default()
    };
    // SAFETY: perf_event_open reads `size` bytes of a valid attr; pid 0 is
    // this process, cpu −1 any, no group, no flags.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const Attr,
            0 as libc::pid_t,
            -1 as libc::c_int,
            -1 as libc::c_int,
            0 as libc::c_ulong,
        )
    };
    if fd < 0 {
        let e = std::io::Error::last_os_error();
        let why = match e.raw_os_error() {
            Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) => {
                "this machine exposes no hardware counters (a VM without a virtual PMU?)".into()
            }
            Some(libc::EACCES) | Some(libc::EPERM) => {
                let level = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
                    .map(|s| s.trim().to_string())
                    .unwrap_or_else(|_| "?".into());
                format!("kernel.perf_event_paranoid is {level}: set it to 2 or lower to count")
            }
            _ => format!("perf_event_open: {e}"),
        };
        return Err(why);
    }
    // SAFETY: a fresh descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

fn reset(fd: &OwnedFd) {
    // SAFETY: an ioctl without an argument on our own perf descriptor.
    unsafe { libc::ioctl(fd.as_raw_fd(), IOC_RESET as _, 0) };
}

fn read(fd: &OwnedFd) -> Option<u64> {
    let mut v = 0u64;
    // SAFETY: reads 8 bytes into a u64.
    let n = unsafe { libc::read(fd.as_raw_fd(), &mut v as *mut u64 as *mut libc::c_void, 8) };
    (n == 8).then_some(v)
}

impl Counters {
    /// Both counters, or why there are none (one line for the user).
    pub fn open() -> Result<Counters, String> {
        Ok(Counters {
            cycles: open_one(CPU_CYCLES)?,
            instructions: open_one(INSTRUCTIONS)?,
        })
    }

    /// Zero both before a run.
    pub fn reset(&self) {
        reset(&self.cycles);
        reset(&self.instructions);
    }

    /// Cycles and instructions of the programs run since the reset that
    /// have exited and been waited for.
    pub fn read(&self) -> (Option<u64>, Option<u64>) {
        (read(&self.cycles), read(&self.instructions))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attr_is_the_kernels_first_version() {
        assert_eq!(std::mem::size_of::<Attr>(), 64);
    }

    #[test]
    fn counters_count_a_child_or_say_why_not() {
        match Counters::open() {
            Err(why) => assert!(!why.is_empty()),
            Ok(c) => {
                c.reset();
                let st = std::process::Command::new("true").status().unwrap();
                assert!(st.success());
                let (cy, ins) = c.read();
                assert!(cy.unwrap() > 0 && ins.unwrap() > 0, "{cy:?} {ins:?}");
            }
        }
    }
}
