//! Peers.
