//! TLS for every HTTPS connection pincer makes (model calls, MCP servers, `web_fetch`): rustls
//! with the ring provider, and trust roots that cost nothing until a certificate is checked.
//!
//! Building an HTTP client loads no roots: the verifier of [`client_config`] loads them the first
//! time a server presents a certificate, once per process, and every later handshake reuses
//! them. A turn against a plain `http://` URL (a local model, the benchmarks' mock) therefore
//! reads no certificate at all (SPEC §12.1). The roots come from one bundle file:
//! `SSL_CERT_FILE` when set, else the system bundle that OpenSSL would read
//! (`/etc/ssl/certs/ca-certificates.crt` and its equivalents, found by `openssl-probe`). Only
//! when `SSL_CERT_DIR` is set, or the system has no bundle file, is a directory of certificates
//! read instead, the way `rustls-native-certs` reads it.

use std::sync::{Arc, OnceLock};

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};

/// The rustls configuration every client uses: ring, TLS 1.2 and 1.3, ALPN for HTTP/2 and
/// HTTP/1.1 (what reqwest sets for its own configurations), and the lazily loaded roots.
pub fn client_config() -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = provider();
    let verifier = Arc::new(LazyRoots {
        provider: provider.clone(),
    });
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(rustls::ALL_VERSIONS)?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    Ok(config)
}

/// The process's crypto provider: ring, installed as the default once.
fn provider() -> Arc<CryptoProvider> {
    // Installing twice is harmless (the second call reports the first provider back).
    let _ = rustls::crypto::ring::default_provider().install_default();
    CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()))
}

/// The verifier with the roots, made at the first certificate check (an error when no root
/// could be read, reported on every handshake).
static VERIFIER: OnceLock<Result<Arc<WebPkiServerVerifier>, RootsError>> = OnceLock::new();

/// Why no certificate can be verified.
#[derive(Debug, thiserror::Error)]
enum RootsError {
    #[error("cannot read the CA certificates in '{}': {source}", path.display())]
    Read {
        path: std::path::PathBuf,
        source: rustls::pki_types::pem::Error,
    },
    #[error("No CA certificates were loaded from the system")]
    NoneLoaded,
    #[error(transparent)]
    Verifier(#[from] rustls::client::VerifierBuilderError),
}

/// A certificate verifier that loads the trust roots on its first use.
#[derive(Debug)]
struct LazyRoots {
    provider: Arc<CryptoProvider>,
}

impl LazyRoots {
    fn verifier(&self) -> Result<&Arc<WebPkiServerVerifier>, rustls::Error> {
        VERIFIER
            .get_or_init(|| {
                let roots = load_roots()?;
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), self.provider.clone())
                    .build()
                    .map_err(RootsError::from)
            })
            .as_ref()
            .map_err(|error| rustls::Error::General(error.to_string()))
    }
}

impl ServerCertVerifier for LazyRoots {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )
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
            &self.provider.signature_verification_algorithms,
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
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// Where the roots are read from.
#[derive(Debug, PartialEq, Eq)]
enum RootSource {
    /// One PEM bundle.
    Bundle(std::path::PathBuf),
    /// `rustls-native-certs`' search: `SSL_CERT_FILE` and `SSL_CERT_DIR`, else the system's
    /// file and directories.
    Native,
}

/// `SSL_CERT_FILE` alone, else the native search when `SSL_CERT_DIR` asks for a directory, else
/// the system bundle, else the native search.
fn root_source(
    variable: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    system_bundle: impl FnOnce() -> Option<std::path::PathBuf>,
) -> RootSource {
    let set = |name: &str| variable(name).filter(|value| !value.is_empty());
    match (set("SSL_CERT_FILE"), set("SSL_CERT_DIR")) {
        (Some(file), None) => RootSource::Bundle(file.into()),
        (_, Some(_)) => RootSource::Native,
        (None, None) => system_bundle().map_or(RootSource::Native, RootSource::Bundle),
    }
}

fn load_roots() -> Result<RootCertStore, RootsError> {
    let source = root_source(&|name| std::env::var_os(name), || {
        openssl_probe::probe().cert_file
    });
    let mut roots = RootCertStore::empty();
    match source {
        RootSource::Bundle(path) => {
            let certificates = CertificateDer::pem_file_iter(&path)
                .map_err(|source| RootsError::Read { path, source })?;
            roots.add_parsable_certificates(certificates.filter_map(Result::ok));
        }
        RootSource::Native => {
            roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
        }
    }
    if roots.is_empty() {
        return Err(RootsError::NoneLoaded);
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;
    use std::path::PathBuf;

    fn source(variables: &[(&str, &str)], bundle: Option<&str>) -> RootSource {
        let lookup = |name: &str| {
            variables
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| OsString::from(value))
        };
        root_source(&lookup, || bundle.map(PathBuf::from))
    }

    #[test]
    fn the_roots_come_from_one_bundle_file_unless_a_directory_is_asked_for() {
        let system = Some("/etc/ssl/certs/ca-certificates.crt");
        assert_eq!(
            source(&[], system),
            RootSource::Bundle(PathBuf::from("/etc/ssl/certs/ca-certificates.crt"))
        );
        assert_eq!(
            source(&[("SSL_CERT_FILE", "/corp/ca.pem")], system),
            RootSource::Bundle(PathBuf::from("/corp/ca.pem"))
        );
        assert_eq!(
            source(&[("SSL_CERT_DIR", "/corp/certs")], system),
            RootSource::Native
        );
        assert_eq!(source(&[("SSL_CERT_FILE", "")], None), RootSource::Native);
    }

    #[test]
    fn the_client_config_offers_http2_and_http1() {
        let config = client_config().unwrap();
        assert_eq!(
            config.alpn_protocols,
            [b"h2".to_vec(), b"http/1.1".to_vec()]
        );
    }
}
