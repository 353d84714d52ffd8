//! The Rust methods of `toll file`, run inside toll itself: `read` (seek +
//! read), `pread`, `mmap-copy` (copy out of a mapping), `mmap-slice` (sum
//! the bytes where they lie) and `io_uring` (reads submitted in batches).
//!
//! Each trial opens the file (and maps it) before the clock starts and sums
//! every byte it reads, so no read can be skipped and every method does the
//! same work on the bytes; the harness checks the sum.

use super::plan::{sum_bytes, Pattern, Reads};
use std::fs::File;
use std::hint::black_box;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Instant;

/// The Rust methods, in the order toll measures them.
pub const METHODS: [&str; 5] = ["read", "pread", "mmap-copy", "mmap-slice", "io_uring"];

/// Reads io_uring keeps in flight: one batch.
pub const URING_BATCH: usize = 32;

/// What one trial did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    pub ns: u64,
    pub reads: u64,
    pub bytes: u64,
    /// The wrapping sum of every byte read.
    pub sum: u64,
}

/// Why the kernel refuses io_uring here (a sysctl, a seccomp filter, an old
/// kernel), or None when it gives a ring. `TOLL_IO_URING_REFUSED=REASON`
/// makes toll act as if the kernel had refused, for tests.
pub fn io_uring_refusal() -> Option<String> {
    if let Some(why) = std::env::var_os("TOLL_IO_URING_REFUSED") {
        return Some(why.to_string_lossy().into_owned());
    }
    match io_uring::IoUring::new(8) {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}

/// Run one trial of `method` over `reads` of the file at `path`.
pub fn run(method: &str, path: &Path, reads: &Reads, offsets: &[u64]) -> io::Result<Done> {
    let mut file = File::open(path)?;
    let mut buf = vec![0u8; reads.max_len() as usize];
    let (ns, sum) = match method {
        "read" => timed(|| {
            let mut sum = 0u64;
            let mut result = Ok(());
            match reads.pattern {
                // Sequential reads need no seek: each read moves the offset.
                Pattern::Seq => reads.each(offsets, |_, len| {
                    if result.is_ok() {
                        result = file.read_exact(&mut buf[..len]);
                        sum = sum.wrapping_add(sum_bytes(&buf[..len]));
                    }
                }),
                Pattern::Random => reads.each(offsets, |off, len| {
                    if result.is_ok() {
                        result = file
                            .seek(SeekFrom::Start(off))
                            .and_then(|_| file.read_exact(&mut buf[..len]));
                        sum = sum.wrapping_add(sum_bytes(&buf[..len]));
                    }
                }),
            }
            result.map(|_| sum)
        })?,
        "pread" => timed(|| {
            let mut sum = 0u64;
            let mut result = Ok(());
            reads.each(offsets, |off, len| {
                if result.is_ok() {
                    result = file.read_exact_at(&mut buf[..len], off);
                    sum = sum.wrapping_add(sum_bytes(&buf[..len]));
                }
            });
            result.map(|_| sum)
        })?,
        "mmap-copy" | "mmap-slice" => {
            // SAFETY: a read-only mapping of a file toll never writes while
            // it is mapped; a user's file changing under it would change
            // the bytes read (the checksum would say so), not memory safety
            // of anything but those bytes.
            let map = unsafe { memmap2::Mmap::map(&file)? };
            let copy = method == "mmap-copy";
            timed(|| {
                let mut sum = 0u64;
                reads.each(offsets, |off, len| {
                    let bytes = &map[off as usize..off as usize + len];
                    let s = if copy {
                        buf[..len].copy_from_slice(bytes);
                        // The copy must happen: the sum reads the buffer.
                        sum_bytes(black_box(&buf[..len]))
                    } else {
                        sum_bytes(bytes)
                    };
                    sum = sum.wrapping_add(s);
                });
                Ok(sum)
            })?
        }
        "io_uring" => uring(&file, reads, offsets)?,
        other => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("no Rust method `{other}`"),
            ))
        }
    };
    Ok(Done {
        ns,
        reads: reads.count,
        bytes: reads.bytes(),
        sum,
    })
}

