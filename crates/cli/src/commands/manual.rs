//! `toll completions` and `toll man`: generated from the clap definitions,
//! so they never fall behind the flags.

use crate::args::{Cli, CompletionsArgs, ManArgs};
use anyhow::Context;
use clap::CommandFactory;
use std::io::Write;
use std::process::ExitCode;

/// A completion script for the shell, on stdout.
pub fn completions(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "toll", &mut out);
    std::io::stdout().write_all(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// toll.1 on stdout, or toll.1 and toll-COMMAND.1 for every visible command
/// written to a directory.
pub fn man(args: ManArgs) -> anyhow::Result<ExitCode> {
    let cmd = Cli::command();
    let Some(dir) = args.output else {
        let mut out = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut out)?;
        std::io::stdout().write_all(&out)?;
        return Ok(ExitCode::SUCCESS);
    };
    std::fs::create_dir_all(&dir).with_context(|| {
        format!(
            "cannot make {}: give -o a directory you can write",
            dir.display()
        )
    })?;
    let mut pages = vec![("toll.1".to_string(), cmd.clone())];
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("toll-{}", sub.get_name());
        pages.push((
            format!("{name}.1"),
            sub.clone()
                .display_name(name.clone())
                .bin_name(name)
                .version(env!("CARGO_PKG_VERSION")),
        ));
    }
    for (file, page) in pages {
        let mut out = Vec::new();
        clap_mangen::Man::new(page).render(&mut out)?;
        let path = dir.join(&file);
        std::fs::write(&path, out).with_context(|| {
            format!(
                "cannot write {}: give -o a directory you can write",
                path.display()
            )
        })?;
    }
    crate::tell!(
        "wrote the manual pages to {} (man -l {}/toll.1)",
        dir.display(),
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
