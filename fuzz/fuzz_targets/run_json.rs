//! A run read back from JSON (`toll export --format json`; the store keeps
//! the same serde types): any bytes are refused or give a run that `toll
//! show`, the exporters and the plots handle, and whose export reads back
//! as the same export.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toll_report::export::{exporter, Format};
use toll_store::Run;

fn export(run: &Run, format: Format) -> Vec<u8> {
    let mut out = Vec::new();
    exporter(format)
        .export(run, &mut out)
        .expect("export to memory");
    out
}

fuzz_target!(|data: &[u8]| {
    let Ok(run) = serde_json::from_slice::<Run>(data) else {
        return;
    };
    let _ = toll_report::show::render_run(&run);
    let _ = toll_report::plot::plot_series_from_run(&run);
    let _ = export(&run, Format::Csv);
    let json = export(&run, Format::Json);
    let back: Run = match serde_json::from_slice(&json) {
        Ok(r) => r,
        Err(e) => panic!("an export does not read back: {e}"),
    };
    let again = export(&back, Format::Json);
    if again != json {
        let (a, b) = (
            String::from_utf8_lossy(&json),
            String::from_utf8_lossy(&again),
        );
        let (x, y) = a
            .lines()
            .zip(b.lines())
            .find(|(x, y)| x != y)
            .unwrap_or(("", ""));
        panic!("an export reads back differently: {x:?} became {y:?}");
    }
});
