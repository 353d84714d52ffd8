//! E5's loop built in each language, as examples/e5-loop/build builds it:
//! gcc -O3, rustc -O, go build, javac (the newest JDK ≥ 21), python3 (the
//! interpreter itself, not a version manager's shim). Each language comes
//! back as the command template `toll exec` runs (`{n}` in it), or why it
//! has none: its toolchain missing (with the install command) or its build
//! failed.

use std::path::Path;
use std::process::Command;
use toll_peers::Runtime;

/// E5's loop, as examples/e5-loop has it.
const LOOP_C: &str = include_str!("../../../../../examples/e5-loop/loop.c");
const LOOP_RS: &str = include_str!("../../../../../examples/e5-loop/loop.rs");
const LOOP_GO: &str = include_str!("../../../../../examples/e5-loop/loop.go");
const LOOP_JAVA: &str = include_str!("../../../../../examples/e5-loop/Loop.java");
const LOOP_PY: &str = include_str!("../../../../../examples/e5-loop/loop.py");

/// rustc's install command (toll's own Rust peer needs none: it is built in).
pub const RUSTC_INSTALL: &str = "install Rust from https://rustup.rs (or apt-get install rustc)";

/// The languages E5's loop is run in, in the table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    C,
    Java,
    Go,
    Rust,
    Python,
}

impl Lang {
    pub const ALL: [Lang; 5] = [Lang::C, Lang::Java, Lang::Go, Lang::Rust, Lang::Python];

    /// Its name in `toll exec`'s series.
    pub fn key(self) -> &'static str {
        match self {
            Lang::C => "c",
            Lang::Java => "java",
            Lang::Go => "go",
            Lang::Rust => "rust",
            Lang::Python => "python",
        }
    }
}

/// Why a language has no command: it is not installed, or it failed to build.
#[derive(Debug, Clone, PartialEq)]
pub enum Missing {
    /// "go not installed: apt-get install golang-go …": its row says so.
    NotInstalled(String),
    /// The toolchain is there but the build failed: an error of the run.
    Failed(String),
}

/// Build `lang`'s loop under `dir`: its command template, or why there is none.
pub fn build(lang: Lang, dir: &Path) -> Result<String, Missing> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Missing::Failed(format!("cannot create {}: {e}", dir.display())))?;
    match lang {
        Lang::C => {
            let src = write(dir, "loop.c", LOOP_C)?;
            let bin = dir.join("loop-c");
            let gcc = Command::new("gcc")
                .arg("-O3")
                .arg("-o")
                .arg(&bin)
                .arg(&src)
                .output();
            compiled(gcc, "gcc", Runtime::C.install_hint())?;
            Ok(format!("{} {{n}}", quote(&bin)))
        }
        Lang::Rust => {
            let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
            let src = write(dir, "loop.rs", LOOP_RS)?;
            let bin = dir.join("loop-rust");
            let out = Command::new(rustc)
                .args(["-O", "--edition", "2021", "-o"])
                .arg(&bin)
                .arg(&src)
                .output();
            compiled(out, "rustc", RUSTC_INSTALL)?;
            Ok(format!("{} {{n}}", quote(&bin)))
        }
        Lang::Go => {
            let go = Runtime::Go
                .detect()
                .map_err(|_| not_installed("go", Runtime::Go))?;
            write(dir, "loop.go", LOOP_GO)?;
            let bin = dir.join("loop-go");
            let mut cmd = Command::new(&go.program);
            // go build needs a cache: a home's, else one of its own here.
            let homeless = ["GOCACHE", "XDG_CACHE_HOME", "HOME"]
                .iter()
                .all(|v| std::env::var_os(v).is_none_or(|x| x.is_empty()));
            if homeless {
                cmd.env("GOCACHE", dir.join("gocache"));
            }
            let out = cmd
                .current_dir(dir)
                .env("GO111MODULE", "off")
                .arg("build")
                .arg("-o")
                .arg(&bin)
                .arg("loop.go")
                .output();
            compiled(out, "go", Runtime::Go.install_hint())?;
            Ok(format!("{} {{n}}", quote(&bin)))
        }
        Lang::Java => {
            let java = Runtime::Java
                .detect()
                .map_err(|_| not_installed("java", Runtime::Java))?;
            let src = write(dir, "Loop.java", LOOP_JAVA)?;
            let out = Command::new(java.program.with_file_name("javac"))
                .arg("-d")
                .arg(dir)
                .arg(&src)
                .output();
            compiled(out, "javac", Runtime::Java.install_hint())?;
            Ok(format!(
                "{} -cp {} Loop {{n}}",
                quote(&java.program),
                quote(dir)
            ))
        }
        Lang::Python => {
            let py = Runtime::Python
                .detect()
                .map_err(|_| not_installed("python", Runtime::Python))?;
            let src = write(dir, "loop.py", LOOP_PY)?;
            let real = python_itself(py.program);
            Ok(format!("{} {} {{n}}", quote(&real), quote(&src)))
        }
    }
}

