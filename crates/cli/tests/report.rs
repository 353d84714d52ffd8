//! `toll report` end to end: real runs stored, written as one HTML page and
//! opened in headless Chromium (Debian's `chromium`, which scripts/setup
//! installs; ignored where the build found none), whose DOM must hold the tables, the inline SVG plots and every
//! series; and as Markdown; and the mistakes a user makes.

mod common;
use common::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Two runs: a transfer whose sizes span decades (so its plot is log–log,
/// with n = 0 past the axis' break) and an exec whose command label holds
/// markup that must arrive as text.
fn two_runs(s: &Scratch) {
    let mut args = vec![
        "transfer",
        "--peer",
        "rust",
        "--via",
        "pipe,unix",
        "--sizes",
        "0,100,10000,100000",
    ];
    args.extend_from_slice(QUICK);
    let o = s.toll(&args);
    assert!(o.status.success(), "transfer: {}", stderr(&o));
    let o = s.toll(&[
        "exec",
        "-N",
        "--runs",
        "3",
        "-L",
        "n",
        "1,2,3",
        "echo <b>&{n}</b> x|y",
    ]);
    assert!(o.status.success(), "exec: {}", stderr(&o));
}

/// Chromium on the PATH, which the build found (`cfg(toll_chromium)`).
fn chromium() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    ["chromium", "chromium-browser"]
        .iter()
        .find_map(|name| {
            std::env::split_paths(&path)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
        .expect(
            "built with chromium (cfg toll_chromium) but none on the PATH now: \
             apt-get install chromium, or rebuild (touch crates/store/build.rs) to ignore this test",
        )
}

/// Chromium headless as root can run it: no sandbox, no GPU, nothing
/// fetched in the background, a fresh profile. Returns its stdout.
fn headless(browser: &Path, s: &Scratch, extra: &[&str], page: &Path) -> String {
    let profile = s.0.join(format!("profile-{}", extra.len()));
    let o = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("run chromium");
    assert!(o.status.success(), "chromium failed: {}", stderr(&o));
    stdout(&o)
}

/// The two runs' HTML report, written to a file: its path.
fn html_report(s: &Scratch) -> PathBuf {
    two_runs(s);
    let page = s.0.join("report.html");
    let o = s.toll(&["report", "1", "2", "-o", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("written to"), "{}", stderr(&o));
    page
}

#[test]
fn the_html_report_is_self_contained_and_escapes_labels() {
    let s = Scratch::new("report-html-text");
    let html = std::fs::read_to_string(html_report(&s)).unwrap();
    // Self-contained: nothing fetched from anywhere.
    for fetch in [
        "src=\"http",
        "href=\"http",
        "src='http",
        "href='http",
        "url(",
        "@import",
    ] {
        assert!(!html.contains(fetch), "the page fetches `{fetch}`");
    }
    assert!(!html.contains("<script"), "no script");
    // The markup in the command arrived as text.
    assert!(
        html.contains("echo &lt;b&gt;&amp;{n}&lt;/b&gt; x|y"),
        "escaped label"
    );
    assert!(!html.contains("<b>&"), "raw markup from a label");
}

#[test]
#[cfg_attr(
    not(toll_chromium),
    ignore = "needs chromium to render the page: apt-get install chromium"
)]
fn the_html_report_renders_its_tables_plots_and_series_in_chromium() {
    let browser = chromium();
    let s = Scratch::new("report-html");
    let page = html_report(&s);
    let dom = headless(&browser, &s, &["--dump-dom"], &page);
    assert!(dom.contains("</html>"), "a whole DOM: {dom}");
    // Per run machine, config and models; one table of points per series
    // (two transfer series, one exec command).
    assert_eq!(dom.matches("<table").count(), 2 * 3 + 3, "tables");
    assert!(dom.matches("<svg").count() >= 2, "a plot per run");
    assert!(dom.matches("<polyline").count() >= 3, "fitted lines");
    for label in [
        "rust/pipe",
        "rust/unix",
        "echo &lt;b&gt;&amp;{n}&lt;/b&gt; x|y",
    ] {
        assert!(dom.contains(label), "series {label} on the page");
    }
    let texts = svg_texts(&dom);
    for tick in ["0", "100", "1k", "10k", "100k"] {
        assert!(
            texts.contains(&tick),
            "a round tick {tick} on the log axis: {texts:?}"
        );
    }
    assert!(dom.contains("Machine") && dom.contains("Models") && dom.contains("Config"));
    let shot = s.0.join("report.png");
    let shot_arg = format!("--screenshot={}", shot.display());
    headless(&browser, &s, &[&shot_arg, "--window-size=1200,2000"], &page);
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "a rendered page"
    );
}

#[test]
fn the_markdown_report_is_github_tables_without_plots() {
    let s = Scratch::new("report-md");
    two_runs(&s);
    let o = s.toll(&["report", "1", "--format", "md"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.starts_with("## toll transfer — run 1 (complete)"),
        "{md}"
    );
    for want in [
        "### Machine",
        "### Config",
        "### Models",
        "#### rust/pipe",
        "| series |",
        "|---|",
    ] {
        assert!(md.contains(want), "`{want}` in: {md}");
    }
    assert!(!md.contains("<svg"));
    // An -o FILE.md is Markdown without --format; the label's markup and
    // its `|` cannot break out of their cell.
    let file = s.0.join("report.md");
    let o = s.toll(&["report", "2", "-o", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = std::fs::read_to_string(&file).unwrap();
    assert!(
        md.contains("echo &lt;b&gt;&amp;{n}&lt;/b&gt; x\\|y"),
        "{md}"
    );
    // HTML to a pipe (stdout here is one) is the page.
    let o = s.toll(&["report"]);
    assert!(stdout(&o).starts_with("<!DOCTYPE html>"));
    // A dry run says what it would write, and writes nothing.
    let page = s.0.join("dry.html");
    let o = s.toll(&[
        "--dry-run",
        "report",
        "1",
        "2",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("would write an HTML report on runs 1, 2 to "),
        "{}",
        stdout(&o)
    );
    assert!(!page.exists());
}

#[test]
fn report_mistakes_are_one_line_and_write_nothing() {
    let s = Scratch::new("report-bad");
    two_runs(&s);
    let before = listing(&s.0);
    // A run that does not exist.
    let o = s.toll(&["report", "99", "-o", s.0.join("r.html").to_str().unwrap()]);
    assert_one_line_error(&o, "no run 99");
    // A run id that is not one.
    let o = s.toll(&["report", "first"]);
    assert_one_line_error(&o, "bad run id `first`");
    assert_eq!(o.status.code(), Some(2));
    // Unwritable places: a directory that does not exist, one where even
    // root cannot create files, and a directory in the file's place.
    for bad in [
        s.0.join("no/such/dir/r.html"),
        PathBuf::from("/proc/toll-report.html"),
        s.0.clone(),
    ] {
        let o = s.toll(&["report", "1", "-o", bad.to_str().unwrap()]);
        assert_one_line_error(&o, "directory you can write to");
        assert!(stderr(&o).contains(bad.to_str().unwrap()), "names the path");
    }
    let o = s.toll(&["report", "1", "--plot-scale", "cubic"]);
    assert_one_line_error(&o, "cubic");
    assert_eq!(listing(&s.0), before, "nothing written, not even half");
}

/// The text of every SVG `<text>` element, trimmed.
fn svg_texts(dom: &str) -> Vec<&str> {
    dom.split("<text")
        .skip(1)
        .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim()))
        .collect()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
