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