/// Time `f` with the monotonic clock.
fn timed(f: impl FnOnce() -> io::Result<u64>) -> io::Result<(u64, u64)> {
    let t0 = Instant::now();
    let sum = f()?;
    Ok((t0.elapsed().as_nanos().max(1) as u64, sum))
}

/// io_uring: the reads go in batches of [`URING_BATCH`], each submitted
/// with one io_uring_enter that also waits for the batch; then each
/// buffer's bytes are summed.
fn uring(file: &File, reads: &Reads, offsets: &[u64]) -> io::Result<(u64, u64)> {
    use io_uring::{opcode, types, IoUring};
    let mut ring = IoUring::new(URING_BATCH as u32)?;
    let max = reads.max_len() as usize;
    let mut bufs = vec![vec![0u8; max]; URING_BATCH];
    let mut list = Vec::with_capacity(reads.count as usize);
    reads.each(offsets, |off, len| list.push((off, len)));
    let fd = types::Fd(file.as_raw_fd());
    timed(|| {
        let mut sum = 0u64;
        for batch in list.chunks(URING_BATCH) {
            for (i, &(off, len)) in batch.iter().enumerate() {
                let entry = opcode::Read::new(fd, bufs[i].as_mut_ptr(), len as u32)
                    .offset(off)
                    .build()
                    .user_data(i as u64);
                // SAFETY: the buffer outlives the read, which completes
                // before this batch's loop ends.
                unsafe { ring.submission().push(&entry) }
                    .map_err(|_| io::Error::other("io_uring submission queue full"))?;
            }
            ring.submit_and_wait(batch.len())?;
            let mut done = 0;
            for cqe in ring.completion() {
                let i = cqe.user_data() as usize;
                let len = batch[i].1;
                match cqe.result() {
                    r if r < 0 => return Err(io::Error::from_raw_os_error(-r)),
                    r if r as usize != len => {
                        return Err(io::Error::new(
                            io::ErrorKind::UnexpectedEof,
                            format!("io_uring read {r} of {len} bytes"),
                        ))
                    }
                    _ => sum = sum.wrapping_add(sum_bytes(&bufs[i][..len])),
                }
                done += 1;
            }
            if done != batch.len() {
                return Err(io::Error::other(format!(
                    "io_uring completed {done} of {} reads",
                    batch.len()
                )));
            }
        }
        Ok(sum)
    })
}

#[cfg(test)]
mod tests {
    use super::super::plan::{expected_sum, random_offsets, SumOf};
    use super::*;

    #[test]
    fn every_method_reads_every_byte_of_both_patterns() {
        let dir = std::env::temp_dir().join(format!("toll-native-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        let mut rng = fastrand::Rng::with_seed(1);
        let data: Vec<u8> = (0..300_000).map(|_| rng.u8(..)).collect();
        std::fs::write(&path, &data).unwrap();
        let offs = random_offsets(3, 1000, 450, data.len() as u64);
        let uring = io_uring_refusal().is_none();
        for reads in [
            Reads::e4_seq(data.len() as u64),
            Reads::sized(Pattern::Random, 450, 1000, data.len() as u64),
            Reads::sized(Pattern::Seq, 4096, 1000, data.len() as u64),
        ] {
            let want = expected_sum(&data, &reads, &offs, SumOf::Bytes);
            for m in METHODS {
                if m == "io_uring" && !uring {
                    continue;
                }
                let d = run(m, &path, &reads, &offs).unwrap();
                assert_eq!(d.sum, want, "{m} {reads:?}");
                assert_eq!((d.reads, d.bytes), (reads.count, reads.bytes()));
                assert!(d.ns > 0);
            }
        }
        assert!(run("mmap-read", &path, &Reads::e4_seq(1000), &[]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
