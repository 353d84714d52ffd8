//! clap's value parsers over [`crate::values`]: `#[arg(value_parser =
//! whole_in::<u32>(1, 1024))]` checks a flag while clap parses it, learning
//! the flag's name from clap, so each range is written once, beside the
//! flag's help, and a command's `config()` only assembles typed values.

use crate::usage::{usage, Usage};
use crate::values::{list_of, real, short_time, time, whole};
use clap::builder::TypedValueParser;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// A clap value parser made from a check of (flag, text): its error is a
/// [`Usage`] that `usage::clap_error` prints as toll's own one line.
#[derive(Clone)]
pub struct Checked<T>(Arc<Check<T>>);

/// A check of one flag's text: (flag, text) to the value or a usage error.
type Check<T> = dyn Fn(&str, &str) -> anyhow::Result<T> + Send + Sync;

/// A value parser from a check that is given the flag's name and the text.
pub fn checked<T>(
    check: impl Fn(&str, &str) -> anyhow::Result<T> + Send + Sync + 'static,
) -> Checked<T> {
    Checked(Arc::new(check))
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for Checked<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<T, clap::Error> {
        let flag = arg.map(flag_name).unwrap_or_default();
        let check = self.0.clone();
        // clap's own parser for a closure keeps the Usage as the error's
        // source (and handles text that is not UTF-8).
        (move |text: &str| check(&flag, text).map_err(|e| Usage(format!("{e:#}"))))
            .parse_ref(cmd, arg, value)
    }
}

/// `--in-flight`, or `-c` for a flag with only a short name, as a user
/// types it.
fn flag_name(arg: &clap::Arg) -> String {
    match (arg.get_long(), arg.get_short()) {
        (Some(long), _) => format!("--{long}"),
        (None, Some(short)) => format!("-{short}"),
        (None, None) => arg.get_id().to_string(),
    }
}

/// A whole number from `min` to `max` (see [`whole`]), as the field's type.
pub fn whole_in<T>(min: u64, max: u64) -> Checked<T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    checked(move |flag, text| {
        let v = whole(flag, text, min, max)?;
        // A range wider than the field's type is a mistake in the flag's
        // definition; say so as the range it is.
        T::try_from(v).map_err(|_| usage(format!("{flag} must be from {min} to {max}, not {v}")))
    })
}

/// A time from `min` to `max` (see [`time`]).
pub fn time_in(min: Duration, max: Duration) -> Checked<Duration> {
    checked(move |flag, text| time(flag, text, min, max))
}

/// A time within (0, `max`] (see [`short_time`]); `longer` says why.
pub fn short_time_up_to(max: Duration, longer: &'static str) -> Checked<Duration> {
    checked(move |flag, text| short_time(flag, text, max, longer))
}

/// A real number from `min` to `max` of `what` (see [`real`]).
pub fn real_in(min: f64, max: f64, what: &'static str) -> Checked<f64> {
    checked(move |flag, text| real(flag, text, min, max, what))
}

/// One value of a type that parses itself, its own message the error.
pub fn parsed<T>() -> Checked<T>
where
    T: FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    checked(|_, text| text.parse::<T>().map_err(usage))
}

/// A CI target, `--ci 2%` (or `2`), as a share, 0.02: more than 0 and less
/// than 50%.
pub fn ci_share() -> Checked<f64> {
    checked(|flag, text| {
        text.trim()
            .trim_end_matches('%')
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v > 0.0 && *v < 50.0)
            .map(|v| v / 100.0)
            .ok_or_else(|| {
                usage(format!(
                    "{flag} `{text}` is out of range: give the CI half-width wanted as a percentage above 0 and below 50, e.g. {flag} 2%"
                ))
            })
    })
}

/// A comma-separated list of a type that parses itself (see [`list_of`]).
pub fn comma_list<T>() -> Checked<List<T>>
where
    T: FromStr<Err = String> + Clone + Send + Sync + 'static,
{
    checked(|flag, text| list_of(text, flag))
}

/// A list of sizes, values and/or ranges (`0,1k,10k:100k:10k`); a mistake
/// names the flag.
pub fn sizes(flag: &str, text: &str) -> anyhow::Result<Sizes> {
    toll_families::sizes::parse_sizes(text).map_err(|e| usage(format!("{flag}: {e}")))
}

/// A list as a field's type: clap's derive reads a field spelled `Vec` as a
/// flag given many times, so a flag whose one value is a list is typed
/// through this name.
pub type List<T> = Vec<T>;

/// Sizes or counts, one flag's list.
pub type Sizes = List<u64>;

