//! The request, built once before the run: as the bytes the HTTP/1.1 event
//! loop sends every time, or as the parts hyper's clients (HTTP/2, TLS)
//! clone for each request.

use super::target::Target;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, Uri};
use http_body_util::Full;

/// What to send, from ab's -m, -H, -p, -T and -k.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestSpec {
    /// GET, or POST when there is a body, unless given.
    pub method: Option<String>,
    /// Extra headers, "Name: value"; one named like a default replaces it.
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
    pub content_type: Option<String>,
    /// Persistent connections (HTTP/1.1 keep-alive); without it each request
    /// asks the server to close.
    pub keep_alive: bool,
}

impl RequestSpec {
    pub fn method(&self) -> &str {
        match (&self.method, &self.body) {
            (Some(m), _) => m,
            (None, Some(_)) => "POST",
            (None, None) => "GET",
        }
    }

    /// HEAD answers carry no body whatever their Content-Length says.
    pub fn expects_no_body(&self) -> bool {
        self.method().eq_ignore_ascii_case("HEAD")
    }
}

/// The headers of the request in order: toll's defaults, each replaced by
/// a -H of the same name, then the other -H headers.
fn headers(target: &Target, spec: &RequestSpec) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = vec![
        ("Host".into(), target.host_header.clone()),
        (
            "User-Agent".into(),
            concat!("toll/", env!("CARGO_PKG_VERSION")).into(),
        ),
        ("Accept".into(), "*/*".into()),
    ];
    if !spec.keep_alive {
        headers.push(("Connection".into(), "close".into()));
    }
    if let Some(body) = &spec.body {
        headers.push(("Content-Length".into(), body.len().to_string()));
        let ct = spec
            .content_type
            .clone()
            .unwrap_or_else(|| "text/plain".into());
        headers.push(("Content-Type".into(), ct));
    }
    for (name, value) in &spec.headers {
        match headers
            .iter_mut()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
        {
            Some(h) => h.1 = value.clone(),
            None => headers.push((name.clone(), value.clone())),
        }
    }
    headers
}

/// The request's bytes.
pub fn serialise(target: &Target, spec: &RequestSpec) -> Vec<u8> {
    let headers = headers(target, spec);
    let mut out = format!("{} {} HTTP/1.1\r\n", spec.method(), target.path).into_bytes();
    for (n, v) in headers {
        out.extend_from_slice(format!("{n}: {v}\r\n").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    if let Some(body) = &spec.body {
        out.extend_from_slice(body);
    }
    out
}

/// The request for hyper's clients, cloned for each send.
#[derive(Debug, Clone)]
pub struct Template {
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
}

/// Why a request cannot be built for hyper (a header or method it refuses).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct TemplateError(String);

impl Template {
    /// HTTP/1.1 sends the path with a Host header; HTTP/2 the whole URI
    /// (its :scheme and :authority) and no connection-specific headers.
    pub fn new(
        target: &Target,
        spec: &RequestSpec,
        http2: bool,
    ) -> Result<Template, TemplateError> {
        let method = Method::from_bytes(spec.method().as_bytes())
            .map_err(|_| TemplateError(format!("-m {}: not a valid method", spec.method())))?;
        let uri: Uri = if http2 {
            target.url.parse()
        } else {
            target.path.parse()
        }
        .map_err(|e| TemplateError(format!("{}: {e}", target.url)))?;
        let mut map = HeaderMap::new();
        for (name, value) in headers(target, spec) {
            let lower = name.to_ascii_lowercase();
            let hop_by_hop = [
                "host",
                "connection",
                "keep-alive",
                "transfer-encoding",
                "upgrade",
            ];
            if http2 && hop_by_hop.contains(&lower.as_str()) || lower == "content-length" {
                continue;
            }
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| TemplateError(format!("-H `{name}`: not a valid header name")))?;
            let v = HeaderValue::from_str(&value).map_err(|_| {
                TemplateError(format!("-H `{name}: {value}`: not a valid header value"))
            })?;
            map.append(n, v);
        }
        Ok(Template {
            method,
            uri,
            headers: map,
            body: Bytes::from(spec.body.clone().unwrap_or_default()),
        })
    }

    /// The same request for the `h2` crate: its head, and the body to send
    /// after it (empty: the head ends the stream).
    pub fn h2_request(&self) -> (Request<()>, Bytes) {
        let mut r = Request::new(());
        *r.method_mut() = self.method.clone();
        *r.uri_mut() = self.uri.clone();
        *r.headers_mut() = self.headers.clone();
        (r, self.body.clone())
    }

    /// A fresh request with the same parts (the body is shared, not copied).
    pub fn request(&self) -> Request<Full<Bytes>> {
        let mut r = Request::new(Full::new(self.body.clone()));
        *r.method_mut() = self.method.clone();
        *r.uri_mut() = self.uri.clone();
        *r.headers_mut() = self.headers.clone();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_post_with_a_replaced_header() {
        let t = Target::resolve("http://127.0.0.1:8080/p").unwrap();
        let spec = RequestSpec {
            headers: vec![
                ("user-agent".into(), "ab".into()),
                ("X-A".into(), "1".into()),
            ],
            body: Some(b"hi".to_vec()),
            content_type: Some("application/json".into()),
            ..Default::default()
        };
        let text = String::from_utf8(serialise(&t, &spec)).unwrap();
        assert_eq!(
            text,
            "POST /p HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: ab\r\nAccept: */*\r\n\
             Connection: close\r\nContent-Length: 2\r\nContent-Type: application/json\r\nX-A: 1\r\n\r\nhi"
        );
    }

    #[test]
    fn http2_requests_carry_the_whole_uri_and_no_connection_headers() {
        let t = Target::resolve("http://127.0.0.1:8080/p?q=1").unwrap();
        let spec = RequestSpec {
            headers: vec![("X-A".into(), "1".into())],
            ..Default::default()
        };
        let r = Template::new(&t, &spec, true).unwrap().request();
        assert_eq!(r.uri().to_string(), "http://127.0.0.1:8080/p?q=1");
        assert!(r.headers().get("host").is_none());
        assert!(r.headers().get("connection").is_none());
        assert_eq!(r.headers()["x-a"], "1");
        let r = Template::new(&t, &spec, false).unwrap().request();
        assert_eq!(r.uri().to_string(), "/p?q=1");
        assert_eq!(r.headers()["host"], "127.0.0.1:8080");
        assert_eq!(r.headers()["connection"], "close");
    }
}
