//! The Python worker: workers/python/toll_worker.py, run by python3.

use super::{find_tool, keyed_dir, write_sources, Launch, Toolchain};
use crate::PeerError;

pub(super) const INSTALL: &str = "apt-get install python3";
const WORKER: &str = include_str!("../../../../workers/python/toll_worker.py");
const UNITS: &str = include_str!("../../../../workers/python/toll_units.py");
const FILE: &str = include_str!("../../../../workers/python/toll_file.py");

/// `$TOLL_PYTHON`, else `python3`.
pub(super) fn detect() -> Result<Toolchain, PeerError> {
    find_tool("python", "TOLL_PYTHON", "python3", INSTALL)
}

pub(super) fn prepare(python: Toolchain) -> Result<Launch, PeerError> {
    let dir = keyed_dir("python", &[WORKER, UNITS, FILE]);
    let script = dir.join("toll_worker.py");
    if !script.is_file() {
        // Its modules first: a worker script present means a complete directory.
        write_sources(
            &dir,
            &[
                ("toll_units.py", UNITS),
                ("toll_file.py", FILE),
                ("toll_worker.py", WORKER),
            ],
        )?;
    }
    Ok(Launch {
        program: python.program,
        args: vec!["-u".into(), script.into()],
        toolchain: ("python3".into(), python.version),
    })
}
