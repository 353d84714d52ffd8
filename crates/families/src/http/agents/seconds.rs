//! The agents' seconds, merged as they arrive: each agent streams one
//! latency histogram per second of its load (HdrHistogram's V2 encoding,
//! as its final result), and second i of the run is the exact sum of every
//! agent's second i — the agents started together, so their seconds line
//! up. A second is shown once every agent still running has sent it; the
//! run keeps all of them, for its latency over time.

use super::wire::{decode, encode};
use hdrhistogram::Histogram;
use serde_json::Value;

/// One merged second.
#[derive(Debug, Clone, PartialEq)]
pub struct Second {
    /// 1 for the first second of the load.
    pub number: usize,
    /// Requests answered in it, over the agents.
    pub requests: u64,
    /// Requests answered so far, over the agents.
    pub done: u64,
    pub p50_ms: f64,
    pub p99_ms: f64,
    /// Its histogram, in V2 encoding: anyone can re-merge the seconds.
    pub histogram_v2: String,
}

/// The seconds each agent has sent. They are kept encoded (a few hundred
/// bytes each, where a decoded histogram is a few hundred kilobytes), and
/// decoded to be added only when shown or at the end.
#[derive(Debug)]
pub struct Seconds {
    sent: Vec<Vec<String>>,
    shown: usize,
    done: u64,
}

/// Second `i` of the agents `which` allows, added, numbered and counted on
/// from `done`.
fn merge(sent: &[Vec<String>], i: usize, which: &dyn Fn(usize) -> bool, done: u64) -> Second {
    let mut h: Histogram<u64> = crate::http::stats::histogram();
    for (_, seconds) in sent.iter().enumerate().filter(|(a, _)| which(*a)) {
        // Checked when it came in.
        if let Some(one) = seconds.get(i).and_then(|t| decode(t).ok()) {
            let _ = h.add(&one);
        }
    }
    let ms = |q: f64| {
        if h.is_empty() {
            0.0
        } else {
            h.value_at_quantile(q) as f64 / 1e6
        }
    };
    Second {
        number: i + 1,
        requests: h.len(),
        done: done + h.len(),
        p50_ms: ms(0.5),
        p99_ms: ms(0.99),
        histogram_v2: encode(&h),
    }
}

impl Seconds {
    pub fn new(agents: usize) -> Seconds {
        Seconds {
            sent: vec![Vec::new(); agents],
            shown: 0,
            done: 0,
        }
    }

    /// Add agent `agent`'s next second: its `http-second` event line.
    pub fn add(&mut self, agent: usize, event: &Value) -> Result<(), String> {
        let text = event["histogram"]
            .as_str()
            .ok_or("an `http-second` line without its `histogram`")?;
        decode(text)?;
        self.sent[agent].push(text.to_string());
        Ok(())
    }

    /// The seconds not shown yet that all `live` agents still running have
    /// sent (every one left, once none runs), in order, each the sum of
    /// every agent's that sent it.
    pub fn ready(&mut self, live: usize) -> Vec<Second> {
        let mut out = Vec::new();
        loop {
            let i = self.shown;
            let have = self.sent.iter().filter(|s| s.len() > i).count();
            if have == 0 || have < live {
                return out;
            }
            let s = merge(&self.sent, i, &|_| true, self.done);
            self.done = s.done;
            self.shown += 1;
            out.push(s);
        }
    }

    /// Every second of the agents `kept` (those whose run counts), added.
    pub fn merged(&self, kept: &[bool]) -> Vec<Second> {
        let longest = self.sent.iter().map(Vec::len).max().unwrap_or(0);
        let which = |a: usize| kept.get(a).copied().unwrap_or(false);
        let mut done = 0;
        (0..longest)
            .map(|i| {
                let s = merge(&self.sent, i, &which, done);
                done = s.done;
                s
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn second(values: &[u64]) -> Value {
        let mut h = crate::http::stats::histogram();
        for &v in values {
            h.record(v).unwrap();
        }
        json!({"ok": true, "event": "http-second", "histogram": encode(&h)})
    }

    #[test]
    fn seconds_add_across_agents_and_show_when_all_have_sent() {
        let mut s = Seconds::new(2);
        s.add(0, &second(&[1_000_000, 2_000_000])).unwrap();
        assert!(s.ready(2).is_empty(), "agent 1 has not sent its first");
        s.add(0, &second(&[3_000_000])).unwrap();
        s.add(1, &second(&[1_000_000])).unwrap();
        let shown = s.ready(2);
        assert_eq!(shown.len(), 1);
        assert_eq!((shown[0].number, shown[0].requests), (1, 3));
        assert!((shown[0].p50_ms - 1.0).abs() < 0.01, "{shown:?}");
        // Agent 1 is gone: the second only agent 0 sent is shown now.
        let shown = s.ready(1);
        assert_eq!(
            (shown[0].number, shown[0].requests, shown[0].done),
            (2, 1, 4)
        );
        assert!(s.ready(0).is_empty());
        // Only the agents that count: without agent 1, its request is not.
        let all = s.merged(&[true, true]);
        assert_eq!(
            all.iter().map(|s| s.requests).collect::<Vec<_>>(),
            vec![3, 1]
        );
        let kept = s.merged(&[true, false]);
        assert_eq!(
            kept.iter().map(|s| s.requests).collect::<Vec<_>>(),
            vec![2, 1]
        );
        assert_eq!(decode(&kept[0].histogram_v2).unwrap().len(), 2);
        assert!(Seconds::new(1).add(0, &json!({"ok": true})).is_err());
        assert!(Seconds::new(1).add(0, &json!({"histogram": "x"})).is_err());
    }
}
