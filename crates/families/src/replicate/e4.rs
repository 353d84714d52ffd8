//! E4: plain reads or mmap. Not yet run by `toll replicate`: its rows are marked.

use super::findings;
use super::{Ctx, Experiment, Report, NOT_YET_BUILT};

pub fn run(_ctx: &mut Ctx) -> Report {
    let mut report = Report::new(Experiment::E4, "not yet run by toll replicate".into());
    report.row(
        "python/mmap-slice",
        "seq ms",
        "ms",
        Ok(super::originals::E4_SEQ_MS[2]),
        Err(NOT_YET_BUILT.into()),
        None,
    );
    report.findings.push(findings::not_checked(
        "mmap slicing is the fastest sequential method",
        NOT_YET_BUILT,
        "E4",
    ));
    report
}
