//! One module per command family.

pub mod db;
pub mod runs;
pub mod transfer;
