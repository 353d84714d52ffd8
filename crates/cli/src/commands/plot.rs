//! `--plot FILE.svg` of the measuring commands: one stored run drawn as
//! `toll report` draws it.

use crate::usage::usage;
use std::path::Path;
use toll_report::plot::{Chart, Scale};

/// Draw `chart` to `path` on the scale `--plot-scale` names, and say so.
pub fn draw(path: &Path, chart: Chart, scale: &str) -> anyhow::Result<()> {
    let scale: Scale = scale.parse().map_err(usage)?;
    chart
        .write(path, scale)
        .map_err(|e| anyhow::anyhow!("cannot draw {}: {e}", path.display()))?;
    crate::tell!("plot written to {}", path.display());
    Ok(())
}