/// The interpreter itself, not a version manager's shim (pyenv's costs
/// ~30 ms a start); `program` where it cannot say.
pub(crate) fn python_itself(program: std::path::PathBuf) -> std::path::PathBuf {
    Command::new(&program)
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|p| !p.is_empty() && Path::new(p).is_file())
        .map_or(program, Into::into)
}

fn not_installed(name: &str, runtime: Runtime) -> Missing {
    Missing::NotInstalled(format!("{name} not installed: {}", runtime.install_hint()))
}

pub(crate) fn write(dir: &Path, name: &str, text: &str) -> Result<std::path::PathBuf, Missing> {
    let path = dir.join(name);
    std::fs::write(&path, text)
        .map_err(|e| Missing::Failed(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

/// A compiler's outcome: not found is "not installed" with `install`; a
/// failure is its first line of complaint.
pub(crate) fn compiled(
    out: std::io::Result<std::process::Output>,
    tool: &str,
    install: &str,
) -> Result<(), Missing> {
    match out {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(Missing::NotInstalled(format!(
            "{tool} not installed: {install}"
        ))),
        Err(e) => Err(Missing::Failed(format!("cannot run {tool}: {e}"))),
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            let line = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Err(Missing::Failed(format!(
                "{tool} failed ({}): {}",
                o.status,
                line.trim()
            )))
        }
    }
}

/// A path as one word of a command `toll exec -N` splits.
pub(crate) fn quote(path: &Path) -> String {
    let s = path.display().to_string();
    let plain = s
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c));
    if plain && !s.is_empty() {
        s
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::command::split_words;

    #[test]
    fn a_path_is_one_word_whatever_it_holds() {
        for p in ["/tmp/x/loop-c", "/tmp/a b/it's"] {
            let cmd = format!("{} {{n}}", quote(Path::new(p)));
            assert_eq!(split_words(&cmd).unwrap(), [p, "{n}"], "{cmd}");
        }
        assert_eq!(quote(Path::new("/tmp/x/loop-c")), "/tmp/x/loop-c");
    }

    #[test]
    fn a_missing_compiler_says_how_to_install_it() {
        let gone = Command::new("/nonexistent/toll-no-such-compiler").output();
        assert_eq!(
            compiled(gone, "gcc", "apt-get install gcc"),
            Err(Missing::NotInstalled(
                "gcc not installed: apt-get install gcc".into()
            ))
        );
        let failed = Command::new("sh")
            .args(["-c", "echo 'loop.c:1: error: oops' >&2; exit 1"])
            .output();
        let why = compiled(failed, "gcc", "").unwrap_err();
        assert!(
            matches!(&why, Missing::Failed(w) if w.contains("loop.c:1: error: oops")),
            "{why:?}"
        );
    }
}
