//! A small LAN of network namespaces for the tests: k namespaces, each
//! joined by a veth pair to one bridge in this namespace, all on one /24
//! (the bridge .1, namespace i .(i + 2)). A server in one namespace is
//! reachable from the others and from the test itself; `ip netns exec`
//! starts programs there. Needs root, as [`super::far_host`]. The
//! namespaces, their veths and the bridge are removed when the guard is
//! dropped, on failure too.

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

fn ip(args: &[&str]) -> Result<(), String> {
    let o = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("run ip: {e}"))?;
    if o.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {args:?}: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

pub struct Lan {
    bridge: String,
    spaces: Vec<String>,
    /// The root-side veth ends.
    ends: Vec<String>,
    net: String,
}

impl Lan {
    /// `k` namespaces on one bridge; panics (after removing what it made)
    /// if any step fails.
    pub fn new(k: usize) -> Lan {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let pid = std::process::id();
        let mut lan = Lan {
            bridge: format!("tlb{}x{n}", pid % 1_000_000),
            spaces: Vec::new(),
            ends: Vec::new(),
            // From the pid and the count, so concurrent tests do not collide.
            net: format!("10.81.{}", (pid % 60) * 4 + n % 4),
        };
        if let Err(e) = lan.make(k, n) {
            drop(lan);
            panic!("making the test LAN: {e}");
        }
        lan
    }

    fn make(&mut self, k: usize, n: u32) -> Result<(), String> {
        let pid = std::process::id();
        ip(&["link", "add", &self.bridge, "type", "bridge"])?;
        ip(&[
            "addr",
            "add",
            &format!("{}.1/24", self.net),
            "dev",
            &self.bridge,
        ])?;
        ip(&["link", "set", &self.bridge, "up"])?;
        for i in 0..k {
            let ns = format!("tolllan-{pid}-{n}-{i}");
            ip(&["netns", "add", &ns])?;
            self.spaces.push(ns.clone());
            let (here, there) = (
                format!("tl{}x{n}h{i}", pid % 100_000),
                format!("tl{}x{n}t{i}", pid % 100_000),
            );
            ip(&[
                "link", "add", &here, "type", "veth", "peer", "name", &there, "netns", &ns,
            ])?;
            self.ends.push(here.clone());
            ip(&["link", "set", &here, "master", &self.bridge])?;
            ip(&["link", "set", &here, "up"])?;
            let addr = format!("{}/24", self.addr(i));
            ip(&["-n", &ns, "addr", "add", &addr, "dev", &there])?;
            ip(&["-n", &ns, "link", "set", &there, "up"])?;
            ip(&["-n", &ns, "link", "set", "lo", "up"])?;
        }
        Ok(())
    }

    /// Namespace `i`'s name.
    pub fn ns(&self, i: usize) -> &str {
        &self.spaces[i]
    }

    /// Namespace `i`'s address.
    pub fn addr(&self, i: usize) -> String {
        format!("{}.{}", self.net, i + 2)
    }

    /// The command that starts `toll agent` in namespace `i`.
    pub fn agent(&self, i: usize) -> String {
        format!(
            "ip netns exec {} {} agent",
            self.ns(i),
            env!("CARGO_BIN_EXE_toll")
        )
    }

    /// The names of what this LAN made: its namespaces and its bridge.
    pub fn names(&self) -> Vec<String> {
        let mut v = self.spaces.clone();
        v.push(self.bridge.clone());
        v
    }
}

/// Whether any of `names` (a dropped LAN's) is still there.
pub fn left_behind(names: &[String]) -> bool {
    let out = |args: &[&str]| {
        Command::new("ip")
            .args(args)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    let (spaces, links) = (out(&["netns", "list"]), out(&["-o", "link", "show"]));
    names.iter().any(|n| {
        spaces
            .lines()
            .any(|l| l.split_whitespace().next() == Some(n.as_str()))
            || links.contains(&format!(": {n}:"))
    })
}

impl Drop for Lan {
    fn drop(&mut self) {
        // Deleting a namespace deletes its veth end, and so the pair; the
        // root-side ends are deleted too, in case a process still holds a
        // namespace open.
        for ns in &self.spaces {
            let _ = Command::new("ip").args(["netns", "del", ns]).status();
        }
        for end in &self.ends {
            let _ = Command::new("ip")
                .args(["link", "del", end])
                .stderr(std::process::Stdio::null())
                .status();
        }
        let _ = Command::new("ip")
            .args(["link", "del", &self.bridge])
            .status();
    }
}
