//! HTTPS from certificate files (`tls_cert`, `tls_key`: PEM, as certbot and `tailscale cert`
//! write them), for an instance without a reverse proxy. The files are looked at again every
//! `RELOAD_EVERY`; a renewed pair is served to new connections from then on, and a pair that
//! does not load (half-written, or a key that does not match) leaves the old one in place.

use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDateTime, Utc};
use std::os::unix::fs::MetadataExt;
use std::sync::{Arc, RwLock};
use std::time::Duration;

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
    /// The files as they were when last read.
    seen: Stamps,
    reload_every: Duration,
}

/// Each file's inode, change time and size: a rename over it, a rewrite and a chmod or chgrp
/// (a key that was unreadable a moment ago) all show.
type Stamp = Option<(u64, i64, i64, u64)>;
type Stamps = (Stamp, Stamp);

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
        warn_if_expiring(&pair);
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
                        tracing::info!(
                            "loaded the renewed TLS certificate{}",
                            expires(&pair)
                                .map(|at| format!(", valid until {}", at.format("%Y-%m-%d %H:%M UTC")))
                                .unwrap_or_default()
                        );
                        warn_if_expiring(&pair);
                        *current.0.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(pair);
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
            .map(|m| (m.ino(), m.ctime(), m.ctime_nsec(), m.len()))
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

/// Renewal that failed shows here first: a fortnight's notice in the log.
const EXPIRY_NOTICE_DAYS: i64 = 14;

fn warn_if_expiring(pair: &CertifiedKey) {
    let Some(at) = expires(pair) else {
        return;
    };
    let left = at - Utc::now();
    if left <= chrono::Duration::zero() {
        tracing::error!(
            "the TLS certificate expired on {}: browsers refuse it; renew it (certbot renew, tailscale cert)",
            at.format("%Y-%m-%d")
        );
    } else if left < chrono::Duration::days(EXPIRY_NOTICE_DAYS) {
        tracing::warn!(
            "the TLS certificate expires on {} ({} days): renew it (certbot renew, tailscale cert)",
            at.format("%Y-%m-%d"),
            left.num_days()
        );
    }
}

/// When the pair's own certificate stops being valid (its notAfter).
pub fn expires(pair: &CertifiedKey) -> Option<DateTime<Utc>> {
    not_after(pair.end_entity_cert().ok()?.as_ref())
}

/// Reads notAfter from an X.509 certificate's DER: Certificate → TBSCertificate → (version,
/// serial, signature, issuer) → Validity → its second time. A few lines of DER walking
/// rather than an X.509 crate for one field.
fn not_after(der: &[u8]) -> Option<DateTime<Utc>> {
    let (_, certificate, _) = der_element(der).filter(|(tag, _, _)| *tag == 0x30)?;
    let (_, tbs, _) = der_element(certificate).filter(|(tag, _, _)| *tag == 0x30)?;
    let mut rest = tbs;
    if rest.first() == Some(&0xa0) {
        rest = der_element(rest)?.2;
    }
    for _ in 0..3 {
        rest = der_element(rest)?.2;
    }
    let (_, validity, _) = der_element(rest).filter(|(tag, _, _)| *tag == 0x30)?;
    let after_start = der_element(validity)?.2;
    let (tag, time, _) = der_element(after_start)?;
    let text = std::str::from_utf8(time).ok()?;
    let full = match tag {
        // UTCTime: YYMMDDHHMMSSZ, years 1950-2049 (RFC 5280 4.1.2.5.1).
        0x17 if text.len() == 13 => {
            let century = if text[..2].parse::<u32>().ok()? >= 50 {
                "19"
            } else {
                "20"
            };
            format!("{century}{text}")
        }
        // GeneralizedTime: YYYYMMDDHHMMSSZ.
        0x18 if text.len() == 15 => text.to_owned(),
        _ => return None,
    };
    NaiveDateTime::parse_from_str(&full, "%Y%m%d%H%M%SZ")
        .ok()
        .map(|t| t.and_utc())
}

/// One DER element: its tag, its contents and what follows it.
fn der_element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, mut rest) = rest.split_first()?;
    let length = if first < 0x80 {
        usize::from(first)
    } else {
        let count = usize::from(first & 0x7f);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let (bytes, after) = rest.split_at(count);
        rest = after;
        bytes.iter().fold(0usize, |n, b| (n << 8) | usize::from(*b))
    };
    (rest.len() >= length).then(|| (tag, &rest[..length], &rest[length..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn certificate_until(year: i32, month: u8, day: u8) -> Vec<u8> {
        let mut params = rcgen::CertificateParams::new(vec!["pillbox.example.test".to_owned()]).unwrap();
        params.not_after = rcgen::date_time_ymd(year, month, day);
        let key = rcgen::KeyPair::generate().unwrap();
        params.self_signed(&key).unwrap().der().to_vec()
    }

    #[test]
    fn reads_not_after_in_both_time_forms() {
        // Before 2050 X.509 writes UTCTime, from 2050 on GeneralizedTime.
        let at = not_after(&certificate_until(2027, 2, 3)).unwrap();
        assert_eq!(at.format("%Y-%m-%d").to_string(), "2027-02-03");
        let at = not_after(&certificate_until(2061, 12, 31)).unwrap();
        assert_eq!(at.format("%Y-%m-%d").to_string(), "2061-12-31");
    }

    #[test]
    fn anything_but_a_certificate_has_no_expiry() {
        assert_eq!(not_after(b""), None);
        assert_eq!(not_after(b"\x30\x82\xff\xff"), None);
        let der = certificate_until(2030, 1, 1);
        assert_eq!(not_after(&der[..der.len() / 3]), None);
    }
}
