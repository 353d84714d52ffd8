//! `toll replicate` (issue 19): each seed experiment of docs/EXPERIMENTS.md
//! re-run as it was designed, with the families that exist, and its table:
//! the original figure (originals.rs), this machine's with its 95% CI, and
//! the ratio, then the seed's lessons judged on the measured figures
//! (findings.rs). One module per experiment (e1.rs … e5.rs) builds its
//! families' configs, runs them, and turns their outcomes into rows.
//!
//! Every family run is tagged `"replicate": "E1"` in its stored config (the
//! store merges the tag into each run begun while it is set), and each
//! experiment's table is stored as a run of its own (family `replicate`)
//! whose config holds the rows, the findings and the ids of the runs they
//! came from — so `toll show`, `toll report` and the tests read it back.
//! A row the tree cannot measure (a runtime missing, a server not built
//! yet) is kept with the reason, never dropped.

pub mod e1;
pub mod e2;
pub mod e3;
pub mod e4;
pub mod e5;
pub mod e5_server_load;
pub mod e5_start_up_loop;
pub mod findings;
pub mod originals;
pub mod web;

use serde_json::json;
use toll_measure::Fingerprint;
use toll_store::{NewRun, RunStatus, Store, StoreError};

mod experiment;
mod report;

pub use experiment::*;
pub use report::*;

/// Run one experiment, its family runs tagged with its name, and store its
/// table as a `replicate` run.
pub fn run(experiment: Experiment, ctx: &mut Ctx) -> Result<Report, StoreError> {
    ctx.store
        .tag_runs("replicate", Some(json!(experiment.name())));
    let keep = KeepAffinity::now();
    let mut report = match experiment {
        Experiment::E1 => e1::run(ctx),
        Experiment::E2 => e2::run(ctx),
        Experiment::E3 => e3::run(ctx),
        Experiment::E4 => e4::run(ctx),
        Experiment::E5 => e5::run(ctx),
    };
    drop(keep);
    ctx.store.tag_runs("replicate", None);
    if ctx.stopped() {
        report.partial = true;
    }
    report.run_id = Some(store(ctx.store, ctx.preset, &report)?);
    Ok(report)
}

/// Store the table: family `replicate`, the rows and findings in its config.
fn store(store: &Store, preset: Preset, r: &Report) -> Result<i64, StoreError> {
    let id = store.begin_run(&NewRun {
        family: "replicate".into(),
        config: json!({
            "replicate": r.experiment.name(), "title": r.experiment.title(),
            "preset": preset.name(), "design": r.design, "runs": r.runs,
            "rows": r.rows.iter().map(Row::stored).collect::<Vec<_>>(),
            "findings": r.findings, "errors": r.errors,
            "originals": originals::SOURCE,
        }),
        env: Fingerprint::capture(vec![]),
        tool_version: env!("CARGO_PKG_VERSION").into(),
    })?;
    let measured = r.rows.iter().filter(|x| x.measured.is_ok()).count();
    let summary = format!(
        "{}: {measured} of {} figures measured, {} findings still hold",
        r.experiment.name(),
        r.rows.len(),
        r.findings
            .iter()
            .filter(|f| f.verdict == findings::Verdict::Holds)
            .count()
    );
    let status = if r.partial {
        RunStatus::Partial
    } else {
        RunStatus::Complete
    };
    let error = (!r.errors.is_empty()).then(|| r.errors.join("; "));
    store.finish_run(id, status, &summary, error.as_deref())?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::findings::Figure;
    use super::originals::Original;
    use super::*;

    #[test]
    fn names_lists_and_all_parse_in_order() {
        assert_eq!(parse_experiments("all").unwrap(), Experiment::ALL);
        assert_eq!(
            parse_experiments("e5, E1,e5").unwrap(),
            [Experiment::E1, Experiment::E5]
        );
        let e = parse_experiments("E6").unwrap_err().to_string();
        assert!(
            e.contains("`E6`") && e.contains("E1, E2, E3, E4, E5, all"),
            "{e}"
        );
        assert!(parse_experiments("").is_err());
    }

    #[test]
    fn a_ratio_needs_both_figures_and_says_which_is_missing() {
        let o = Original {
            value: 2.0,
            text: "2 s",
        };
        let mut r = Row {
            subject: "c".into(),
            figure: "t".into(),
            unit: "s".into(),
            original: Ok(o),
            measured: Ok(Figure::new(1.0, 0.5, 1.5)),
            run_id: None,
        };
        assert_eq!(r.ratio().unwrap(), Figure::new(0.5, 0.25, 0.75));
        r.measured = Err("haskell not installed: apt-get install ghc".into());
        assert_eq!(r.ratio().unwrap_err(), "not measured");
        let stored = r.stored();
        assert_eq!(
            stored["measured_missing"],
            "haskell not installed: apt-get install ghc"
        );
        assert!(stored["measured"].is_null() && stored["ratio"].is_null());
        r.original = Err("not in the seed".into());
        assert_eq!(r.ratio().unwrap_err(), "no original");
    }
}
