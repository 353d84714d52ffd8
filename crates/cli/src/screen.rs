//! What toll prints for a person: every line fitted to 100 columns
//! (`--wide`: as long as it is; `toll_report::table::wrap`) and, on a
//! terminal, verdicts and changes in colour — ok and faster green; curve,
//! noisy, busy and flat yellow; failed and slower red. The codes go through
//! anstream (as clap's own output does), which drops them when the stream is
//! not a terminal or `NO_COLOR` is set, so a pipe or a file gets plain text.

use anstyle::{AnsiColor, Style};
use std::io::Write;

/// `println!` for people: through [`stdout`], fitted and painted; a closed
/// pipe is no panic.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!($crate::screen::stdout(), $($arg)*);
    }};
}

/// `eprintln!` for people: fitted and painted on stderr.
#[macro_export]
macro_rules! tell {
    ($($arg:tt)*) => {
        $crate::screen::eprint_line(&format!($($arg)*))
    };
}

/// A line-fitting, colouring writer over stdout: `write!` to it as to stdout.
pub struct Screen<W: anstream::stream::RawStream + anstream::stream::AsLockedWrite> {
    inner: anstream::AutoStream<W>,
    pending: Vec<u8>,
    /// Fitted and painted (text for people), or passed through (JSON).
    people: bool,
}

/// Stdout for people (tables, reports).
pub fn stdout() -> Screen<std::io::StdoutLock<'static>> {
    output(false)
}

/// Stdout for people, or for a program when `json` (as it is written).
pub fn output(json: bool) -> Screen<std::io::StdoutLock<'static>> {
    let lock = std::io::stdout().lock();
    Screen {
        inner: if json {
            anstream::AutoStream::always_ansi(lock)
        } else {
            anstream::AutoStream::auto(lock)
        },
        pending: vec![],
        people: !json,
    }
}

/// One message on stderr, fitted and (on a terminal) coloured.
pub fn eprint_line(text: &str) {
    let mut err = anstream::AutoStream::auto(std::io::stderr().lock());
    let _ = writeln!(err, "{}", paint(&toll_report::table::wrap(text)));
}

impl<W: anstream::stream::RawStream + anstream::stream::AsLockedWrite> Screen<W> {
    /// Fit and paint the lines that are complete.
    fn emit(&mut self, all: bool) -> std::io::Result<()> {
        let end = if all {
            self.pending.len()
        } else {
            match self.pending.iter().rposition(|&b| b == b'\n') {
                Some(i) => i + 1,
                None => return Ok(()),
            }
        };
        if end == 0 {
            return Ok(());
        }
        let chunk: Vec<u8> = self.pending.drain(..end).collect();
        let text = String::from_utf8_lossy(&chunk);
        self.inner
            .write_all(paint(&toll_report::table::wrap(&text)).as_bytes())
    }
}

impl<W: anstream::stream::RawStream + anstream::stream::AsLockedWrite> Write for Screen<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if !self.people {
            return self.inner.write(buf);
        }
        self.pending.extend_from_slice(buf);
        self.emit(false)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.emit(true)?;
        self.inner.flush()
    }
}

impl<W: anstream::stream::RawStream + anstream::stream::AsLockedWrite> Drop for Screen<W> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// The words painted, each with its colour: a verdict or a change.
const WORDS: [(&str, AnsiColor); 11] = [
    ("ok", AnsiColor::Green),
    ("faster", AnsiColor::Green),
    ("holds", AnsiColor::Green),
    ("curve", AnsiColor::Yellow),
    ("noisy", AnsiColor::Yellow),
    ("busy", AnsiColor::Yellow),
    ("flat", AnsiColor::Yellow),
    ("unclear", AnsiColor::Yellow),
    ("failed", AnsiColor::Red),
    ("slower", AnsiColor::Red),
    ("no longer holds", AnsiColor::Red),
];

/// `text` with the verdict and change words of its table cells coloured: a
/// word counts where it starts a cell (the line's start, two blanks or
/// `; ` before it) and ends one (the line's end, two blanks, `,` or `;`
/// after it), so prose that happens to say "ok" stays plain.
pub fn paint(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    'scan: while i < text.len() {
        let before = &text[..i];
        let starts = before.is_empty()
            || before.ends_with('\n')
            || before.ends_with("  ")
            || before.ends_with("; ");
        if starts {
            for (word, colour) in WORDS {
                let rest = &text[i..];
                let Some(after) = rest.strip_prefix(word) else {
                    continue;
                };
                let ends = after.is_empty()
                    || after.starts_with('\n')
                    || after.starts_with("  ")
                    || after.starts_with(',')
                    || after.starts_with(';');
                if ends {
                    let style = Style::new().fg_color(Some(colour.into()));
                    out.push_str(&format!("{style}{word}{style:#}"));
                    i += word.len();
                    continue 'scan;
                }
            }
        }
        let c = text[i..].chars().next().expect("within the text");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_cells_are_painted_and_prose_is_not() {
        let row = "rust  pipe  8.49  curve, break ≈ 30000\nrust  unix  14.0  busy; ok\n";
        let painted = paint(row);
        assert!(
            painted.contains("\u{1b}[33mcurve\u{1b}[0m, break"),
            "{painted:?}"
        );
        assert!(painted.contains("\u{1b}[33mbusy\u{1b}[0m; \u{1b}[32mok\u{1b}[0m"));
        assert_eq!(
            paint("it is ok to look; broken"),
            "it is ok to look; broken"
        );
        assert_eq!(anstream::adapter::strip_str(&painted).to_string(), row);
    }

    #[test]
    fn a_screen_fits_its_lines() {
        let sink: Vec<u8> = vec![];
        let mut s = Screen {
            inner: anstream::AutoStream::never(sink),
            pending: vec![],
            people: true,
        };
        write!(s, "{}\nshort", "word ".repeat(40)).unwrap();
        s.flush().unwrap();
        let text = String::from_utf8(s.inner.as_inner().clone()).unwrap();
        assert!(text.lines().count() >= 3, "{text}");
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
        assert!(text.ends_with("short"), "{text}");
    }
}
