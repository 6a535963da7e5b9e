//! Web Push (RFC 8030/8291/8292) with the web-push crate for encryption and VAPID, sent
//! with our own HTTP client. Subscriptions may only point at the browsers' push services
//! or at a prefix the operator allowed, so the server cannot be made to call arbitrary URLs.

use std::time::Duration;

use web_push::{ContentEncoding, PartialVapidSignatureBuilder, SubscriptionInfo, WebPushMessageBuilder};

use crate::store::push_subscriptions::Subscription;

/// Hosts (and their sub-domains) of the browser vendors' push services.
const PUSH_SERVICES: &[&str] = &[
    "fcm.googleapis.com",
    "android.googleapis.com",
    "push.services.mozilla.com",
    "push.apple.com",
    "notify.windows.com",
];

const SEND_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a push service keeps an undelivered reminder (the device may be offline).
const TTL_SECONDS: u32 = 4 * 60 * 60;

pub struct Pusher {
    client: reqwest::Client,
    vapid: PartialVapidSignatureBuilder,
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

impl Pusher {
    pub fn new(private_key: &str, subject: String, allow_prefixes: Vec<String>) -> Result<Pusher, String> {
        let vapid = web_push::VapidSignatureBuilder::from_base64_no_sub(private_key)
            .map_err(|e| format!("the VAPID private key is unusable: {e}"))?;
        let client = reqwest::Client::builder()
            .timeout(SEND_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("pillbox/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot set up the push client: {e}"))?;
        Ok(Pusher {
            client,
            vapid,
            subject,
            allow_prefixes,
        })
    }

    /// Whether a subscription endpoint may be stored and called.
    pub fn endpoint_allowed(&self, endpoint: &str) -> bool {
        endpoint_allowed(endpoint, &self.allow_prefixes)
    }

    pub async fn send(&self, subscription: &Subscription, payload: &[u8]) -> PushOutcome {
        if !self.endpoint_allowed(&subscription.endpoint) {
            return PushOutcome::Gone("this push service is no longer allowed".into());
        }
        let request = match self.build(subscription, payload) {
            Ok(request) => request,
            Err(e) => return PushOutcome::Gone(format!("the subscription's keys are unusable: {e}")),
        };
        let mut builder = self.client.post(request.uri).body(request.body);
        for (name, value) in request.headers {
            builder = builder.header(name, value);
        }
        match builder.send().await {
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

    fn build(&self, subscription: &Subscription, payload: &[u8]) -> Result<PushRequest, String> {
        let info = SubscriptionInfo::new(
            subscription.endpoint.as_str(),
            subscription.p256dh.as_str(),
            subscription.auth.as_str(),
        );
        let mut signature = self.vapid.clone().add_sub_info(&info);
        signature.add_claim("sub", self.subject.as_str());
        let signature = signature.build().map_err(|e| e.to_string())?;
        let mut message = WebPushMessageBuilder::new(&info);
        message.set_payload(ContentEncoding::Aes128Gcm, payload);
        message.set_vapid_signature(signature);
        message.set_ttl(TTL_SECONDS);
        let message = message.build().map_err(|e| e.to_string())?;
        let request = web_push::request_builder::build_request::<Vec<u8>>(message);
        let headers = request
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), value.as_bytes().to_vec()))
            .collect();
        Ok(PushRequest {
            uri: request.uri().to_string(),
            headers,
            body: request.into_body(),
        })
    }
}

/// The encrypted, signed request for one subscription.
struct PushRequest {
    uri: String,
    headers: Vec<(String, Vec<u8>)>,
    body: Vec<u8>,
}

fn error_chain(e: &dyn std::error::Error) -> String {
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
