//! Finds a PostgreSQL server's binaries (initdb, pg_ctl, postgres) for the
//! tests that run the store against a real server: `$TOLL_PG_BIN`, else the
//! newest /usr/lib/postgresql/*/bin (Debian's `postgresql` package), else
//! the PATH. Where there is one, `cfg(toll_pg)` is set and the directory is
//! passed as `TOLL_PG_BIN`; where there is none those tests are #[ignore]d,
//! so cargo counts them as ignored, never as passed. The CLI crate uses
//! this same script for its end-to-end PostgreSQL test.

use std::path::{Path, PathBuf};

fn has_server(dir: &Path) -> bool {
    ["initdb", "pg_ctl", "postgres"]
        .iter()
        .all(|b| dir.join(b).is_file())
}

fn find() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TOLL_PG_BIN").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir)).filter(|d| has_server(d));
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, bin)| has_server(bin))
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).find(|d| has_server(d))
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(toll_pg)");
    println!("cargo::rerun-if-env-changed=TOLL_PG_BIN");
    // Installing or removing a Debian package rewrites dpkg's status file
    // (one file to check, not a directory tree to scan).
    let dpkg = Path::new("/var/lib/dpkg/status");
    if dpkg.is_file() {
        println!("cargo::rerun-if-changed={}", dpkg.display());
    } else {
        println!("cargo::rerun-if-env-changed=PATH");
    }
    if let Some(bin) = find() {
        println!("cargo::rustc-cfg=toll_pg");
        println!("cargo::rustc-env=TOLL_PG_BIN={}", bin.display());
    }
}
