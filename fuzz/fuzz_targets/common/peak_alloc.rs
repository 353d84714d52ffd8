//! A global allocator that counts the bytes live and their peak, so a
//! target can check that reading an input takes memory in proportion to
//! it (a parser that grows without bound shows here long before it
//! reaches libFuzzer's -rss_limit_mb).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

pub struct PeakAlloc;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for PeakAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
}

/// Bytes allocated at most since the last call (from the bytes live now).
pub fn take_peak() -> usize {
    let live = LIVE.load(Relaxed);
    PEAK.swap(live, Relaxed).saturating_sub(live)
}
