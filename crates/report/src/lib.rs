//! toll's output: terminal tables, exporters and plots.

pub mod ab;
pub mod compare;
pub mod exec;
pub mod export;
pub mod legend;
pub mod plot;
pub mod predict;
pub mod run_compare;
pub mod show;
pub mod table;
