//! Probes for the tests that need something a machine may lack. Each probe
//! that finds its thing sets a cfg; a test that needs it carries
//! `#[cfg_attr(not(toll_…), ignore = "needs …: how to get it")]`, so where
//! the thing is missing cargo counts the test as ignored, never as passed.
//! The tests run as the user who builds them, on the machine that builds
//! them, so what the build sees is what they will see; each test still
//! checks at run time and fails, naming the cfg, if the thing has gone.
//!
//! - `toll_pg`: PostgreSQL's server binaries (initdb, pg_ctl, postgres):
//!   `$TOLL_PG_BIN`, else the newest /usr/lib/postgresql/*/bin (Debian's
//!   `postgresql` package), else the PATH; the directory is passed to the
//!   tests as `TOLL_PG_BIN`.
//! - `toll_root`: the effective user is root (network namespaces, running
//!   toll as `nobody`).
//! - `toll_nobody_exec`: root, and `nobody` can reach the built binaries
//!   (every directory above the build's output is searchable by others):
//!   a toll run as `nobody` starts its own workers from where it was built.
//!   A work tree under a private directory (mode 0700, as `mktemp -d` makes)
//!   has root without this.
//! - `toll_chromium`: `chromium` or `chromium-browser` on the PATH.
//! - `toll_jdk`: a JDK 21 or newer (java and javac), through `$JAVA_HOME` or
//!   /usr/lib/jvm, as examples/e5-loop/build and scripts/setup find it.
//! - `toll_ghc`: `$TOLL_GHC`, else `ghc` on the PATH.
//! - `toll_squeak`: the Squeak VM and an image, as crates/peers finds them.
//! - `toll_scratch_image`: Debian's Scratch image, whose start-up the
//!   Squeak worker rewrites.
//! - `toll_low_map_count`: vm.max_map_count is low enough (≤ 236000) that
//!   the threads past it are few enough for a test.
//! - `toll_py_hdrh`: Python's HdrHistogram (`import hdrh`, PyPI's
//!   `hdrhistogram`; scripts/setup installs it): an independent merge of
//!   the agents' histograms.
//!
//! `TOLL_TEST_WITHOUT=root,chromium` (or `all`) builds as if those were
//! missing, to see the tests ignored. A sysctl or user change is not seen
//! until the script reruns (`touch crates/store/build.rs`).
//!
//! The store uses `toll_pg`; the peers, families and CLI crates point their
//! `build` at this same script for their tests.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cfgs this script may set, by the name `TOLL_TEST_WITHOUT` takes.
const PROBES: [&str; 10] = [
    "pg",
    "root",
    "nobody_exec",
    "chromium",
    "jdk",
    "ghc",
    "squeak",
    "scratch_image",
    "low_map_count",
    "py_hdrh",
];

