//! A local Web Push service for tests: it checks what a real push service checks (the
//! VAPID JWT signed with the key in `k`, `Content-Encoding: aes128gcm`, a TTL) and
//! decrypts each message with the subscription's private key as a browser does (RFC 8291,
//! written here apart from the server's encryption), so tests see exactly what a
//! browser's service worker would receive.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aes_gcm::aead::{Aead, KeyInit};
use aes_gcm::{Aes128Gcm, Nonce};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hkdf::Hkdf;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use p256::{PublicKey, SecretKey};
use rand_core::{OsRng, RngCore};
use sha2::Sha256;

/// One subscription a "browser" made: its keys and what the endpoint answers.
pub struct Device {
    key: SecretKey,
    auth: [u8; 16],
    answer: StatusCode,
    /// How long the endpoint takes before it answers (a slow push service).
    delay: Duration,
}

/// A message that passed every check and was decrypted.
#[derive(Debug, Clone)]
pub struct Received {
    pub device: String,
    pub payload: serde_json::Value,
    /// The VAPID public key (`k=`) the sender signed with.
    pub vapid_key: String,
    pub ttl: u64,
    /// The `Topic` header: a push service replaces an undelivered message of the same topic.
    pub topic: Option<String>,
}

#[derive(Default)]
struct Inner {
    /// `http://127.0.0.1:<port>`: the VAPID audience senders must sign for.
    origin: String,
    devices: HashMap<String, Device>,
    received: Vec<Received>,
    /// Requests refused, with the reason (bad signature, wrong encoding, …).
    rejected: Vec<String>,
    /// Requests per device, answered or not.
    hits: HashMap<String, usize>,
    /// Requests per device that have had their answer.
    answered: HashMap<String, usize>,
}

#[derive(Clone)]
pub struct PushService {
    pub base: String,
    inner: Arc<Mutex<Inner>>,
}

/// The JSON a browser's `PushSubscription.toJSON()` gives.
pub struct NewSubscription {
    pub endpoint: String,
    pub json: serde_json::Value,
}

impl PushService {
    /// Starts the service on an ephemeral port of 127.0.0.1 (inside the test's runtime).
    pub async fn start() -> PushService {
        let inner = Arc::new(Mutex::new(Inner::default()));
        let app = Router::new()
            .route("/push/{device}", post(receive))
            .with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        inner.lock().unwrap().origin = base.clone();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        PushService { base, inner }
    }

    /// The prefix a Pillbox must allow (`push.allow_endpoints`).
    pub fn prefix(&self) -> String {
        format!("{}/push/", self.base)
    }

    /// A new device: fresh ECDH keys and auth secret, answering 201.
    pub fn subscribe(&self, name: &str) -> NewSubscription {
        let key = SecretKey::random(&mut OsRng);
        let mut auth = [0u8; 16];
        OsRng.fill_bytes(&mut auth);
        let public = key.public_key().to_encoded_point(false);
        let endpoint = format!("{}/push/{name}", self.base);
        self.inner.lock().unwrap().devices.insert(
            name.to_owned(),
            Device {
                key,
                auth,
                answer: StatusCode::CREATED,
                delay: Duration::ZERO,
            },
        );
        NewSubscription {
            json: serde_json::json!({
                "endpoint": endpoint,
                "keys": { "p256dh": B64.encode(public.as_bytes()), "auth": B64.encode(auth) },
            }),
            endpoint,
        }
    }

    /// Makes a device answer `status` from now on (410: unsubscribed, 500: outage).
    pub fn answer(&self, name: &str, status: StatusCode) {
        self.inner.lock().unwrap().devices.get_mut(name).unwrap().answer = status;
    }

    /// Makes a device's endpoint take `delay` before it answers, from now on.
    pub fn delay(&self, name: &str, delay: Duration) {
        self.inner.lock().unwrap().devices.get_mut(name).unwrap().delay = delay;
    }

    /// Requests to a device that have had their answer.
    pub fn answered(&self, device: &str) -> usize {
        self.inner
            .lock()
            .unwrap()
            .answered
            .get(device)
            .copied()
            .unwrap_or(0)
    }

    pub fn received(&self, device: &str) -> Vec<Received> {
        self.inner
            .lock()
            .unwrap()
            .received
            .iter()
            .filter(|r| r.device == device)
            .cloned()
            .collect()
    }

    pub fn hits(&self, device: &str) -> usize {
        self.inner.lock().unwrap().hits.get(device).copied().unwrap_or(0)
    }

    pub fn rejected(&self) -> Vec<String> {
        self.inner.lock().unwrap().rejected.clone()
    }

