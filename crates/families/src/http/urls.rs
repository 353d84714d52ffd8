//! `toll http --urls FILE`: several requests to one server in one run. The
//! file has one request a line, `[METHOD] URL [@BODYFILE]` (`#` comments
//! and blank lines skipped); every URL names the same scheme, host and
//! port, since the run's connections serve them all. Each request is
//! picked round robin, or in a seeded random order (`Pick`), per loop
//! (`Picker`), so the same seed gives the same order on the same threads.

use super::request::RequestSpec;
use super::target::Target;
use std::path::Path;

/// One line of the file: what to send.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlLine {
    /// Its line number in the file (from 1).
    pub line: usize,
    pub method: Option<String>,
    pub url: String,
    /// `@BODYFILE`'s contents.
    pub body: Option<Vec<u8>>,
}

/// How the next request is picked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Each loop in file order, starting where its first connection's
    /// number puts it, so the loops together send the lines evenly.
    RoundRobin,
    /// A random line each time, from this seed (and the loop's number).
    Random(u64),
}

/// The requests of a run from a URL file.
#[derive(Debug, Clone)]
pub struct UrlSet {
    /// One per line: the target (the path and query of its URL) and the
    /// request, with the run's headers and keep-alive.
    pub entries: Vec<(UrlLine, Target, RequestSpec)>,
    pub pick: Pick,
}

impl UrlSet {
    /// The set from parsed `lines`, each request built on `spec` (the
    /// run's -H, -T and -k; a line's method and body its own), every URL
    /// checked to name the first line's server.
    pub fn new(lines: Vec<UrlLine>, spec: &RequestSpec, pick: Pick) -> Result<UrlSet, String> {
        let mut entries: Vec<(UrlLine, Target, RequestSpec)> = Vec::new();
        for l in lines {
            let t = Target::parse(&l.url).map_err(|e| format!("line {}: {e}", l.line))?;
            if let Some((first, ft, _)) = entries.first() {
                if (ft.tls, &ft.host, ft.port) != (t.tls, &t.host, t.port) {
                    return Err(format!(
                        "line {}: {} is on another server than line {}'s {}: a URL file loads one server, so give URLs of one scheme, host and port",
                        l.line, l.url, first.line, first.url
                    ));
                }
            }
            let s = RequestSpec {
                method: l.method.clone().or_else(|| spec.method.clone()),
                body: l.body.clone().or_else(|| spec.body.clone()),
                ..spec.clone()
            };
            entries.push((l, t, s));
        }
        if entries.is_empty() {
            return Err("it has no request: give one a line, `[METHOD] URL [@BODYFILE]`".into());
        }
        Ok(UrlSet { entries, pick })
    }
}

/// Parse a URL file's `text`; `@BODYFILE` paths are read relative to `dir`
/// (the file's directory). Errors name the line and what is wrong in it.
pub fn parse(text: &str, dir: &Path) -> Result<Vec<UrlLine>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        let bad = |why: String| format!("line {line} `{l}`: {why}");
        let (method, rest) = match words.split_first() {
            Some((m, rest)) if !m.contains("://") => {
                if !m.bytes().all(|b| b.is_ascii_alphabetic()) {
                    return Err(bad(format!(
                        "`{m}` is neither a method (GET, POST, …) nor a URL with its scheme"
                    )));
                }
                (Some(m.to_ascii_uppercase()), rest)
            }
            _ => (None, &words[..]),
        };
        let (url, body) = match rest {
            [url] => (*url, None),
            [url, body] if body.starts_with('@') && body.len() > 1 => (*url, Some(&body[1..])),
            [] => {
                return Err(bad(
                    "no URL after the method: write `[METHOD] URL [@BODYFILE]`".into(),
                ))
            }
            _ => {
                return Err(bad(
                    "more than a method, a URL and @BODYFILE: write `[METHOD] URL [@BODYFILE]`"
                        .into(),
                ))
            }
        };
        Target::parse(url).map_err(|e| bad(e.to_string()))?;
        let body =
            match body {
                Some(b) => {
                    let p = dir.join(b);
                    Some(std::fs::read(&p).map_err(|e| {
                        bad(format!("cannot read the body file {}: {e}", p.display()))
                    })?)
                }
                None => None,
            };
        out.push(UrlLine {
            line,
            method,
            url: url.to_string(),
            body,
        });
    }
    Ok(out)
}

