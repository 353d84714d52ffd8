//! One module per command family.

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
pub mod manual;
pub mod plot;
pub mod predict;
pub mod replicate;
pub mod report;
pub mod rpc;
pub mod runs;
pub mod runtimes;
pub mod transfer;
pub mod units;

/// Before measuring with too few rounds for an interval worth reading
/// (`--trials`, exec's `--runs`): one line that says what the run will and
/// will not be able to tell. Nothing is refused — a single round is a fine
/// smoke test — but its figures then carry no interval, and a line is
/// checked by resampling whole points instead of rounds.
pub fn few_rounds_note(flag: &str, rounds: usize) {
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
