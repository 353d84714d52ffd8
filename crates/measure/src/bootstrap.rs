//! Percentile bootstrap.
