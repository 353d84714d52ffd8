//! Size lists for `--sizes`: numbers with optional suffixes and ranges.
//!
//! `k`, `M`, `G` are powers of 1000 and `Ki`, `Mi`, `Gi` powers of 1024, so
//! `1k,64Ki,1Mi` is 1000, 65536 and 1048576; `start:end:step` is inclusive.

/// Largest message toll sends: 64 Mi items (256 MiB).
pub const MAX_ITEMS: u64 = 64 << 20;
/// Most sizes one sweep may have.
pub const MAX_SIZES: usize = 1000;

/// Why a size list was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error("empty size list: give sizes like 0:100000:10000 or 1k,64Ki,1Mi")]
    Empty,
    #[error("negative size `{0}` in --sizes: sizes count items and start at 0")]
    Negative(String),
    #[error("bad size `{0}` in --sizes: use numbers with an optional k, M, G, Ki, Mi or Gi suffix, or ranges start:end:step")]
    Bad(String),
    #[error("bad range `{0}` in --sizes: write start:end:step with start ≤ end and step > 0")]
    BadRange(String),
    #[error("size {0} is too large: the largest message is {MAX_ITEMS} items (256 MiB)")]
    TooLarge(u64),
    #[error("--sizes gives more than {MAX_SIZES} sizes: use a larger step")]
    TooMany,
}

fn number(s: &str) -> Result<u64, SizeError> {
    number_upto(s, MAX_ITEMS)
}

/// A number with its suffix, at most `max`.
fn number_upto(s: &str, max: u64) -> Result<u64, SizeError> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(SizeError::Negative(t.into()));
    }
    let (digits, mult) = [
        ("Ki", 1u64 << 10),
        ("Mi", 1 << 20),
        ("Gi", 1 << 30),
        ("k", 1_000),
        ("K", 1_000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
    ]
    .iter()
    .find_map(|(suffix, m)| t.strip_suffix(suffix).map(|d| (d, *m)))
    .unwrap_or((t, 1));
    let v: u64 = digits.parse().map_err(|_| SizeError::Bad(t.into()))?;
    let v = v.checked_mul(mult).ok_or(SizeError::TooLarge(u64::MAX))?;
    if v > max {
        return Err(SizeError::TooLarge(v));
    }
    Ok(v)
}

/// Parse a size list; the result is sorted and free of duplicates.
pub fn parse_sizes(spec: &str) -> Result<Vec<u64>, SizeError> {
    parse_list(spec, &|s| number(s))
}

/// Parse a list of byte counts for `flag` (`toll ffi --sizes`), in the same
/// syntax, with no cap of its own: the caller checks what its peers take.
pub fn parse_bytes(spec: &str, flag: &str) -> Result<Vec<u64>, String> {
    parse_list(spec, &|s| number_upto(s, u64::MAX)).map_err(|e| match e {
        SizeError::TooLarge(_) => format!("a size in {flag} is beyond 2^64 - 1 bytes"),
        other => other.to_string().replace("--sizes", flag),
    })
}

