//! E3: null-RPC overhead, direct and through a broker, blocking and not.
//! Not yet run by `toll replicate`: its rows are marked.

use super::findings;
use super::{Ctx, Experiment, Report, NOT_YET_BUILT};

pub fn run(_ctx: &mut Ctx) -> Report {
    let mut report = Report::new(Experiment::E3, "not yet run by toll replicate".into());
    report.row(
        "rpc",
        "null call µs",
        "µs",
        Err("E3's figures were charts only".into()),
        Err(NOT_YET_BUILT.into()),
        None,
    );
    report.findings.push(findings::not_checked(
        "the broker adds per-call overhead",
        NOT_YET_BUILT,
        "E3",
    ));
    report
}
