//! The crossings toll times inside its own process: a null system call
//! beside a vDSO call, a minor page fault per page touched, mmap + munmap,
//! a signal to this thread, memcpy, and a pointer chase through a working
//! set. Each times `reps` operations with the monotonic clock and returns
//! how long they took; what it cannot do is a one-line reason.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The page size toll assumes for its faults (checked against the
/// kernel's at the start of a run).
pub fn page_size() -> usize {
    // SAFETY: sysconf reads a constant.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// `reps` null system calls: getppid through syscall(2), which libc does
/// not cache.
pub fn syscall(reps: u64) -> Duration {
    let t = Instant::now();
    for _ in 0..reps {
        // SAFETY: getppid takes no arguments and cannot fail.
        black_box(unsafe { libc::syscall(libc::SYS_getppid) });
    }
    t.elapsed()
}

/// `reps` reads of the monotonic clock: the vDSO, no crossing into the
/// kernel, so the difference from [`syscall`] is the crossing's.
pub fn vdso(reps: u64) -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let t = Instant::now();
    for _ in 0..reps {
        // SAFETY: writes only `ts`.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
        black_box(&ts);
    }
    t.elapsed()
}

/// Minor faults of this thread so far (getrusage).
pub fn minor_faults() -> u64 {
    // SAFETY: getrusage writes only `u`.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    u.ru_minflt as u64
}

/// `reps` times: map `pages` fresh anonymous pages, touch each (one write
/// per page: a minor fault) when `touch`, unmap them. Returns the time and
/// the minor faults counted meanwhile. Transparent huge pages are asked
/// off for the region, so each page is its own fault.
pub fn map_touch(pages: u64, reps: u64, touch: bool) -> Result<(Duration, u64), String> {
    let page = page_size();
    let len = (pages.max(1) as usize)
        .checked_mul(page)
        .ok_or("a mapping that large does not fit in the address space")?;
    // An inaccessible page mapped first: the mappings measured land beside
    // it, never merged into (and split back out of) a neighbouring mapping
    // of the same kind, which would add a tenth or more depending on what
    // happened to be mapped there (the C reference does the same).
    // SAFETY: a fresh inaccessible anonymous page, unmapped below.
    let guard = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            page,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    let faults = minor_faults();
    let t = Instant::now();
    for _ in 0..reps {
        // SAFETY: a fresh private anonymous mapping, written within its
        // length and unmapped before the next.
        unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            if p == libc::MAP_FAILED {
                return Err(format!(
                    "mmap of {pages} pages failed: {}",
                    std::io::Error::last_os_error()
                ));
            }
            if touch {
                // Small pages, so that a fault is a page: only where they
                // are touched (an madvise on an untouched mapping is a
                // system call of its own, and splits the mapping off any
                // neighbour it was merged with).
                libc::madvise(p, len, libc::MADV_NOHUGEPAGE);
                let base = p.cast::<u8>();
                for k in 0..pages as usize {
                    std::ptr::write_volatile(base.add(k * page), 1);
                }
            }
            libc::munmap(p, len);
        }
    }
    let took = t.elapsed();
    let faults = minor_faults().saturating_sub(faults);
    if guard != libc::MAP_FAILED {
        // SAFETY: the page mapped above.
        unsafe { libc::munmap(guard, page) };
    }
    Ok((took, faults))
}

/// Signals handled so far by [`on_signal`].
static HANDLED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    HANDLED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// `reps` signals raised at this thread, each run by a handler that
/// counts it: delivery into the process and the return (sigreturn).
pub fn signal_self(reps: u64) -> Result<Duration, String> {
    // SAFETY: the handler only touches an atomic.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_signal as *const () as usize;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        if libc::sigaction(libc::SIGURG, &sa, std::ptr::null_mut()) != 0 {
            return Err(format!(
                "cannot handle SIGURG: {}",
                std::io::Error::last_os_error()
            ));
        }
    }
    let before = HANDLED.load(std::sync::atomic::Ordering::Relaxed);
    let t = Instant::now();
    for _ in 0..reps {
        // SAFETY: raise sends to this thread, whose handler counts it.
        unsafe { libc::raise(libc::SIGURG) };
    }
    let took = t.elapsed();
    let handled = HANDLED.load(std::sync::atomic::Ordering::Relaxed) - before;
    if handled < reps {
        return Err(format!("{handled} of {reps} signals reached the handler"));
    }
    Ok(took)
}

