//! Every command a message suggests is one toll accepts (issue 48): bad
//! input of many kinds, each message's `toll …` suggestions taken out and
//! run (measuring ones with --dry-run, reading ones as they are) against
//! the same store. A suggestion with a placeholder (RUN, FILE, URL, …) is
//! a pattern to fill, not a command, and is left out.

mod common;
use common::*;

/// The `toll …` commands between backticks in `text`, without `toll`.
fn suggested(text: &str) -> Vec<Vec<String>> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|c| c.strip_prefix("toll "))
        .filter(|c| {
            !c.contains('…')
                && !c.contains('|')
                && !c.contains('>')
                && !c.split_whitespace().any(|w| {
                    w.len() > 1 && w.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_')
                })
        })
        .map(|c| c.split_whitespace().map(String::from).collect())
        .collect()
}

const MEASURING: &[&str] = &[
    "transfer",
    "spawn",
    "ring",
    "file",
    "rpc",
    "http",
    "exec",
    "ffi",
    "replicate",
];

#[test]
fn every_suggested_command_is_one_toll_accepts() {
    let s = Scratch::new("suggestions");
    let mut transfer = vec![
        "transfer", "--peer", "rust", "--via", "pipe", "--sizes", "0,1k,2k",
    ];
    transfer.extend_from_slice(QUICK);
    let o = s.toll(&transfer);
    assert!(o.status.success(), "{}", stderr(&o));
    let bad: &[&[&str]] = &[
        &["predict", "transfer", "--peer", "go", "-n", "100"],
        &["predict", "transfer", "--peer", "cobol", "-n", "100"],
        &[
            "predict",
            "transfer",
            "--via",
            "carrier-pigeon",
            "-n",
            "100",
        ],
        &["predict", "spawn", "-n", "100"],
        &["predict", "transfer", "--unit", "thread", "-n", "100"],
        &["show", "99"],
        &["export", "99"],
        &["compare", "1", "99"],
        &["compare", "1"],
        &["report", "99"],
        &["rm", "99"],
        &["transfer", "--peer", "cobol"],
        &["transfer", "--via", "carrier-pigeon"],
        &["spawn", "--runtime", "rust", "--unit", "fibre"],
        &["ring", "-n", "10", "-m", "2000000"],
        &["ffi", "--binding", "jna"],
        &["http", "not-a-url"],
        &["exec"],
        &["replicate", "E9"],
        &["runs", "--family", "cobol"],
    ];
    let mut tried = 0;
    for args in bad {
        let o = s.toll(args);
        assert!(!o.status.success(), "{args:?} was expected to fail");
        for cmd in suggested(&stderr(&o)) {
            let mut run: Vec<&str> = cmd.iter().map(String::as_str).collect();
            if MEASURING.contains(&run[0]) {
                run.insert(0, "--dry-run");
            }
            let r = s.toll(&run);
            assert!(
                r.status.success(),
                "{args:?} suggested `toll {}`, which toll refuses: {}",
                cmd.join(" "),
                stderr(&r)
            );
            tried += 1;
        }
    }
    println!("{tried} suggested commands run");
    assert!(tried >= 3, "the messages suggest commands: {tried}");
}
