//! The Node.js worker: workers/node/toll_worker.js, run by node (its `ffi`
//! binding, N-API, in toll_ffi.js: the addon is built in `ffi_glue`).

use super::cache::{keyed_dir, write_sources};
use super::launch::Launch;
use super::toolchain::{find_tool, Toolchain};
use crate::error::PeerError;

pub(super) const INSTALL: &str = "apt-get install nodejs";
const WORKER: &str = include_str!("../../../../workers/node/toll_worker.js");
const UNITS: &str = include_str!("../../../../workers/node/toll_units.js");
const FFI: &str = include_str!("../../../../workers/node/toll_ffi.js");

/// `$TOLL_NODE`, else `node`.
pub(super) fn detect() -> Result<Toolchain, PeerError> {
    find_tool("node", "TOLL_NODE", "node", INSTALL)
}

pub(super) fn prepare(node: Toolchain) -> Result<Launch, PeerError> {
    let dir = keyed_dir("node", &[WORKER, UNITS, FFI]);
    let script = dir.join("toll_worker.js");
    if !script.is_file() {
        // The units first: a worker script present means a complete directory.
        write_sources(
            &dir,
            &[
                ("toll_units.js", UNITS),
                ("toll_ffi.js", FFI),
                ("toll_worker.js", WORKER),
            ],
        )?;
    }
    Ok(Launch {
        program: node.program,
        // gc() lets the worker measure the heap its units hold (spec/wire.md, `spawn`).
        args: vec!["--expose-gc".into(), script.into()],
        toolchain: ("node".into(), node.version),
        env: Vec::new(),
    })
}