/// Where each copy's buffers lie: both at the start of a page, the
/// destination half a page past the end of the source's pages. Placed by
/// the allocator, a small copy's two buffers lie wherever earlier
/// allocations left them — across a cache line or not, a multiple of 4 KiB
/// apart or not (a load then waits on a store it only seems to follow) —
/// which differs from one program to another. The C reference
/// (`scripts/reference/sys.c`) lays its buffers out the same way, so where
/// they lie is not what differs between the two.
pub const COPY_PAGE: usize = 4096;

/// Two buffers of `n` bytes, touched, for memcpy, laid out as
/// [`COPY_PAGE`] says, in one allocation.
pub struct CopyBuffers {
    mem: Vec<u8>,
    src: usize,
    dst: usize,
    n: usize,
}

impl CopyBuffers {
    pub fn new(n: usize) -> CopyBuffers {
        let pages = n.div_ceil(COPY_PAGE).max(1) * COPY_PAGE;
        let mut mem = vec![0u8; COPY_PAGE + pages + COPY_PAGE / 2 + n.max(1)];
        let src = mem.as_ptr().align_offset(COPY_PAGE);
        let dst = src + pages + COPY_PAGE / 2;
        for (i, b) in mem[src..src + n].iter_mut().enumerate() {
            *b = i as u8;
        }
        CopyBuffers { mem, src, dst, n }
    }

    /// `reps` copies of the whole source into the destination, after
    /// `lead` of untimed ones (at least one): the rounds interleave sizes,
    /// and copies after another size's run slow until the caches and the
    /// memory system have settled on this one — at 32 MiB, beside five
    /// other sizes, one untimed copy left a batch 1.3–1.8× the time of a
    /// copy repeated back to back (as a C loop or `bw_mem` times it); 50 ms
    /// of them leave none. β is the steady copy's cost per byte.
    pub fn copy(&mut self, reps: u64, lead: Duration) -> Duration {
        let n = self.n;
        let base = self.mem.as_mut_ptr();
        // SAFETY: both offsets and n bytes past them lie inside `mem`
        // (new sized it so), and the two ranges do not overlap (dst starts
        // half a page past the source's last page).
        let (src, dst) = unsafe { (base.add(self.src).cast_const(), base.add(self.dst)) };
        // SAFETY (both loops): as above: two distinct ranges of n bytes
        // inside the allocation this struct owns.
        let t = Instant::now();
        loop {
            unsafe { std::ptr::copy_nonoverlapping(src, dst, n) };
            kept(src, dst);
            if t.elapsed() >= lead {
                break;
            }
        }
        let t = Instant::now();
        for _ in 0..reps {
            unsafe { std::ptr::copy_nonoverlapping(src, dst, n) };
            kept(src, dst);
        }
        t.elapsed()
    }
}

/// What keeps each copy: the pointers in registers and memory said to be
/// read and written, so no copy is folded into the next or dropped — the
/// C loop's `asm volatile("" : : "r"(dst), "r"(src) : "memory")`, no more.
/// (`black_box` of the slices stored and reloaded them every copy: a cycle
/// on a 2 ns copy of 64 bytes, 1.18× the C loop.)
#[inline(always)]
fn kept(src: *const u8, dst: *mut u8) {
    // SAFETY: a template that is only a comment naming two registers.
    unsafe {
        std::arch::asm!("/* {0} {1} */", in(reg) src, in(reg) dst, options(nostack, preserves_flags))
    };
}

/// One load per cache line, 64 bytes apart.
pub const LINE: usize = 64;

