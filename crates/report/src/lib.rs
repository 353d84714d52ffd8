//! toll's output: terminal tables, exporters and plots.

pub mod atomic;
pub mod decided;
pub mod escape;
pub mod exec;
pub mod export;
pub mod html;
pub mod http;
pub mod http_compare;
pub mod import;
pub mod legend;
pub mod markdown;
pub mod models;
pub mod plot;
pub mod predict;
pub mod replicate;
pub mod replicate_page;
pub mod runs_compare;
pub mod show;
pub mod table;
