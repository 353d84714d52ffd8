//! The trend page draws runs measured alike (issue 48): runs of a series
//! with other sizes or another placement than the newest are left out and
//! named, what differs between the runs drawn (toll's version) is said,
//! and `all=1` draws every run, saying which differ.

use super::{ok, runs, token, toll, Board};
use crate::common::{Scratch, QUICK};
use serde_json::Value;

/// `rust/pipe` over `sizes`, placed by `pin`.
fn transfer(db: &str, sizes: &str, pin: &str) {
    let mut a = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", sizes, "--pin", pin,
    ];
    a.extend_from_slice(QUICK);
    ok(&toll(db, &a), "transfer");
}

/// The rows of the page's table, newest first, each as its HTML.
fn rows(page: &str) -> Vec<&str> {
    let table = page
        .split_once("<table class=\"trend\">")
        .and_then(|(_, t)| t.split_once("</table>"))
        .map(|(t, _)| t)
        .unwrap_or_else(|| panic!("no trend table: {page}"));
    table.split("<tr>").skip(2).collect()
}

/// The runs a page's table lists, newest first.
fn listed(page: &str) -> Vec<i64> {
    rows(page)
        .iter()
        .filter_map(|r| {
            let id = r.split_once("/runs/")?.1.split_once('"')?.0;
            id.parse().ok()
        })
        .collect()
}

#[test]
fn the_trend_draws_runs_measured_alike_and_names_what_differs() {
    let s = Scratch::new("board-trend-alike");
    let db = s.db();
    let db = db.to_str().unwrap();
    transfer(db, "0,1000,4000", "split");
    transfer(db, "0,1000,4000", "same");
    transfer(db, "0,2000,8000", "split");
    let key = token(db, "ci");
    let board = Board::start(db, &[]);
    let ids =
        |b: &Board| -> Vec<i64> { runs(b).iter().map(|r| r["id"].as_i64().unwrap()).collect() };
    let first = *ids(&board).last().unwrap();
    // The first run again as an older toll measured it.
    let (_, json) = board.get(&format!("/api/runs/{first}"));
    let mut old: Value = serde_json::from_str(&json).unwrap();
    old["tool_version"] = "0.0.1".into();
    let auth = format!("Bearer {key}");
    let (status, e) = board.request(
        "POST",
        "/api/runs",
        &[
            ("Content-Type", "application/json"),
            ("Authorization", &auth),
        ],
        old.to_string().as_bytes(),
    );
    assert_eq!(status, 201, "{e}");
    transfer(db, "0,1000,4000", "split");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    // Newest first: the newest, the older toll's, other sizes, same core, the first.
    let all = ids(&board);
    assert_eq!(all.len(), 5, "{all:?}");
    let (newest, older_toll, other_sizes, same_core) = (all[0], all[1], all[2], all[3]);

    let (status, page) = board.get("/trend?family=transfer&series=rust%2Fpipe");
    assert_eq!(status, 200, "{page}");
    assert_eq!(
        listed(&page),
        [newest, older_toll, first],
        "only runs alike"
    );
    assert!(page.contains("3 runs · "), "three runs drawn: {page}");
    let terms = page
        .split_once("<div class=\"terms\">")
        .and_then(|(_, t)| t.split_once("</div>"))
        .map(|(t, _)| t)
        .unwrap_or_else(|| panic!("no terms: {page}"));
    // What the runs drawn share, and what differs between them.
    assert!(
        terms.contains("<b>sizes</b> 0, 1000, 4000") && terms.contains("<b>placement</b> split"),
        "{terms}"
    );
    assert!(
        terms.contains("differ in <b>toll</b> ")
            && terms.contains(&format!("0.0.1 (run {older_toll})"))
            && terms.contains(&format!("(runs {first}, {newest})")),
        "{terms}"
    );
    // What was left out, and why.
    assert!(
        terms.contains(&format!("run {same_core} (placement same)"))
            && terms.contains(&format!("run {other_sizes} (sizes 0, 2000, 8000)")),
        "{terms}"
    );
    assert!(terms.contains("all=1"), "a link to every run: {terms}");
    // The table says each drawn run's toll.
    assert!(page.contains("<th>measured with</th>"));
    assert!(rows(&page)[1].contains("toll 0.0.1"), "{}", rows(&page)[1]);

    // Every run, saying which differ.
    let (status, every) = board.get("/trend?family=transfer&series=rust%2Fpipe&all=1");
    assert_eq!(status, 200, "{every}");
    assert_eq!(listed(&every), all, "every run");
    assert!(every.contains("5 runs · "), "{every}");
    assert!(every.contains("measured alike or not"), "{every}");
    assert!(
        every.contains("<b>placement</b> split (")
            && every.contains(&format!("same (run {same_core})"))
            && every.contains(&format!("0, 2000, 8000 (run {other_sizes})")),
        "{every}"
    );
    let row = rows(&every)[2];
    assert!(row.contains("sizes 0, 2000, 8000"), "{row}");
    assert!(!every.contains("Not drawn"), "{every}");
}
