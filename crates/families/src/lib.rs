//! Families.
