//! Numbers, times and lists from the command line as text: each check
//! takes the flag's name and the text and gives the value or a usage error
//! that names the flag and its range. A value out of range must never reach
//! a conversion that panics (`Duration::from_secs_f64(1e20)` does) or a run
//! that would last for ever. clap reaches them through [`crate::parsers`];
//! a fuzz target (fuzz/fuzz_targets/durations.rs) runs them on any text.

use crate::usage::usage;
use std::str::FromStr;
use std::time::Duration;

/// The items of a comma-separated list, blanks dropped; an empty list is
/// an error naming the flag.
pub fn list<'a>(text: &'a str, flag: &str) -> anyhow::Result<Vec<&'a str>> {
    let items: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if items.is_empty() {
        return Err(usage(format!(
            "{flag} is empty: give a comma-separated list"
        )));
    }
    Ok(items)
}

/// A comma-separated list of a type that parses itself; its error says in
/// which flag the bad item is.
pub fn list_of<T: FromStr<Err = String>>(text: &str, flag: &str) -> anyhow::Result<Vec<T>> {
    list(text, flag)?
        .into_iter()
        .map(|s| {
            s.parse::<T>()
                .map_err(|e| usage(format!("{e} (in {flag})")))
        })
        .collect()
}

/// A whole number from `min` to `max`, or a usage error naming the range.
pub fn whole(flag: &str, text: &str, min: u64, max: u64) -> anyhow::Result<u64> {
    let t = text.trim();
    let out_of_range =
        |shown: &str| usage(format!("{flag} must be from {min} to {max}, not {shown}"));
    let v: u64 = match t.parse() {
        Ok(v) => v,
        // All digits but past u64: a range mistake, not a typo.
        Err(_) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(out_of_range(t))
        }
        Err(_) => {
            return Err(usage(format!(
                "{flag} `{text}` is not a whole number: give {min} to {max}"
            )))
        }
    };
    if !(min..=max).contains(&v) {
        return Err(out_of_range(&v.to_string()));
    }
    Ok(v)
}

/// Seconds from 10s, 500ms, 250us, 2m, 1h, or plain seconds (fractions
/// allowed): positive and finite, not yet checked against a range.
pub fn seconds(flag: &str, text: &str) -> anyhow::Result<f64> {
    let t = text.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix("us").or_else(|| t.strip_suffix("µs")) {
        (n, 1e-6)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (t, 1.0)
    };
    num.parse::<f64>()
        .ok()
        .map(|v| v * scale)
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| {
            usage(format!(
                "{flag} `{text}` is not a positive time such as 10s, 500ms or 2m"
            ))
        })
}

/// A time from `min` to `max`, or a usage error naming the range.
pub fn time(flag: &str, text: &str, min: Duration, max: Duration) -> anyhow::Result<Duration> {
    let s = seconds(flag, text)
        .map_err(|e| usage(format!("{e:#}: give {} to {}", show(min), show(max))))?;
    if s < min.as_secs_f64() || s > max.as_secs_f64() {
        return Err(usage(format!(
            "{flag} {} is out of range: give {} to {}",
            text.trim(),
            show(min),
            show(max)
        )));
    }
    Ok(Duration::from_secs_f64(s))
}

/// A time within (0, `max`]; past it, `longer` is the error (what the flag
/// is for, so the user sees why the bound is there).
pub fn short_time(flag: &str, text: &str, max: Duration, longer: &str) -> anyhow::Result<Duration> {
    let s = seconds(flag, text).map_err(|e| usage(format!("{e:#}: give at most {}", show(max))))?;
    if s > max.as_secs_f64() {
        return Err(usage(format!(
            "{flag} {} is longer than {}: {longer}",
            text.trim(),
            show(max)
        )));
    }
    // Positive but below what a Duration holds would become 0: no time at all.
    if s < SHORTEST.as_secs_f64() {
        return Err(usage(format!(
            "{flag} {} is shorter than {}: give at least that",
            text.trim(),
            show(SHORTEST)
        )));
    }
    Ok(Duration::from_secs_f64(s))
}

/// The shortest time a flag takes: a microsecond, the finest unit it reads.
const SHORTEST: Duration = Duration::from_micros(1);

/// A real number from `min` to `max` (`what` says what it counts).
pub fn real(flag: &str, text: &str, min: f64, max: f64, what: &str) -> anyhow::Result<f64> {
    let v = text
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .ok_or_else(|| {
            usage(format!(
                "{flag} `{text}` is not a positive number of {what}: give {min} to {max}"
            ))
        })?;
    if !(min..=max).contains(&v) {
        return Err(usage(format!(
            "{flag} {} is out of range: give {min} to {max} {what}",
            text.trim()
        )));
    }
    Ok(v)
}

