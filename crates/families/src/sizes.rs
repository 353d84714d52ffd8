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
    if v > MAX_ITEMS {
        return Err(SizeError::TooLarge(v));
    }
    Ok(v)
}

/// Parse a size list; the result is sorted and free of duplicates.
pub fn parse_sizes(spec: &str) -> Result<Vec<u64>, SizeError> {
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
    }
    out.sort_unstable();
    out.dedup();
    match out.len() {
        0 => Err(SizeError::Empty),
        n if n > MAX_SIZES => Err(SizeError::TooMany),
        _ => Ok(out),
    }
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
}
