//! Web Push (RFC 8030): the payload encrypted as RFC 8291 `aes128gcm` and signed with VAPID
//! (RFC 8292), both on RustCrypto, sent with our own HTTP client. Subscriptions may only
//! point at the browsers' push services or at a prefix the operator allowed, so the server
//! cannot be made to call arbitrary URLs.

use std::time::Duration;

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes128Gcm, Nonce};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hkdf::Hkdf;
use p256::ecdsa::SigningKey;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use rand_core::{OsRng, RngCore};
use serde::Serialize;
use sha2::Sha256;

use crate::security::jwt;
use crate::store::push_subscriptions::Subscription;

/// Hosts (and their sub-domains) of the browser vendors' push services.
const PUSH_SERVICES: &[&str] = &[
    "fcm.googleapis.com",
    "android.googleapis.com",
    "push.services.mozilla.com",
    "push.apple.com",
    "notify.windows.com",
];

/// How long a push service keeps an undelivered reminder (the device may be offline).
const TTL_SECONDS: u32 = 4 * 60 * 60;
/// The largest payload sent: what Google's and Mozilla's push services take once encrypted.
const MAX_PAYLOAD: usize = 3052;
/// The record size announced in the `aes128gcm` header; every payload fits one record.
const RECORD_SIZE: u32 = 4096;
/// How long a VAPID token is valid (RFC 8292 allows at most 24 hours).
const VAPID_VALID_SECONDS: i64 = 12 * 60 * 60;
/// A cached token is signed anew when less than this is left of it.
const VAPID_REUSE_MARGIN_SECONDS: i64 = 60 * 60;

pub struct Pusher {
    client: reqwest::Client,
    /// Signed VAPID tokens by audience: signing is an ECDSA operation per push otherwise.
    tokens: std::sync::Mutex<std::collections::HashMap<String, (String, i64)>>,
    vapid: SigningKey,
    /// The VAPID public key as browsers subscribed with it (`k=`).
    vapid_public: String,
    subject: String,
    allow_prefixes: Vec<String>,
}

/// What one push to one subscription came to.
#[derive(Debug)]
pub enum PushOutcome {
    Delivered,
    /// The push service says the subscription is gone (404/410): forget it.
    Gone(String),
    Failed(String),
}

/// The claims of a VAPID token (RFC 8292 §2).
#[derive(Serialize)]
struct VapidClaims<'a> {
    aud: String,
    exp: i64,
    sub: &'a str,
}

