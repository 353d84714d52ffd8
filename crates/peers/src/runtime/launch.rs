//! How to start a prepared worker: the program, its arguments and
//! environment, and the toolchain that built it. Every runtime's leaf makes
//! one; the peer and the RPC servers start it.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

/// How to start a prepared worker.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    /// (tool, version) for the environment fingerprint.
    pub toolchain: (String, String),
    /// Variables set for the worker on top of toll's own environment.
    pub env: Vec<(OsString, OsString)>,
}

impl Launch {
    /// The command that starts the worker: program, arguments, environment.
    pub fn command(&self) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd
    }
}
