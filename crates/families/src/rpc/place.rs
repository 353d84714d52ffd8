//! Where a run's servers are: beside toll on loopback, in the far namespace
//! of an emulated link (`--link`: the calls cross veth, tbf and the delay
//! relay), or on a far host (`--remote`: `toll agent` there becomes the
//! server, and the calls cross the network between the hosts). toll, the
//! client, and any proxy stay on this machine; the broker runs with the
//! servers, so a per-call look-up crosses the link as E3's MetaServer did.

use crate::far::Far;
use crate::link::{self, Link};
use std::io;
use std::net::SocketAddr;

/// The built place of a run (a link is torn down when this is dropped).
pub enum Place {
    Here,
    Link(Link),
    Remote { launcher: String },
}

impl Place {
    /// Build what `far` asks for (a link's namespaces; nothing otherwise).
    pub fn build(far: Option<&Far>) -> Result<Place, link::LinkError> {
        Ok(match far {
            None => Place::Here,
            Some(Far::Link(spec)) => Place::Link(link::build(spec)?),
            Some(Far::Agent { launcher, .. }) => Place::Remote {
                launcher: launcher.clone(),
            },
        })
    }

    /// Where the client calls a server that listens on `listen:port` at
    /// this place (through the link's relay for `--link`).
    pub fn reach(&self, listen: std::net::IpAddr, port: u16) -> io::Result<SocketAddr> {
        match self {
            Place::Link(link) => link.to_far(port),
            Place::Here | Place::Remote { .. } => Ok(SocketAddr::new(listen, port)),
        }
    }

    /// The words the run's server line adds: "" here.
    pub fn describe(&self) -> String {
        match self {
            Place::Here => String::new(),
            Place::Link(link) => format!(
                " across an emulated link ({}: namespaces joined by veth, tbf, toll's delay relay)",
                link.spec()
            ),
            Place::Remote { launcher } => format!(" on the far host (`{launcher}`)"),
        }
    }
}
