//! Shared memory: two single-producer single-consumer byte rings in one
//! mapped file, sleeping on futexes when blocked (or spinning, if asked).
//! The layout and the algorithm are spec/wire.md's "Shared memory" section.

use super::channel::{Alive, Channel};
use memmap2::MmapMut;
use rustix::thread::futex;
use serde_json::{json, Value};
use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::SeqCst};
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"TOLLSHM1";
const VERSION: u32 = 1;
const DATA_OFFSET: usize = 4096;
/// Bytes in each ring's data area.
pub const CAPACITY: usize = 1 << 20;
/// Spins between checks that the partner is still alive.
const SPINS_PER_CHECK: u64 = 1 << 20;

/// The mapped file, shared by the two ring ends of one process.
struct Region {
    _map: MmapMut,
    base: *mut u8,
    capacity: usize,
    spin: bool,
    alive: Alive,
    /// The harness unlinks the file when its channel closes.
    unlink: Option<PathBuf>,
}

// SAFETY: the header fields are only touched through atomics, and each data
// area has one producer and one consumer that hand bytes over through the
// positions with sequentially consistent stores and loads.
unsafe impl Send for Region {}
unsafe impl Sync for Region {}

impl Drop for Region {
    fn drop(&mut self) {
        if let Some(p) = &self.unlink {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// One ring of the region, seen from one end.
struct Ring {
    region: Arc<Region>,
    index: usize,
}

impl Ring {
    fn header(&self, offset: usize) -> *mut u8 {
        // SAFETY: 64 + 256·index + offset lies inside the first page.
        unsafe { self.region.base.add(64 + 256 * self.index + offset) }
    }
    fn u64_at(&self, offset: usize) -> &AtomicU64 {
        // SAFETY: in bounds, 8-aligned (page-aligned base), lives as long as the region.
        unsafe { &*(self.header(offset) as *const AtomicU64) }
    }
    fn u32_at(&self, offset: usize) -> &AtomicU32 {
        // SAFETY: as above, 4-aligned.
        unsafe { &*(self.header(offset) as *const AtomicU32) }
    }
    fn write_pos(&self) -> &AtomicU64 {
        self.u64_at(0)
    }
    fn read_pos(&self) -> &AtomicU64 {
        self.u64_at(64)
    }
    fn data_seq(&self) -> &AtomicU32 {
        self.u32_at(128)
    }
    fn reader_waiting(&self) -> &AtomicU32 {
        self.u32_at(132)
    }
    fn space_seq(&self) -> &AtomicU32 {
        self.u32_at(192)
    }
    fn writer_waiting(&self) -> &AtomicU32 {
        self.u32_at(196)
    }
    fn data(&self) -> *mut u8 {
        // SAFETY: the file holds DATA_OFFSET + 2·capacity bytes.
        unsafe {
            self.region
                .base
                .add(DATA_OFFSET + self.region.capacity * self.index)
        }
    }

    /// Block until `moved()` — by futex, or spinning — or fail when the partner died.
    fn wait(
        &self,
        word: &AtomicU32,
        waiting: &AtomicU32,
        moved: impl Fn() -> bool,
    ) -> io::Result<()> {
        let gone = || {
            io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the other end of the shared-memory ring is gone",
            )
        };
        if self.region.spin {
            let mut spins = 0u64;
            while !moved() {
                std::hint::spin_loop();
                spins += 1;
                if spins.is_multiple_of(SPINS_PER_CHECK) && !(self.region.alive)() {
                    return Err(gone());
                }
            }
            return Ok(());
        }
        let seen = word.load(SeqCst);
        waiting.store(1, SeqCst);
        if moved() {
            waiting.store(0, SeqCst);
            return Ok(());
        }
        let timeout = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: 100_000_000,
        };
        let r = futex::wait(word, futex::Flags::empty(), seen, Some(&timeout));
        waiting.store(0, SeqCst);
        if r == Err(rustix::io::Errno::TIMEDOUT) && !moved() && !(self.region.alive)() {
            return Err(gone());
        }
        Ok(())
    }
}

/// The producer end of a ring.
pub struct RingWriter(Ring);
/// The consumer end of a ring.
pub struct RingReader(Ring);

impl Write for RingWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let ring = &self.0;
        let cap = ring.region.capacity;
        loop {
            let w = ring.write_pos().load(SeqCst);
            let r = ring.read_pos().load(SeqCst);
            let free = cap - (w - r) as usize;
            if free == 0 {
                ring.wait(ring.space_seq(), ring.writer_waiting(), || {
                    ring.read_pos().load(SeqCst) != r
                })?;
                continue;
            }
            let n = free.min(buf.len());
            let off = (w as usize) & (cap - 1);
            let first = n.min(cap - off);
            // SAFETY: [off, off+first) and [0, n-first) are free bytes of the data area,
            // which the consumer does not read until write_pos is published below.
            unsafe {
                std::ptr::copy_nonoverlapping(buf.as_ptr(), ring.data().add(off), first);
                std::ptr::copy_nonoverlapping(buf.as_ptr().add(first), ring.data(), n - first);
            }
            ring.write_pos().store(w + n as u64, SeqCst);
            ring.data_seq().fetch_add(1, SeqCst);
            if ring.reader_waiting().load(SeqCst) == 1 {
                let _ = futex::wake(ring.data_seq(), futex::Flags::empty(), 1);
            }
            return Ok(n);
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl RingReader {
    /// Wait for published bytes; the offset of the first in the data area
    /// and how many follow it there before the end of the area.
    fn published(&self) -> io::Result<(usize, usize)> {
        let ring = &self.0;
        let cap = ring.region.capacity;
        loop {
            let r = ring.read_pos().load(SeqCst);
            let w = ring.write_pos().load(SeqCst);
            let avail = (w - r) as usize;
            if avail == 0 {
                ring.wait(ring.data_seq(), ring.reader_waiting(), || {
                    ring.write_pos().load(SeqCst) != w
                })?;
                continue;
            }
            let off = (r as usize) & (cap - 1);
            return Ok((off, avail.min(cap - off)));
        }
    }
}

impl Read for RingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let (off, avail) = self.published()?;
        let n = avail.min(buf.len());
        // SAFETY: [off, off+n) holds published bytes that the producer does
        // not overwrite until read_pos moves past them (in consume).
        unsafe { std::ptr::copy_nonoverlapping(self.0.data().add(off), buf.as_mut_ptr(), n) };
        self.consume(n);
        Ok(n)
    }
}

