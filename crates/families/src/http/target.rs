//! The URL under test: parsed, checked (http or https), and resolved once
//! before the run so a bad name is one clear error, not a run of failures.

use super::HttpError;
use std::net::{SocketAddr, ToSocketAddrs};

/// Where the requests go.
#[derive(Debug, Clone)]
pub struct Target {
    pub url: String,
    /// As written in the URL (IPv6 without brackets).
    pub host: String,
    pub port: u16,
    /// https: TLS to the server.
    pub tls: bool,
    /// Path and query, `/` when the URL has none.
    pub path: String,
    /// The Host header: host, plus the port when it is not 80.
    pub host_header: String,
    /// Every address the host resolved to; requests use the first.
    pub addrs: Vec<SocketAddr>,
}

impl Target {
    /// Parse `url` and resolve its host.
    pub fn resolve(url: &str) -> Result<Target, HttpError> {
        let mut target = Target::parse(url)?;
        let addrs: Vec<SocketAddr> = (target.host.as_str(), target.port)
            .to_socket_addrs()
            .map_err(|e| HttpError::Resolve {
                host: target.host.clone(),
                why: e.to_string(),
            })?
            .collect();
        if addrs.is_empty() {
            return Err(HttpError::Resolve {
                host: target.host,
                why: "no addresses".into(),
            });
        }
        target.addrs = addrs;
        Ok(target)
    }

    /// Parse and check `url` without resolving its host (`addrs` is empty).
    pub fn parse(url: &str) -> Result<Target, HttpError> {
        let bad = |why: &str| HttpError::BadUrl {
            url: url.to_string(),
            why: why.to_string(),
        };
        if !url.contains("://") {
            return Err(bad(
                "it has no scheme; give a full URL such as http://127.0.0.1:8080/",
            ));
        }
        let uri: http::Uri = url
            .parse()
            .map_err(|e: http::uri::InvalidUri| bad(&e.to_string()))?;
        let tls = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            Some(other) => {
                return Err(HttpError::Unsupported(format!(
                    "{url}: scheme `{other}` is not HTTP; toll http speaks http:// and https://"
                )))
            }
            None => return Err(bad("it has no scheme")),
        };
        let default_port = if tls { 443 } else { 80 };
        let host = uri
            .host()
            .filter(|h| !h.is_empty())
            .ok_or_else(|| bad("it has no host"))?;
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let port = uri.port_u16().unwrap_or(default_port);
        let path = uri
            .path_and_query()
            .map(|p| p.as_str())
            .filter(|p| !p.is_empty())
            .unwrap_or("/")
            .to_string();
        let bracketed = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.clone()
        };
        let host_header = if port == default_port {
            bracketed
        } else {
            format!("{bracketed}:{port}")
        };
        Ok(Target {
            url: url.to_string(),
            host,
            port,
            tls,
            path,
            host_header,
            addrs: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_host_port_and_path() {
        let t = Target::resolve("http://127.0.0.1:8080/a/b?x=1").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("127.0.0.1", 8080, "/a/b?x=1")
        );
        assert_eq!(t.host_header, "127.0.0.1:8080");
        let t = Target::resolve("http://[::1]/").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.host_header.as_str()),
            ("::1", 80, "[::1]")
        );
        assert_eq!(Target::resolve("http://localhost:9").unwrap().path, "/");
        let t = Target::resolve("https://127.0.0.1/x").unwrap();
        assert_eq!(
            (t.port, t.tls, t.host_header.as_str()),
            (443, true, "127.0.0.1")
        );
    }

    #[test]
    fn refuses_what_it_cannot_load() {
        for (url, want) in [
            ("127.0.0.1:80/x", "no scheme"),
            ("ftp://127.0.0.1/", "not HTTP"),
            ("http://exa mple/", "invalid"),
        ] {
            let e = Target::resolve(url).unwrap_err().to_string();
            assert!(e.contains(want), "{url}: {e}");
        }
    }
}
