//! First use is safe under concurrency (issue 47): two threads of one
//! process preparing the same worker, RPC server or ffi library at once
//! on an empty cache both succeed, and what they get runs. (A test binary
//! runs its tests on threads like these; crates/cli/tests/build_race.rs
//! races two processes.) One test: the cache directory is set for the
//! whole process before any thread starts.

use std::path::Path;
use toll_peers::{launch_rpc_server, FfiLaunch, Launch, PeerError, Runtime};

/// Run `prepare` on two threads at once: both results.
fn on_two_threads<T: Send + 'static>(
    prepare: fn() -> Result<T, PeerError>,
) -> [Result<T, PeerError>; 2] {
    let a = std::thread::spawn(prepare);
    let b = std::thread::spawn(prepare);
    [a.join().unwrap(), b.join().unwrap()]
}

fn runs(program: &Path) {
    let meta = std::fs::metadata(program).unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    assert!(meta.len() > 0, "{} is empty", program.display());
}

fn both(what: &str, results: [Result<Launch, PeerError>; 2]) {
    for r in results {
        match r {
            Ok(l) => runs(&which(&l.program)),
            Err(e) => panic!("{what}: {e}"),
        }
    }
}

/// A launch's program as a path (a bare name is looked up on PATH).
fn which(program: &Path) -> std::path::PathBuf {
    if program.components().count() > 1 {
        return program.to_path_buf();
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(program))
        .find(|p| p.exists())
        .unwrap_or_else(|| program.to_path_buf())
}

#[test]
fn two_threads_on_an_empty_cache_both_get_a_built_worker() {
    let cache = std::env::temp_dir().join(format!("toll-build-race-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&cache);
    // SAFETY: set once, before this binary's only test starts a thread.
    std::env::set_var("TOLL_CACHE_DIR", &cache);
    let mut skipped = Vec::new();
    type Prepare = fn() -> Result<Launch, PeerError>;
    let workers: [(&str, Runtime, Prepare); 4] = [
        ("c", Runtime::C, || Runtime::C.prepare()),
        ("go", Runtime::Go, || Runtime::Go.prepare()),
        ("java", Runtime::Java, || Runtime::Java.prepare()),
        ("erlang", Runtime::Erlang, || Runtime::Erlang.prepare()),
    ];
    for (name, runtime, prepare) in workers {
        if runtime.detect().is_err() {
            skipped.push(name);
            continue;
        }
        both(&format!("the {name} worker"), on_two_threads(prepare));
    }
    if Runtime::Go.detect().is_ok() {
        both(
            "the go rpc server",
            on_two_threads(|| launch_rpc_server("go", &mut |_| {})),
        );
    }
    if Runtime::C.detect().is_ok() {
        for runtime in [Runtime::C, Runtime::Python] {
            if runtime.detect().is_err() {
                skipped.push(runtime.name());
                continue;
            }
            let prepare: fn() -> Result<FfiLaunch, PeerError> = match runtime {
                Runtime::C => || Runtime::C.prepare_ffi(&mut |_| {}),
                _ => || Runtime::Python.prepare_ffi(&mut |_| {}),
            };
            let [a, b] = on_two_threads(prepare)
                .map(|r| r.unwrap_or_else(|e| panic!("{}'s ffi library: {e}", runtime.name())));
            // A glue that cannot be built here (no Python headers) is
            // unbuilt for both; one a race broke would be for one only.
            assert_eq!(a.unbuilt, b.unbuilt, "{}'s ffi glue", runtime.name());
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    if !skipped.is_empty() {
        println!("not installed here, so not raced: {}", skipped.join(", "));
    }
}