/// The ring's bytes lent in place: a worker sums a frame's items where the
/// harness wrote them, with no copy out of the shared region.
impl BufRead for RingReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let (off, n) = self.published()?;
        // SAFETY: as in read; the slice borrows self, so consume (which
        // hands the bytes back to the producer) cannot run while it lives.
        Ok(unsafe { std::slice::from_raw_parts(self.0.data().add(off), n) })
    }

    fn consume(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let ring = &self.0;
        let r = ring.read_pos().load(SeqCst);
        ring.read_pos().store(r + n as u64, SeqCst);
        ring.space_seq().fetch_add(1, SeqCst);
        if ring.writer_waiting().load(SeqCst) == 1 {
            let _ = futex::wake(ring.space_seq(), futex::Flags::empty(), 1);
        }
    }
}

/// The harness's mapped file, waiting for the worker to map it too.
pub struct PendingShm {
    map: MmapMut,
    spin: bool,
    path: PathBuf,
}

fn map(file: &File) -> io::Result<MmapMut> {
    // SAFETY: the file is toll's own, private to the harness and its worker,
    // which only access it as the ring protocol says.
    unsafe { MmapMut::map_mut(file) }
}

pub(super) fn listen(scratch: &Path, spin: bool) -> io::Result<(PendingShm, Value)> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let dir = Path::new("/dev/shm");
    let dir = if dir.is_dir() { dir } else { scratch };
    let path = dir.join(format!(
        "toll-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, SeqCst)
    ));
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    file.set_len((DATA_OFFSET + 2 * CAPACITY) as u64)?;
    let mut map = map(&file)?;
    map[0..8].copy_from_slice(MAGIC);
    map[8..12].copy_from_slice(&VERSION.to_le_bytes());
    map[12..16].copy_from_slice(&(CAPACITY as u32).to_le_bytes());
    map[16..20].copy_from_slice(&u32::from(spin).to_le_bytes());
    let cmd = json!({"op": "transfer", "transport": "shm", "path": path});
    Ok((PendingShm { map, spin, path }, cmd))
}

fn channel(
    mut map: MmapMut,
    capacity: usize,
    spin: bool,
    alive: Alive,
    unlink: Option<PathBuf>,
    harness: bool,
) -> Channel {
    let base = map.as_mut_ptr();
    let region = Arc::new(Region {
        _map: map,
        base,
        capacity,
        spin,
        alive,
        unlink,
    });
    let (out_ring, in_ring) = if harness { (0, 1) } else { (1, 0) };
    Channel {
        reader: Box::new(RingReader(Ring {
            region: region.clone(),
            index: in_ring,
        })),
        writer: Box::new(RingWriter(Ring {
            region,
            index: out_ring,
        })),
    }
}

impl PendingShm {
    pub(super) fn accept(self, alive: &Alive) -> io::Result<Channel> {
        Ok(channel(
            self.map,
            CAPACITY,
            self.spin,
            alive.clone(),
            Some(self.path),
            true,
        ))
    }
}

pub(super) fn connect(path: &Path) -> io::Result<Channel> {
    let file = OpenOptions::new().read(true).write(true).open(path)?;
    let map = map(&file)?;
    let bad = |what: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {what}", path.display()),
        )
    };
    if map.len() < DATA_OFFSET || &map[0..8] != MAGIC {
        return Err(bad("not a toll shared-memory file"));
    }
    let u32_at = |at: usize| u32::from_le_bytes(map[at..at + 4].try_into().expect("4 bytes"));
    if u32_at(8) != VERSION {
        return Err(bad("unsupported version"));
    }
    let capacity = u32_at(12) as usize;
    if !capacity.is_power_of_two() || map.len() < DATA_OFFSET + 2 * capacity {
        return Err(bad("bad capacity"));
    }
    let spin = u32_at(16) == 1;
    let parent = nix::unistd::getppid();
    let alive: Alive = Arc::new(move || nix::unistd::getppid() == parent);
    Ok(channel(map, capacity, spin, alive, None, false))
}
