//! HTTPS from certificate files (`tls_cert`, `tls_key`: PEM, as certbot and `tailscale cert`
//! write them), for an instance without a reverse proxy. The files are looked at again every
//! `RELOAD_EVERY`; a renewed pair is served to new connections from then on, and a pair that
//! does not load (half-written, or a key that does not match) leaves the old one in place.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio_rustls::TlsAcceptor;

use crate::config::Settings;

/// How often the files are checked for a change: well within the minute promised.
const RELOAD_EVERY: Duration = Duration::from_secs(30);

/// The configured pair, loaded, and what is needed to load it again.
pub struct Certificates {
    acceptor: TlsAcceptor,
    cert: PathBuf,
    key: PathBuf,
    current: Arc<Current>,
    /// The files' modification times and sizes when last read.
    seen: Stamps,
    reload_every: Duration,
}

type Stamps = (Option<(SystemTime, u64)>, Option<(SystemTime, u64)>);

/// The pair every new handshake gets.
#[derive(Debug)]
struct Current(RwLock<Arc<CertifiedKey>>);

impl ResolvesServerCert for Current {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.0.read().unwrap_or_else(|p| p.into_inner())))
    }
}

impl Certificates {
    /// Loads `tls_cert` and `tls_key` if configured: `None` serves plain HTTP; files that do
    /// not load stop the start with a message naming them.
    pub fn load(settings: &Settings) -> Result<Option<Certificates>, String> {
        let (Some(cert), Some(key)) = (&settings.tls_cert, &settings.tls_key) else {
            return Ok(None);
        };
        let seen = stamps(cert, key);
        let pair = load_pair(cert, key)?;
        let current = Arc::new(Current(RwLock::new(Arc::new(pair))));
        let mut config =
            rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .map_err(|e| format!("cannot set up TLS: {e}"))?
                .with_no_client_auth()
                .with_cert_resolver(Arc::clone(&current) as Arc<dyn ResolvesServerCert>);
        // HTTP/1.1 only, as without TLS (see server.rs).
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Some(Certificates {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            cert: cert.clone(),
            key: key.clone(),
            current,
            seen,
            reload_every: reload_every(),
        }))
    }

    /// The acceptor for the accept loop; it always hands out the current pair.
    pub fn acceptor(&self) -> TlsAcceptor {
        self.acceptor.clone()
    }

    /// Watches the files and swaps in a renewed pair; runs until aborted.
    pub fn watch(&self) -> tokio::task::JoinHandle<()> {
        let (cert, key, current, mut seen, every) = (
            self.cert.clone(),
            self.key.clone(),
            Arc::clone(&self.current),
            self.seen,
            self.reload_every,
        );
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                let (cert, key) = (cert.clone(), key.clone());
                let now = stamps(&cert, &key);
                if now == seen {
                    continue;
                }
                // Only a change is read, so a bad pair is reported once, not every round;
                // the next change (the other file of the pair arriving) is tried again.
                seen = now;
                let loaded = tokio::task::spawn_blocking(move || load_pair(&cert, &key)).await;
                match loaded {
                    Ok(Ok(pair)) => {
                        *current.0.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(pair);
                        tracing::info!("loaded the renewed TLS certificate");
                    }
                    Ok(Err(e)) => tracing::error!("{e}; still serving the previous certificate"),
                    Err(e) => tracing::error!("cannot reload the TLS certificate: {e}"),
                }
            }
        })
    }
}

/// Debug builds (the tests) may check more often: `PILLBOX_TEST_TLS_RELOAD_MS`.
fn reload_every() -> Duration {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("PILLBOX_TEST_TLS_RELOAD_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        return Duration::from_millis(ms.max(10));
    }
    RELOAD_EVERY
}

fn stamps(cert: &Path, key: &Path) -> Stamps {
    let stamp = |path: &Path| {
        std::fs::metadata(path)
            .ok()
            .and_then(|m| Some((m.modified().ok()?, m.len())))
    };
    (stamp(cert), stamp(key))
}

/// Reads a PEM certificate chain and its private key, and checks that they belong together.
pub fn load_pair(cert: &Path, key: &Path) -> Result<CertifiedKey, String> {
    let (cert_name, key_name) = (cert.display(), key.display());
    let pem = std::fs::read(cert).map_err(|e| format!("cannot read tls_cert {cert_name}: {e}"))?;
    let chain = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("tls_cert {cert_name} is not a PEM certificate chain: {e}"))?;
    if chain.is_empty() {
        return Err(format!(
            "tls_cert {cert_name} holds no certificate (expected -----BEGIN CERTIFICATE-----; use the full chain, e.g. certbot's fullchain.pem)"
        ));
    }
    let pem = std::fs::read(key).map_err(|e| format!("cannot read tls_key {key_name}: {e}"))?;
    let private = PrivateKeyDer::from_pem_slice(&pem).map_err(|e| {
        format!("tls_key {key_name} holds no PEM private key ({e}; e.g. certbot's privkey.pem)")
    })?;
    CertifiedKey::from_der(chain, private, &rustls::crypto::ring::default_provider())
        .map_err(|e| format!("tls_cert {cert_name} and tls_key {key_name} do not make a pair: {e}"))
}
