//! A far host for the tests: a second network namespace joined to this one
//! by veth, with `ip netns exec` as the launcher of `toll agent` there.
//! Making one needs root (CI runs as root): a test that does is ignored
//! where the build found no root (`cfg(toll_root)`, crates/store/build.rs),
//! and [`assert_root`] fails it if root has gone by run time. The namespace
//! is deleted when its guard is dropped, on failure too.

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

/// Fails a `cfg(toll_root)` test run by someone else than the root who built it.
pub fn assert_root() {
    // SAFETY: geteuid cannot fail.
    let euid = unsafe { libc::geteuid() };
    assert_eq!(
        euid, 0,
        "built as root (cfg toll_root), run as uid {euid}: making namespaces needs root; \
         rebuild as this user (touch crates/store/build.rs) to have this test ignored"
    );
}

fn ip(args: &[&str]) {
    let o = Command::new("ip").args(args).output().expect("run ip");
    assert!(
        o.status.success(),
        "ip {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A far host: a namespace joined to this one by a veth pair, 10.79.k.1 here ↔ 10.79.k.2 there.
pub struct FarHost {
    ns: String,
}

impl FarHost {
    pub fn new() -> FarHost {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let k = NEXT.fetch_add(1, Ordering::Relaxed);
        let pid = std::process::id();
        let ns = format!("tolltest-{pid}-{k}");
        let (here, there) = (
            format!("ta{}x{k}", pid % 100_000),
            format!("tb{}x{k}", pid % 100_000),
        );
        ip(&["netns", "add", &ns]);
        let host = FarHost { ns };
        // The subnet from the pid too, so concurrent runs of this file do not collide.
        let net = format!("10.79.{}", (pid % 60) * 4 + k % 4);
        ip(&[
            "link", "add", &here, "type", "veth", "peer", "name", &there, "netns", &host.ns,
        ]);
        ip(&["addr", "add", &format!("{net}.1/30"), "dev", &here]);
        ip(&["link", "set", &here, "up"]);
        ip(&[
            "-n",
            &host.ns,
            "addr",
            "add",
            &format!("{net}.2/30"),
            "dev",
            &there,
        ]);
        ip(&["-n", &host.ns, "link", "set", &there, "up"]);
        ip(&["-n", &host.ns, "link", "set", "lo", "up"]);
        host
    }

    pub fn launcher(&self) -> String {
        format!(
            "ip netns exec {} {} agent",
            self.ns,
            env!("CARGO_BIN_EXE_toll")
        )
    }
}

impl Drop for FarHost {
    fn drop(&mut self) {
        // Deleting the namespace deletes the veth end in it, and so the pair.
        let _ = Command::new("ip").args(["netns", "del", &self.ns]).status();
    }
}
