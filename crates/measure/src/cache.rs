//! toll's cache directory: built workers, file-family data, and the
//! machine's last wake-up probe.

use std::path::PathBuf;

/// `$TOLL_CACHE_DIR`, else `<the user's cache dir>/toll`.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("TOLL_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs::cache_dir().map(|d| d.join("toll")))
        .unwrap_or_else(|| std::env::temp_dir().join("toll-cache"))
}
