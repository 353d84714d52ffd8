//! The programs' rows, from one `toll exec -N` run: the start-up of a
//! program that does nothing — its `main` returns at once — in C, Rust, Go,
//! Python, Node and Java, built here as E5's loop is (gcc, rustc -O, go
//! build, javac; the interpreters themselves for Python and Node), all
//! interleaved in rounds.

use super::group::Group;
use super::read::fill;
use super::row::{Kind, MadeOf, Planned, Sheet, Source, Take};
use crate::exec::{self, ExecConfig, Launch, Order, Output, RunCount};
use crate::replicate::e5_start_up_loop::build::{
    compiled, python_itself, quote, write, Missing, RUSTC_INSTALL,
};
use crate::replicate::{Ctx, Preset, INTERRUPTED};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use toll_peers::Runtime;

const G: Group = Group::Programs;

/// The languages, in the table's order: (key, what the start-up is made of).
const LANGS: [(&str, &str); 6] = [
    (
        "c",
        "posix_spawn (a vfork-like clone, then exec), the dynamic loader and libc's start (gcc -O2)",
    ),
    (
        "rust",
        "posix_spawn, the loader, Rust's runtime set-up (rustc -O)",
    ),
    (
        "go",
        "posix_spawn, a static binary, Go's runtime: its heap, scheduler and threads",
    ),
    (
        "python",
        "posix_spawn, CPython's start: its modules imported, site run",
    ),
    (
        "node",
        "posix_spawn, Node's start: V8 and its snapshot, libuv's loop",
    ),
    (
        "java",
        "posix_spawn, the JVM's start: its heap, class loading, the interpreter",
    ),
];

/// Measured runs of each program: rounds after one warm-up round.
fn runs(p: Preset) -> usize {
    p.pick(30, 10, 3)
}

/// Measured runs of the C program by fork + exec: as many in quick as in
/// full (30 runs of about 1.5 ms). Its median of 10 moved between 1.1 and
/// 1.8 ms from one quick atlas to the next on a busy 2-vCPU guest, and
/// came out at 1.9 ms against the full atlas's 1.3 once.
fn fork_exec_runs(p: Preset) -> usize {
    p.pick(30, 30, 3)
}

/// Whether a preset runs `key` (the tests' builds nothing slow).
fn in_preset(p: Preset, key: &str) -> bool {
    p != Preset::Test || matches!(key, "c" | "python")
}

fn row(key: &str, words: &str) -> Planned {
    Planned::new(
        format!("start-up of a program that does nothing ({key})"),
        Kind::Time,
        MadeOf::words(words),
        Source::new(key, Take::Point { n: 0 }),
    )
}

fn not_installed(r: Runtime) -> Missing {
    Missing::NotInstalled(format!("{r} not installed: {}", r.install_hint()))
}

/// Build `key`'s program under `dir`: the command that runs it.
fn build(key: &str, dir: &Path) -> Result<String, Missing> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Missing::Failed(format!("cannot create {}: {e}", dir.display())))?;
    let compile = |tool: &str, args: &[&str], install: &str| {
        compiled(
            Command::new(tool).current_dir(dir).args(args).output(),
            tool,
            install,
        )
    };
    match key {
        "c" => {
            write(dir, "null.c", "int main(void) { return 0; }\n")?;
            compile(
                "gcc",
                &["-O2", "-o", "null-c", "null.c"],
                Runtime::C.install_hint(),
            )?;
            Ok(quote(&dir.join("null-c")))
        }
        "rust" => {
            write(dir, "null.rs", "fn main() {}\n")?;
            let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
            compile(&rustc, &["-O", "-o", "null-rust", "null.rs"], RUSTC_INSTALL)?;
            Ok(quote(&dir.join("null-rust")))
        }
        "go" => {
            let go = Runtime::Go
                .detect()
                .map_err(|_| not_installed(Runtime::Go))?;
            write(dir, "null.go", "package main\n\nfunc main() {}\n")?;
            let mut cmd = Command::new(&go.program);
            let homeless = ["GOCACHE", "XDG_CACHE_HOME", "HOME"]
                .iter()
                .all(|v| std::env::var_os(v).is_none_or(|x| x.is_empty()));
            if homeless {
                cmd.env("GOCACHE", dir.join("gocache"));
            }
            let out = cmd
                .current_dir(dir)
                .env("GO111MODULE", "off")
                .args(["build", "-o", "null-go", "null.go"])
                .output();
            compiled(out, "go", Runtime::Go.install_hint())?;
            Ok(quote(&dir.join("null-go")))
        }
        "java" => {
            let java = Runtime::Java
                .detect()
                .map_err(|_| not_installed(Runtime::Java))?;
            write(
                dir,
                "Null.java",
                "class Null {\n    public static void main(String[] args) {}\n}\n",
            )?;
            let javac = java.program.with_file_name("javac");
            let out = Command::new(&javac)
                .current_dir(dir)
                .args(["-d", "."])
                .arg("Null.java")
                .output();
            compiled(out, "javac", Runtime::Java.install_hint())?;
            Ok(format!("{} -cp {} Null", quote(&java.program), quote(dir)))
        }
        "python" => {
            let py = Runtime::Python
                .detect()
                .map_err(|_| not_installed(Runtime::Python))?;
            let src = write(dir, "null.py", "")?;
            Ok(format!(
                "{} {}",
                quote(&python_itself(py.program)),
                quote(&src)
            ))
        }
        _ => {
            let node = Runtime::Node
                .detect()
                .map_err(|_| not_installed(Runtime::Node))?;
            let src = write(dir, "null.js", "")?;
            Ok(format!("{} {}", quote(&node.program), quote(&src)))
        }
    }
}

