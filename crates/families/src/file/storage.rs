//! The device and filesystem behind a file, stored with the run: E4 noted
//! that an SSD gave its figures and a spinning disk would widen the gap, so
//! the device is part of the result.
//!
//! The mount comes from /proc/self/mountinfo (the entry whose device number
//! is the file's and whose mount point is the longest prefix of its path),
//! the filesystem's magic from statfs(2), and the block device, when there
//! is one, from /sys/dev/block: its name, whether it spins, its model.

use serde::Serialize;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Where a file's bytes live.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Storage {
    /// The mount point holding the file.
    pub mount_point: String,
    /// The filesystem type as mounted (ext4, xfs, overlay, tmpfs, …).
    pub fs_type: String,
    /// What is mounted there (/dev/vda1, overlay, tmpfs, …).
    pub source: String,
    /// The file's device number, major:minor.
    pub dev: String,
    /// statfs(2)'s f_type, in hex.
    pub statfs_type: String,
    /// The whole block device (vda, nvme0n1), when the file is on one.
    pub block_device: Option<String>,
    /// /sys/block/DEV/queue/rotational: a spinning disk.
    pub rotational: Option<bool>,
    /// /sys/block/DEV/device/model, when the driver gives one.
    pub model: Option<String>,
}

impl Storage {
    /// One line for the table's heading: `ext4 on /dev/vda (vda, not rotational)`.
    pub fn describe(&self) -> String {
        let mut s = format!("{} on {}", self.fs_type, self.source);
        let mut about = vec![];
        if let Some(b) = &self.block_device {
            about.push(b.clone());
        }
        if let Some(m) = &self.model {
            about.push(m.clone());
        }
        match self.rotational {
            Some(true) => about.push("rotational".into()),
            Some(false) => about.push("not rotational".into()),
            None => {}
        }
        if !about.is_empty() {
            s.push_str(&format!(" ({})", about.join(", ")));
        }
        s
    }
}

/// The storage behind `path` (best effort: unknown fields stay empty).
pub fn of(path: &Path) -> Storage {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let Ok(meta) = std::fs::metadata(&canonical) else {
        return Storage::default();
    };
    let (major, minor) = (libc::major(meta.dev()), libc::minor(meta.dev()));
    let dev = format!("{major}:{minor}");
    let mountinfo = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mut best: Option<(usize, Mount)> = None;
    for m in mountinfo.lines().filter_map(parse_mountinfo_line) {
        if !canonical.starts_with(&m.mount_point) {
            continue;
        }
        // The file's own device first, then the longest mount point.
        let score = (m.dev == dev) as usize * 100_000 + m.mount_point.as_os_str().len();
        if best.as_ref().is_none_or(|(s, _)| score >= *s) {
            best = Some((score, m));
        }
    }
    let mut s = Storage {
        dev: dev.clone(),
        statfs_type: statfs_type(&canonical).unwrap_or_default(),
        ..Storage::default()
    };
    if let Some((_, m)) = best {
        s.mount_point = m.mount_point.display().to_string();
        s.fs_type = m.fs_type;
        s.source = m.source;
    }
    if let Some(disk) = block_device(&dev) {
        let queue = Path::new("/sys/block").join(&disk);
        s.rotational = std::fs::read_to_string(queue.join("queue/rotational"))
            .ok()
            .map(|t| t.trim() == "1");
        s.model = std::fs::read_to_string(queue.join("device/model"))
            .ok()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty());
        s.block_device = Some(disk);
    }
    s
}

/// One line of /proc/self/mountinfo.
#[derive(Debug, PartialEq)]
struct Mount {
    dev: String,
    mount_point: PathBuf,
    fs_type: String,
    source: String,
}

/// `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`
fn parse_mountinfo_line(line: &str) -> Option<Mount> {
    let (left, right) = line.split_once(" - ")?;
    let l: Vec<&str> = left.split(' ').collect();
    let r: Vec<&str> = right.split(' ').collect();
    Some(Mount {
        dev: l.get(2)?.to_string(),
        mount_point: PathBuf::from(unescape(l.get(4)?)),
        fs_type: r.first()?.to_string(),
        source: unescape(r.get(1)?),
    })
}

/// mountinfo writes space, tab, newline and backslash as octal escapes.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 3 < b.len() && b[i + 1..i + 4].iter().all(u8::is_ascii_digit) {
            let v = (b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0');
            out.push(v);
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn statfs_type(path: &Path) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a statfs buffer to fill.
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    Some(format!("{:#x}", st.f_type))
}

/// The whole disk behind device `maj:min` (a partition's parent), if it is a
/// block device.
fn block_device(dev: &str) -> Option<String> {
    let link = std::fs::canonicalize(format!("/sys/dev/block/{dev}")).ok()?;
    let disk = if link.join("partition").exists() {
        link.parent()?
    } else {
        &link
    };
    Some(disk.file_name()?.to_string_lossy().into_owned())
}

/// Free bytes for an unprivileged user on the filesystem holding `dir`.
pub fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: a NUL-terminated path and a statvfs buffer to fill.
    if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(st.f_bavail as u64 * st.f_frsize as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines_parse_with_their_escapes() {
        let m = parse_mountinfo_line(
            "36 35 98:0 / /mnt/my\\040disk rw,noatime master:1 - ext4 /dev/sda1 rw,errors=continue",
        )
        .unwrap();
        assert_eq!(
            m,
            Mount {
                dev: "98:0".into(),
                mount_point: PathBuf::from("/mnt/my disk"),
                fs_type: "ext4".into(),
                source: "/dev/sda1".into(),
            }
        );
        assert!(parse_mountinfo_line("garbage").is_none());
    }

    #[test]
    fn the_storage_of_a_real_file_names_its_filesystem() {
        let s = of(Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("Cargo.toml")
            .as_path());
        assert!(!s.fs_type.is_empty(), "{s:?}");
        assert!(s.dev.contains(':'));
        assert!(s.statfs_type.starts_with("0x"));
        assert!(!s.describe().is_empty());
        assert!(free_bytes(Path::new("/")).is_ok());
    }
}
