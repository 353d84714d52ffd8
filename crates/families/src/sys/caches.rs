//! The memory staircase: the cache sizes the kernel reports for CPU 0, and
//! the levels a pointer chase finds by itself — where the time per load
//! steps up as the working set outgrows a level.

use serde::{Deserialize, Serialize};

/// One data cache the kernel reports (`/sys/devices/system/cpu/cpu0/cache`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cache {
    pub level: u32,
    /// Data or Unified.
    pub kind: String,
    pub bytes: u64,
}

/// The data and unified caches of CPU 0, smallest level first (none where
/// the kernel does not say).
pub fn reported() -> Vec<Cache> {
    let mut out = Vec::new();
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        let read = |f: &str| std::fs::read_to_string(p.join(f)).map(|s| s.trim().to_string());
        let (Ok(level), Ok(kind), Ok(size)) = (read("level"), read("type"), read("size")) else {
            continue;
        };
        if kind == "Instruction" {
            continue;
        }
        let (Ok(level), Some(bytes)) = (level.parse(), size_bytes(&size)) else {
            continue;
        };
        out.push(Cache { level, kind, bytes });
    }
    out.sort_by_key(|c| c.level);
    out
}

/// "48K", "2048K", "260M" as bytes.
fn size_bytes(text: &str) -> Option<u64> {
    let (digits, mult) = match text.chars().last()? {
        'K' => (&text[..text.len() - 1], 1u64 << 10),
        'M' => (&text[..text.len() - 1], 1 << 20),
        'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<u64>().ok().map(|d| d * mult)
}

/// A step of the staircase: working sets up to `fits` bytes load in about
/// `ns` each; from `next` bytes (the next size measured) they are slower.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Level {
    /// The largest working set measured on this step.
    pub fits: u64,
    /// The first working set measured above it (none for the top step):
    /// the level's capacity lies between `fits` and `next`.
    #[serde(default)]
    pub next: Option<u64>,
    /// The median time per load over the step's sizes, ns.
    pub ns: f64,
}

/// A step up: a level at least this many times the one below it.
pub const STEP: f64 = 1.5;

/// The steps of `(bytes, ns per load of each round)`: the staircase model
/// ([`toll_measure::fit::steps`]) — the least squares partition into flat
/// levels with the most levels whose every step is at least [`STEP`] and
/// clear of the rounds' scatter. A slow creep within a level, as the TLB
/// gives, is not a step; a climb spread over several sizes is one.
pub fn levels(points: &[(u64, Vec<f64>)]) -> Vec<Level> {
    let input: Vec<(f64, Vec<f64>)> = points
        .iter()
        .map(|(b, xs)| (*b as f64, xs.clone()))
        .collect();
    toll_measure::fit::steps(&input, STEP)
        .into_iter()
        .map(|s| Level {
            fits: s.fits as u64,
            next: s.next.map(|n| n as u64),
            ns: s.level,
        })
        .collect()
}

/// The working sets a chase measures: powers of two from 4 KiB to `top`.
pub fn sizes(top: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut s = 4096u64;
    while s <= top {
        out.push(s);
        s *= 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_sizes_read_as_bytes() {
        assert_eq!(size_bytes("48K"), Some(48 << 10));
        assert_eq!(size_bytes("266240K"), Some(266_240 << 10));
        assert_eq!(size_bytes("2M"), Some(2 << 20));
        assert_eq!(size_bytes("x"), None);
    }

    #[test]
    fn a_staircase_gives_its_steps() {
        let k = |b: u64| b << 10;
        let pts = [
            (k(4), 1.2),
            (k(8), 1.2),
            (k(16), 1.3),
            (k(32), 1.3),
            (k(64), 3.9),
            (k(128), 4.1),
            (k(512), 4.3),
            (k(2048), 5.0),
            (k(4096), 20.0),
            (k(8192), 38.0),
            (k(16384), 40.0),
        ];
        let pts: Vec<(u64, Vec<f64>)> = pts
            .iter()
            .map(|&(b, ns)| (b, vec![ns * 0.99, ns, ns * 1.01]))
            .collect();
        let l = levels(&pts);
        let fits: Vec<u64> = l.iter().map(|l| l.fits).collect();
        assert_eq!(fits, [k(32), k(2048), k(16384)], "{l:?}");
        assert!((l[0].ns - 1.25).abs() < 1e-9);
        assert_eq!(l[0].next, Some(k(64)));
    }
}
