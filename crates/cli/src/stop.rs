//! Stopping on a signal: SIGINT (Ctrl-C), SIGTERM (`timeout`, `docker
//! stop`, systemd, a CI time-out) and SIGHUP (a closed terminal) all take
//! the path Ctrl-C always took — finish the batch under way, stop what toll
//! started, store what was measured as partial, remove temporary files —
//! and toll exits 128 + the signal's number (130, 143, 129), as a shell
//! reports a process the signal ended. A signal again (half a second or
//! more after the first: `timeout` delivers one stop twice) quits at once.
//!
//! A worker's point under way when the stop comes is abandoned after a
//! second (its worker killed; toll_peers::abandon_on), so a stop is never
//! held up by a point that takes minutes.
//!
//! One handler for every command, instead of a copy in each; the handler
//! does only what is safe in a signal handler (atomics, write(2), _exit(2)).

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicI64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Set by the first signal; every measuring loop polls it.
pub static STOP: AtomicBool = AtomicBool::new(false);

/// The first signal's number (0: none yet).
static SIGNAL: AtomicI32 = AtomicI32::new(0);

/// The signals that stop toll.
const SIGNALS: [nix::sys::signal::Signal; 3] = [
    nix::sys::signal::Signal::SIGINT,
    nix::sys::signal::Signal::SIGTERM,
    nix::sys::signal::Signal::SIGHUP,
];

/// When the first signal came (CLOCK_MONOTONIC, ms).
static FIRST_AT_MS: AtomicI64 = AtomicI64::new(0);

/// A signal this soon after the first is the same stop delivered twice, not
/// a person asking again: `timeout` signals its child and then its process
/// group, which holds the child too; `kill 0`, a terminal's Ctrl-C to a
/// pipeline, a supervisor and its shell can do the same.
const SAME_STOP_MS: i64 = 500;

fn monotonic_ms() -> i64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime is async-signal-safe and writes only `t`.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec * 1000 + t.tv_nsec / 1_000_000
}

extern "C" fn on_signal(sig: libc::c_int) {
    let now = monotonic_ms();
    if SIGNAL
        .compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst)
        .is_err()
    {
        if now - FIRST_AT_MS.load(Ordering::SeqCst) < SAME_STOP_MS {
            return;
        }
        // Asked again: leave now; the run is marked partial on next open.
        unsafe { libc::_exit(128 + SIGNAL.load(Ordering::SeqCst)) };
    }
    FIRST_AT_MS.store(now, Ordering::SeqCst);
    STOP.store(true, Ordering::SeqCst);
    let msg = b"\nstopping after the current batch (the same signal again quits at once)\n";
    // SAFETY: write(2) on stderr is async-signal-safe; its result is moot.
    unsafe { libc::write(2, msg.as_ptr().cast(), msg.len()) };
}

/// Catch SIGINT, SIGTERM and SIGHUP (once per process; later calls do nothing).
pub fn install() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        use nix::sys::signal::{sigaction, SaFlags, SigAction, SigHandler, SigSet};
        let action = SigAction::new(
            SigHandler::Handler(on_signal),
            SaFlags::SA_RESTART,
            SigSet::empty(),
        );
        for s in SIGNALS {
            // SAFETY: the handler only touches atomics and calls
            // clock_gettime/write/_exit.
            let _ = unsafe { sigaction(s, &action) };
        }
        toll_peers::abandon_on(&STOP);
    });
}

/// [`STOP`] as a shared flag, for the families that take one: set within
/// 20 ms of the signal.
pub fn shared() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        install();
        let flag = Arc::new(AtomicBool::new(false));
        let copy = flag.clone();
        std::thread::spawn(move || {
            while !STOP.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(20));
            }
            copy.store(true, Ordering::SeqCst);
        });
        flag
    })
    .clone()
}

/// Whether a signal asked toll to stop.
pub fn stopped() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// The exit status of a run a signal stopped: 128 + its number (130 when
/// the stop came from elsewhere).
pub fn exit_code() -> ExitCode {
    match SIGNAL.load(Ordering::SeqCst) {
        0 => ExitCode::from(130),
        s => ExitCode::from((128 + s) as u8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_sets_the_flag_and_the_exit_status_says_which() {
        install();
        let flag = shared();
        nix::sys::signal::raise(nix::sys::signal::Signal::SIGTERM).unwrap();
        assert!(stopped());
        for _ in 0..100 {
            if flag.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(flag.load(Ordering::SeqCst), "the shared flag follows");
        assert_eq!(exit_code(), ExitCode::from(143));
    }
}
