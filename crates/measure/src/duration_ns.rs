//! A `Duration` in JSON as whole nanoseconds (`"warmup_ns": 100000000`),
//! not serde's `{"secs": 0, "nanos": 100000000}`: one number a reader in
//! any language takes as it is. Use with `#[serde(with = "…",
//! rename = "…_ns")]`; durations past u64 nanoseconds (584 years) are
//! written as u64::MAX.

use serde::{Deserialize, Deserializer, Serializer};
use std::time::Duration;

/// `d` in whole nanoseconds, for `json!` configs (u64::MAX past 584 years).
pub fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Write `d` as nanoseconds.
pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_u64(ns(*d))
}

/// Read nanoseconds back into a `Duration`.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    u64::deserialize(d).map(Duration::from_nanos)
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};
    use std::time::Duration;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Cfg {
        #[serde(with = "super", rename = "warmup_ns")]
        warmup: Duration,
    }

    #[test]
    fn whole_nanoseconds_both_ways() {
        let c = Cfg {
            warmup: Duration::from_millis(100),
        };
        let text = serde_json::to_string(&c).unwrap();
        assert_eq!(text, r#"{"warmup_ns":100000000}"#);
        assert_eq!(serde_json::from_str::<Cfg>(&text).unwrap(), c);
        let huge = Cfg {
            warmup: Duration::MAX,
        };
        assert_eq!(
            serde_json::to_string(&huge).unwrap(),
            format!(r#"{{"warmup_ns":{}}}"#, u64::MAX)
        );
    }
}
