//! What a `toll ffi` run is asked (sizes, (runtime, binding, way) targets,
//! what the C side reads, the engine's settings), what each point and
//! series gives back, and why a run can fail; and the choice of targets
//! from `--runtime`, `--binding` and `--pass`.

use serde::Serialize;
use toll_measure::{EngineConfig, SeriesFit, Summary};
use toll_peers::{binding_names, Binding, Ceiling, Pass, PeerError, Runtime, Touch, Way};
use toll_store::{RunStatus, StoreError};

/// The sizes swept by default, bytes per call: 0 is a sum of no bytes (the call alone, α); the
/// largest stays inside a core's L2, so β is the marshalling, not the cache.
pub const DEFAULT_SIZES: &str = "0,1Ki,4Ki,16Ki,64Ki";

/// One way of passing of one binding of one runtime, e.g. python/ctypes
/// passing a bytes object (pinned).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FfiTarget {
    pub runtime: Runtime,
    pub binding: &'static Binding,
    pub pass: Pass,
}

impl FfiTarget {
    /// The series label: `runtime/binding` for the pinned way (the label
    /// every binding had before there were ways), `runtime/binding/way`
    /// for the others.
    pub fn label(&self) -> String {
        match self.pass {
            Pass::Pinned => format!("{}/{}", self.runtime, self.binding.name),
            p => format!("{}/{}/{p}", self.runtime, self.binding.name),
        }
    }

    /// What the call goes through (pinned: the binding's own description)
    /// or how this way passes the bytes; or why the binding does not offer
    /// this way.
    pub fn how(&self) -> Result<String, &'static str> {
        match self.binding.way(self.pass) {
            Way::Offered(how) => Ok(how.to_string()),
            Way::Not(why) => Err(why),
        }
    }
}

/// A validated `toll ffi` request.
#[derive(Debug, Clone)]
pub struct FfiConfig {
    /// Bytes per call; 0 is a sum of no bytes (the call alone).
    pub sizes: Vec<u64>,
    pub targets: Vec<FfiTarget>,
    /// What the C side reads of the bytes (`--touch`).
    pub touch: Touch,
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

/// Every binding of `runtimes`, narrowed to `bindings` when given, each
/// passing the bytes every way of `passes` (a way a binding does not offer
/// is a target too: its row says why); each size must be one call's worth
/// for every way that is offered.
pub fn select(
    runtimes: &[Runtime],
    bindings: Option<&[String]>,
    passes: &[Pass],
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
                .flat_map(move |binding| {
                    passes.iter().map(move |&pass| FfiTarget {
                        runtime,
                        binding,
                        pass,
                    })
                })
        })
        .collect();
    let top = sizes.iter().copied().max().unwrap_or(0);
    if let Some(t) = targets
        .iter()
        .find(|t| t.how().is_ok() && top > t.binding.limit(t.pass).0)
    {
        let (max, why) = t.binding.limit(t.pass);
        return Err(TargetError::TooLarge {
            n: top,
            label: t.label(),
            max,
            why,
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
        let pinned = &[Pass::Pinned];
        let all = select(&[Runtime::Rust, Runtime::Python], None, pinned, &[0]).unwrap();
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
            pinned,
            &[0],
        )
        .unwrap();
        assert_eq!(dl.len(), 1);
        let e = select(&[Runtime::Rust], Some(&s(&["jni2"])), pinned, &[0]).unwrap_err();
        assert!(
            e.to_string().starts_with(
                "unknown binding `jni2`: known bindings are cffi, cgo, ctypes, direct"
            ),
            "{e}"
        );
        let e = select(&[Runtime::Python], Some(&s(&["dlopen"])), pinned, &[0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "python has no binding `dlopen`: its bindings are ctypes, cffi, ext (in --binding)"
        );
        let e = select(&[Runtime::C], None, pinned, &[0, 1 << 63]).unwrap_err();
        assert!(e.to_string().starts_with("--sizes 9223372036854775808 is beyond what c/direct can pass in one call: at most 9223372036854775807 bytes"), "{e}");
        assert!(select(&[Runtime::Squeak], None, pinned, &[0])
            .unwrap_err()
            .to_string()
            .starts_with("squeak has no ffi bindings yet"));
    }

    #[test]
    fn every_way_is_a_target_and_one_not_offered_says_why() {
        let t = select(&[Runtime::C], Some(&s(&["direct"])), &Pass::ALL, &[0]).unwrap();
        let labels: Vec<String> = t.iter().map(FfiTarget::label).collect();
        assert_eq!(labels, ["c/direct", "c/direct/copied", "c/direct/string"]);
        assert!(t[1].how().unwrap().contains("malloc + memcpy"));
        assert!(t[2].how().unwrap_err().contains("already a char *"));
        let e = select(&[Runtime::Node], None, &[Pass::String], &[1 << 29]).unwrap_err();
        assert!(e.to_string().starts_with("--sizes 536870912 is beyond what node/napi/string can pass in one call: at most 536870888 bytes (a V8 string"), "{e}");
        assert!(select(&[Runtime::Node], None, &[Pass::Pinned], &[1 << 29]).is_ok());
    }

    #[test]
    fn a_callback_is_a_series_per_binding_counting_upcalls_not_bytes() {
        let both = [Pass::Pinned, Pass::Callback];
        let t = select(&[Runtime::Haskell], None, &both, &[0, 1 << 40]).unwrap();
        let labels: Vec<String> = t.iter().map(FfiTarget::label).collect();
        assert_eq!(
            labels,
            [
                "haskell/safe",
                "haskell/safe/callback",
                "haskell/unsafe",
                "haskell/unsafe/callback"
            ]
        );
        assert!(t[1].how().unwrap().contains("\"wrapper\""));
        assert!(t[3].how().unwrap_err().contains("safe binding"));
        // Every binding of every runtime says how it calls back, or why not.
        for r in runtimes_with_bindings() {
            for b in r.bindings() {
                assert_ne!(
                    b.callback,
                    Way::Not("not offered yet by this worker"),
                    "{r}/{}",
                    b.name
                );
            }
        }
    }
}
