//! The figures people quote for a call into C, drawn on `toll ffi`'s
//! picture as hollow diamonds on α beside this machine's dots. Only a
//! figure whose source can be named is here: dyu/ffi-overhead's README,
//! the only side-by-side figures people cite, which cover the null call.

/// The legend's words for the quoted figures: whose, and on what.
pub const SOURCE: &str = "dyu/ffi-overhead README (i7-3630QM, 2017)";

/// Where the quoted figures come from, in full, for a caption.
pub const CITE: &str = "github.com/dyu/ffi-overhead, README (commit c0f176f): plusone() called 2·10⁹ times on an i7-3630QM laptop, Ubuntu 14.04, gcc 5.4, Java 8, Node 6.9, Go 1.8";

/// (series label, ns per call): the README's elapsed ms over its 2·10⁹
/// calls of `plusone`, the mean of its two runs — c 4778 and 4750 ms, rust
/// 5331 and 5339, java8 (JNI) 17992 and 17932, node 37839 and 37514, go
/// (cgo) 130105 and 132824 — each set on the binding that makes the same
/// call here (a Rust program calling C is rust/dlopen).
pub const QUOTES: [(&str, f64); 5] = [
    ("c/direct", (4778.0 + 4750.0) / 2.0 / 2000.0),
    ("rust/dlopen", (5331.0 + 5339.0) / 2.0 / 2000.0),
    ("java/jni", (17992.0 + 17932.0) / 2.0 / 2000.0),
    ("node/napi", (37839.0 + 37514.0) / 2.0 / 2000.0),
    ("go/cgo", (130105.0 + 132824.0) / 2.0 / 2000.0),
];

/// The quoted ns per call for the series `label`, if there is one.
pub fn quote(label: &str) -> Option<f64> {
    QUOTES.iter().find(|(l, _)| *l == label).map(|&(_, ns)| ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quotes_are_the_readmes_ms_per_two_billion_calls() {
        assert!((quote("c/direct").unwrap() - 2.382).abs() < 1e-3);
        assert!((quote("go/cgo").unwrap() - 65.732).abs() < 1e-3);
        assert_eq!(quote("python/ctypes"), None);
    }
}
