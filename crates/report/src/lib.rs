//! toll's output: terminal tables, exporters and plots.
//!
//! Everything a stored run becomes for a person or another program: terminal
//! tables that fit 100 columns and the legends they share; `toll show`; JSON
//! and CSV exports and the reader `toll import` checks against schema.json;
//! SVG plots (log or linear axes with round ticks); `toll report`'s
//! self-contained HTML page and its Markdown twin over one models table,
//! written whole or not at all; `toll compare`'s and `toll predict`'s answers;
//! `toll replicate`'s table and `toll atlas`'s page; the HTTP report in ab's labels and the http
//! comparison's; `toll exec`'s report and its hyperfine-shaped exports. It
//! renders the decision stored with each series, never one of its own.

pub mod atlas;
pub mod atlas_compare;
pub mod atlas_machines;
pub mod atlas_page;
pub mod atlas_quotes;
pub mod atomic;
pub mod decided;
pub mod escape;
pub mod exec;
pub mod export;
pub mod family_reports;
pub mod ffi;
pub mod ffi_link;
pub mod ffi_quotes;
pub mod file;
pub mod html;
pub mod http;
pub mod http_agents;
pub mod http_compare;
pub mod http_sweep;
pub mod http_sweep_compare;
pub mod http_sweep_page;
pub mod http_urls;
pub mod import;
pub mod legend;
pub mod markdown;
pub mod models;
pub mod plot;
pub mod predict;
pub mod printed;
pub mod replicate;
pub mod replicate_charts;
pub mod replicate_page;
pub mod rpc;
pub mod runs_compare;
pub mod show;
pub mod sys;
pub mod table;
pub mod transfer;
pub mod units;
