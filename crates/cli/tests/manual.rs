//! `toll completions` and `toll man`: generated from the flags themselves,
//! and usable by the shells and `man`.

mod common;
use common::*;

#[test]
fn bash_loads_the_completion_script_and_completes_commands_and_flags() {
    let s = Scratch::new("completions-bash");
    let o = s.toll(&["completions", "bash"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let script = s.0.join("toll.bash");
    std::fs::write(&script, &o.stdout).unwrap();
    // Load it into a real bash and ask it to complete `toll tr` and `toll transfer --si`.
    let probe = format!(
        "source {}; complete -p toll >/dev/null || exit 9; \
         COMP_WORDS=(toll tr); COMP_CWORD=1; COMP_LINE='toll tr'; COMP_POINT=7; _toll toll tr toll; echo \"${{COMPREPLY[@]}}\"; \
         COMP_WORDS=(toll transfer --si); COMP_CWORD=2; COMP_LINE='toll transfer --si'; COMP_POINT=18; _toll toll --si transfer; echo \"${{COMPREPLY[@]}}\"",
        script.display()
    );
    let out = std::process::Command::new("bash")
        .args(["-c", &probe])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "transfer", "{text}");
    assert!(lines[1].contains("--sizes"), "{text}");
}

#[test]
fn zsh_fish_and_the_others_get_a_script_naming_every_command() {
    let s = Scratch::new("completions-all");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let o = s.toll(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let out = stdout(&o);
        for cmd in ["transfer", "spawn", "ring", "http", "show", "completions"] {
            assert!(out.contains(cmd), "{shell} lacks {cmd}");
        }
    }
    let o = s.toll(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("tcsh"), "{err}");
}

#[test]
fn man_prints_the_page_and_writes_one_per_command() {
    let s = Scratch::new("man");
    let o = s.toll(&["man"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = stdout(&o);
    assert!(page.contains(".TH toll 1"), "{page}");
    assert!(page.contains("transfer"), "{page}");

    let dir = s.0.join("man1");
    let o = s.toll(&["man", "-o", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let transfer = std::fs::read_to_string(dir.join("toll-transfer.1")).unwrap();
    assert!(transfer.contains(".TH toll-transfer 1"), "{transfer}");
    assert!(transfer.contains("sizes"), "{transfer}");
    assert!(dir.join("toll-http.1").exists() && dir.join("toll.1").exists());
    assert!(
        !dir.join("toll-worker.1").exists(),
        "the hidden worker has no page"
    );

    // A directory that cannot be made: one line naming it.
    let blocked = s.0.join("file");
    std::fs::write(&blocked, "x").unwrap();
    let o = s.toll(&["man", "-o", blocked.join("sub").to_str().unwrap()]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("give -o a directory you can write"), "{err}");
}
