//! A local Web Push service for tests: it checks what a real push service checks (the
//! VAPID JWT signed with the key in `k`, `Content-Encoding: aes128gcm`, a TTL) and
//! decrypts each message with the subscription's private key, so tests see exactly what a
//! browser's service worker would receive.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;

/// One subscription a "browser" made: its keys and what the endpoint answers.
pub struct Device {
    keys: ece::EcKeyComponents,
    auth: [u8; 16],
    answer: StatusCode,
}

/// A message that passed every check and was decrypted.
#[derive(Debug, Clone)]
pub struct Received {
    pub device: String,
    pub payload: serde_json::Value,
    /// The VAPID public key (`k=`) the sender signed with.
    pub vapid_key: String,
    pub ttl: u64,
}

#[derive(Default)]
struct Inner {
    devices: HashMap<String, Device>,
    received: Vec<Received>,
    /// Requests refused, with the reason (bad signature, wrong encoding, …).
    rejected: Vec<String>,
    /// Requests per device, answered or not.
    hits: HashMap<String, usize>,
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
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        PushService { base, inner }
    }

    /// The prefix a Pillbox must allow (`push.allow_endpoints`).
    pub fn prefix(&self) -> String {
        format!("{}/push/", self.base)
    }

    /// A new device: fresh ECDH keys and auth secret, answering 201.
    pub fn subscribe(&self, name: &str) -> NewSubscription {
        let (pair, auth) = ece::generate_keypair_and_auth_secret().unwrap();
        let public = pair.pub_as_raw().unwrap();
        let endpoint = format!("{}/push/{name}", self.base);
        self.inner.lock().unwrap().devices.insert(
            name.to_owned(),
            Device {
                keys: pair.raw_components().unwrap(),
                auth,
                answer: StatusCode::CREATED,
            },
        );
        NewSubscription {
            json: serde_json::json!({
                "endpoint": endpoint,
                "keys": { "p256dh": B64.encode(public), "auth": B64.encode(auth) },
            }),
            endpoint,
        }
    }

    /// Makes a device answer `status` from now on (410: unsubscribed, 500: outage).
    pub fn answer(&self, name: &str, status: StatusCode) {
        self.inner.lock().unwrap().devices.get_mut(name).unwrap().answer = status;
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
    let mut inner = inner.lock().unwrap();
    *inner.hits.entry(device.clone()).or_default() += 1;
    match check(&inner, &device, &headers, &body) {
        Ok((payload, vapid_key, ttl)) => {
            let answer = inner.devices[&device].answer;
            if answer.is_success() {
                inner.received.push(Received {
                    device,
                    payload,
                    vapid_key,
                    ttl,
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
    // web-push puts the origin without the port in `aud`.
    validation.set_audience(&["http://127.0.0.1"]);
    validation.set_required_spec_claims(&["exp", "aud", "sub"]);
    let claims = jsonwebtoken::decode::<serde_json::Value>(&token, &decoding, &validation)
        .map_err(|e| format!("VAPID JWT rejected: {e}"))?
        .claims;
    let sub = claims["sub"].as_str().unwrap_or_default();
    if !(sub.starts_with("mailto:") || sub.starts_with("https://")) {
        return Err(format!("VAPID sub is not mailto:/https: ({sub})"));
    }
    let plain = ece::decrypt(&device.keys, &device.auth, body).map_err(|e| format!("cannot decrypt: {e}"))?;
    let payload = serde_json::from_slice(&plain).map_err(|e| format!("payload is not JSON: {e}"))?;
    Ok((payload, key, ttl))
}
