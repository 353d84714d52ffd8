//! The links' rows, from one `toll transfer` run with toll's own Rust peer
//! across two cores (`--pin split`): each transport's round trip of an
//! empty message (α), its rate (4 bytes an item ÷ β) and n½ = α/β in bytes.

use super::group::Group;
use super::hardware::{FUTEX_WAKE_CROSS, PIPE_WAKE_CROSS, SYSCALL};
use super::read::fill;
use super::row::{Kind, MadeOf, Planned, Sheet, Source, Take};
use crate::placement::Pin;
use crate::replicate::{Ctx, KeepAffinity, Preset, INTERRUPTED};
use crate::sizes::parse_sizes;
use crate::transfer::{self, TransferConfig, ITEM_BYTES};
use std::time::Duration;
use toll_measure::EngineConfig;
use toll_peers::{Runtime, Transport};

const G: Group = Group::Links;

/// The round trip's crossing name of a transport.
pub fn round_trip(t: Transport) -> String {
    format!("{t} round trip (α, empty message)")
}

pub fn config(p: Preset) -> TransferConfig {
    TransferConfig {
        sizes: parse_sizes(p.pick(
            transfer::DEFAULT_SIZES,
            "0,10,100,1k,10k,100k",
            "0,100,1000",
        ))
        .expect("the presets' sizes parse"),
        peers: vec![Runtime::Rust],
        transports: None,
        pin: Pin::Split,
        spin: false,
        // Quick: fewer trials of the family's own 10 ms batch.
        engine: p.pick(
            EngineConfig::default(),
            EngineConfig {
                trials: 5,
                warmup: Duration::from_millis(20),
                ..EngineConfig::default()
            },
            EngineConfig {
                trials: 3,
                warmup: Duration::from_millis(2),
                batch_time: Duration::from_millis(1),
                ..EngineConfig::default()
            },
        ),
        ci_target: None,
        max_time: Duration::from_secs(60),
        far: None,
    }
}

fn made_of(t: Transport) -> MadeOf {
    match t {
        Transport::Pipe => MadeOf::of(
            "a pipe wake-up round trip across cores, and the frames' headers",
            &[(1.0, PIPE_WAKE_CROSS)],
        ),
        Transport::Unix => MadeOf::of(
            "2 sends + 2 receives on a unix socket, 2 wake-ups across cores",
            &[(4.0, SYSCALL), (1.0, FUTEX_WAKE_CROSS)],
        ),
        Transport::Tcp => MadeOf::of(
            "2 sends + 2 receives through loopback's TCP stack, 2 wake-ups across cores",
            &[(4.0, SYSCALL), (1.0, FUTEX_WAKE_CROSS)],
        ),
        Transport::Shm => MadeOf::of(
            "a ring in shared memory, each side woken by futex: no copy through the kernel",
            &[(1.0, FUTEX_WAKE_CROSS)],
        ),
    }
}

fn planned() -> Vec<Planned> {
    let mut out = vec![];
    let b = ITEM_BYTES as f64;
    for &t in Runtime::Rust.transports() {
        let label = format!("{}/{t}", Runtime::Rust);
        out.push(Planned::new(
            round_trip(t),
            Kind::Time,
            made_of(t),
            Source::new(&label, Take::Alpha),
        ));
        out.push(Planned::new(
            format!("{t} rate (1/β)"),
            Kind::Rate,
            MadeOf::words("4-byte items, copied through the link and summed by the peer"),
            Source::new(&label, Take::Rate { bytes: b }),
        ));
        out.push(Planned::new(
            format!("{t} n½ (α/β)"),
            Kind::Size,
            MadeOf::words("the message at which half the link's peak rate is reached"),
            Source::new(&label, Take::NHalf { bytes: b }),
        ));
    }
    out
}

pub fn run(ctx: &mut Ctx, sheet: &mut Sheet) {
    let rows = planned();
    if ctx.stopped() {
        rows.iter().for_each(|p| sheet.missing(G, p, INTERRUPTED));
        return;
    }
    let cfg = config(ctx.preset);
    let keep = KeepAffinity::now();
    let outcome = transfer::run(&cfg, ctx.store, ctx.observer, ctx.stop);
    drop(keep);
    let run = match outcome {
        Ok(out) => {
            sheet.runs.push(("transfer".into(), out.run_id));
            if let Some(e) = &out.error {
                sheet.failed("transfer", e);
            }
            Ok(out.run_id)
        }
        Err(e) => {
            sheet.failed("transfer", &e);
            Err(format!("failed: {e}"))
        }
    };
    fill(sheet, ctx.store, G, &rows, run, ctx.stopped());
}

/// About how long the run takes, s.
pub fn estimate(p: Preset) -> f64 {
    let cfg = config(p);
    let e = &cfg.engine;
    let points = (cfg.sizes.len() * Runtime::Rust.transports().len()) as f64;
    points * (e.warmup.as_secs_f64() + f64::from(e.trials) * e.batch_time.as_secs_f64() * 1.5) + 2.0
}
