//! Atlases pushed to a board (issue 50): each pushed atlas's page is its
//! own (the picture, the quotes, the environment), and /atlas lays the
//! machines side by side — each host's newest atlas a column, each
//! crossing a row, one log picture with a colour per machine.

use super::{chromium, headless_at, ok, runs, token, toll, toll_env, Board};
use crate::common::Scratch;
use serde_json::Value;

/// Two atlases of two machines pushed to a fresh board (this machine's
/// newest, and its older one as `laptop-e2e`'s): the scratch, the board,
/// the runs it lists.
fn two_machines(name: &str) -> (Scratch, Board, Vec<Value>) {
    let s = Scratch::new(name);
    let here = s.0.join("here.db");
    let here = here.to_str().unwrap();
    let tmp = s.0.to_str().unwrap();
    for _ in 0..2 {
        let o = toll_env(
            here,
            &["atlas", "--test-preset", "--only", "hardware"],
            &[("TMPDIR", tmp)],
        );
        ok(&o, "atlas");
    }
    let ids: Vec<i64> = {
        let o = ok(
            &toll(here, &["runs", "--json", "--family", "atlas"]),
            "runs",
        );
        let list: Vec<Value> = serde_json::from_str(&o).unwrap();
        list.iter().map(|r| r["id"].as_i64().unwrap()).collect()
    };
    assert_eq!(ids.len(), 2, "newest first: {ids:?}");
    // The older atlas as another machine's: its host renamed, imported
    // into that machine's own store.
    let other = s.0.join("other.db");
    let other = other.to_str().unwrap();
    let mut json: Value =
        serde_json::from_str(&ok(&toll(here, &["export", &ids[1].to_string()]), "export")).unwrap();
    json["env"]["hostname"] = "laptop-e2e".into();
    let file = s.0.join("laptop.json");
    std::fs::write(&file, serde_json::to_vec(&json).unwrap()).unwrap();
    ok(&toll(other, &["import", file.to_str().unwrap()]), "import");

    let board_db = s.0.join("board.db");
    let board_db = board_db.to_str().unwrap();
    let key = token(board_db, "team");
    let board = Board::start(board_db, &[]);
    let (status, empty) = board.get("/atlas");
    assert_eq!(status, 200);
    assert!(empty.contains("No atlas on this board yet"), "{empty}");
    for (db, run) in [(here, ids[0].to_string()), (other, "last".to_string())] {
        let o = toll_env(
            db,
            &["push", &run, "--to", &board.url],
            &[("TOLL_TOKEN", &key)],
        );
        let out = ok(&o, "push");
        assert!(
            out.trim().starts_with(&format!("{}/runs/", board.url)),
            "{out}"
        );
    }
    let pushed: Vec<Value> = runs(&board);
    assert_eq!(pushed.len(), 2, "{pushed:?}");
    (s, board, pushed)
}

#[test]
fn pushed_atlases_are_shown_machine_by_machine() {
    let (_s, board, pushed) = two_machines("board-atlas");
    // A pushed atlas's own page: the picture and its environment.
    let id = pushed[0]["id"].as_i64().unwrap();
    let (status, page) = board.get(&format!("/runs/{id}"));
    assert_eq!(status, 200);
    for want in ["Atlas — run", "<svg", "This machine", "Dean/Norvig 2012"] {
        assert!(page.contains(want), "`{want}` not on /runs/{id}");
    }
    // Side by side: a column per machine, a row per crossing.
    let (status, page) = board.get("/atlas");
    assert_eq!(status, 200, "{page}");
    assert!(page.contains("<svg") && page.contains("each machine a colour"));
    let head = page
        .split_once("<thead>")
        .and_then(|(_, t)| t.split_once("</thead>"))
        .map(|(t, _)| t)
        .expect("the table's head");
    assert_eq!(
        head.matches("<th").count(),
        3,
        "crossing and 2 machines: {head}"
    );
    assert!(head.contains("laptop-e2e — "), "{head}");
    for r in &pushed {
        assert!(
            head.contains(&format!("href=\"/runs/{}\"", r["id"])),
            "{head}"
        );
    }
    let row = page
        .split("<tr>")
        .skip(1)
        .find(|r| r.contains("syscall (getppid)"))
        .expect("the syscall's row");
    assert_eq!(
        row.matches(" ns [").count(),
        2,
        "a figure per machine: {row}"
    );
}

#[test]
#[cfg_attr(
    not(toll_chromium),
    ignore = "needs chromium to render the pages: apt-get install chromium"
)]
fn the_atlas_page_fits_1280_px_in_chromium() {
    let browser = chromium();
    let (s, board, _) = two_machines("board-atlas-chromium");
    let (_, page) = board.get("/atlas");
    // The board forbids scripts: a copy with a probe that reads the
    // layout's widths (the page's own styles are inline).
    let probe = s.0.join("atlas-probe.html");
    std::fs::write(
        &probe,
        page.replace(
            "</body>",
            "<script>var d=document.documentElement;\
             document.body.setAttribute('data-probe',d.scrollWidth+' '+d.clientWidth+' '+\
             document.querySelectorAll('figure svg').length);</script></body>",
        ),
    )
    .unwrap();
    let url = format!("file://{}", probe.display());
    let dom = headless_at(&browser, &s, "1280,1500", &["--dump-dom"], &url);
    let n: Vec<f64> = dom
        .split_once("data-probe=\"")
        .and_then(|(_, r)| r.split_once('"'))
        .map(|(p, _)| p.split(' ').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| panic!("no probe: {dom}"));
    assert_eq!(n.len(), 3, "{n:?}");
    assert!(n[0] <= n[1], "horizontal overflow: {} > {}", n[0], n[1]);
    assert_eq!(n[2], 1.0, "one picture");
}
