//! A point as the engine's families store it: its trials with their
//! summary, or failed with its reason. Shared by the families that time
//! batches of operations themselves (ffi, sys).

use toll_measure::{Sample, Summary};
use toll_store::{Point, PointStatus};

/// ns per operation over the trials, or None with none.
pub fn summary(samples: &[Sample]) -> Option<Summary> {
    (!samples.is_empty())
        .then(|| Summary::of(&samples.iter().map(Sample::per_op_ns).collect::<Vec<_>>()))
}

/// Why a point has no figure: its failure, or the stop that came first.
pub fn reason(failure: &Option<String>) -> String {
    failure
        .clone()
        .unwrap_or_else(|| "not measured: the run was interrupted".into())
}

/// A point as stored: its trials, summary and `extra`, or failed with its
/// reason (a point that failed after some trials keeps them).
pub fn stored(
    n: u64,
    samples: &[Sample],
    failure: &Option<String>,
    extra: Option<serde_json::Value>,
) -> Point {
    match summary(samples) {
        Some(s) => Point {
            n,
            status: PointStatus::Ok,
            error: None,
            summary: Some(s),
            samples: samples.to_vec(),
            extra,
        },
        None => Point {
            n,
            status: PointStatus::Failed,
            error: Some(reason(failure)),
            summary: None,
            samples: vec![],
            extra: None,
        },
    }
}
