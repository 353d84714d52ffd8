//! A peer's series take their rounds in turn: a round of each transport,
//! then the next round of each, so a spell of a busy machine lands on a few
//! rounds of every series rather than on all the rounds of one.

use std::sync::atomic::AtomicBool;
use std::time::Duration;
use toll_families::placement::Pin;
use toll_families::transfer::{self, TransferConfig};
use toll_families::Observer;
use toll_measure::engine::EngineConfig;
use toll_peers::{Runtime, Transport};
use toll_store::Store;

/// Every round a series finishes, in order.
#[derive(Default)]
struct Rounds(Vec<(String, usize)>);

impl Observer for Rounds {
    fn round_done(&mut self, label: &str, round: usize) {
        self.0.push((label.to_string(), round));
    }
}

#[test]
fn a_peers_series_take_their_rounds_in_turn() {
    let dir = std::env::temp_dir().join(format!("toll-transfer-rounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let store = Store::open(&dir.join("t.db")).unwrap();
    let cfg = TransferConfig {
        sizes: vec![0, 100, 1000],
        peers: vec![Runtime::C],
        transports: Some(vec![Transport::Pipe, Transport::Unix]),
        pin: Pin::None,
        spin: false,
        engine: EngineConfig {
            trials: 3,
            warmup: Duration::from_millis(5),
            batch_time: Duration::from_millis(2),
            ..EngineConfig::default()
        },
        ci_target: None,
        max_time: Duration::from_secs(10),
        far: None,
    };
    let mut rounds = Rounds::default();
    let out = transfer::run(&cfg, &store, &mut rounds, &AtomicBool::new(false)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let want: Vec<(String, usize)> = (1..=3)
        .flat_map(|r| [("c/pipe".to_string(), r), ("c/unix".to_string(), r)])
        .collect();
    assert_eq!(rounds.0, want);
    // Every size of both series has a trial from each round, and a fit.
    for s in &out.series {
        assert_eq!(s.rounds, 3, "{}", s.label);
        assert_eq!(s.points.len(), 3, "{}", s.label);
        assert!(s.points.iter().all(|(_, m)| m.count == 3), "{}", s.label);
        assert!(s.fit.is_some(), "{}", s.label);
    }
}
