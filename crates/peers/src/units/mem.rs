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

/// The resident set of every process in process group `pgid`, in kB:
/// a worker and all it started (a spawn of OS processes forks into its
/// group). Shared pages count once per process, so this errs high; it
/// only decides whose growth the machine's is.
pub fn group_rss_kb(pgid: u32) -> i64 {
    let page_kb = 4; // x86-64 and aarch64 Linux with 4 KiB pages
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|stat| {
            // Fields after the command, which is in parentheses and may hold spaces.
            let rest = &stat[stat.rfind(')')? + 2..];
            let f: Vec<&str> = rest.split_whitespace().collect();
            // state ppid pgrp … rss is field 24 overall, 22 after the command.
            (f.get(2)?.parse::<u32>().ok()? == pgid).then(|| f.get(21)?.parse::<i64>().ok())?
        })
        .sum::<i64>()
        * page_kb
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_holds_at_least_its_leaders_resident_set() {
        let me = std::process::id();
        let pgid = nix::unistd::getpgid(None).unwrap().as_raw() as u32;
        let group = group_rss_kb(pgid);
        assert!(
            group >= rss_kb() / 2,
            "group {group} kB, this process {} kB",
            rss_kb()
        );
        // No process is in group 0's … a group nobody leads holds nothing.
        assert_eq!(group_rss_kb(u32::MAX - me), 0);
    }

    #[test]
    fn reads_kb_fields() {
        let text = "Name:\tx\nVmRSS:\t  2048 kB\nVmHWM:\t4096 kB\n";
        assert_eq!(field_kb(text, "VmRSS"), Some(2048));
        assert_eq!(field_kb(text, "VmSwap"), None);
        assert!(rss_kb() > 0);
        assert!(system_used_kb() > 0);
    }
}
