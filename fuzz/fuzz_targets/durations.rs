//! Times, whole numbers, reals and lists from the command line (`--max-time`,
//! `--duration`, `--timeout`, `--rate`, …; crates/cli/src/values.rs): any
//! text is refused with a usage error or gives a value within the flag's
//! range — never a panic (`Duration::from_secs_f64` panics on what it
//! cannot hold) — and a bound written out by `show` reads back as itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::time::Duration;
#[path = "common/peak_alloc.rs"]
mod peak_alloc;
// `about` (progress text) is not fuzzed: it formats, it does not parse.
#[allow(dead_code)]
#[path = "../../crates/cli/src/values.rs"]
mod values;

/// The CLI's usage error, as values.rs makes it (the real one lives in
/// crates/cli/src/usage.rs with clap's error printing, which a fuzz target
/// does not need).
mod usage {
    pub fn usage(msg: impl Into<String>) -> anyhow::Error {
        anyhow::anyhow!(msg.into())
    }
}

#[global_allocator]
static ALLOC: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    peak_alloc::take_peak();
    let (min, max) = (Duration::from_millis(1), Duration::from_secs(86_400));
    if let Ok(s) = values::seconds("--t", text) {
        assert!(s.is_finite() && s > 0.0, "{text:?} gave {s}");
    }
    if let Ok(d) = values::time("--t", text, min, max) {
        assert!(min <= d && d <= max, "{text:?} gave {d:?}");
        // A whole number of microseconds, written out, reads back as itself.
        if d.as_nanos() % 1000 == 0 {
            let shown = values::show(d);
            let back = values::time("--t", &shown, min, max).expect("show reads back");
            assert_eq!(back.as_micros(), d.as_micros(), "{text:?} → {shown}");
        }
    }
    if let Ok(d) = values::short_time("--t", text, max, "too long") {
        assert!(d > Duration::ZERO && d <= max, "{text:?} gave {d:?}");
    }
    if let Ok(v) = values::whole("--n", text, 1, 1_000_000) {
        assert!((1..=1_000_000).contains(&v), "{text:?} gave {v}");
        assert_eq!(
            values::whole("--n", &v.to_string(), 1, 1_000_000).ok(),
            Some(v)
        );
    }
    if let Ok(v) = values::real("--r", text, 0.001, 1e9, "per second") {
        assert!((0.001..=1e9).contains(&v), "{text:?} gave {v}");
    }
    if let Ok(items) = values::list(text, "--l") {
        assert!(!items.is_empty() && items.iter().all(|i| !i.is_empty() && !i.contains(',')));
    }
    let peak = peak_alloc::take_peak();
    // Error messages quote the text a few times, and a list of one-letter
    // items holds a String (24 bytes) per two bytes of text, twice over while
    // its Vec grows (old and new buffers): linear, nothing grows past that.
    assert!(
        peak <= 48 * text.len() + 4096,
        "{peak} bytes for {} bytes",
        text.len()
    );
});
