//! Every transport carries frames both ways, small and larger than any buffer,
//! with the worker's serve loop on the far end (in a thread here; the
//! end-to-end tests use real worker processes).

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::{Duration, Instant};
use toll_peers::frame::{self, DataFrame, Kind, Status, REPLY_LEN};
use toll_peers::serve::{serve, Fault};
use toll_peers::transport::{self, Alive, PipePair, Transport};

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("toll-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn exchange(t: Transport, spin: bool) {
    let dir = scratch(&format!("{t}-{spin}"));
    // In one process the worker's pipe ends are simply the pair's other fds.
    let pipes = PipePair::new().unwrap();
    let (pending, cmd) = transport::listen(t, &dir, spin, &pipes).unwrap();
    let worker = std::thread::spawn(move || {
        let mut ch = transport::connect(&cmd).unwrap();
        serve(&mut *ch.reader, &mut *ch.writer, Fault::None)
            .unwrap_or_else(|e| panic!("worker: {e}"))
    });
    let alive: Alive = Arc::new(|| true);
    let mut ch = pending
        .accept(Instant::now() + Duration::from_secs(10), &alive)
        .unwrap();
    let mut seq = 0;
    // 3 Mi items = 12 MiB: more than the shm ring and any socket buffer holds.
    for count in [0u32, 1, 1000, 3 << 20, 1] {
        let mut f = DataFrame::new(count);
        for _ in 0..3 {
            ch.writer.write_all(f.with_seq(seq)).unwrap();
            let mut r = [0u8; REPLY_LEN];
            ch.reader
                .read_exact(&mut r)
                .unwrap_or_else(|e| panic!("{t}: reply to frame {seq} of {count} items: {e}"));
            let r = frame::decode_reply(&r);
            assert!(r.magic_ok && r.status == Some(Status::Ok), "{t}: {r:?}");
            assert_eq!(
                (r.seq, r.count, r.sum),
                (seq, count, f.expected_sum()),
                "{t}"
            );
            seq += 1;
        }
    }
    ch.writer
        .write_all(&frame::encode_request_header(Kind::End, seq, 0))
        .unwrap();
    let mut r = [0u8; REPLY_LEN];
    ch.reader.read_exact(&mut r).unwrap();
    assert_eq!(frame::decode_reply(&r).seq, seq);
    let served = worker.join().unwrap();
    assert_eq!(served.frames, 15);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn pipe_carries_frames() {
    exchange(Transport::Pipe, false);
}

#[test]
fn unix_carries_frames() {
    exchange(Transport::Unix, false);
}

#[test]
fn tcp_carries_frames() {
    exchange(Transport::Tcp, false);
}

#[test]
fn shm_carries_frames_with_futex_wakeups() {
    exchange(Transport::Shm, false);
}

#[test]
fn shm_carries_frames_spinning() {
    exchange(Transport::Shm, true);
}

#[test]
fn shm_reader_notices_a_dead_partner() {
    let dir = scratch("shm-dead");
    let pipes = PipePair::new().unwrap();
    let (pending, _cmd) = transport::listen(Transport::Shm, &dir, false, &pipes).unwrap();
    let alive: Alive = Arc::new(|| false);
    let mut ch = pending.accept(Instant::now(), &alive).unwrap();
    let mut b = [0u8; 4];
    let err = ch.reader.read_exact(&mut b).unwrap_err();
    drop(ch);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe);
}

#[test]
fn unknown_transport_lists_the_valid_ones() {
    let e = "carrier-pigeon".parse::<Transport>().unwrap_err();
    assert_eq!(
        e,
        "unknown transport `carrier-pigeon`: valid transports are pipe, unix, tcp, shm"
    );
}
