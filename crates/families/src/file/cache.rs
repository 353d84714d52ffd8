//! The page cache's hold on the file: how much of it is resident
//! (mincore), evicting it (posix_fadvise DONTNEED, or the machine's whole
//! page cache with `--drop-caches`), and warming it.
//!
//! E4's caveat was that the cache must be dropped or the numbers lie, so a
//! trial's cache state is measured rather than assumed: toll counts the
//! file's resident pages before every trial, stores the count, and refuses
//! to call a trial cold when any page was still there. DONTNEED needs no
//! root but cannot drop pages that someone maps or that are dirty (toll
//! syncs the file it writes), and does nothing on tmpfs, whose pages are
//! the file.

use serde::Serialize;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;

/// Which cache state a trial starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Cache {
    /// None of the file's pages resident.
    Cold,
    /// Every page resident.
    Warm,
}

impl Cache {
    /// The name on the command line and in the store.
    pub fn name(self) -> &'static str {
        match self {
            Cache::Cold => "cold",
            Cache::Warm => "warm",
        }
    }
}

impl std::fmt::Display for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The file's pages in the page cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Residency {
    pub resident: u64,
    pub pages: u64,
}

impl Residency {
    /// The share resident, 0 to 1.
    pub fn fraction(&self) -> f64 {
        if self.pages == 0 {
            return 1.0;
        }
        self.resident as f64 / self.pages as f64
    }
}

/// Count the file's resident pages: map it (which reads nothing) and ask
/// mincore(2).
pub fn residency(file: &File) -> io::Result<Residency> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(Residency {
            resident: 0,
            pages: 0,
        });
    }
    // SAFETY: a read-only shared mapping whose bytes are never read here;
    // mincore only asks the kernel about its pages.
    let map = unsafe { memmap2::MmapOptions::new().map(file)? };
    let page = page_size();
    let pages = (len as usize).div_ceil(page);
    let mut vec = vec![0u8; pages];
    // SAFETY: `map` spans `len` bytes and `vec` has one byte per page of it.
    let rc = unsafe {
        libc::mincore(
            map.as_ptr() as *mut libc::c_void,
            len as usize,
            vec.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Residency {
        resident: vec.iter().filter(|&&b| b & 1 == 1).count() as u64,
        pages: pages as u64,
    })
}

/// The machine's page size.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if p > 0 {
        p as usize
    } else {
        4096
    }
}

/// Ask the kernel to drop the file's clean, unmapped pages.
pub fn evict(file: &File) -> io::Result<()> {
    // SAFETY: a valid open descriptor; offset 0 and length 0 mean the whole file.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 {
        return Err(io::Error::from_raw_os_error(rc));
    }
    Ok(())
}

/// Drop the machine's whole page cache (root only): sync, then write 1 to
/// /proc/sys/vm/drop_caches.
pub fn drop_caches() -> io::Result<()> {
    // SAFETY: sync has no preconditions.
    unsafe { libc::sync() };
    std::fs::write("/proc/sys/vm/drop_caches", "1")
}

/// Whether this process may drop the machine's page cache.
pub fn may_drop_caches() -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sys/vm/drop_caches")
        .is_ok()
}

/// Read the whole file once (1 MiB at a time), so its pages are resident.
pub fn warm(file: &File) -> io::Result<()> {
    let len = file.metadata()?.len();
    let mut buf = vec![0u8; 1 << 20];
    let mut off = 0;
    while off < len {
        let n = file.read_at(&mut buf, off)?;
        if n == 0 {
            break;
        }
        off += n as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_written_file_is_evicted_and_warmed_as_mincore_says() {
        let dir = std::env::temp_dir().join(format!("toll-cache-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let mut f = File::create(&path).unwrap();
        f.write_all(&vec![7u8; 64 * 4096 + 100]).unwrap();
        f.sync_all().unwrap();
        drop(f);
        let f = File::open(&path).unwrap();
        let pages = (64 * 4096 + 100usize).div_ceil(page_size()) as u64;
        evict(&f).unwrap();
        let cold = residency(&f).unwrap();
        assert_eq!(cold.pages, pages);
        // tmpfs keeps its pages whatever fadvise says: then only the count is checked.
        let on_tmpfs = cold.resident == cold.pages;
        if !on_tmpfs {
            assert_eq!(cold.resident, 0, "evicted");
        }
        warm(&f).unwrap();
        let hot = residency(&f).unwrap();
        assert_eq!(hot.resident, pages, "warmed");
        assert_eq!(hot.fraction(), 1.0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
