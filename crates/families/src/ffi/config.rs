//! What a `toll ffi` run is asked (sizes, (runtime, binding) targets, the
//! engine's settings), what each point and series gives back, and why a
//! run can fail; and the choice of targets from `--runtime` and `--binding`.

use serde::Serialize;
use toll_measure::{EngineConfig, SeriesFit, Summary};
use toll_peers::{binding_names, Binding, Ceiling, PeerError, Runtime};
use toll_store::{RunStatus, StoreError};

/// The sizes swept by default, bytes per call: 0 is a sum of no bytes (the call alone, α); the
/// largest stays inside a core's L2, so β is the marshalling, not the cache.
pub const DEFAULT_SIZES: &str = "0,1Ki,4Ki,16Ki,64Ki";

/// One binding of one runtime, e.g. python/ctypes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FfiTarget {
    pub runtime: Runtime,
    pub binding: &'static Binding,
}

impl FfiTarget {
    /// `runtime/binding`, the series label.
    pub fn label(&self) -> String {
        format!("{}/{}", self.runtime, self.binding.name)
    }
}

/// A validated `toll ffi` request.
#[derive(Debug, Clone)]
pub struct FfiConfig {
    /// Bytes per call; 0 is a sum of no bytes (the call alone).
    pub sizes: Vec<u64>,
    pub targets: Vec<FfiTarget>,
    pub engine: EngineConfig,
    /// Per command sent to a worker: a batch that takes longer, or a worker
    /// that grows more, is stopped and its point failed.
    pub ceiling: Ceiling,
    /// `--vs-link`: each runtime's cheapest binding beside its cheapest link.
    pub vs_link: bool,
}

/// Why a run could not start, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum FfiError {
    #[error(transparent)]
    Peer(#[from] PeerError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Link(#[from] crate::transfer::TransferError),
}

/// One size of a series: ns per call over its trials, or why it failed.
#[derive(Debug, Clone, Serialize)]
pub struct FfiPoint {
    pub n: u64,
    pub result: Result<Summary, String>,
}

/// One (runtime, binding) series.
#[derive(Debug, Clone)]
pub struct FfiSeries {
    pub target: FfiTarget,
    pub points: Vec<FfiPoint>,
    /// t(n) = α + β·n, ns per call against bytes per call.
    pub fit: Option<SeriesFit>,
    /// Why this machine cannot measure it, with what to install.
    pub unavailable: Option<String>,
    /// Share of all CPUs other processes kept busy meanwhile.
    pub others_busy: f64,
}

/// What a run produced.
#[derive(Debug)]
pub struct FfiOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    pub series: Vec<FfiSeries>,
    /// `--vs-link`'s rows, one per runtime (empty without it).
    pub vs_link: Vec<toll_report::ffi_link::VsLinkRow>,
    /// Why the run stopped early, if it did.
    pub error: Option<FfiError>,
}

/// Why `--runtime`/`--binding`/`--sizes` cannot be measured: one line each.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TargetError {
    #[error("unknown binding `{given}`: known bindings are {known} (in --binding)")]
    Unknown { given: String, known: String },
    #[error("{runtime} has no binding `{binding}`: its bindings are {has} (in --binding)")]
    NotOffered {
        runtime: Runtime,
        binding: String,
        has: String,
    },
    #[error("{runtime} has no ffi bindings yet: runtimes with bindings are {with}")]
    NoBindings { runtime: Runtime, with: String },
    #[error(
        "--sizes {n} is beyond what {label} can pass in one call: at most {max} bytes ({why})"
    )]
    TooLarge {
        n: u64,
        label: String,
        max: u64,
        why: &'static str,
    },
}

/// The runtimes that have bindings, for messages.
pub fn runtimes_with_bindings() -> Vec<Runtime> {
    Runtime::ALL
        .into_iter()
        .filter(|r| !r.bindings().is_empty())
        .collect()
}

/// Every binding of `runtimes`, narrowed to `bindings` when given; each
/// size must be one call's worth for every binding chosen.
pub fn select(
    runtimes: &[Runtime],
    bindings: Option<&[String]>,
    sizes: &[u64],
) -> Result<Vec<FfiTarget>, TargetError> {
    let names = |r: Runtime| -> String {
        r.bindings()
            .iter()
            .map(|b| b.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    for &r in runtimes {
        if r.bindings().is_empty() {
            let with: Vec<&str> = runtimes_with_bindings().iter().map(|r| r.name()).collect();
            return Err(TargetError::NoBindings {
                runtime: r,
                with: with.join(", "),
            });
        }
    }
    if let Some(wanted) = bindings {
        for b in wanted {
            if !binding_names().contains(&b.as_str()) {
                return Err(TargetError::Unknown {
                    given: b.clone(),
                    known: binding_names().join(", "),
                });
            }
            if let Some(&r) = runtimes.iter().find(|r| r.binding(b).is_none()) {
                // With one runtime named, say it lacks it; with several, only
                // when none of them has it.
                if runtimes.len() == 1 || runtimes.iter().all(|r| r.binding(b).is_none()) {
                    return Err(TargetError::NotOffered {
                        runtime: r,
                        binding: b.clone(),
                        has: names(r),
                    });
                }
            }
        }
    }
    let targets: Vec<FfiTarget> = runtimes
        .iter()
        .flat_map(|&runtime| {
            runtime
                .bindings()
                .iter()
                .filter(|b| bindings.is_none_or(|w| w.iter().any(|x| x == b.name)))
                .map(move |binding| FfiTarget { runtime, binding })
        })
        .collect();
    let top = sizes.iter().copied().max().unwrap_or(0);
    if let Some(t) = targets.iter().find(|t| top > t.binding.max_bytes) {
        return Err(TargetError::TooLarge {
            n: top,
            label: t.label(),
            max: t.binding.max_bytes,
            why: t.binding.max_why,
        });
    }
    Ok(targets)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn selects_and_refuses_in_one_line() {
        let all = select(&[Runtime::Rust, Runtime::Python], None, &[0]).unwrap();
        let labels: Vec<String> = all.iter().map(FfiTarget::label).collect();
        assert_eq!(
            labels,
            [
                "rust/direct",
                "rust/dlopen",
                "python/ctypes",
                "python/cffi",
                "python/ext"
            ]
        );
        let dl = select(
            &[Runtime::Rust, Runtime::Python],
            Some(&s(&["dlopen"])),
            &[0],
        )
        .unwrap();
        assert_eq!(dl.len(), 1);
        let e = select(&[Runtime::Rust], Some(&s(&["jni2"])), &[0]).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "unknown binding `jni2`: known bindings are cffi, cgo, ctypes, direct"
            ),
            "{e}"
        );
        let e = select(&[Runtime::Python], Some(&s(&["dlopen"])), &[0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "python has no binding `dlopen`: its bindings are ctypes, cffi, ext (in --binding)"
        );
        let e = select(&[Runtime::C], None, &[0, 1 << 63]).unwrap_err();
        assert!(e.to_string().starts_with("--sizes 9223372036854775808 is beyond what c/direct can pass in one call: at most 9223372036854775807 bytes"), "{e}");
        assert!(select(&[Runtime::Squeak], None, &[0])
            .unwrap_err()
            .to_string()
            .starts_with("squeak has no ffi bindings yet"));
    }
}
