//! Commands as the user wrote them: `{name}` placeholders filled from the
//! parameters (`-L`, `--parameter-scan`), and a command split into words
//! for `-N`, where no shell reads it.

use super::config::{ExecError, Parameter};

/// The most values one parameter may take.
pub const MAX_VALUES: usize = 10_000;

fn valid_name(name: &str) -> bool {
    let mut c = name.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

fn check_name(flag: &str, name: &str) -> Result<(), ExecError> {
    if valid_name(name) {
        Ok(())
    } else {
        Err(ExecError::BadParameter(format!(
            "{flag} `{name}` is not a parameter name: use letters, digits and _, e.g. {flag} n …"
        )))
    }
}

impl Parameter {
    /// `-L name v1,v2,…`.
    pub fn list(name: &str, values: &str) -> Result<Parameter, ExecError> {
        check_name("-L", name)?;
        let vals: Vec<String> = values.split(',').map(|v| v.trim().to_string()).collect();
        if vals.iter().any(String::is_empty) {
            return Err(ExecError::BadParameter(format!(
                "-L {name} `{values}` has an empty value: give a comma-separated list such as 1,10,100"
            )));
        }
        if vals.len() > MAX_VALUES {
            return Err(ExecError::BadParameter(format!(
                "-L {name} has {} values: give at most {MAX_VALUES}",
                vals.len()
            )));
        }
        Ok(Parameter {
            name: name.into(),
            values: vals,
        })
    }

    /// `--parameter-scan name lo hi` with `--step` (default 1): whole
    /// numbers, or decimals when any of the three has a point.
    pub fn scan(
        name: &str,
        lo: &str,
        hi: &str,
        step: Option<&str>,
    ) -> Result<Parameter, ExecError> {
        check_name("--parameter-scan", name)?;
        let num = |what: &str, t: &str| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    ExecError::BadParameter(format!(
                        "--parameter-scan {name}: {what} `{t}` is not a number: give e.g. --parameter-scan {name} 1 10 --step 1"
                    ))
                })
        };
        let (a, b) = (num("the low end", lo)?, num("the high end", hi)?);
        let s = match step {
            Some(t) => num("--step", t)?,
            None => 1.0,
        };
        if s <= 0.0 {
            return Err(ExecError::BadParameter(format!(
                "--step {} must be above 0",
                step.unwrap_or("1")
            )));
        }
        if b < a {
            return Err(ExecError::BadParameter(format!(
                "--parameter-scan {name} {lo} {hi}: the low end is above the high end: swap them"
            )));
        }
        let count = ((b - a) / s + 1e-9).floor() + 1.0;
        if count > MAX_VALUES as f64 {
            return Err(ExecError::BadParameter(format!(
                "--parameter-scan {name} {lo} {hi} makes {count} values: give at most {MAX_VALUES} (a larger --step)"
            )));
        }
        let decimals = [lo, hi, step.unwrap_or("1")]
            .iter()
            .map(|t| t.trim().split_once('.').map_or(0, |(_, f)| f.len()))
            .max()
            .unwrap_or(0);
        let values = (0..count as usize)
            .map(|i| format!("{:.*}", decimals, a + s * i as f64))
            .collect();
        Ok(Parameter {
            name: name.into(),
            values,
        })
    }

    /// Every value as a whole number (the `n` a fit needs), or None.
    pub fn whole_values(&self) -> Option<Vec<u64>> {
        self.values.iter().map(|v| v.parse::<u64>().ok()).collect()
    }
}

/// The `{name}` placeholders of `template`, in order, each once. Braces
/// around anything but a name (`${HOME}`'s `{HOME}` is a name; `{ ls; }`
/// is not) are left alone.
pub fn placeholders(template: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if valid_name(&after[..close]) => {
                let name = after[..close].to_string();
                if !out.contains(&name) {
                    out.push(name);
                }
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// `template` with each `{name}` replaced by its value.
pub fn substitute(template: &str, values: &[(String, String)]) -> String {
    let mut s = template.to_string();
    for (name, value) in values {
        s = s.replace(&format!("{{{name}}}"), value);
    }
    s
}

/// Split a command into words as a POSIX shell would for a simple command:
/// blanks separate words, '…' keeps everything, "…" keeps all but `\"` and
/// `\\`, a backslash escapes the next character. No expansion of any kind
/// (that is what `-N` is for).
pub fn split_words(cmd: &str) -> Result<Vec<String>, ExecError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => word.push(ch),
                        None => return Err(unclosed(cmd, '\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => word.push(ch),
                            Some(ch) => {
                                word.push('\\');
                                word.push(ch);
                            }
                            None => return Err(unclosed(cmd, '"')),
                        },
                        Some(ch) => word.push(ch),
                        None => return Err(unclosed(cmd, '"')),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(ch) = chars.next() {
                    word.push(ch);
                }
            }
            ch => {
                in_word = true;
                word.push(ch);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

fn unclosed(cmd: &str, quote: char) -> ExecError {
    ExecError::Usage(format!(
        "`{cmd}` has an unclosed {quote}: close it, or drop -N and let the shell read the command"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_names_in_braces() {
        assert_eq!(
            placeholders("./loop {n} {lang} {n} ${HOME} { ls; }"),
            vec!["n", "lang", "HOME"]
        );
        assert!(placeholders("echo {} {1x}").is_empty());
        let v = [("n".to_string(), "10".to_string())];
        assert_eq!(substitute("a {n} b{n}", &v), "a 10 b10");
    }

    #[test]
    fn lists_and_scans() {
        let p = Parameter::list("n", "1, 10,100").unwrap();
        assert_eq!(p.values, vec!["1", "10", "100"]);
        assert_eq!(p.whole_values(), Some(vec![1, 10, 100]));
        assert!(Parameter::list("n", "1,,2").is_err());
        assert!(Parameter::list("9n", "1").is_err());
        let s = Parameter::scan("n", "1", "10", Some("3")).unwrap();
        assert_eq!(s.values, vec!["1", "4", "7", "10"]);
        let d = Parameter::scan("t", "0", "0.3", Some("0.1")).unwrap();
        assert_eq!(d.values, vec!["0.0", "0.1", "0.2", "0.3"]);
        assert_eq!(d.whole_values(), None);
        assert!(Parameter::scan("n", "10", "1", None).is_err());
        assert!(Parameter::scan("n", "1", "x", None).is_err());
        assert!(Parameter::scan("n", "1", "10", Some("0")).is_err());
        assert!(Parameter::scan("n", "0", "1e9", None).is_err());
    }

    #[test]
    fn words_split_as_a_shell_would() {
        assert_eq!(
            split_words(r#"printf '%s x' "a \"b\"" c\ d  "#).unwrap(),
            vec!["printf", "%s x", "a \"b\"", "c d"]
        );
        assert_eq!(split_words("a '' b").unwrap(), vec!["a", "", "b"]);
        assert!(split_words("echo 'oops").is_err());
        assert!(split_words("  ").unwrap().is_empty());
    }
}
