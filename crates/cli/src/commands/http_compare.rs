//! `toll http compare URL URL…`: alternating rounds against several servers.

use crate::args::CompareArgs;
use crate::usage::usage;
use std::path::Path;
use std::process::ExitCode;

pub fn run(a: CompareArgs, _db_path: Option<&Path>) -> anyhow::Result<ExitCode> {
    Err(usage(format!(
        "toll http compare is being built ({} URLs given)",
        a.urls.len()
    )))
}
