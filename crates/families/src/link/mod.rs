//! Links on one machine (`--link`): E3 measured its RPCs on a cluster and
//! across the Internet; toll rebuilds both between two network namespaces.
//!
//! An emulated link is two namespaces, `near` and `far`, joined by a veth pair
//! (`veth0` 10.77.0.1/30 in near ↔ `veth1` 10.77.0.2/30 in far; the names and
//! addresses live only inside the namespaces, so links never collide and the
//! machine's own namespace is left untouched). tbf on both veth ends paces
//! the rate. This kernel has no netem qdisc, so latency and jitter come from
//! toll's delay relay ([`delay`]) on the path: the harness, in the machine's
//! own namespace, reaches the far end through a relay that listens on
//! loopback and connects from inside `near` ([`Link::to_far`]); a far end
//! that connects back goes through one that listens inside `near` and
//! connects to the harness ([`Link::to_near`]). Processes run inside `far`
//! through [`Link::launcher`]; in-process servers through [`Link::in_far`].
//!
//! Everything is removed when the `Link` is dropped (after a panic too); a
//! run killed before it could do so leaves namespaces named after its pid,
//! which the next [`build`] deletes.

mod delay;
mod netns;
mod spec;

pub use spec::LinkSpec;

mod error;
pub use error::LinkError;

use delay::{Connect, Relay};
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The near end's address inside its namespace.
pub const NEAR_IP: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 1);
/// The far end's address inside its namespace.
pub const FAR_IP: Ipv4Addr = Ipv4Addr::new(10, 77, 0, 2);

/// The namespaces of an emulated link.
#[derive(Debug)]
struct Namespaces {
    near: String,
    far: String,
}

/// A built link; dropping it tears it down.
pub struct Link {
    spec: LinkSpec,
    ns: Option<Namespaces>,
    relays: Mutex<Vec<Relay>>,
}

/// Numbers this process's links.
static NEXT: AtomicU32 = AtomicU32::new(0);

/// Build the link `spec` asks for (loopback builds nothing).
pub fn build(spec: &LinkSpec) -> Result<Link, LinkError> {
    let mut link = Link {
        spec: spec.clone(),
        ns: None,
        relays: Mutex::default(),
    };
    let LinkSpec::Emulated { rate_bits, .. } = spec else {
        return Ok(link);
    };
    netns::sweep_stale();
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let (near, far) = (netns::name(n, "near"), netns::name(n, "far"));
    netns::run("ip", &["netns", "add", &near])?;
    // From here on, Drop removes whatever was made.
    link.ns = Some(Namespaces {
        near: near.clone(),
        far: String::new(),
    });
    netns::run("ip", &["netns", "add", &far])?;
    link.ns = Some(Namespaces {
        near: near.clone(),
        far: far.clone(),
    });
    let ip = |ns: &str, args: &[&str]| {
        let mut all = vec!["-n", ns];
        all.extend_from_slice(args);
        netns::run("ip", &all)
    };
    ip(
        &near,
        &[
            "link", "add", "veth0", "type", "veth", "peer", "name", "veth1", "netns", &far,
        ],
    )?;
    for (ns, dev, addr) in [(&near, "veth0", NEAR_IP), (&far, "veth1", FAR_IP)] {
        ip(ns, &["addr", "add", &format!("{addr}/30"), "dev", dev])?;
        ip(ns, &["link", "set", "lo", "up"])?;
        ip(ns, &["link", "set", dev, "up"])?;
        if let Some(rate) = rate_bits {
            let (rate, burst) = (format!("{rate}bit"), tbf_burst(*rate).to_string());
            netns::run(
                "ip",
                &[
                    "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate",
                    &rate, "burst", &burst, "latency", "100ms",
                ],
            )?;
        }
    }
    Ok(link)
}

/// tbf's bucket for `rate_bits`: a millisecond's worth of bytes, at least
/// four full-size frames (tbf cannot send a packet larger than its bucket).
pub fn tbf_burst(rate_bits: u64) -> u64 {
    (rate_bits / 8 / 1000).max(4 * 1514)
}

impl Link {
    /// What was asked for.
    pub fn spec(&self) -> &LinkSpec {
        &self.spec
    }

    /// The far namespace's name (None for loopback).
    pub fn far_namespace(&self) -> Option<&str> {
        self.ns.as_ref().map(|n| n.far.as_str())
    }

    /// The words that run a program inside the far end: put the program and
    /// its arguments after them (empty for loopback).
    pub fn launcher(&self) -> Vec<String> {
        match &self.ns {
            Some(n) => ["ip", "netns", "exec", &n.far].map(String::from).to_vec(),
            None => vec![],
        }
    }

    /// The far end's own address: where a server inside it listens.
    pub fn far_ip(&self) -> IpAddr {
        match self.ns {
            Some(_) => FAR_IP.into(),
            None => Ipv4Addr::LOCALHOST.into(),
        }
    }

    /// Run `f` inside the far end (a thread in its namespace): a listener
    /// made there is a server across the link.
    pub fn in_far<T: Send>(&self, f: impl FnOnce() -> io::Result<T> + Send) -> io::Result<T> {
        match &self.ns {
            Some(n) => netns::within(&n.far, f),
            None => f(),
        }
    }

    /// An address on this machine's loopback whose connections reach
    /// `far_ip():port` across the link (through the delay relay).
    pub fn to_far(&self, port: u16) -> io::Result<SocketAddr> {
        let Some(n) = &self.ns else {
            return Ok(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), port));
        };
        let near = n.near.clone();
        let target = SocketAddr::new(FAR_IP.into(), port);
        let connect: Connect = Arc::new(move || {
            netns::within(&near, || {
                TcpStream::connect_timeout(&target, Duration::from_secs(10))
            })
        });
        self.relay(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?, connect)
    }

    /// An address the far end can connect to that reaches `target` (a
    /// listener of this process, e.g. on loopback) across the link.
    pub fn to_near(&self, target: SocketAddr) -> io::Result<SocketAddr> {
        let Some(n) = &self.ns else {
            return Ok(target);
        };
        let listener = netns::within(&n.near, || TcpListener::bind((NEAR_IP, 0)))?;
        let connect: Connect =
            Arc::new(move || TcpStream::connect_timeout(&target, Duration::from_secs(10)));
        self.relay(listener, connect)
    }

    fn relay(&self, listener: TcpListener, connect: Connect) -> io::Result<SocketAddr> {
        let (delay, jitter) = match self.spec {
            LinkSpec::Emulated { delay, jitter, .. } => (delay, jitter),
            LinkSpec::Loopback => (Duration::ZERO, Duration::ZERO),
        };
        let relay = Relay::start(listener, connect, delay, jitter)?;
        let addr = relay.addr();
        self.relays.lock().expect("relays").push(relay);
        Ok(addr)
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.relays.lock().expect("relays").clear();
        if let Some(n) = self.ns.take() {
            // Deleting a namespace deletes the veth end inside it (and so both).
            for ns in [&n.far, &n.near] {
                if !ns.is_empty() {
                    let _ = netns::run("ip", &["netns", "del", ns]);
                }
            }
        }
    }
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Link")
            .field("spec", &self.spec)
            .field("ns", &self.ns)
            .finish()
    }
}
