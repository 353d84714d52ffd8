//! The URL under test: parsed, checked (http or https), and resolved once
//! before the run so a bad name is one clear error, not a run of failures.

use super::error::HttpError;
use super::sock::Endpoint;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::Path;
use std::sync::Arc;

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
    /// Every address the host resolved to; requests use the first (after
    /// the preflight, the first that accepted). Empty with `unix`.
    pub addrs: Vec<SocketAddr>,
    /// --unix-socket: every connection goes to this socket instead, the
    /// URL's path and Host header kept (curl's meaning).
    pub unix: Option<Arc<Path>>,
}

impl Target {
    /// Put `addr` first, where the run's connections go.
    pub fn prefer(&mut self, addr: SocketAddr) {
        if let Some(i) = self.addrs.iter().position(|a| *a == addr) {
            self.addrs[..=i].rotate_right(1);
        }
    }

    /// Where the run's connections go: the socket, or the first address.
    pub fn endpoint(&self) -> Endpoint {
        match &self.unix {
            Some(p) => Endpoint::Unix(p.clone()),
            None => Endpoint::Tcp(self.addrs[0]),
        }
    }

    /// The URL as a report names it: with the socket it goes through.
    pub fn shown(&self) -> String {
        match &self.unix {
            Some(p) => format!("{} via unix:{}", self.url, p.display()),
            None => self.url.clone(),
        }
    }

    /// Parse `url`; its connections go to the unix socket `unix` when
    /// given (plain http:// only), else to its host, resolved.
    pub fn resolve_via(url: &str, unix: Option<&Path>) -> Result<Target, HttpError> {
        let Some(path) = unix else {
            return Target::resolve(url);
        };
        let mut target = Target::parse(url)?;
        if target.tls {
            return Err(HttpError::Unsupported(format!(
                "--unix-socket {} with {url}: toll speaks plain HTTP over a unix socket; give an http:// URL",
                path.display()
            )));
        }
        target.unix = Some(Arc::from(path));
        Ok(target)
    }

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
            .map(|h| h.trim_start_matches('[').trim_end_matches(']'))
            .filter(|h| !h.is_empty())
            .ok_or_else(|| bad("it has no host"))?
            .to_string();
        let port = uri.port_u16().unwrap_or(default_port);
        // The request target: `uri.path()` is `/` where the URL has none, so
        // `http://host?q` asks for `/?q`, not `?q`.
        let path = match uri.query() {
            Some(q) => format!("{}?{q}", uri.path()),
            None => uri.path().to_string(),
        };
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
            unix: None,
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

    /// Found by fuzz/fuzz_targets/url.rs: the request line was `GET ?q HTTP/1.1`.
    #[test]
    fn a_query_without_a_path_asks_for_the_root() {
        for (url, path) in [
            ("http://user@ep?q#f", "/?q"),
            ("http://127.0.0.1:8080?a=1&b", "/?a=1&b"),
            ("http://h/?", "/?"),
            ("http://h#f", "/"),
        ] {
            assert_eq!(Target::parse(url).unwrap().path, path, "{url}");
        }
    }

    #[test]
    fn the_preferred_address_goes_first_and_the_rest_keep_their_order() {
        let mut t = Target::resolve("http://127.0.0.1:9/").unwrap();
        let a: Vec<SocketAddr> = ["[::1]:9", "127.0.0.1:9", "127.0.0.2:9"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        t.addrs = a.clone();
        t.prefer(a[2]);
        assert_eq!(t.addrs, vec![a[2], a[0], a[1]]);
        t.prefer(a[2]);
        assert_eq!(t.addrs, vec![a[2], a[0], a[1]]);
    }

    #[test]
    fn refuses_what_it_cannot_load() {
        for (url, want) in [
            ("127.0.0.1:80/x", "no scheme"),
            ("ftp://127.0.0.1/", "not HTTP"),
            ("http://exa mple/", "invalid"),
            // Found by fuzz/fuzz_targets/url.rs: an empty host went on to be resolved.
            ("http://[]/", "no host"),
        ] {
            let e = Target::resolve(url).unwrap_err().to_string();
            assert!(e.contains(want), "{url}: {e}");
        }
    }
}
