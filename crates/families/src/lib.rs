//! toll's measurement families: each turns a validated config into a plan of
//! points, probes them through the engine, and stores every sample.
//!
//! One part per family — transfer (E1), spawn and ring (E2's units), rpc (E3,
//! with the proxies in front of its servers), file (E4), http (E5's load, on
//! mio for HTTP/1.1 and hyper for HTTP/2 and TLS), exec (E5's loop) — and
//! replicate, which runs the seed experiments' designs over the others and
//! judges their lessons. Beside them the parts they share: where the far end
//! runs, the emulated link (namespaces, veth, tbf and the delay relay), core
//! placement, size lists, and the history of earlier runs that the
//! run-to-run term learns from. A family reaches its peers through
//! `toll_peers`, measures with `toll_measure` and stores with `toll_store`.

pub mod atlas;
pub mod exec;
pub mod far;
pub mod ffi;
pub mod file;
pub mod history;
pub mod http;
pub mod link;
pub mod observer;
pub mod placement;
pub mod points;
pub mod replicate;
pub mod rpc;
pub mod sizes;
pub mod sys;
pub mod transfer;
pub mod units;

pub use observer::{Observer, Quiet};
