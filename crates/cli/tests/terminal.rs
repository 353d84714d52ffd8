//! What toll prints for a person: within 100 columns unless `--wide`, and
//! verdicts in colour only where colour is wanted — never through a pipe or
//! under `NO_COLOR`, however it is asked for.

mod common;
use common::*;

fn transfer(s: &Scratch, env: &[(&str, &str)]) -> std::process::Output {
    let mut args = vec!["transfer", "--peer", "rust", "--via", "pipe,unix"];
    args.extend_from_slice(&["--sizes", "0,1000,4000"]);
    args.extend_from_slice(QUICK);
    let o = s.toll_fitted(&args, env);
    assert!(o.status.success(), "{}", stderr(&o));
    o
}

fn coloured(o: &std::process::Output) -> bool {
    stdout(o).contains('\u{1b}') || stderr(o).contains('\u{1b}')
}

#[test]
fn colour_where_it_is_wanted_and_never_through_a_pipe_or_under_no_color() {
    let s = Scratch::new("colour");
    let piped = transfer(&s, &[]);
    assert!(!coloured(&piped), "a pipe got colour: {}", stdout(&piped));
    let no_color = transfer(&s, &[("NO_COLOR", "1"), ("CLICOLOR", "1")]);
    assert!(!coloured(&no_color), "NO_COLOR got colour");
    // As a terminal gets it (CLICOLOR_FORCE stands in for the tty): the
    // fit column's verdict is painted, the rest of the table is not.
    let forced = transfer(&s, &[("CLICOLOR_FORCE", "1")]);
    let out = stdout(&forced);
    let verdict = ["ok", "curve", "noisy", "busy", "flat"]
        .iter()
        .any(|w| out.contains(&format!("m{w}\u{1b}[0m")));
    assert!(verdict, "no painted verdict: {out:?}");
    // NO_COLOR outranks the force.
    let both = transfer(&s, &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!coloured(&both), "NO_COLOR with CLICOLOR_FORCE got colour");
}

#[test]
fn lines_fit_100_columns_unless_wide() {
    let s = Scratch::new("wide");
    transfer(&s, &[]);
    let widest = |o: &std::process::Output| {
        stdout(o)
            .lines()
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(0)
    };
    let show = s.toll_fitted(&["show", "1"], &[]);
    assert!(show.status.success(), "{}", stderr(&show));
    assert!(widest(&show) <= 100, "{}", stdout(&show));
    let text = stdout(&show);
    assert!(!text.contains("{\""), "raw JSON in show: {text}");
    assert!(text.contains("others busy: "), "{text}");
    let wide = s.toll_fitted(&["--wide", "show", "1"], &[]);
    assert!(widest(&wide) > 100, "--wide keeps the long lines whole");
    // Wrapped, not cut: the same words (a wrapped row interleaves them).
    let words = |t: &str| {
        let mut w: Vec<String> = t.split_whitespace().map(String::from).collect();
        w.sort();
        w
    };
    assert_eq!(words(&text), words(&stdout(&wide)), "the same words");
}
