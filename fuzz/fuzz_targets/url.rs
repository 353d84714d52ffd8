//! The URL of `toll http` (parsed, not resolved): a URL it accepts must
//! give a request a server can read, with its path and Host header as
//! parsed, and requests hyper's clients accept for HTTP/1.1 and HTTP/2.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toll_families::http::request::{serialise, RequestSpec, Template};
use toll_families::http::Target;

fuzz_target!(|data: &[u8]| {
    let Ok(url) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(t) = Target::parse(url) else {
        return;
    };
    assert!(!t.host.is_empty(), "{url:?}");
    let spec = RequestSpec::default();
    let bytes = serialise(&t, &spec);
    let mut headers = [httparse::EMPTY_HEADER; 8];
    let mut req = httparse::Request::new(&mut headers);
    let parsed = req.parse(&bytes);
    assert!(
        matches!(parsed, Ok(httparse::Status::Complete(n)) if n == bytes.len()),
        "{url:?} gives a request a server cannot read ({parsed:?}): {:?}",
        String::from_utf8_lossy(&bytes)
    );
    assert_eq!(req.path, Some(t.path.as_str()), "{url:?}");
    assert!(
        t.path.starts_with('/'),
        "{url:?}: request target {:?}",
        t.path
    );
    let host = req
        .headers
        .iter()
        .find(|h| h.name == "Host")
        .map(|h| h.value);
    assert_eq!(host, Some(t.host_header.as_bytes()), "{url:?}");
    for http2 in [false, true] {
        if let Err(e) = Template::new(&t, &spec, http2) {
            panic!("{url:?}: hyper's request (http2 {http2}) refused: {e}");
        }
    }
});