/// A probe: its name, and whether this machine has the thing.
type Probe = (&'static str, fn() -> bool);

/// Environment variables the probes read, besides PATH.
const ENV: [&str; 6] = [
    "TOLL_TEST_WITHOUT",
    "TOLL_PG_BIN",
    "JAVA_HOME",
    "TOLL_GHC",
    "TOLL_SQUEAK_VM",
    "TOLL_SQUEAK_IMAGE",
];

fn executable(p: &Path) -> bool {
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// `name` on the PATH (or as given, when it holds a slash).
fn in_path(name: &str) -> Option<PathBuf> {
    if name.contains('/') {
        return Some(PathBuf::from(name)).filter(|p| executable(p));
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(name))
        .find(|p| executable(p))
}

fn has_server(dir: &Path) -> bool {
    ["initdb", "pg_ctl", "postgres"]
        .iter()
        .all(|b| dir.join(b).is_file())
}

fn postgres() -> Option<PathBuf> {
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

/// /proc/self belongs to the process's effective user.
fn root() -> bool {
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

/// Root, and every directory above the build's output searchable by others.
fn nobody_exec() -> bool {
    let Some(out) = std::env::var_os("OUT_DIR") else {
        return false;
    };
    root()
        && Path::new(&out)
            .ancestors()
            .skip(1)
            .all(|d| std::fs::metadata(d).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

/// As the tests' own `chromium()` looks it up.
fn chromium() -> bool {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser"]
        .iter()
        .any(|name| std::env::split_paths(&path).any(|d| d.join(name).is_file()))
}

/// The major version in `java -version`'s first line (`openjdk version "25.0.3" …`).
fn java_major(java: &Path) -> Option<u32> {
    let o = Command::new(java).arg("-version").output().ok()?;
    let text = String::from_utf8_lossy(&o.stderr);
    let quoted = text.lines().next()?.split('"').nth(1)?;
    match quoted.split(['.', '-', '+']).next()?.parse().ok()? {
        1 => quoted.split('.').nth(1)?.parse().ok(), // 1.8 style
        n => Some(n),
    }
}

/// A JDK of at least 21 in `$JAVA_HOME` or /usr/lib/jvm.
fn jdk() -> bool {
    let mut homes: Vec<PathBuf> = std::env::var_os("JAVA_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .into_iter()
        .collect();
    if let Ok(dir) = std::fs::read_dir("/usr/lib/jvm") {
        homes.extend(dir.flatten().map(|e| e.path()));
    }
    homes.iter().any(|h| {
        executable(&h.join("bin/javac")) && java_major(&h.join("bin/java")).is_some_and(|m| m >= 21)
    })
}

fn ghc() -> bool {
    let name = std::env::var("TOLL_GHC").unwrap_or_else(|_| "ghc".into());
    in_path(&name).is_some()
}

/// The VM (`$TOLL_SQUEAK_VM`, `squeakvm`, /usr/lib/squeak/*/squeakvm) and
/// the image (`$TOLL_SQUEAK_IMAGE`, else Scratch's).
fn squeak() -> bool {
    let vm = match std::env::var("TOLL_SQUEAK_VM") {
        Ok(name) => in_path(&name).is_some(),
        Err(_) => {
            in_path("squeakvm").is_some()
                || std::fs::read_dir("/usr/lib/squeak")
                    .into_iter()
                    .flatten()
                    .flatten()
                    .any(|d| d.path().join("squeakvm").is_file())
        }
    };
    let image = std::env::var_os("TOLL_SQUEAK_IMAGE")
        .map(PathBuf::from)
        .unwrap_or_else(|| SCRATCH_IMAGE.into());
    vm && image.is_file()
}

/// Where Debian's `scratch` puts its image (crates/peers's DEFAULT_IMAGE).
const SCRATCH_IMAGE: &str = "/usr/share/scratch/Scratch.image";

fn scratch_image() -> bool {
    Path::new(SCRATCH_IMAGE).is_file()
}

/// The test makes max_map_count / 4 + 1000 threads; past 60000 it is too slow.
fn low_map_count() -> bool {
    std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .is_some_and(|max| max / 4 + 1000 <= 60_000)
}

/// A pip install does not touch dpkg's status: `touch crates/store/build.rs`.
fn py_hdrh() -> bool {
    Command::new("python3")
        .args(["-c", "import hdrh.histogram"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn main() {
    // The compiler that built toll, stored with a run whose code it compiled
    // (toll ffi's Rust bindings): cargo names it in RUSTC.
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = std::process::Command::new(&rustc)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("cargo::rustc-env=TOLL_RUSTC_VERSION={version}");
    for probe in PROBES {
        println!("cargo::rustc-check-cfg=cfg(toll_{probe})");
    }
    for var in ENV {
        println!("cargo::rerun-if-env-changed={var}");
    }
    // Installing or removing a Debian package rewrites dpkg's status file
    // (one file to check, not a directory tree to scan); elsewhere the
    // programs come and go with the PATH.
    let dpkg = Path::new("/var/lib/dpkg/status");
    if dpkg.is_file() {
        println!("cargo::rerun-if-changed={}", dpkg.display());
    } else {
        println!("cargo::rerun-if-env-changed=PATH");
    }
    let without = std::env::var("TOLL_TEST_WITHOUT").unwrap_or_default();
    let without: Vec<&str> = without
        .split(',')
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .collect();
    for w in &without {
        if *w != "all" && !PROBES.contains(w) {
            println!(
                "cargo::warning=TOLL_TEST_WITHOUT: unknown probe `{w}`: valid ones are all, {}",
                PROBES.join(", ")
            );
        }
    }
    let wanted = |probe: &str| !without.contains(&"all") && !without.contains(&probe);
    if wanted("pg") {
        if let Some(bin) = postgres() {
            println!("cargo::rustc-cfg=toll_pg");
            println!("cargo::rustc-env=TOLL_PG_BIN={}", bin.display());
        }
    }
    let found: [Probe; 9] = [
        ("root", root),
        ("nobody_exec", nobody_exec),
        ("chromium", chromium),
        ("jdk", jdk),
        ("ghc", ghc),
        ("squeak", squeak),
        ("scratch_image", scratch_image),
        ("low_map_count", low_map_count),
        ("py_hdrh", py_hdrh),
    ];
    for (probe, present) in found {
        if wanted(probe) && present() {
            println!("cargo::rustc-cfg=toll_{probe}");
        }
    }
}
