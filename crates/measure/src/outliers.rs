//! Tukey fences.
