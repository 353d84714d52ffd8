//! The request, serialised once before the run and sent as the same bytes
//! every time.

use super::target::Target;

/// What to send, from ab's -m, -H, -p, -T and -k.
#[derive(Debug, Clone, Default)]
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

/// The request's bytes.
pub fn serialise(target: &Target, spec: &RequestSpec) -> Vec<u8> {
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
}
