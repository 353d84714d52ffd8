//! `toll atlas`'s flags.

use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct AtlasArgs {
    /// Each family's own sizes and trials (default: the quick preset, at
    /// most about 3 minutes of measuring on a 2-vCPU machine).
    #[arg(long)]
    pub full: bool,
    /// The tests' preset: the smallest run that still fills every group.
    #[arg(long, hide = true, conflicts_with = "full")]
    pub test_preset: bool,
    /// Only these groups (comma-separated): hardware, links, threads,
    /// languages, files, programs, rpc.
    #[arg(long, value_name = "GROUPS")]
    pub only: Option<String>,
    /// Leave out these groups (comma-separated), from every one or from --only's.
    #[arg(long, value_name = "GROUPS")]
    pub skip: Option<String>,
    /// Print the stored atlas as JSON on stdout instead of its table.
    #[arg(long)]
    pub json: bool,
    /// Also write the atlas as one self-contained page (the page `toll
    /// report` makes of it: one log picture, quoted figures beside this
    /// machine's), a partial atlas too; checked before measuring.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}
