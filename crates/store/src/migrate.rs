//! Versioned schema migrations.