pub fn run(ctx: &mut Ctx, sheet: &mut Sheet) {
    let p = ctx.preset;
    let dir = ctx.scratch.join("atlas-null");
    let mut built: Vec<(String, String, Planned)> = vec![];
    for (key, words) in LANGS {
        let r = row(key, words);
        if !in_preset(p, key) {
            sheet.missing(G, &r, "not measured: left out of the tests' preset");
        } else if ctx.stopped() {
            sheet.missing(G, &r, INTERRUPTED);
        } else {
            match build(key, &dir) {
                Ok(cmd) => built.push((key.to_string(), cmd, r)),
                Err(Missing::NotInstalled(why)) => sheet.missing(G, &r, why),
                Err(Missing::Failed(why)) => {
                    sheet.failed(&format!("building the {key} program"), &why);
                    sheet.missing(G, &r, format!("build failed: {why}"));
                }
            }
        }
    }
    if built.is_empty() {
        return;
    }
    let rows: Vec<Planned> = built.iter().map(|(_, _, r)| r.clone()).collect();
    if ctx.stopped() {
        rows.iter().for_each(|r| sheet.missing(G, r, INTERRUPTED));
        return;
    }
    let commands: Vec<(String, String)> = built
        .iter()
        .map(|(k, c, _)| (k.clone(), c.clone()))
        .collect();
    let run = measure(ctx, sheet, &commands, Launch::PosixSpawn, runs(p));
    fill(sheet, ctx.store, G, &rows, run, ctx.stopped());
    // The C program again, started by fork + exec: a run of its own.
    let fork_exec = Planned::new(
        FORK_EXEC,
        Kind::Time,
        MadeOf::of(
            "fork (toll's page tables copied, copy-on-write) and exec instead of posix_spawn's vfork, then the same C program",
            &[(1.0, "start-up of a program that does nothing (c)")],
        ),
        Source::new("c", Take::Point { n: 0 }),
    );
    match commands.iter().find(|(k, _)| k == "c") {
        _ if ctx.stopped() => sheet.missing(G, &fork_exec, INTERRUPTED),
        None => sheet.missing(
            G,
            &fork_exec,
            "not measured: the C program was not built (its row says why)",
        ),
        Some(c) => {
            let runs = fork_exec_runs(ctx.preset);
            let run = measure(ctx, sheet, std::slice::from_ref(c), Launch::ForkExec, runs);
            fill(sheet, ctx.store, G, &[fork_exec], run, ctx.stopped());
        }
    }
}

/// The C program's start by fork + exec, its crossing.
pub const FORK_EXEC: &str = "start-up of a program that does nothing (c), by fork+exec";

/// One `toll exec -N` run of `commands` (key, command), interleaved, `runs`
/// times each.
fn measure(
    ctx: &mut Ctx,
    sheet: &mut Sheet,
    commands: &[(String, String)],
    launch: Launch,
    runs: usize,
) -> Result<i64, String> {
    let cfg = ExecConfig {
        commands: commands.iter().map(|(_, c)| c.clone()).collect(),
        names: commands.iter().map(|(k, _)| Some(k.clone())).collect(),
        params: vec![],
        shell: None,
        warmup: 1,
        runs: RunCount::Exact(runs),
        ci_target: None,
        max_time: Duration::from_secs(300),
        prepare: None,
        setup: None,
        cleanup: None,
        ignore_failure: false,
        input: None,
        output: Output::Null,
        pin: None,
        order: Order::Alternate,
        launch,
    };
    match exec::run(&cfg, ctx.store, ctx.observer, ctx.stop) {
        Ok(out) => {
            sheet.runs.push(("exec".into(), out.run_id));
            if let Some(e) = &out.error {
                sheet.failed("exec", e);
            }
            Ok(out.run_id)
        }
        Err(e) => {
            sheet.failed("exec", &e);
            Err(format!("failed: {e}"))
        }
    }
}

/// About how long the run takes, s: the builds (Go's and javac's the
/// longest), then each program's runs (Java's ~50 ms a start).
pub fn estimate(p: Preset) -> f64 {
    let keys: Vec<&str> = LANGS
        .iter()
        .map(|(k, _)| *k)
        .filter(|k| in_preset(p, k))
        .collect();
    let builds: f64 = keys
        .iter()
        .map(|k| match *k {
            "go" => 2.0,
            "java" => 1.5,
            "rust" => 0.5,
            "c" => 0.2,
            _ => 0.0,
        })
        .sum();
    let each: f64 = keys
        .iter()
        .map(|k| match *k {
            "java" => 0.06,
            "node" => 0.05,
            "python" => 0.02,
            _ => 0.002,
        })
        .sum();
    // The C program again, by fork + exec.
    builds + (runs(p) + 1) as f64 * each + (fork_exec_runs(p) + 1) as f64 * 0.002
}
