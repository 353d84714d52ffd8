//! `toll runs --family F --status S --host H --limit N` (issue 48): each
//! filter keeps exactly the runs it names, `--json` keeps the filters, and
//! a family or state toll does not have is one line naming the ones there
//! are.

mod common;
use common::*;

fn listed(s: &Scratch, args: &[&str]) -> Vec<(i64, String, String)> {
    let mut all = vec!["runs", "--json"];
    all.extend_from_slice(args);
    let o = s.toll(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_i64().unwrap(),
                r["family"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn runs_are_filtered_by_family_status_host_and_count() {
    let s = Scratch::new("runs-filters");
    let mut transfer = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1k,2k",
    ];
    transfer.extend_from_slice(QUICK);
    for _ in 0..2 {
        let o = s.toll(&transfer);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = s.toll(&["exec", "--runs", "3", "true"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A failed run: a command that fails every time.
    let o = s.toll(&["exec", "--runs", "3", "false"]);
    assert!(!o.status.success());
    let all = listed(&s, &[]);
    assert_eq!(all.len(), 4, "{all:?}");
    let families = |rows: &[(i64, String, String)]| -> Vec<String> {
        rows.iter().map(|r| r.1.clone()).collect()
    };
    assert_eq!(
        families(&listed(&s, &["--family", "transfer"])),
        ["transfer", "transfer"]
    );
    assert_eq!(
        families(&listed(&s, &["--family", "exec,transfer"])).len(),
        4
    );
    let failed = listed(&s, &["--status", "failed"]);
    assert!(
        !failed.is_empty() && failed.iter().all(|r| r.2 == "failed"),
        "{failed:?}"
    );
    assert_eq!(
        listed(&s, &["--status", "complete"]).len() + failed.len(),
        listed(&s, &["--status", "complete,failed"]).len()
    );
    // The newest first, as many as asked.
    let newest = listed(&s, &["--limit", "1"]);
    assert_eq!(newest.len(), 1);
    assert_eq!(newest[0].0, all.iter().map(|r| r.0).max().unwrap());
    assert_eq!(
        listed(&s, &["--family", "transfer", "--limit", "1"])[0].1,
        "transfer"
    );
    // This host has them all; another has none, and the table says so.
    let host = nix::unistd::gethostname().unwrap().into_string().unwrap();
    assert_eq!(listed(&s, &["--host", &host]).len(), 4);
    assert!(listed(&s, &["--host", "no-such-host"]).is_empty());
    let o = s.toll(&["runs", "--host", "no-such-host"]);
    assert!(stdout(&o).contains("matches"), "{}", stdout(&o));
    // Unknown words: one line naming the ones there are (exit 2).
    let o = s.toll(&["runs", "--family", "cobol"]);
    assert_one_line_error(&o, "the families are transfer, spawn, ring");
    assert_eq!(o.status.code(), Some(2));
    let o = s.toll(&["runs", "--status", "done"]);
    assert_one_line_error(&o, "the states are running, complete, partial, failed");
    let o = s.toll(&["runs", "--limit", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
