//! `--plot-scale`, one flag shared by every command that draws t(n).

use clap::Args;

/// `--plot-scale`, the same for every command that draws t(n).
#[derive(Debug, Args)]
pub struct PlotScale {
    /// The plot's axes: log where the values span decades (auto), or
    /// linear or log throughout.
    #[arg(long, default_value = "auto", value_name = "SCALE",
          value_parser = ["auto", "linear", "log"])]
    pub plot_scale: String,
}
