//! Where a far end runs when it is not a child of toll on this machine: on
//! another host under `toll agent` (`--remote`), or in the far namespace of
//! a link toll builds (`--link`). Shared by transfer, rpc and replicate.

use crate::link::LinkSpec;
use serde::Serialize;
use serde_json::json;

/// A peer elsewhere: started by `toll agent` there, over TCP only.
#[derive(Debug, Clone, Serialize)]
pub enum Far {
    /// `--remote HOST` (ssh) or `--remote-cmd CMD`: the launcher that runs
    /// `toll agent` on the far host, and this machine's address as the far
    /// host reaches it (`--remote-addr`; None: the agent's ssh client or route).
    Agent {
        launcher: String,
        addr: Option<std::net::IpAddr>,
    },
    /// `--link SPEC`: in the far namespace of a link toll builds for the run.
    Link(LinkSpec),
}

impl Far {
    /// How the far end is recorded with the run and its series.
    pub fn describe(&self) -> serde_json::Value {
        match self {
            Far::Agent { launcher, .. } => json!({"remote": launcher}),
            Far::Link(spec) => json!({"link": spec.to_string()}),
        }
    }
}
