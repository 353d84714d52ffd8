//! Per-token write rate limit: a token bucket per token name.

use std::collections::HashMap;
use std::time::Instant;

/// Allows `burst` writes at once and `per_minute` a minute after that.
pub struct RateLimit {
    burst: f64,
    per_second: f64,
    buckets: HashMap<String, (f64, Instant)>,
}

impl RateLimit {
    pub fn new(burst: u32, per_minute: u32) -> RateLimit {
        RateLimit {
            burst: f64::from(burst.max(1)),
            per_second: f64::from(per_minute) / 60.0,
            buckets: HashMap::new(),
        }
    }

    /// Take one write for `who` at `now`: Ok, or the seconds to wait.
    pub fn take(&mut self, who: &str, now: Instant) -> Result<(), u64> {
        let (tokens, at) = self
            .buckets
            .entry(who.to_string())
            .or_insert((self.burst, now));
        let refilled = (*tokens
            + now.saturating_duration_since(*at).as_secs_f64() * self.per_second)
            .min(self.burst);
        *at = now;
        if refilled >= 1.0 {
            *tokens = refilled - 1.0;
            Ok(())
        } else {
            *tokens = refilled;
            let wait = if self.per_second > 0.0 {
                ((1.0 - refilled) / self.per_second).ceil() as u64
            } else {
                u64::MAX
            };
            Err(wait.max(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_burst_then_the_rate_per_token() {
        let mut l = RateLimit::new(2, 60);
        let t = Instant::now();
        assert!(l.take("a", t).is_ok());
        assert!(l.take("a", t).is_ok());
        assert_eq!(l.take("a", t), Err(1));
        // Another token has its own bucket.
        assert!(l.take("b", t).is_ok());
        // One a second comes back.
        assert!(l.take("a", t + Duration::from_millis(1100)).is_ok());
        assert!(l.take("a", t + Duration::from_millis(1100)).is_err());
    }
}