impl Pusher {
    /// `private_key` is the VAPID key as `pillbox gen-vapid` writes it: the P-256 scalar,
    /// base64url; `timeout` bounds each push (`push.timeout_seconds`).
    pub fn new(
        private_key: &str,
        subject: String,
        allow_prefixes: Vec<String>,
        timeout: Duration,
    ) -> Result<Pusher, String> {
        let unusable = |e: &dyn std::fmt::Display| format!("the VAPID private key is unusable: {e}");
        let bytes = B64
            .decode(private_key.trim().trim_end_matches('='))
            .map_err(|e| unusable(&e))?;
        let secret = SecretKey::from_slice(&bytes).map_err(|e| unusable(&e))?;
        let vapid_public = B64.encode(secret.public_key().to_encoded_point(false).as_bytes());
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("pillbox/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot set up the push client: {e}"))?;
        Ok(Pusher {
            client,
            tokens: std::sync::Mutex::new(std::collections::HashMap::new()),
            vapid: SigningKey::from(&secret),
            vapid_public,
            subject,
            allow_prefixes,
        })
    }

    /// Whether a subscription endpoint may be stored and called.
    pub fn endpoint_allowed(&self, endpoint: &str) -> bool {
        endpoint_allowed(endpoint, &self.allow_prefixes)
    }

    /// Sends one push. A `topic` makes the push service replace an undelivered message with
    /// the same topic: a reminder round sent again after a crash shows once.
    pub async fn send(
        &self,
        subscription: &Subscription,
        payload: &[u8],
        topic: Option<&str>,
    ) -> PushOutcome {
        if !self.endpoint_allowed(&subscription.endpoint) {
            return PushOutcome::Gone("this push service is no longer allowed".into());
        }
        if payload.len() > MAX_PAYLOAD {
            return PushOutcome::Failed(format!(
                "the message is too long for push ({} bytes, at most {MAX_PAYLOAD})",
                payload.len()
            ));
        }
        let body = match encrypt(&subscription.p256dh, &subscription.auth, payload) {
            Ok(body) => body,
            Err(e) => return PushOutcome::Gone(format!("the subscription's keys are unusable: {e}")),
        };
        let authorization = match self.authorization(&subscription.endpoint) {
            Ok(authorization) => authorization,
            Err(e) => return PushOutcome::Failed(format!("cannot sign the push request: {e}")),
        };
        let mut request = self.client.post(&subscription.endpoint);
        if let Some(topic) = topic {
            request = request.header("Topic", topic);
        }
        let request = request
            .header("TTL", TTL_SECONDS)
            // Reminders are time-critical: the device is woken for them.
            .header("Urgency", "high")
            .header(reqwest::header::CONTENT_ENCODING, "aes128gcm")
            .header(reqwest::header::CONTENT_TYPE, "application/octet-stream")
            .header(reqwest::header::AUTHORIZATION, authorization)
            .body(body);
        match request.send().await {
            Ok(response) => {
                let status = response.status();
                if status.is_success() {
                    PushOutcome::Delivered
                } else if status.as_u16() == 404 || status.as_u16() == 410 {
                    PushOutcome::Gone(format!(
                        "the push service answered {status}: subscription expired"
                    ))
                } else {
                    let text = response.text().await.unwrap_or_default();
                    let text: String = text.chars().take(200).collect();
                    PushOutcome::Failed(format!("the push service answered {status}: {}", text.trim()))
                }
            }
            Err(e) => PushOutcome::Failed(format!(
                "the push service could not be reached: {}",
                error_chain(&e)
            )),
        }
    }

    /// `vapid t=<JWT>, k=<public key>` for the push service that `endpoint` belongs to. A
    /// token is reused for its audience until it has less than an hour left.
    fn authorization(&self, endpoint: &str) -> Result<String, String> {
        let aud = audience(endpoint)?;
        // The push service checks `exp` against its own clock: wall time, not the server's
        // (possibly moved) clock.
        let now = chrono::Utc::now().timestamp();
        let mut tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((header, exp)) = tokens.get(&aud)
            && *exp - now > VAPID_REUSE_MARGIN_SECONDS
        {
            return Ok(header.clone());
        }
        let exp = now + VAPID_VALID_SECONDS;
        let claims = VapidClaims {
            aud: aud.clone(),
            exp,
            sub: &self.subject,
        };
        let token = jwt::sign_es256(&claims, &self.vapid).map_err(|e| e.to_string())?;
        let value = format!("vapid t={token}, k={}", self.vapid_public);
        tokens.insert(aud, (value.clone(), exp));
        Ok(value)
    }
}

/// The VAPID audience: the endpoint's origin, with its port when it has a non-default one.
fn audience(endpoint: &str) -> Result<String, String> {
    let url = reqwest::Url::parse(endpoint).map_err(|e| format!("the endpoint is not a URL: {e}"))?;
    let host = url.host_str().ok_or("the endpoint has no host")?;
    // `port()` is None for the scheme's default port, which the origin leaves out.
    Ok(match url.port() {
        Some(port) => format!("{}://{host}:{port}", url.scheme()),
        None => format!("{}://{host}", url.scheme()),
    })
}

/// Encrypts `payload` for a subscription (RFC 8291) with a fresh key pair and salt.
fn encrypt(p256dh: &str, auth: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
    let decode = |text: &str| B64.decode(text.trim().trim_end_matches('='));
    let receiver = decode(p256dh)
        .ok()
        .and_then(|bytes| PublicKey::from_sec1_bytes(&bytes).ok())
        .ok_or("p256dh is not a P-256 public key")?;
    let auth: [u8; 16] = decode(auth)
        .ok()
        .and_then(|bytes| bytes.try_into().ok())
        .ok_or("auth is not a 16-byte secret")?;
    let mut salt = [0u8; 16];
    OsRng.fill_bytes(&mut salt);
    encrypt_with(&receiver, &auth, payload, &SecretKey::random(&mut OsRng), &salt)
}

