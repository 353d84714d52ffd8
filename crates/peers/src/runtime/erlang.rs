//! The Erlang worker: workers/erlang/toll_worker.erl, compiled with erlc on
//! first use (cached by source and OTP version) and run by erl.

use super::cache::{build_lock, keyed_dir, write_sources};
use super::launch::Launch;
use super::toolchain::{find_tool, output_line, Toolchain};
use crate::error::PeerError;
use std::path::PathBuf;
use std::process::Command;

pub(super) const INSTALL: &str = "apt-get install erlang-base";
const WORKER: &str = include_str!("../../../../workers/erlang/toll_worker.erl");
/// `ffi`'s module: the NIF's stubs and loop (the NIF is built in `ffi_glue`).
const FFI: &str = include_str!("../../../../workers/erlang/toll_ffi.erl");

/// `erl` and `erlc` (from `$TOLL_ERL`'s directory when set).
pub(super) fn detect() -> Result<Toolchain, PeerError> {
    let mut erl = find_tool("erlang", "TOLL_ERL", "erl", INSTALL)?;
    // `erl --version` would start a shell: ask the runtime instead.
    erl.version = output_line(
        &erl.program,
        &[
            "-noshell",
            "-eval",
            "io:format(\"OTP ~s erts ~s~n\", [erlang:system_info(otp_release), erlang:system_info(version)]), halt().",
        ],
    );
    Ok(erl)
}

fn erlc(erl: &Toolchain) -> Result<std::path::PathBuf, PeerError> {
    let beside = erl.program.with_file_name("erlc");
    if beside.is_file() {
        return Ok(beside);
    }
    Ok(find_tool("erlang", "TOLL_ERLC", "erlc", INSTALL)?.program)
}

pub(super) fn prepare(erl: Toolchain, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
    let dir = keyed_dir("erlang", &[WORKER, FFI, &erl.version]);
    let beam = dir.join("toll_worker.beam");
    let _built = build_lock(&dir)?;
    if !beam.is_file() {
        note("compiling the Erlang worker with erlc (first use; cached after)");
        let src = dir.join("src");
        write_sources(&src, &[("toll_worker.erl", WORKER), ("toll_ffi.erl", FFI)])?;
        let erlc = erlc(&erl)?;
        let tmp = dir.join(format!("build.{}", std::process::id()));
        std::fs::create_dir_all(&tmp)
            .map_err(|e| PeerError::io(format!("creating {}", tmp.display()), e))?;
        let out = Command::new(&erlc)
            .arg("-o")
            .arg(&tmp)
            .arg(src.join("toll_worker.erl"))
            .arg(src.join("toll_ffi.erl"))
            .output()
            .map_err(|e| PeerError::io(format!("running {}", erlc.display()), e))?;
        if !out.status.success() {
            let log = String::from_utf8_lossy(&out.stdout);
            return Err(PeerError::BuildFailed {
                peer: "erlang",
                detail: log
                    .lines()
                    .next()
                    .unwrap_or("erlc failed")
                    .trim()
                    .to_string(),
            });
        }
        // toll_ffi first: toll_worker.beam present means a complete directory.
        std::fs::rename(tmp.join("toll_ffi.beam"), dir.join("toll_ffi.beam"))
            .map_err(|e| PeerError::io(format!("installing {}", dir.display()), e))?;
        std::fs::rename(tmp.join("toll_worker.beam"), &beam)
            .map_err(|e| PeerError::io(format!("installing {}", beam.display()), e))?;
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Ok(launch(erl, dir))
}

/// How to start the compiled worker in `dir` with `erl`.
fn launch(erl: Toolchain, dir: PathBuf) -> Launch {
    Launch {
        program: erl.program,
        args: vec![
            "-noshell".into(),
            "-pa".into(),
            dir.into(),
            "-s".into(),
            "toll_worker".into(),
            "main".into(),
        ],
        toolchain: ("erl".into(), erl.version),
        // A dying runtime writes no erl_crash.dump (hundreds of MB) into the
        // directory toll was started in; the worker's stderr says why it died.
        env: vec![("ERL_CRASH_DUMP_BYTES".into(), "0".into())],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_is_started_without_a_crash_dump() {
        let erl = Toolchain {
            program: "/usr/bin/erl".into(),
            version: "OTP 27".into(),
        };
        let cmd = launch(erl, "/cache/erlang".into()).command();
        let env: Vec<_> = cmd.get_envs().collect();
        assert_eq!(env, [("ERL_CRASH_DUMP_BYTES".as_ref(), Some("0".as_ref()))]);
    }
}