    /// Waits (without blocking the runtime) for the `n`-th message to `device`.
    pub async fn wait_for(&self, device: &str, n: usize, within: Duration) -> Received {
        let deadline = Instant::now() + within;
        loop {
            let got = self.received(device);
            if got.len() >= n {
                return got[n - 1].clone();
            }
            assert!(
                Instant::now() < deadline,
                "no push #{n} for {device}; got {}, rejected {:?}",
                got.len(),
                self.rejected()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

async fn receive(
    State(inner): State<Arc<Mutex<Inner>>>,
    Path(device): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let delay = {
        let mut inner = inner.lock().unwrap();
        *inner.hits.entry(device.clone()).or_default() += 1;
        inner.devices.get(&device).map_or(Duration::ZERO, |d| d.delay)
    };
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    let mut inner = inner.lock().unwrap();
    *inner.answered.entry(device.clone()).or_default() += 1;
    match check(&inner, &device, &headers, &body) {
        Ok((payload, vapid_key, ttl)) => {
            let answer = inner.devices[&device].answer;
            if answer.is_success() {
                let topic = headers
                    .get("topic")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                inner.received.push(Received {
                    device,
                    payload,
                    vapid_key,
                    ttl,
                    topic,
                });
            }
            answer
        }
        Err(reason) => {
            inner.rejected.push(reason);
            StatusCode::BAD_REQUEST
        }
    }
}

type Checked = (serde_json::Value, String, u64);

fn check(inner: &Inner, device: &str, headers: &HeaderMap, body: &[u8]) -> Result<Checked, String> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
            .ok_or_else(|| format!("missing {name}"))
    };
    let device = inner.devices.get(device).ok_or("unknown device")?;
    if header("content-encoding")? != "aes128gcm" {
        return Err("content-encoding is not aes128gcm".into());
    }
    let ttl: u64 = header("ttl")?.parse().map_err(|_| "TTL is not a number")?;
    // RFC 8030 §5.4: at most 32 characters of the URL-safe base64 alphabet.
    if let Ok(topic) = header("topic")
        && (topic.len() > 32
            || !topic
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    {
        return Err(format!("topic {topic:?} is not 1-32 URL-safe base64 characters"));
    }
    // Authorization: vapid t=<JWT>, k=<public key>
    let authorization = header("authorization")?;
    let rest = authorization
        .strip_prefix("vapid ")
        .ok_or("not a vapid authorization")?;
    let mut token = None;
    let mut key = None;
    for part in rest.split(',') {
        let part = part.trim();
        if let Some(t) = part.strip_prefix("t=") {
            token = Some(t.to_owned());
        } else if let Some(k) = part.strip_prefix("k=") {
            key = Some(k.to_owned());
        }
    }
    let (token, key) = (token.ok_or("no t=")?, key.ok_or("no k=")?);
    let point = B64
        .decode(key.trim_end_matches('='))
        .map_err(|_| "k is not base64url")?;
    if point.len() != 65 || point[0] != 4 {
        return Err("k is not an uncompressed P-256 point".into());
    }
    let decoding =
        jsonwebtoken::DecodingKey::from_ec_components(&B64.encode(&point[1..33]), &B64.encode(&point[33..]))
            .map_err(|e| format!("bad key: {e}"))?;
    let mut validation = jsonwebtoken::Validation::new(jsonwebtoken::Algorithm::ES256);
    // The audience is the endpoint's origin, port included (RFC 8292 §2).
    validation.set_audience(&[inner.origin.as_str()]);
    validation.set_required_spec_claims(&["exp", "aud", "sub"]);
    let claims = jsonwebtoken::decode::<serde_json::Value>(&token, &decoding, &validation)
        .map_err(|e| format!("VAPID JWT rejected: {e}"))?
        .claims;
    let sub = claims["sub"].as_str().unwrap_or_default();
    if !(sub.starts_with("mailto:") || sub.starts_with("https://")) {
        return Err(format!("VAPID sub is not mailto:/https: ({sub})"));
    }
    let plain = decrypt(device, body).map_err(|e| format!("cannot decrypt: {e}"))?;
    let payload = serde_json::from_slice(&plain).map_err(|e| format!("payload is not JSON: {e}"))?;
    Ok((payload, key, ttl))
}

/// RFC 8291 as a user agent does it: the `aes128gcm` header names the salt, the record size
/// and the sender's ephemeral key; ECDH with the subscription's key and HKDF with its auth
/// secret give the content key and nonce of the one record, whose padding ends in 2.
fn decrypt(device: &Device, body: &[u8]) -> Result<Vec<u8>, String> {
    if body.len() < 21 {
        return Err("shorter than the aes128gcm header".into());
    }
    let (salt, rest) = body.split_at(16);
    let record_size = u32::from_be_bytes(rest[..4].try_into().unwrap()) as usize;
    let id_length = usize::from(rest[4]);
    let rest = &rest[5..];
    if id_length != 65 || rest.len() < id_length {
        return Err(format!("the key id is {id_length} bytes, not a P-256 point"));
    }
    let (key_id, sealed) = rest.split_at(id_length);
    if sealed.len() > record_size || record_size < 18 {
        return Err(format!("not one record of at most {record_size} bytes"));
    }
    let sender = PublicKey::from_sec1_bytes(key_id).map_err(|_| "the key id is not a P-256 key")?;
    let shared = p256::ecdh::diffie_hellman(device.key.to_nonzero_scalar(), sender.as_affine());
    let mut info = b"WebPush: info\0".to_vec();
    info.extend_from_slice(device.key.public_key().to_encoded_point(false).as_bytes());
    info.extend_from_slice(key_id);
    let mut ikm = [0u8; 32];
    Hkdf::<Sha256>::new(Some(&device.auth), shared.raw_secret_bytes())
        .expand(&info, &mut ikm)
        .unwrap();
    let prk = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let (mut key, mut nonce) = ([0u8; 16], [0u8; 12]);
    prk.expand(b"Content-Encoding: aes128gcm\0", &mut key).unwrap();
    prk.expand(b"Content-Encoding: nonce\0", &mut nonce).unwrap();
    let mut record = Aes128Gcm::new(&key.into())
        .decrypt(&Nonce::from(nonce), sealed)
        .map_err(|_| "the record does not authenticate")?;
    let delimiter = record
        .iter()
        .rposition(|&b| b != 0)
        .ok_or("the record has no padding delimiter")?;
    if record[delimiter] != 2 {
        return Err(format!(
            "the last record's delimiter is {}, not 2",
            record[delimiter]
        ));
    }
    record.truncate(delimiter);
    Ok(record)
}