/// One loop's choice of the next request.
#[derive(Debug, Clone)]
pub struct Picker {
    n: usize,
    next: usize,
    rng: Option<fastrand::Rng>,
}

impl Picker {
    /// For loop `index` of the run, whose first connection is number
    /// `first` among the run's: round robin from there, or random from the
    /// seed and the loop's number.
    pub fn new(n: usize, pick: Pick, index: u64, first: usize) -> Picker {
        Picker {
            n: n.max(1),
            next: first % n.max(1),
            rng: match pick {
                Pick::RoundRobin => None,
                Pick::Random(seed) => Some(fastrand::Rng::with_seed(
                    seed ^ index.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                )),
            },
        }
    }

    /// The next request's line (its index in the set).
    pub fn pick(&mut self) -> usize {
        match &mut self.rng {
            Some(r) => r.usize(..self.n),
            None => {
                let i = self.next;
                self.next = (i + 1) % self.n;
                i
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_comments_methods_and_bodies() {
        let dir = std::env::temp_dir().join(format!("toll-urls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("b.json"), b"{}").unwrap();
        let text = "# a comment\n\nhttp://h/a\n  post http://h/b @b.json\nHEAD http://h/c?x=1\n";
        let lines = parse(text, &dir).unwrap();
        let want = [
            UrlLine {
                line: 3,
                method: None,
                url: "http://h/a".into(),
                body: None,
            },
            UrlLine {
                line: 4,
                method: Some("POST".into()),
                url: "http://h/b".into(),
                body: Some(b"{}".to_vec()),
            },
            UrlLine {
                line: 5,
                method: Some("HEAD".into()),
                url: "http://h/c?x=1".into(),
                body: None,
            },
        ];
        assert_eq!(lines, want);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_bad_line_is_named_by_its_number() {
        let dir = Path::new("/nonexistent");
        for (text, want) in [
            ("http://h/\nGET\n", "line 2"),
            ("http://h/\n\nhttp://h/ extra words\n", "line 3"),
            ("GE-T http://h/\n", "line 1"),
            ("h/no-scheme\n", "nor a URL with its scheme"),
            ("GET h/no-scheme\n", "no scheme"),
            (
                "POST http://h/ @missing.json\n",
                "cannot read the body file",
            ),
        ] {
            let e = parse(text, dir).unwrap_err();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn every_url_names_one_server() {
        let l = |line, url: &str| UrlLine {
            line,
            method: None,
            url: url.into(),
            body: None,
        };
        let spec = RequestSpec::default();
        let ok = UrlSet::new(
            vec![l(1, "http://h:8/a"), l(2, "http://h:8/b")],
            &spec,
            Pick::RoundRobin,
        );
        assert_eq!(ok.unwrap().entries.len(), 2);
        let e = UrlSet::new(
            vec![l(1, "http://h:8/a"), l(4, "http://h:9/b")],
            &spec,
            Pick::RoundRobin,
        )
        .unwrap_err();
        assert!(e.contains("line 4") && e.contains("another server"), "{e}");
        assert!(UrlSet::new(vec![], &spec, Pick::RoundRobin).is_err());
    }

    #[test]
    fn round_robin_is_even_and_random_repeats_with_its_seed() {
        let mut p = Picker::new(3, Pick::RoundRobin, 0, 1);
        let got: Vec<usize> = (0..6).map(|_| p.pick()).collect();
        assert_eq!(got, [1, 2, 0, 1, 2, 0]);
        let draw = |seed| {
            let mut p = Picker::new(5, Pick::Random(seed), 2, 0);
            (0..50).map(|_| p.pick()).collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
        assert!(draw(7).iter().all(|&i| i < 5));
    }
}
