//! toll's output: terminal tables, exporters and plots.

pub mod ab;
pub mod atomic;
pub mod compare;
pub mod decided;
pub mod exec;
pub mod export;
pub mod file;
pub mod html;
pub mod import;
pub mod legend;
pub mod markdown;
pub mod models;
pub mod plot;
pub mod predict;
pub mod replicate;
pub mod replicate_page;
pub mod rpc;
pub mod run_compare;
pub mod show;
pub mod table;
pub mod transfer;
pub mod units;
