//! TLS for https:// targets (rustls, ring): the client configuration with
//! the ALPN the protocol asks for, the system's roots or, with --insecure,
//! any certificate; and the preflight handshake that turns a certificate or
//! ALPN problem into one clear error before the run.

use super::error::HttpError;
use super::target::Target;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

/// What every connection of a run needs for its handshake.
#[derive(Debug, Clone)]
pub struct TlsSetup {
    pub config: Arc<ClientConfig>,
    pub server_name: ServerName<'static>,
}

impl TlsSetup {
    /// ALPN offers h2 alone for --http2 (a server that cannot speak it is an
    /// error, not a silent fall back), http/1.1 otherwise.
    pub fn new(target: &Target, http2: bool, insecure: bool) -> Result<TlsSetup, HttpError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| HttpError::Io(format!("TLS set-up: {e}")))?;
        let mut config = if insecure {
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
                .with_no_client_auth()
        } else {
            let mut roots = RootCertStore::empty();
            for cert in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(cert);
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        };
        config.alpn_protocols = if http2 {
            vec![b"h2".to_vec()]
        } else {
            vec![b"http/1.1".to_vec()]
        };
        let server_name =
            ServerName::try_from(target.host.clone()).map_err(|_| HttpError::BadUrl {
                url: target.url.clone(),
                why: "its host is not a valid TLS server name".into(),
            })?;
        Ok(TlsSetup {
            config: Arc::new(config),
            server_name,
        })
    }

    /// One blocking handshake before the run, on `sock` (connected to
    /// `addr`): an untrusted certificate or a server without h2 is one line
    /// naming the fix.
    pub fn preflight(
        &self,
        target: &Target,
        mut sock: TcpStream,
        addr: SocketAddr,
        timeout: Duration,
    ) -> Result<String, HttpError> {
        let _ = sock.set_read_timeout(Some(timeout));
        let _ = sock.set_write_timeout(Some(timeout));
        let mut conn = rustls::ClientConnection::new(self.config.clone(), self.server_name.clone())
            .map_err(|e| HttpError::Io(format!("TLS set-up: {e}")))?;
        while conn.is_handshaking() {
            if let Err(e) = conn.complete_io(&mut sock) {
                let why = e.to_string();
                let fix = if why.contains("certificate") {
                    "; for a self-signed or private certificate add --insecure"
                } else if why.contains("NoApplicationProtocol") || why.contains("no_application") {
                    "; the server does not offer HTTP/2 over TLS: drop --http2"
                } else {
                    "; is it an https server?"
                };
                return Err(HttpError::Tls(format!(
                    "TLS handshake with {addr} failed: {why}{fix}"
                )));
            }
        }
        let wanted = self.config.alpn_protocols.first().cloned();
        if wanted.as_deref() == Some(b"h2") && conn.alpn_protocol() != Some(b"h2") {
            return Err(HttpError::Tls(format!(
                "{} does not offer HTTP/2 over TLS (ALPN h2): drop --http2",
                target.url
            )));
        }
        Ok(describe(&conn))
    }
}

/// "TLSv1.3, TLS13_AES_256_GCM_SHA384": what ab prints as SSL/TLS Protocol.
pub fn describe(conn: &rustls::CommonState) -> String {
    let version = match conn.protocol_version() {
        Some(rustls::ProtocolVersion::TLSv1_3) => "TLSv1.3".to_string(),
        Some(rustls::ProtocolVersion::TLSv1_2) => "TLSv1.2".to_string(),
        Some(v) => format!("{v:?}"),
        None => "TLS".to_string(),
    };
    match conn.negotiated_cipher_suite() {
        Some(s) => format!("{version}, {:?}", s.suite()),
        None => version,
    }
}

/// --insecure: every certificate is taken, but the handshake's signatures
/// are still checked, so the connection is TLS as usual.
#[derive(Debug)]
struct AnyCertificate(Arc<CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
