//! The main job's page (issue 32): `toll replicate` at the tests' preset,
//! then `toll report` on the tables it stored, as scripts/run writes
//! replicate.html — read as text (self-contained, no terminal text, no
//! empty table, no "No plot") and rendered in headless Chromium at
//! 1280 px (a plot in every experiment's section, tables that wrap to the
//! page rather than scroll). E1, E2 and E4 keep it to a few seconds; E3
//! and E5 have the same section, only slower to measure.

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The widest a figure or table may be at a 1280 px window: the page's
/// `main` is at most 1160 px with 32 px of padding each side.
const CONTENT_PX: f64 = 1096.0;

/// Three experiments measured, their tables written as one page: its path.
fn replicate_page(s: &Scratch) -> PathBuf {
    let tmp = s.0.to_str().unwrap();
    let o = s.toll_env(
        &["replicate", "E1,E2,E4", "--test-preset"],
        &[("TMPDIR", tmp)],
    );
    assert!(o.status.success(), "replicate: {}", stderr(&o));
    let o = s.toll(&["runs", "--json"]);
    let runs: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    let mut ids: Vec<String> = runs
        .iter()
        .filter(|r| r["family"] == "replicate")
        .map(|r| r["id"].to_string())
        .collect();
    ids.reverse();
    assert_eq!(ids.len(), 3, "one table per experiment");
    let page = s.0.join("replicate.html");
    let mut args = vec!["report"];
    args.extend(ids.iter().map(String::as_str));
    args.extend(["-o", page.to_str().unwrap()]);
    let o = s.toll(&args);
    assert!(o.status.success(), "report: {}", stderr(&o));
    page
}

/// Each experiment's section of the page, from its opening tag.
fn sections(html: &str) -> Vec<&str> {
    html.split("<section class=\"run experiment\"")
        .skip(1)
        .collect()
}

/// What the text of the page must hold, whether read from the file or
/// from Chromium's DOM.
fn assert_face(html: &str) {
    assert!(!html.contains("No plot"), "a \"No plot\" on the page");
    assert!(!html.contains("<pre"), "terminal text in a box");
    assert!(!html.contains("<script"), "no script");
    for fetch in ["src=\"http", "href=\"http", "url(", "@import"] {
        assert!(!html.contains(fetch), "the page fetches `{fetch}`");
    }
    // At the top: the machine and the lessons counted by verdict.
    let top = html.split("<section").next().unwrap();
    assert!(top.contains("Machine:"), "the machine at the top");
    for words in ["still hold", "no longer hold", "unclear", "not checked"] {
        assert!(top.contains(words), "a `{words}` badge at the top");
    }
    let secs = sections(html);
    assert_eq!(secs.len(), 3, "a section per experiment");
    for (sec, name) in secs.iter().zip(["E1", "E2", "E4"]) {
        assert!(sec.contains(&format!("{name} — ")), "{name}'s heading");
        // The dot plot and the family runs' own plots.
        assert!(
            sec.matches("<svg").count() >= 2,
            "{name}: the dot plot and a family plot"
        );
        assert!(sec.contains("original against this machine"), "{name}");
        assert!(sec.contains("class=\"badge l-"), "{name}: badged lessons");
        assert!(sec.contains("<table class=\"replicate\""), "{name}'s table");
        assert!(!sec.contains("<h3>Models</h3>"), "{name}: no models table");
    }
    // E2: spawn µs per unit and ring ns per hop against N, log–log, a
    // line per runtime.
    for want in ["µs per unit, log scale", "ns per hop, log scale"] {
        assert!(secs[1].contains(want), "E2: {want}");
    }
    // No empty table anywhere: every table has a data row.
    for t in html.split("<table").skip(1) {
        let t = t.split("</table>").next().unwrap();
        assert!(t.contains("<td"), "an empty table: <table{t}</table>");
    }
    // Nothing wider than the page: every plot scales down, every table
    // has fixed columns that wrap.
    for svg in html.split("<svg").skip(1) {
        let width = svg
            .split_once("width=\"")
            .and_then(|(_, w)| w.split_once('"'))
            .and_then(|(w, _)| w.parse::<f64>().ok())
            .expect("an svg with a width");
        assert!(width <= CONTENT_PX, "an svg {width} px wide");
    }
    assert!(html.contains("table.replicate { table-layout: fixed; width: 100%;"));
}

#[test]
fn the_replicate_page_is_pictures_and_tables_not_terminal_text() {
    let s = Scratch::new("replicate-page");
    let html = std::fs::read_to_string(replicate_page(&s)).unwrap();
    assert_face(&html);
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
        .expect("built with chromium (cfg toll_chromium) but none on the PATH now: apt-get install chromium")
}

/// Chromium headless, as root, fetching nothing: its stdout.
fn headless(browser: &Path, s: &Scratch, extra: &[&str], page: &Path) -> String {
    let profile = s.0.join(format!("profile-{}", extra.len()));
    let o = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
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

#[test]
#[cfg_attr(
    not(toll_chromium),
    ignore = "needs chromium to render the page: apt-get install chromium"
)]
fn the_replicate_page_renders_at_1280_px_in_chromium() {
    let browser = chromium();
    let s = Scratch::new("replicate-page-chromium");
    let page = replicate_page(&s);
    let dom = headless(
        &browser,
        &s,
        &["--window-size=1280,2000", "--dump-dom"],
        &page,
    );
    assert!(dom.contains("</html>"), "a whole DOM: {dom}");
    assert_face(&dom);
    let shot = s.0.join("replicate.png");
    let arg = format!("--screenshot={}", shot.display());
    headless(&browser, &s, &[&arg, "--window-size=1280,4000"], &page);
    let png = std::fs::read(&shot).expect("a screenshot");
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 50_000,
        "a rendered page"
    );
}
