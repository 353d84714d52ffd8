//! Each agent's clock against the coordinator's, measured NTP's way over the
//! control channel, so that all agents can start at one instant. One
//! exchange has four timestamps: t1 the coordinator sends, t2 the agent
//! receives, t3 the agent answers, t4 the coordinator receives (t1, t4 on
//! the coordinator's clock, t2, t3 on the agent's). Its offset is
//! ((t2 − t1) + (t3 − t4)) / 2 and its delay (t4 − t1) − (t3 − t2). The
//! true offset lies within half the delay of the estimate whatever the two
//! directions took, so of several exchanges the one with the least delay is
//! kept, and half its delay is the offset's uncertainty.

use serde_json::{json, Value};
use std::time::{SystemTime, UNIX_EPOCH};
use toll_peers::agent::Agent;

/// Exchanges per agent: enough for one not slowed by a scheduler hiccup.
pub const EXCHANGES: usize = 8;

/// This machine's wall clock, in ns since the Unix epoch.
pub fn wall_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// One exchange's four timestamps, in ns since the epoch on each one's clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exchange {
    pub t1: i64,
    pub t2: i64,
    pub t3: i64,
    pub t4: i64,
}

impl Exchange {
    /// The round trip less the agent's own time to answer (never below 0,
    /// though a clock stepped mid-exchange could make it so).
    pub fn delay(&self) -> i64 {
        ((self.t4 - self.t1) - (self.t3 - self.t2)).max(0)
    }

    /// The agent's clock minus the coordinator's, as this exchange saw it.
    pub fn offset(&self) -> i64 {
        ((self.t2 - self.t1) + (self.t3 - self.t4)) / 2
    }
}

/// An agent's clock offset: the agent's clock reads `offset_ns` more than
/// the coordinator's, within ± `uncertainty_ns`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockOffset {
    pub offset_ns: i64,
    pub uncertainty_ns: u64,
}

impl ClockOffset {
    /// The instant `coordinator_ns` (coordinator's clock) on the agent's clock.
    pub fn to_agent(&self, coordinator_ns: i64) -> i64 {
        coordinator_ns + self.offset_ns
    }
}

/// The estimate from the exchange with the least delay; None without any.
pub fn estimate(exchanges: &[Exchange]) -> Option<ClockOffset> {
    let best = exchanges.iter().min_by_key(|x| x.delay())?;
    Some(ClockOffset {
        offset_ns: best.offset(),
        uncertainty_ns: (best.delay() / 2) as u64,
    })
}

/// The agent's answer to `clock`: t2 as it read the line, t3 as it answers.
pub fn answer(t2: i64) -> Value {
    json!({"ok": true, "event": "clock", "t2_ns": t2, "t3_ns": wall_ns()})
}

/// Measure `agent`'s offset with [`EXCHANGES`] exchanges.
pub fn measure(agent: &mut Agent) -> Result<ClockOffset, String> {
    let mut exchanges = Vec::with_capacity(EXCHANGES);
    for _ in 0..EXCHANGES {
        let t1 = wall_ns();
        let v = agent
            .request(&json!({"op": "clock"}))
            .map_err(|e| e.to_string())?;
        let t4 = wall_ns();
        let at = |k: &str| {
            v.get(k)
                .and_then(Value::as_i64)
                .ok_or_else(|| format!("its `clock` answer has no `{k}`"))
        };
        exchanges.push(Exchange {
            t1,
            t2: at("t2_ns")?,
            t3: at("t3_ns")?,
            t4,
        });
    }
    Ok(estimate(&exchanges).expect("at least one exchange"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An exchange with an agent whose clock is `offset` ahead, the request
    /// taking `up` ns, the agent `hold` ns, the answer `down` ns.
    fn exchange(t1: i64, offset: i64, up: i64, hold: i64, down: i64) -> Exchange {
        let t2 = t1 + up + offset;
        let t3 = t2 + hold;
        Exchange {
            t1,
            t2,
            t3,
            t4: t3 - offset + down,
        }
    }

    #[test]
    fn a_symmetric_exchange_gives_the_offset_exactly() {
        let x = exchange(1_000_000, 2_500_000, 40_000, 7_000, 40_000);
        assert_eq!(x.offset(), 2_500_000);
        assert_eq!(x.delay(), 80_000, "the agent's own 7 µs are not delay");
        let behind = exchange(1_000_000, -3_000_000_000, 10_000, 0, 10_000);
        assert_eq!(behind.offset(), -3_000_000_000);
    }

    #[test]
    fn the_least_delayed_exchange_wins_and_bounds_the_error() {
        let offset = 123_456_789;
        // Asymmetric, slow exchanges err by half their asymmetry; the quick
        // one (20 µs one way, 60 µs back) errs by 20 µs, within its ±40 µs.
        let xs = [
            exchange(0, offset, 900_000, 5_000, 100_000),
            exchange(10_000_000, offset, 20_000, 5_000, 60_000),
            exchange(20_000_000, offset, 50_000, 5_000, 700_000),
        ];
        let est = estimate(&xs).unwrap();
        assert_eq!(est.uncertainty_ns, 40_000);
        assert_eq!(est.offset_ns, offset - 20_000);
        assert!((est.offset_ns - offset).unsigned_abs() <= est.uncertainty_ns);
        assert_eq!(est.to_agent(1_000), 1_000 + offset - 20_000);
        assert_eq!(estimate(&[]), None);
    }

    #[test]
    fn a_clock_stepped_mid_exchange_gives_no_negative_delay() {
        let x = Exchange {
            t1: 100,
            t2: 500,
            t3: 900,
            t4: 200,
        };
        assert_eq!(x.delay(), 0);
    }
}
