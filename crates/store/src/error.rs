//! Store errors: each names the problem and the fix.
