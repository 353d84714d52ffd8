//! A store's first use is atomic: two processes that create one new store
//! at once both succeed, and both runs are stored.

mod common;
use common::*;
use std::process::Command;

#[test]
fn two_processes_creating_one_store_at_once_both_store_their_run() {
    let s = Scratch::new("store-race");
    for round in 0..25 {
        let db = s.0.join(format!("race-{round}.db"));
        let start = || {
            Command::new(env!("CARGO_BIN_EXE_toll"))
                .arg("--db")
                .arg(&db)
                .args(["exec", "-N", "--runs", "2", "true"])
                .env(
                    "TOLL_CACHE_DIR",
                    std::env::temp_dir().join("toll-e2e-cache"),
                )
                .output()
                .unwrap()
        };
        let (a, b) = std::thread::scope(|t| {
            let a = t.spawn(start);
            let b = t.spawn(start);
            (a.join().unwrap(), b.join().unwrap())
        });
        for o in [&a, &b] {
            assert!(o.status.success(), "round {round}: {}", stderr(o));
        }
        let o = Command::new(env!("CARGO_BIN_EXE_toll"))
            .arg("--db")
            .arg(&db)
            .args(["runs", "--json"])
            .output()
            .unwrap();
        let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(runs.as_array().unwrap().len(), 2, "round {round}");
    }
}