/// 24h, 10ms, 2m: a bound as a user would write it.
pub fn show(d: Duration) -> String {
    let ns = d.as_nanos();
    let units: [(u128, &str); 5] = [
        (3_600_000_000_000, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
    ];
    for (size, unit) in units {
        if ns >= size && ns.is_multiple_of(size) {
            return format!("{}{unit}", ns / size);
        }
    }
    format!("{ns}ns")
}

/// A duration as a person says it, to two figures or so: `40 ms`, `55 s`,
/// `3 min 20 s`, `1 h 5 min`.
pub fn about(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1.0 {
        format!("{:.0} ms", s * 1e3)
    } else if s < 100.0 {
        format!("{s:.0} s")
    } else if s < 3600.0 {
        let s = s.round() as u64;
        format!("{} min {} s", s / 60, s % 60)
    } else {
        let m = (s / 60.0).round() as u64;
        format!("{} h {} min", m / 60, m % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_a_person_says_them() {
        assert_eq!(about(Duration::from_millis(40)), "40 ms");
        assert_eq!(about(Duration::from_secs_f64(55.4)), "55 s");
        assert_eq!(about(Duration::from_secs_f64(239.7)), "4 min 0 s");
        assert_eq!(about(Duration::from_secs(3900)), "1 h 5 min");
    }

    fn err(r: anyhow::Result<impl std::fmt::Debug>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn times_parse_with_units_and_keep_to_their_range() {
        let (ms, h) = (Duration::from_millis(1), Duration::from_secs(3600));
        assert_eq!(
            time("-s", "1.5", ms, h).unwrap(),
            Duration::from_millis(1500)
        );
        assert_eq!(
            time("-s", "250ms", ms, h).unwrap(),
            Duration::from_millis(250)
        );
        assert_eq!(time("-s", "1h", ms, h).unwrap(), h);
        for huge in ["1e20", "1e300", "2h", "3601"] {
            let e = err(time("-s", huge, ms, h));
            assert!(e.contains("out of range: give 1ms to 1h"), "{huge}: {e}");
        }
        assert!(err(time("-s", "10us", ms, h)).contains("give 1ms to 1h"));
        for bad in ["soon", "-1", "0", "inf", "NaN", ""] {
            assert!(
                err(time("-s", bad, ms, h)).contains("not a positive time"),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_positive_time_too_small_to_hold_is_refused_not_made_zero() {
        // Found by fuzz/fuzz_targets/durations.rs: 9e-99 s became 0 ns.
        assert_eq!(
            err(short_time(
                "--timeout",
                "9e-99",
                Duration::from_secs(60),
                "x"
            )),
            "--timeout 9e-99 is shorter than 1us: give at least that"
        );
        assert_eq!(
            short_time("--timeout", "1us", Duration::from_secs(60), "x").unwrap(),
            Duration::from_micros(1)
        );
    }

    #[test]
    fn short_times_say_why_they_are_short() {
        let e = err(short_time(
            "--spin",
            "1e20",
            Duration::from_millis(10),
            "spinning is for µs",
        ));
        assert_eq!(e, "--spin 1e20 is longer than 10ms: spinning is for µs");
    }

    #[test]
    fn whole_numbers_keep_to_their_range() {
        assert_eq!(whole("-n", " 7 ", 1, 10).unwrap(), 7);
        assert_eq!(
            err(whole("-n", "0", 1, 10)),
            "-n must be from 1 to 10, not 0"
        );
        assert_eq!(
            err(whole("-n", "11", 1, 10)),
            "-n must be from 1 to 10, not 11"
        );
        assert!(err(whole("-n", "99999999999999999999999", 1, 10)).contains("from 1 to 10"));
        assert!(err(whole("-n", "1e3", 1, 10)).contains("not a whole number"));
    }

    #[test]
    fn reals_keep_to_their_range() {
        assert_eq!(
            real("--rate", "0.5", 0.01, 1e7, "requests per second").unwrap(),
            0.5
        );
        assert!(
            err(real("--rate", "1e-20", 0.01, 1e7, "requests per second"))
                .contains("out of range: give 0.01 to 10000000 requests per second")
        );
        assert!(err(real("--rate", "-5", 0.01, 1e7, "x")).contains("not a positive number"));
    }

    #[test]
    fn bounds_print_as_written() {
        assert_eq!(show(Duration::from_secs(86_400)), "24h");
        assert_eq!(show(Duration::from_secs(120)), "2m");
        assert_eq!(show(Duration::from_millis(100)), "100ms");
        assert_eq!(show(Duration::from_micros(1500)), "1500us");
    }
}