/// A working set of `bytes` as one random cycle through its cache lines
/// (Sattolo's shuffle: every line visited once a lap, in an order no
/// prefetcher follows), for a chase of dependent loads. The memory is its
/// own mapping, aligned to 2 MiB and asked for huge pages where the kernel
/// gives them, so the steps a chase finds are the caches' rather than the
/// TLB's.
pub struct Chase {
    map: *mut libc::c_void,
    map_len: usize,
    next: *mut usize,
    words: usize,
    at: usize,
}

/// Huge pages' size, for alignment.
const HUGE: usize = 2 << 20;

impl Chase {
    pub fn new(bytes: usize, seed: u64) -> Result<Chase, String> {
        let stride = LINE / std::mem::size_of::<usize>();
        let lines = (bytes / LINE).max(2);
        let words = lines * stride;
        let len = words * std::mem::size_of::<usize>();
        // Whole huge pages, and room to align the first: the kernel backs
        // an aligned 2 MiB range with a huge page only when the mapping
        // covers all of it.
        let huge_len = len.next_multiple_of(HUGE);
        let map_len = huge_len + HUGE;
        // SAFETY: a fresh private anonymous mapping, used within its length
        // and unmapped on drop.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if map == libc::MAP_FAILED {
            return Err(format!(
                "mmap of a {bytes}-byte working set failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        let aligned = (map as usize).next_multiple_of(HUGE);
        // SAFETY: within the mapping; advice only.
        unsafe { libc::madvise(aligned as *mut libc::c_void, huge_len, libc::MADV_HUGEPAGE) };
        let next = aligned as *mut usize;
        let mut order: Vec<usize> = (0..lines).collect();
        let mut x = seed | 1;
        for i in (1..lines).rev() {
            // xorshift64*
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let r = (x.wrapping_mul(0x2545_f491_4f6c_dd1d) % i as u64) as usize;
            order.swap(i, r);
        }
        // The cycle: each line's first word holds the next line's index.
        for k in 0..lines {
            // SAFETY: order[k] < lines, so the word is within `words`.
            unsafe { *next.add(order[k] * stride) = order[(k + 1) % lines] * stride };
        }
        Ok(Chase {
            map,
            map_len,
            next,
            words,
            at: 0,
        })
    }

    /// `reps` dependent loads, each the address of the next.
    pub fn chase(&mut self, reps: u64) -> Duration {
        // SAFETY: every stored index is a line's first word, in bounds.
        let (at, took) = unsafe { toll_measure::chase::chase(self.next, self.at, reps) };
        debug_assert!(at < self.words);
        self.at = at;
        took
    }

    #[cfg(test)]
    fn at(&self, i: usize) -> usize {
        assert!(i < self.words);
        // SAFETY: checked just above.
        unsafe { *self.next.add(i) }
    }
}

impl Drop for Chase {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once.
        unsafe { libc::munmap(self.map, self.map_len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chase_visits_every_line_once_a_lap() {
        let mut c = Chase::new(64 * 100, 7).unwrap();
        let stride = LINE / std::mem::size_of::<usize>();
        let mut seen = std::collections::BTreeSet::new();
        let mut i = 0;
        for _ in 0..100 {
            assert!(seen.insert(i), "line {} twice in one lap", i / stride);
            i = c.at(i);
        }
        assert_eq!(i, 0, "back where it started after 100 lines");
        assert_eq!(seen.len(), 100);
        c.chase(1000);
    }

    #[test]
    fn touching_a_fresh_page_is_one_minor_fault() {
        let (_, faults) = map_touch(64, 4, true).unwrap();
        // Each page of each mapping faults once (a stray fault or two
        // elsewhere in the thread may add).
        assert!(
            (256..=266).contains(&faults),
            "{faults} faults for 256 pages"
        );
        let (_, untouched) = map_touch(64, 4, false).unwrap();
        assert!(untouched < 10, "{untouched} faults without a touch");
    }

    #[test]
    fn signals_reach_their_handler() {
        assert!(signal_self(100).is_ok());
    }
}
