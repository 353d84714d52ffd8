//! Size and count lists (`--sizes`, `-n`, `-m`): any text is refused or
//! gives a sorted list without duplicates within the limits, which reads
//! back as itself when written out plainly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toll_families::sizes::{parse_counts, parse_sizes, MAX_ITEMS, MAX_SIZES};

fuzz_target!(|data: &[u8]| {
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(sizes) = parse_sizes(spec) {
        assert!(!sizes.is_empty() && sizes.len() <= MAX_SIZES, "{spec:?}");
        assert!(sizes.windows(2).all(|w| w[0] < w[1]), "{spec:?}");
        assert!(sizes.iter().all(|&s| s <= MAX_ITEMS), "{spec:?}");
        let plain: Vec<String> = sizes.iter().map(u64::to_string).collect();
        assert_eq!(parse_sizes(&plain.join(",")), Ok(sizes));
    }
    if let Ok(counts) = parse_counts(spec, "-n", 2) {
        assert!(counts[0] >= 2, "{spec:?}");
    }
});
