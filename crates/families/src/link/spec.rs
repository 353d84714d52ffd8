//! What a link is asked to be (`--link loopback|lan|wan|delay=…,rate=…,jitter=…`):
//! pure parsing, so every form and every mistake is tested without a namespace.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// The accepted forms, named by every parse error.
const FORMS: &str = "give loopback, lan, wan or delay=30ms,rate=1.5mbit,jitter=5ms (each key optional, delay one way)";

/// A link between the harness and the far end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkSpec {
    /// This machine's loopback: nothing built.
    Loopback,
    /// Two network namespaces joined by veth: `delay` one way (± `jitter`)
    /// from toll's delay relay, `rate` (bits per second) from tbf on both ends.
    Emulated {
        delay: Duration,
        rate_bits: Option<u64>,
        jitter: Duration,
    },
}

impl LinkSpec {
    /// E3's cluster: 100 Mbit/s, 0.1 ms one way.
    pub fn lan() -> LinkSpec {
        LinkSpec::Emulated {
            delay: Duration::from_micros(100),
            rate_bits: Some(100_000_000),
            jitter: Duration::ZERO,
        }
    }

    /// E3's Internet: 1.5 Mbit/s, 30 ms one way, ± 5 ms.
    pub fn wan() -> LinkSpec {
        LinkSpec::Emulated {
            delay: Duration::from_millis(30),
            rate_bits: Some(1_500_000),
            jitter: Duration::from_millis(5),
        }
    }

    /// The one-way delay (zero for loopback).
    pub fn delay(&self) -> Duration {
        match self {
            LinkSpec::Loopback => Duration::ZERO,
            LinkSpec::Emulated { delay, .. } => *delay,
        }
    }
}

impl FromStr for LinkSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<LinkSpec, String> {
        let t = text.trim().to_ascii_lowercase();
        match t.as_str() {
            "loopback" | "lo" => return Ok(LinkSpec::Loopback),
            "lan" => return Ok(LinkSpec::lan()),
            "wan" => return Ok(LinkSpec::wan()),
            "" => return Err(format!("--link is empty: {FORMS}")),
            _ => {}
        }
        let (mut delay, mut rate_bits, mut jitter) = (Duration::ZERO, None, Duration::ZERO);
        for part in t.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = part.split_once('=') else {
                return Err(format!(
                    "--link `{text}`: `{part}` is not key=value: {FORMS}"
                ));
            };
            let (key, value) = (key.trim(), value.trim());
            let bad = |what: &str| format!("--link `{text}`: {key}={value} is not {what}: {FORMS}");
            match key {
                "delay" => delay = duration(value).ok_or_else(|| bad("a time such as 30ms"))?,
                "jitter" => jitter = duration(value).ok_or_else(|| bad("a time such as 5ms"))?,
                "rate" => {
                    rate_bits = Some(rate(value).ok_or_else(|| bad("a rate such as 1.5mbit"))?)
                }
                _ => return Err(format!("--link `{text}`: unknown key `{key}`: {FORMS}")),
            }
        }
        if jitter > delay {
            return Err(format!(
                "--link `{text}`: jitter {jitter:?} is more than the delay {delay:?}: a chunk cannot leave before it came; {FORMS}"
            ));
        }
        Ok(LinkSpec::Emulated {
            delay,
            rate_bits,
            jitter,
        })
    }
}

/// `30ms`, `100us`, `1.5s`, `0`: at most 10 s.
fn duration(text: &str) -> Option<Duration> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (num, unit) = text.split_at(split);
    let v: f64 = num
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0)?;
    let scale = match unit.trim() {
        "s" => 1.0,
        "ms" => 1e-3,
        "us" | "µs" => 1e-6,
        "ns" => 1e-9,
        "" if v == 0.0 => 1.0,
        _ => return None,
    };
    let s = v * scale;
    (s <= 10.0).then(|| Duration::from_secs_f64(s))
}

/// `1.5mbit`, `100mbit`, `64kbit`, `1gbit`, `9600bit`: bits per second, at least 8 kbit/s
/// (tbf cannot pace slower usefully) and at most 100 gbit/s.
fn rate(text: &str) -> Option<u64> {
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (num, unit) = text.split_at(split);
    let v: f64 = num
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v > 0.0)?;
    let scale = match unit.trim().trim_end_matches("/s").trim_end_matches("ps") {
        "bit" | "b" => 1.0,
        "kbit" | "k" => 1e3,
        "mbit" | "m" => 1e6,
        "gbit" | "g" => 1e9,
        _ => return None,
    };
    let bits = (v * scale).round();
    (8_000.0..=100e9).contains(&bits).then_some(bits as u64)
}

impl fmt::Display for LinkSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkSpec::Loopback => write!(f, "loopback"),
            s if *s == LinkSpec::lan() => write!(f, "lan"),
            s if *s == LinkSpec::wan() => write!(f, "wan"),
            LinkSpec::Emulated {
                delay,
                rate_bits,
                jitter,
            } => {
                write!(f, "delay={}us", delay.as_micros())?;
                if let Some(r) = rate_bits {
                    write!(f, ",rate={r}bit")?;
                }
                if !jitter.is_zero() {
                    write!(f, ",jitter={}us", jitter.as_micros())?;
                }
                Ok(())
            }
        }
    }
}

impl serde::Serialize for LinkSpec {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_links_are_e3s() {
        assert_eq!("loopback".parse::<LinkSpec>().unwrap(), LinkSpec::Loopback);
        assert_eq!(" LAN ".parse::<LinkSpec>().unwrap(), LinkSpec::lan());
        let wan: LinkSpec = "wan".parse().unwrap();
        assert_eq!(wan.delay(), Duration::from_millis(30));
        assert_eq!(wan.to_string(), "wan");
    }

    #[test]
    fn keys_parse_with_units() {
        let s: LinkSpec = "delay=30ms,rate=1.5mbit,jitter=5ms".parse().unwrap();
        assert_eq!(s, LinkSpec::wan());
        let s: LinkSpec = "rate=64kbit".parse().unwrap();
        assert_eq!(
            s,
            LinkSpec::Emulated {
                delay: Duration::ZERO,
                rate_bits: Some(64_000),
                jitter: Duration::ZERO
            }
        );
        let s: LinkSpec = "delay=250us".parse().unwrap();
        assert_eq!(s.to_string(), "delay=250us");
        assert_eq!(s.to_string().parse::<LinkSpec>().unwrap(), s);
        let back: LinkSpec = "delay=2ms,rate=8mbit,jitter=1ms".parse().unwrap();
        assert_eq!(back.to_string().parse::<LinkSpec>().unwrap(), back);
    }

    #[test]
    fn mistakes_are_one_line_naming_the_forms() {
        for bad in [
            "",
            "moon",
            "delay=30",
            "delay=-1ms",
            "rate=fast",
            "rate=1bit",
            "color=red",
            "delay=1ms,jitter=2ms",
            "delay=1h",
        ] {
            let e = bad.parse::<LinkSpec>().unwrap_err();
            assert!(
                e.contains("give loopback, lan, wan or delay="),
                "{bad}: {e}"
            );
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