/// `--plot FILE.svg`: toll draws SVG, so a name that promises another
/// format (`x.png`) is refused rather than written as SVG under it.
pub fn svg_file() -> Checked<std::path::PathBuf> {
    checked(|flag, text| {
        let path = std::path::PathBuf::from(text);
        if path.is_dir() {
            return Err(crate::usage::usage(format!(
                "{flag} {text} is a directory: name an .svg file in it, e.g. {}",
                path.join("plot.svg").display()
            )));
        }
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("svg") => Ok(path),
            Some(e) => Err(crate::usage::usage(format!(
                "{flag} {text}: toll draws SVG, not {e}: name the file .svg (convert it after, e.g. with rsvg-convert)"
            ))),
            None => Err(crate::usage::usage(format!(
                "{flag} {text}: toll draws SVG: name the file .svg"
            ))),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(r: anyhow::Result<impl std::fmt::Debug>) -> String {
        r.unwrap_err().to_string()
    }

    /// `value` through `parser` as clap runs it for `--flag` (long) or
    /// `-f` (short only): the value, or the message toll would print.
    fn through<T: Clone + Send + Sync + 'static>(
        parser: Checked<T>,
        long: bool,
        value: &str,
    ) -> Result<T, String> {
        let arg = clap::Arg::new("x")
            .value_parser(parser)
            .allow_hyphen_values(true);
        let (arg, flag) = if long {
            (arg.long("flag"), "--flag")
        } else {
            (arg.short('f'), "-f")
        };
        let cmd = clap::Command::new("toll").arg(arg);
        match cmd.try_get_matches_from(["toll", flag, value]) {
            Ok(m) => Ok(m.get_one::<T>("x").expect("given").clone()),
            Err(e) => Err(std::error::Error::source(&e)
                .and_then(|s| s.downcast_ref::<Usage>())
                .map(|u| u.0.clone())
                .unwrap_or_else(|| panic!("not toll's own error: {e}"))),
        }
    }

    #[test]
    fn whole_in_takes_its_bounds_and_names_its_range() {
        let p = || whole_in::<u32>(1, 1024);
        assert_eq!(through(p(), true, "1"), Ok(1));
        assert_eq!(through(p(), true, "1024"), Ok(1024));
        assert_eq!(
            through(p(), true, "0"),
            Err("--flag must be from 1 to 1024, not 0".into())
        );
        assert_eq!(
            through(p(), true, "1025"),
            Err("--flag must be from 1 to 1024, not 1025".into())
        );
        for bad in ["lots", "-3", "1.5", ""] {
            let e = through(p(), true, bad).unwrap_err();
            assert!(e.contains("give 1 to 1024"), "{bad}: {e}");
        }
        // A flag with only a short name is named by it.
        assert_eq!(
            through(whole_in::<u16>(1, 65_535), false, "65536"),
            Err("-f must be from 1 to 65535, not 65536".into())
        );
    }

    #[test]
    fn time_in_takes_its_bounds_and_names_its_range() {
        let (ms, h) = (Duration::from_millis(1), Duration::from_secs(3600));
        let p = || time_in(ms, h);
        assert_eq!(through(p(), true, "1ms"), Ok(ms));
        assert_eq!(through(p(), true, "1h"), Ok(h));
        assert_eq!(
            through(p(), true, "999us"),
            Err("--flag 999us is out of range: give 1ms to 1h".into())
        );
        assert_eq!(
            through(p(), true, "3601"),
            Err("--flag 3601 is out of range: give 1ms to 1h".into())
        );
        let e = through(p(), true, "soon").unwrap_err();
        assert_eq!(
            e,
            "--flag `soon` is not a positive time such as 10s, 500ms or 2m: give 1ms to 1h"
        );
    }

    #[test]
    fn short_times_keep_below_their_bound() {
        let p = || short_time_up_to(Duration::from_millis(10), "why");
        assert_eq!(through(p(), true, "10ms"), Ok(Duration::from_millis(10)));
        assert_eq!(through(p(), true, "1us"), Ok(Duration::from_micros(1)));
        assert_eq!(
            through(p(), true, "10001us"),
            Err("--flag 10001us is longer than 10ms: why".into())
        );
        assert!(through(p(), true, "x")
            .unwrap_err()
            .contains("give at most 10ms"));
    }

    #[test]
    fn real_in_takes_its_bounds_and_names_its_range() {
        let p = || real_in(0.01, 1e7, "requests per second");
        assert_eq!(through(p(), true, "0.01"), Ok(0.01));
        assert_eq!(through(p(), true, "1e7"), Ok(1e7));
        for past in ["0.0099", "10000001"] {
            assert_eq!(
                through(p(), true, past),
                Err(format!(
                    "--flag {past} is out of range: give 0.01 to 10000000 requests per second"
                ))
            );
        }
        assert_eq!(
            through(p(), true, "fast"),
            Err("--flag `fast` is not a positive number of requests per second: give 0.01 to 10000000".into())
        );
    }

    #[test]
    fn ci_shares_are_above_0_and_below_half() {
        assert_eq!(through(ci_share(), true, "2%"), Ok(0.02));
        assert_eq!(through(ci_share(), true, "49.9"), Ok(0.499));
        for bad in ["0", "50%", "-1", "lots"] {
            let e = through(ci_share(), true, bad).unwrap_err();
            assert!(
                e.starts_with(&format!("--flag `{bad}` is out of range"))
                    && e.contains("above 0 and below 50"),
                "{e}"
            );
        }
    }

    #[test]
    fn comma_lists_parse_each_item_and_name_the_flag() {
        let p = || comma_list::<toll_peers::Transport>();
        assert_eq!(through(p(), true, "pipe, tcp").unwrap().len(), 2);
        assert_eq!(
            through(p(), true, " , "),
            Err("--flag is empty: give a comma-separated list".into())
        );
        let e = through(p(), true, "pipe,smoke").unwrap_err();
        assert!(e.starts_with("unknown transport `smoke`"), "{e}");
        assert!(e.ends_with("(in --flag)"), "{e}");
    }

    #[test]
    fn size_lists_name_the_flag() {
        assert_eq!(sizes("--sizes", "0,1k").unwrap(), vec![0, 1000]);
        assert!(err(sizes("--sizes", "10,abc")).starts_with("--sizes: "));
    }
}
