//! Size and count lists (`--sizes`, `-n`, `-m`): any text is refused or
//! gives a sorted list without duplicates within the limits, which reads
//! back as itself when written out plainly; reading it takes memory in
//! proportion to the text, not to the sizes it names.
#![no_main]

use libfuzzer_sys::fuzz_target;
#[path = "common/peak_alloc.rs"]
mod peak_alloc;
use toll_families::sizes::{parse_counts, parse_sizes, MAX_ITEMS, MAX_SIZES};

#[global_allocator]
static ALLOC: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    peak_alloc::take_peak();
    let parsed = parse_sizes(spec);
    let peak = peak_alloc::take_peak();
    // The list holds at most 2·MAX_SIZES sizes before it is refused, in a
    // buffer of at most twice that (doubling), beside the old one while it
    // grows; and the spec's pieces.
    let bound = 6 * MAX_SIZES * 8 + 64 * spec.len() + 4096;
    assert!(
        peak <= bound,
        "{peak} bytes to read {} bytes: {spec:?}",
        spec.len()
    );
    if let Ok(sizes) = parsed {
        assert!(!sizes.is_empty() && sizes.len() <= MAX_SIZES, "{spec:?}");
        assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{spec:?}");
        assert!(sizes.iter().all(|&s| s <= MAX_ITEMS), "{spec:?}");
        // Written out (short lists: long ones only repeat the work).
        if sizes.len() <= 64 {
            let plain: Vec<String> = sizes.iter().map(u64::to_string).collect();
            assert_eq!(parse_sizes(&plain.join(",")), Ok(sizes));
        }
    }
    if let Ok(counts) = parse_counts(spec, "-n", 2) {
        assert!(counts[0] >= 2, "{spec:?}");
    }
});
