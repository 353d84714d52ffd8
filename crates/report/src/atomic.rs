//! Writing a file whole or not at all: into a temporary file beside it,
//! then renamed over it, so a full disk or a killed process never leaves
//! half a report where a reader expects one.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Write `bytes` to `path` atomically (see the module). The temporary file
/// is removed when anything fails.
pub fn write(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temp_beside(path);
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// `DIR/.NAME.PID.tmp` for `DIR/NAME`: the same directory, so the rename
/// stays on one filesystem.
fn temp_beside(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "toll-output".into());
    let tmp = format!(".{name}.{}.tmp", std::process::id());
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(tmp),
        _ => PathBuf::from(tmp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_whole_files_and_leaves_nothing_on_failure() {
        let dir = std::env::temp_dir().join(format!("toll-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("a.html");
        write(&f, b"one").unwrap();
        write(&f, b"two").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"two");
        // A directory where the file should go: the rename fails.
        let d = dir.join("sub");
        std::fs::create_dir(&d).unwrap();
        std::fs::write(d.join("x"), b"").unwrap();
        assert!(write(&d, b"three").is_err());
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "no temporary file left: {left:?}");
        assert!(write(&dir.join("missing/a.html"), b"x").is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
