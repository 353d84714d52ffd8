//! The registry of runtimes that can be a peer: how to find each toolchain,
//! build the worker (cached, rebuilt when its source changes) and start it.

use crate::error::PeerError;
use crate::transport::Transport;
use std::fmt;
use std::str::FromStr;

mod bindings;
mod cache;
mod ffi;
mod ffi_glue;
mod launch;
mod toolchain;
mod ways;

mod c;
mod erlang;
mod go;
mod haskell;
mod java;
mod node;
mod python;
mod squeak;

pub use bindings::Binding;
pub use cache::cache_dir;
pub use ffi::{FfiLaunch, LIB as FFI_LIB};
use ffi_glue::Glue;
pub use launch::Launch;
pub use toolchain::{find_in_path, Toolchain};
pub use ways::{
    answer_key, expected, pattern_byte, string_byte, way_byte, way_receipt, way_sum, Pass, Touch,
    Way,
};

/// A language runtime with a worker.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Runtime {
    /// Built into `toll` itself (`toll worker`).
    Rust,
    /// workers/c, compiled with the machine's C compiler.
    C,
    /// workers/python, run by python3.
    Python,
    /// workers/node, run by node.
    Node,
    /// workers/go, built with go.
    Go,
    /// workers/java, compiled and run with the newest JDK (21+).
    Java,
    /// workers/erlang, compiled with erlc and run by erl.
    Erlang,
    /// workers/haskell, built with GHC when the machine has it (optional).
    Haskell,
    /// workers/squeak, filed in by the Squeak VM into Scratch's image when
    /// the machine has them (optional; spawn and ring only).
    Squeak,
}

pub(crate) use python::GRPCIO_PIN;

/// What kind of thing a unit is: the OS's process or thread, or a runtime's
/// own light-weight unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UnitClass {
    OsProcess,
    OsThread,
    Green,
}

impl UnitClass {
    pub const ALL: [UnitClass; 3] = [UnitClass::OsProcess, UnitClass::OsThread, UnitClass::Green];

    pub fn name(self) -> &'static str {
        match self {
            UnitClass::OsProcess => "os-process",
            UnitClass::OsThread => "os-thread",
            UnitClass::Green => "green",
        }
    }
}

impl Runtime {
    /// Every runtime, in the order toll measures them.
    pub const ALL: [Runtime; 9] = [
        Runtime::Rust,
        Runtime::C,
        Runtime::Python,
        Runtime::Node,
        Runtime::Go,
        Runtime::Java,
        Runtime::Erlang,
        Runtime::Haskell,
        Runtime::Squeak,
    ];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Rust => "rust",
            Runtime::C => "c",
            Runtime::Python => "python",
            Runtime::Node => "node",
            Runtime::Go => "go",
            Runtime::Java => "java",
            Runtime::Erlang => "erlang",
            Runtime::Haskell => "haskell",
            Runtime::Squeak => "squeak",
        }
    }

    /// The transports its worker speaks.
    pub fn transports(self) -> &'static [Transport] {
        match self {
            Runtime::Rust | Runtime::C => &Transport::ALL,
            Runtime::Python
            | Runtime::Node
            | Runtime::Go
            | Runtime::Java
            | Runtime::Erlang
            | Runtime::Haskell => &[Transport::Pipe, Transport::Unix, Transport::Tcp],
            Runtime::Squeak => &[],
        }
    }

    /// The operations its worker answers.
    pub fn ops(self) -> &'static [&'static str] {
        match self {
            Runtime::Squeak => &["spawn", "ring"],
            _ => &["transfer", "spawn", "ring"],
        }
    }

    /// Whether its worker answers `transfer` (Squeak's spawns and rings only).
    pub fn transfers(self) -> bool {
        self.ops().contains(&"transfer")
    }

    /// The class of one of its units: an Erlang process is the runtime's own.
    pub fn unit_class(self, unit: &str) -> UnitClass {
        match (self, unit) {
            (Runtime::C, "process") => UnitClass::OsProcess,
            (_, "thread") => UnitClass::OsThread,
            _ => UnitClass::Green,
        }
    }

    /// The units its worker can spawn and ring (spec/wire.md, "Unit names").
    pub fn units(self) -> &'static [&'static str] {
        match self {
            Runtime::Rust => &crate::units::UNITS,
            Runtime::C => &["process", "thread"],
            Runtime::Python => &["thread", "asyncio-task"],
            Runtime::Node => &["async-task"],
            Runtime::Go => &["goroutine"],
            Runtime::Java => &["thread", "virtual-thread"],
            Runtime::Erlang => &["process"],
            Runtime::Haskell => &["forkio"],
            Runtime::Squeak => &["process", "process-semaphore"],
        }
    }

    /// The command that installs what this runtime needs.
    pub fn install_hint(self) -> &'static str {
        match self {
            Runtime::Rust => "nothing: it is built into toll",
            Runtime::C => c::INSTALL,
            Runtime::Python => python::INSTALL,
            Runtime::Node => node::INSTALL,
            Runtime::Go => go::INSTALL,
            Runtime::Java => java::INSTALL,
            Runtime::Erlang => erlang::INSTALL,
            Runtime::Haskell => haskell::INSTALL,
            Runtime::Squeak => squeak::INSTALL,
        }
    }

    /// Find the toolchain, without building anything.
    pub fn detect(self) -> Result<Toolchain, PeerError> {
        match self {
            Runtime::Rust => Ok(Toolchain {
                program: std::env::current_exe()
                    .map_err(|e| PeerError::io("finding the toll executable", e))?,
                version: concat!("toll ", env!("CARGO_PKG_VERSION")).into(),
            }),
            Runtime::C => c::detect(),
            Runtime::Python => python::detect(),
            Runtime::Node => node::detect(),
            Runtime::Go => go::detect(),
            Runtime::Java => java::detect(),
            Runtime::Erlang => erlang::detect(),
            Runtime::Haskell => haskell::detect(),
            Runtime::Squeak => squeak::detect(),
        }
    }

    /// Find the toolchain and build the worker if needed.
    pub fn prepare(self) -> Result<Launch, PeerError> {
        self.prepare_noting(&mut |_| {})
    }

    /// As `prepare`, telling `note` before a build that takes a while (a
    /// compiler run on first use), so a person is not left staring at nothing.
    pub fn prepare_noting(self, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
        let tool = self.detect()?;
        match self {
            Runtime::Rust => Ok(Launch {
                program: tool.program,
                args: vec!["worker".into()],
                toolchain: ("toll".into(), tool.version),
                env: Vec::new(),
            }),
            Runtime::C => c::prepare(tool, note),
            Runtime::Python => python::prepare(tool),
            Runtime::Node => node::prepare(tool),
            Runtime::Go => go::prepare(tool, note),
            Runtime::Java => java::prepare(tool, note),
            Runtime::Erlang => erlang::prepare(tool, note),
            Runtime::Haskell => haskell::prepare(tool, note),
            Runtime::Squeak => squeak::prepare(tool, note),
        }
    }
}

