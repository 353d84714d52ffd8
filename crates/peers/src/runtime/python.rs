//! The Python worker: workers/python/toll_worker.py, run by python3.

use super::cache::{keyed_dir, write_sources};
use super::launch::Launch;
use super::toolchain::{find_tool, Toolchain};
use crate::error::PeerError;

pub(super) const INSTALL: &str = "apt-get install python3";
const WORKER: &str = include_str!("../../../../workers/python/toll_worker.py");
const UNITS: &str = include_str!("../../../../workers/python/toll_units.py");
const FILE: &str = include_str!("../../../../workers/python/toll_file.py");
const FFI: &str = include_str!("../../../../workers/python/toll_ffi.py");

/// `$TOLL_PYTHON`, else `python3`.
pub(super) fn detect() -> Result<Toolchain, PeerError> {
    find_tool("python", "TOLL_PYTHON", "python3", INSTALL)
}

pub(super) fn prepare(python: Toolchain) -> Result<Launch, PeerError> {
    let dir = keyed_dir("python", &[WORKER, UNITS, FILE, FFI]);
    let script = dir.join("toll_worker.py");
    if !script.is_file() {
        // Its modules first: a worker script present means a complete directory.
        write_sources(
            &dir,
            &[
                ("toll_units.py", UNITS),
                ("toll_file.py", FILE),
                ("toll_ffi.py", FFI),
                ("toll_worker.py", WORKER),
            ],
        )?;
    }
    Ok(Launch {
        program: python.program,
        args: vec!["-u".into(), script.into()],
        toolchain: ("python3".into(), python.version),
        env: Vec::new(),
    })
}

/// The Python RPC server (spec/rpc.md); its grpc stack needs grpcio.
const RPC_SERVER: &str = include_str!("../../../../workers/python/toll_rpc.py");
/// The grpcio the Python RPC server is tested with (workers/python/requirements-rpc.txt).
pub(crate) const GRPCIO_PIN: &str = "grpcio==1.80.1";

pub(super) fn prepare_rpc(python: Toolchain) -> Result<Launch, PeerError> {
    let dir = keyed_dir("python-rpc", &[RPC_SERVER]);
    let script = dir.join("toll_rpc.py");
    if !script.is_file() {
        write_sources(&dir, &[("toll_rpc.py", RPC_SERVER)])?;
    }
    Ok(Launch {
        program: python.program,
        args: vec!["-u".into(), script.into()],
        toolchain: ("python3".into(), python.version),
        env: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_grpcio_pin_is_the_one_the_requirements_and_the_server_name() {
        let req = include_str!("../../../../workers/python/requirements-rpc.txt");
        assert!(req.lines().any(|l| l.trim() == super::GRPCIO_PIN), "{req}");
        assert!(super::RPC_SERVER.contains(&format!("\"{}\"", super::GRPCIO_PIN)));
    }
}
