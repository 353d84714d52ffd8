//! toll's output: terminal tables, exporters and plots.

pub mod ab;
pub mod atomic;
pub mod compare;
pub mod exec;
pub mod export;
pub mod import;
pub mod html;
pub mod legend;
pub mod markdown;
pub mod models;
pub mod plot;
pub mod show;
pub mod table;