/// RFC 8291 §3 with the sender's key pair and the salt given: one `aes128gcm` record
/// (RFC 8188) behind the header `salt ‖ rs ‖ idlen ‖ sender's public key`.
fn encrypt_with(
    receiver: &PublicKey,
    auth: &[u8; 16],
    payload: &[u8],
    sender: &SecretKey,
    salt: &[u8; 16],
) -> Result<Vec<u8>, String> {
    let sender_public = sender.public_key().to_encoded_point(false);
    let receiver_public = receiver.to_encoded_point(false);
    let shared = p256::ecdh::diffie_hellman(sender.to_nonzero_scalar(), receiver.as_affine());
    // IKM = HKDF(auth, ECDH secret, "WebPush: info" ‖ 0 ‖ ua_public ‖ as_public)
    let mut key_info = b"WebPush: info\0".to_vec();
    key_info.extend_from_slice(receiver_public.as_bytes());
    key_info.extend_from_slice(sender_public.as_bytes());
    let mut ikm = [0u8; 32];
    Hkdf::<Sha256>::new(Some(auth), shared.raw_secret_bytes())
        .expand(&key_info, &mut ikm)
        .map_err(|e| e.to_string())?;
    let content = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut key = [0u8; 16];
    let mut nonce = [0u8; 12];
    content
        .expand(b"Content-Encoding: aes128gcm\0", &mut key)
        .and_then(|()| content.expand(b"Content-Encoding: nonce\0", &mut nonce))
        .map_err(|e| e.to_string())?;
    // The only record is the last: its padding delimiter is 2, and no padding follows.
    let mut record = Vec::with_capacity(payload.len() + 1);
    record.extend_from_slice(payload);
    record.push(2);
    let sealed = Aes128Gcm::new(&key.into())
        .encrypt(&Nonce::from(nonce), record.as_slice())
        .map_err(|e| e.to_string())?;
    let key_id = sender_public.as_bytes();
    let mut body = Vec::with_capacity(16 + 4 + 1 + key_id.len() + sealed.len());
    body.extend_from_slice(salt);
    body.extend_from_slice(&RECORD_SIZE.to_be_bytes());
    body.push(u8::try_from(key_id.len()).map_err(|e| e.to_string())?);
    body.extend_from_slice(key_id);
    body.extend_from_slice(&sealed);
    Ok(body)
}

pub(super) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Endpoints must be https URLs of a known push service, or lie under an allowed prefix
/// (same scheme, host and port, and a path below the prefix's). Credentials and dot
/// segments, which URL parsing would rewrite into another target, are refused.
pub fn endpoint_allowed(endpoint: &str, allow_prefixes: &[String]) -> bool {
    let Ok(url) = reqwest::Url::parse(endpoint) else {
        return false;
    };
    let lower = endpoint.to_ascii_lowercase();
    if !url.username().is_empty()
        || url.password().is_some()
        || lower.contains("/../")
        || lower.contains("/./")
        || lower.ends_with("/..")
        || lower.contains("%2e")
    {
        return false;
    }
    if allow_prefixes.iter().any(|prefix| under_prefix(&url, prefix)) {
        return true;
    }
    if url.scheme() != "https" || url.port().is_some_and(|p| p != 443) {
        return false;
    }
    let Some(host) = url.host_str() else {
        return false;
    };
    PUSH_SERVICES
        .iter()
        .any(|service| host == *service || host.ends_with(&format!(".{service}")))
}