fn parse_list(
    spec: &str,
    number: &dyn Fn(&str) -> Result<u64, SizeError>,
) -> Result<Vec<u64>, SizeError> {
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim) {
        if part.is_empty() {
            continue;
        }
        let fields: Vec<&str> = part.split(':').collect();
        match fields.as_slice() {
            [one] => out.push(number(one)?),
            [a, b, step] => {
                let (a, b, step) = (number(a)?, number(b)?, number(step)?);
                if a > b || step == 0 {
                    return Err(SizeError::BadRange(part.into()));
                }
                if (b - a) / step >= MAX_SIZES as u64 {
                    return Err(SizeError::TooMany);
                }
                out.extend((a..=b).step_by(step as usize));
            }
            _ => return Err(SizeError::BadRange(part.into())),
        }
        // Refuse as soon as there are too many, so that many ranges (each
        // within the limit) cannot make a list a thousand times the spec.
        if out.len() > MAX_SIZES {
            out.sort_unstable();
            out.dedup();
            if out.len() > MAX_SIZES {
                return Err(SizeError::TooMany);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    match out.len() {
        0 => Err(SizeError::Empty),
        n if n > MAX_SIZES => Err(SizeError::TooMany),
        _ => Ok(out),
    }
}

/// Parse a list of counts for `flag` (`--n`, `--m`), in the same syntax as
/// sizes; every count must be at least `min`.
pub fn parse_counts(spec: &str, flag: &str, min: u64) -> Result<Vec<u64>, String> {
    let counts = parse_sizes(spec).map_err(|e| match e {
        SizeError::Empty => format!("{flag} is empty: give counts like 1000,10000 or 1k:10k:1k"),
        SizeError::Negative(v) => format!("negative count `{v}` in {flag}: give counts of at least {min}"),
        SizeError::Bad(v) => format!("bad count `{v}` in {flag}: use numbers with an optional k, M, Ki or Mi suffix, or ranges start:end:step"),
        SizeError::BadRange(v) => format!("bad range `{v}` in {flag}: write start:end:step with start ≤ end and step > 0"),
        SizeError::TooLarge(v) => format!("{flag} {v} is too large: counts go up to {MAX_ITEMS}"),
        SizeError::TooMany => format!("{flag} gives more than {MAX_SIZES} counts: use a larger step"),
    })?;
    if counts[0] < min {
        return Err(format!(
            "{flag} contains {}: give counts of at least {min}",
            counts[0]
        ));
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_suffixes() {
        assert_eq!(parse_sizes("0:100000:10000").unwrap().len(), 11);
        assert_eq!(
            parse_sizes("1k,64Ki,1Mi").unwrap(),
            vec![1000, 65536, 1 << 20]
        );
        assert_eq!(parse_sizes("5, 1, 5,3").unwrap(), vec![1, 3, 5]);
        assert_eq!(parse_sizes("0:10:4,2M").unwrap(), vec![0, 4, 8, 2_000_000]);
    }

    #[test]
    fn counts_name_their_flag() {
        assert_eq!(parse_counts("1k,10k", "--n", 1).unwrap(), vec![1000, 10000]);
        assert_eq!(
            parse_counts("0,10", "--n", 1).unwrap_err(),
            "--n contains 0: give counts of at least 1"
        );
        assert!(parse_counts("-3", "--m", 1)
            .unwrap_err()
            .starts_with("negative count `-3` in --m"));
        assert!(parse_counts("", "--n", 2)
            .unwrap_err()
            .starts_with("--n is empty"));
    }

    #[test]
    fn refusals() {
        assert_eq!(parse_sizes(""), Err(SizeError::Empty));
        assert_eq!(parse_sizes(" , "), Err(SizeError::Empty));
        assert_eq!(parse_sizes("-5"), Err(SizeError::Negative("-5".into())));
        assert_eq!(parse_sizes("1,x"), Err(SizeError::Bad("x".into())));
        assert_eq!(
            parse_sizes("10:1:1"),
            Err(SizeError::BadRange("10:1:1".into()))
        );
        assert_eq!(
            parse_sizes("0:10:0"),
            Err(SizeError::BadRange("0:10:0".into()))
        );
        assert_eq!(parse_sizes("1:2"), Err(SizeError::BadRange("1:2".into())));
        assert!(matches!(parse_sizes("1G"), Err(SizeError::TooLarge(_))));
        assert_eq!(parse_sizes("0:1000000:1"), Err(SizeError::TooMany));
    }

    /// Found by fuzz/fuzz_targets/sizes.rs (its allocation bound), as
    /// `1:1K:01,,0,1:1K:01,,60`: each range was checked alone, so 16000
    /// ranges of 1000 sizes (a 128 KiB argument) were all listed (128 MB)
    /// before the list was refused.
    #[test]
    fn too_many_is_refused_before_the_list_grows() {
        let spec = "0:999:1,".repeat(20) + &"1000:1999:1,".repeat(20);
        assert_eq!(parse_sizes(&spec), Err(SizeError::TooMany));
        assert_eq!(parse_sizes(&"0:999:1,".repeat(20)).unwrap().len(), 1000);
    }
}
