//! The memory figures of spec/wire.md: this process's resident set, and the
//! machine's used memory.

/// A `kB` field of a /proc file such as `VmRSS:  1234 kB`.
fn field_kb(text: &str, name: &str) -> Option<i64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// `VmRSS` of this process, in kB (0 when unreadable).
pub fn rss_kb() -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| field_kb(&s, "VmRSS"))
        .unwrap_or(0)
}

/// `MemTotal − MemAvailable`, in kB (0 when unreadable).
pub fn system_used_kb() -> i64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| Some(field_kb(&s, "MemTotal")? - field_kb(&s, "MemAvailable")?))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_kb_fields() {
        let text = "Name:\tx\nVmRSS:\t  2048 kB\nVmHWM:\t4096 kB\n";
        assert_eq!(field_kb(text, "VmRSS"), Some(2048));
        assert_eq!(field_kb(text, "VmSwap"), None);
        assert!(rss_kb() > 0);
        assert!(system_used_kb() > 0);
    }
}
