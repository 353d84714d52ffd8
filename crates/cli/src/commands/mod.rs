//! One module per command family.

pub mod atlas;
pub mod board;
pub mod compare;
pub mod db;
pub mod doctor;
pub mod estimate;
pub mod exec;
pub mod far;
pub mod ffi;
pub mod file;
pub mod http;
pub mod http_agents;
pub mod http_compare;
pub mod http_load;
pub mod http_sweep;
pub mod manual;
pub mod plot;
pub mod predict;
pub mod replicate;
pub mod report;
pub mod rpc;
pub mod runs;
pub mod runtimes;
pub mod sys;
pub mod transfer;
pub mod units;

/// Whether toll would refuse `toll WORDS` (checked by its own `--dry-run`,
/// no store named): its one-line reason, without the "toll: " — so a
/// command suggested in a message is always one toll takes.
pub fn refused(words: &[String]) -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let o = std::process::Command::new(exe)
        .arg("--wide")
        .arg("--dry-run")
        .args(words)
        .env_remove("TOLL_DB")
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    if o.status.success() {
        return None;
    }
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err.lines().find(|l| l.starts_with("toll: "))?;
    Some(line.trim_start_matches("toll: ").trim_end().to_string())
}

/// A run a signal stopped before any point was measured is not kept: it
/// is removed, one line says so, and the status is 128 + the signal.
/// None when the run stands (not stopped, or something was measured).
pub fn stopped_before_measuring(
    store: &toll_store::Store,
    run_id: i64,
) -> anyhow::Result<Option<std::process::ExitCode>> {
    if !crate::stop::stopped() {
        return Ok(None);
    }
    let run = store.load_run(run_id)?;
    let measured = run.series.iter().any(|s| {
        s.points
            .iter()
            .any(|p| p.status == toll_store::PointStatus::Ok && !p.samples.is_empty())
    });
    if measured {
        return Ok(None);
    }
    store.remove_run(run_id)?;
    crate::tell!("toll: stopped before any point was measured: nothing stored");
    Ok(Some(crate::stop::exit_code()))
}

/// Before measuring with too few rounds for an interval worth reading
/// (`--trials`, exec's `--runs`): one line that says what the run will and
/// will not be able to tell. Nothing is refused — a single round is a fine
/// smoke test — but its figures then carry no interval, and a line is
/// checked by resampling whole points instead of rounds.
pub fn few_rounds_note(flag: &str, rounds: usize) {
    design_note(flag, rounds, "", None);
}

/// [`few_rounds_note`], and before measuring a sweep of two sizes
/// (`sizes_flag` gives `sizes` of them): one line that it gives no model.
/// Said by `--dry-run` too.
pub fn design_note(flag: &str, rounds: usize, sizes_flag: &str, sizes: Option<usize>) {
    // One size is a point measured on purpose (the null call, one N);
    // two look like a sweep and give no line.
    if sizes == Some(2) {
        crate::tell!(
            "note: {sizes_flag} gives two sizes: each one's time is measured, and no model t(n) = α + β·n (two points fit any line exactly; it needs three sizes or more)"
        );
    }
    match rounds {
        1 => crate::tell!(
            "note: {flag} 1: one round: no point gets an interval (nor a p against another run), and a line is checked by resampling whole points, not rounds; {flag} 3 or more for intervals"
        ),
        2 => crate::tell!(
            "note: {flag} 2: each point's interval is its two values (a 50% interval, said beside it) and a line's rests on one degree of freedom (t = 12.7): wide; {flag} 3 or more for narrower honest ones"
        ),
        _ => {}
    }
}