impl Runtime {
    /// The bindings its worker can offer for `toll ffi`, in the order toll
    /// measures them; empty for a runtime without them yet.
    pub fn bindings(self) -> &'static [Binding] {
        match self {
            Runtime::Rust => &bindings::RUST,
            Runtime::C => &bindings::C,
            Runtime::Python => &bindings::PYTHON,
            Runtime::Go => &bindings::GO,
            Runtime::Java => &bindings::JAVA,
            Runtime::Node => &bindings::NODE,
            Runtime::Erlang => &bindings::ERLANG,
            Runtime::Haskell => &bindings::HASKELL,
            _ => &[],
        }
    }

    /// One of its bindings by name.
    pub fn binding(self, name: &str) -> Option<&'static Binding> {
        self.bindings().iter().find(|b| b.name == name)
    }

    /// Find the C compiler and this runtime's toolchain, build the worker
    /// and the C side it calls (cached), and set `TOLL_FFI_DIR` for it.
    pub fn prepare_ffi(self, note: &mut dyn FnMut(&str)) -> Result<FfiLaunch, PeerError> {
        let cc = c::detect()?;
        let launch = self.prepare_noting(note)?;
        let glue = match self {
            Runtime::Python => Glue::PythonExt,
            Runtime::Java => Glue::Jni,
            Runtime::Node => Glue::Napi,
            Runtime::Erlang => Glue::Nif,
            _ => Glue::None,
        };
        ffi::prepare(cc, launch, self.name(), glue, note)
    }
}

/// Every binding name any runtime has, sorted, for messages.
pub fn binding_names() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Runtime::ALL
        .iter()
        .flat_map(|r| r.bindings().iter().map(|b| b.name))
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// [`Runtime::RPC_SERVERS`]' names, for messages.
pub(crate) const RPC_SERVER_NAMES: &str = "rust, go, python";

impl Runtime {
    /// The runtimes with an RPC server (spec/rpc.md), in the order toll measures them.
    pub const RPC_SERVERS: [Runtime; 3] = [Runtime::Rust, Runtime::Go, Runtime::Python];

    /// Find the toolchain and build this runtime's RPC server if needed; the
    /// Rust one is toll's hidden `toll rpc-server`.
    pub(crate) fn prepare_rpc_server(
        self,
        note: &mut dyn FnMut(&str),
    ) -> Result<Launch, PeerError> {
        if !Runtime::RPC_SERVERS.contains(&self) {
            return Err(PeerError::NoRpcServer {
                runtime: self.name().into(),
                valid: RPC_SERVER_NAMES,
            });
        }
        let tool = self.detect()?;
        match self {
            Runtime::Rust => Ok(Launch {
                program: tool.program,
                args: vec!["rpc-server".into()],
                toolchain: ("toll".into(), tool.version),
                env: Vec::new(),
            }),
            Runtime::Go => go::prepare_rpc(tool, note),
            Runtime::Python => python::prepare_rpc(tool),
            _ => unreachable!("checked above"),
        }
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Runtime {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Runtime::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| {
                let valid: Vec<_> = Runtime::ALL.iter().map(|r| r.name()).collect();
                format!("unknown peer `{s}`: valid peers are {}", valid.join(", "))
            })
    }
}