fn under_prefix(url: &reqwest::Url, prefix: &str) -> bool {
    let Ok(allowed) = reqwest::Url::parse(prefix) else {
        return false;
    };
    let (path, base) = (url.path(), allowed.path());
    url.scheme() == allowed.scheme()
        && url.host_str() == allowed.host_str()
        && url.port_or_known_default() == allowed.port_or_known_default()
        && path.starts_with(base)
        && (base.ends_with('/') || path.len() == base.len() || path[base.len()..].starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The worked example of RFC 8291, Appendix A: same keys and salt, same bytes.
    #[test]
    fn encryption_matches_the_rfc_8291_example() {
        let key = |text: &str| B64.decode(text).unwrap();
        let sender = SecretKey::from_slice(&key("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw")).unwrap();
        let receiver = PublicKey::from_sec1_bytes(&key(
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        ))
        .unwrap();
        let auth: [u8; 16] = key("BTBZMqHH6r4Tts7J_aSIgg").try_into().unwrap();
        let salt: [u8; 16] = key("DGv6ra1nlYgDCS1FRnbzlw").try_into().unwrap();
        let body = encrypt_with(
            &receiver,
            &auth,
            b"When I grow up, I want to be a watermelon",
            &sender,
            &salt,
        )
        .unwrap();
        assert_eq!(
            B64.encode(body),
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        );
    }

    #[test]
    fn the_vapid_audience_is_the_endpoints_origin_with_its_port() {
        assert_eq!(
            audience("https://fcm.googleapis.com/fcm/send/abc").unwrap(),
            "https://fcm.googleapis.com"
        );
        assert_eq!(
            audience("https://push.example.com:443/x").unwrap(),
            "https://push.example.com"
        );
        assert_eq!(
            audience("http://127.0.0.1:9000/push/1").unwrap(),
            "http://127.0.0.1:9000"
        );
        assert!(audience("not a url").is_err());
    }

    #[test]
    fn subscription_keys_that_are_not_keys_are_refused() {
        let auth = B64.encode([7u8; 16]);
        assert!(encrypt("short", &auth, b"x").is_err());
        let point = B64.encode(SecretKey::random(&mut OsRng).public_key().to_encoded_point(false));
        assert!(encrypt(&point, "c2hvcnQ", b"x").is_err());
        assert!(encrypt(&point, &auth, b"x").is_ok());
        // Browsers may send the keys padded.
        assert!(encrypt(&format!("{point}="), &format!("{auth}=="), b"x").is_ok());
    }

    #[test]
    fn only_push_services_and_allowed_prefixes_are_accepted() {
        let none: Vec<String> = Vec::new();
        assert!(endpoint_allowed("https://fcm.googleapis.com/fcm/send/abc", &none));
        assert!(endpoint_allowed(
            "https://updates.push.services.mozilla.com/wpush/v2/x",
            &none
        ));
        assert!(endpoint_allowed("https://web.push.apple.com/QO", &none));
        assert!(endpoint_allowed(
            "https://wns2-par02p.notify.windows.com/w/?token=1",
            &none
        ));
        assert!(!endpoint_allowed("http://fcm.googleapis.com/fcm/send/abc", &none));
        assert!(!endpoint_allowed(
            "https://fcm.googleapis.com.evil.example/x",
            &none
        ));
        assert!(!endpoint_allowed(
            "https://evilfcm.googleapis.com.example/x",
            &none
        ));
        assert!(!endpoint_allowed("https://user@fcm.googleapis.com/x", &none));
        assert!(!endpoint_allowed("http://127.0.0.1:9000/push/1", &none));
        let local = vec!["http://127.0.0.1:9000/push/".to_owned()];
        assert!(endpoint_allowed("http://127.0.0.1:9000/push/1", &local));
        assert!(!endpoint_allowed("http://127.0.0.1:9001/push/1", &local));
        assert!(!endpoint_allowed("http://127.0.0.1:9000/push/../admin", &local));
        assert!(!endpoint_allowed(
            "http://127.0.0.1:9000/push/%2e%2e/admin",
            &local
        ));
        // A prefix without a trailing slash still means a host and a path, not a string.
        let relay = vec!["https://push.example.com".to_owned()];
        assert!(endpoint_allowed("https://push.example.com/abc", &relay));
        assert!(!endpoint_allowed(
            "https://push.example.com@169.254.169.254/",
            &relay
        ));
        assert!(!endpoint_allowed("https://push.example.com.evil.tld/x", &relay));
        let path = vec!["https://relay.example.com/push".to_owned()];
        assert!(!endpoint_allowed("https://relay.example.com/pushy/1", &path));
        assert!(endpoint_allowed("https://relay.example.com/push/1", &path));
    }
}
