//! The Java worker: workers/java, compiled with the newest JDK on the machine
//! (21 or newer, for virtual threads; found through JAVA_HOME or
//! /usr/lib/jvm) on first use, cached by source and JDK version.

use super::cache::{build_lock, keyed_dir, write_sources};
use super::launch::Launch;
use super::toolchain::{find_in_path, output_line, Toolchain};
use crate::error::PeerError;
use std::path::PathBuf;
use std::process::Command;

pub(super) const INSTALL: &str =
    "install a JDK 21 or newer (e.g. apt-get install openjdk-21-jdk-headless) or point JAVA_HOME at one";

const SOURCES: [(&str, &str); 4] = [
    (
        "TollWorker.java",
        include_str!("../../../../workers/java/TollWorker.java"),
    ),
    (
        "Wire.java",
        include_str!("../../../../workers/java/Wire.java"),
    ),
    (
        "Units.java",
        include_str!("../../../../workers/java/Units.java"),
    ),
    (
        "Ffi.java",
        include_str!("../../../../workers/java/Ffi.java"),
    ),
];

/// The `ffm` binding: java.lang.foreign is final from JDK 22 (a preview in
/// 21, which would not compile it), so it is compiled only there.
const FFM: (&str, &str) = (
    "FfiFfm.java",
    include_str!("../../../../workers/java/FfiFfm.java"),
);

/// The first JDK whose java.lang.foreign is final.
pub(super) const FFM_MAJOR: u32 = 22;

/// The oldest JDK with virtual threads.
const MIN_MAJOR: u32 = 21;

/// The major version in `java -version`'s first line (`openjdk version "25.0.3" …`).
pub(super) fn major(line: &str) -> Option<u32> {
    let quoted = line.split('"').nth(1)?;
    let first = quoted.split(['.', '-', '+']).next()?;
    match first.parse().ok()? {
        1 => quoted.split('.').nth(1)?.parse().ok(), // 1.8 style
        n => Some(n),
    }
}

/// Every java that has a javac beside it: JAVA_HOME's, /usr/lib/jvm's, PATH's.
fn candidates() -> Vec<PathBuf> {
    let mut homes: Vec<PathBuf> = Vec::new();
    if let Some(h) = std::env::var_os("JAVA_HOME") {
        homes.push(PathBuf::from(h));
    }
    if let Ok(dir) = std::fs::read_dir("/usr/lib/jvm") {
        let mut found: Vec<PathBuf> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
        found.sort();
        homes.extend(found);
    }
    let mut javas: Vec<PathBuf> = homes.iter().map(|h| h.join("bin/java")).collect();
    if let Some(p) = find_in_path("java") {
        javas.push(std::fs::canonicalize(&p).unwrap_or(p));
    }
    javas
        .into_iter()
        .filter(|j| j.is_file() && j.with_file_name("javac").is_file())
        .collect()
}

/// The newest JDK of at least 21 (JAVA_HOME's wins a tie).
pub(super) fn detect() -> Result<Toolchain, PeerError> {
    let mut best: Option<(u32, Toolchain)> = None;
    let mut older = Vec::new();
    for java in candidates() {
        let version = output_line(&java, &["-version"]);
        let Some(m) = major(&version) else { continue };
        if m < MIN_MAJOR {
            older.push(format!("{m} at {}", java.display()));
            continue;
        }
        if best.as_ref().is_none_or(|(b, _)| m > *b) {
            best = Some((
                m,
                Toolchain {
                    program: java,
                    version,
                },
            ));
        }
    }
    best.map(|(_, t)| t)
        .ok_or_else(|| PeerError::MissingToolchain {
            peer: "java",
            tool: if older.is_empty() {
                "a JDK 21 or newer".into()
            } else {
                format!("a JDK 21 or newer (found only {})", older.join(", "))
            },
            install: INSTALL,
        })
}

pub(super) fn prepare(java: Toolchain, note: &mut dyn FnMut(&str)) -> Result<Launch, PeerError> {
    let mut sources = SOURCES.to_vec();
    if major(&java.version).is_some_and(|m| m >= FFM_MAJOR) {
        sources.push(FFM);
    }
    let mut parts: Vec<&str> = sources.iter().map(|(_, s)| *s).collect();
    parts.push(&java.version);
    let dir = keyed_dir("java", &parts);
    let classes = dir.join("classes");
    let _built = build_lock(&dir)?;
    if !classes.join("TollWorker.class").is_file() {
        note("compiling the Java worker with javac (first use; cached after)");
        let src = dir.join("src");
        write_sources(&src, &sources)?;
        let tmp = dir.join(format!("build.{}", std::process::id()));
        let javac = java.program.with_file_name("javac");
        let out = Command::new(&javac)
            .arg("-d")
            .arg(&tmp)
            .args(sources.iter().map(|(name, _)| src.join(name)))
            .output()
            .map_err(|e| PeerError::io(format!("running {}", javac.display()), e))?;
        if !out.status.success() {
            let log = String::from_utf8_lossy(&out.stderr);
            return Err(PeerError::BuildFailed {
                peer: "java",
                detail: log
                    .lines()
                    .next()
                    .unwrap_or("javac failed")
                    .trim()
                    .to_string(),
            });
        }
        let _ = std::fs::remove_dir_all(&classes);
        std::fs::rename(&tmp, &classes)
            .map_err(|e| PeerError::io(format!("installing {}", classes.display()), e))?;
    }
    Ok(Launch {
        program: java.program,
        // The JVM logs warnings (a thread it could not start) to stdout, which
        // is the control plane: send them to stderr with the worker's own.
        args: vec![
            // JNI's System.load and FFM's downcalls are "restricted": without
            // this, JDK 24+ warns on stderr at the first one.
            "--enable-native-access=ALL-UNNAMED".into(),
            "-Xlog:disable".into(),
            "-Xlog:all=warning:stderr".into(),
            "-cp".into(),
            classes.into(),
            "TollWorker".into(),
        ],
        toolchain: ("java".into(), java.version),
        env: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_major_version() {
        assert_eq!(
            super::major(r#"openjdk version "25.0.3" 2026-04-21 LTS"#),
            Some(25)
        );
        assert_eq!(
            super::major(r#"openjdk version "17.0.15" 2025-04-15"#),
            Some(17)
        );
        assert_eq!(super::major(r#"java version "1.8.0_202""#), Some(8));
        assert_eq!(
            super::major(r#"openjdk version "21-ea" 2023-09-19"#),
            Some(21)
        );
        assert_eq!(super::major("nonsense"), None);
    }
}
