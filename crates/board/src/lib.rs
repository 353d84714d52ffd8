//! `toll board`: a results board over a toll store (SQLite or PostgreSQL)
//! that a team runs — machines side by side, every run's report, two runs
//! compared, the seed experiments' figures beside the board's — and the
//! API machines push runs to (`toll push`).
//!
//! Pages are written on the server, self-contained (inline CSS and SVG, no
//! script, nothing fetched), every string from a user or a machine escaped
//! by [`toll_report::html::escape`]. Reads are open; a write needs a bearer
//! token made by `toll board token add` (only its SHA-256 is stored).
//!
//! axum routes with security headers, store calls on a blocking pool, each
//! connection bounded (header read and idle timeouts, a share per client
//! address); a bounded cache of the runs list, pages, headlines, the seeds
//! page and small run exports behind a lock; one module per page (machines,
//! runs, a run, compare, seeds, a series' trend); the API (list; get, a
//! run's export streamed from the store a chunk of samples at a time; push:
//! token, rate limit, refused on its declared length, read as it arrives,
//! schema check, summaries made from the samples, a run held already
//! answered with its id), so the board's memory stays flat however large
//! the runs it holds; and `toll push`, the client.

mod api;
mod body;
mod cache;
mod conn;
mod export;
mod headline;
mod layout;
mod limit;
mod pages;
mod push;
mod serve;
mod terms;
mod token;

pub use push::{push, PushError, Pushed};
pub use serve::{serve, BoardError, Options};
pub use token::{new_token, sha256_hex};
