//! Webhooks signed as Standard Webhooks 1.0 (https://www.standardwebhooks.com/): the body
//! `{type, timestamp, data}`, and `webhook-id` (the same on every retry),
//! `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`
//! with the secret the server made (`whsec_` + base64 of 32 random bytes).

use std::time::Duration;

use base64::Engine as _;
use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::Sha256;

use super::{Context, Outcome, Outgoing, Protocol, Request, classify_status, field};
use crate::store::channels::Channel;

pub struct Webhook;

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// The signature header's value for a message.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> Result<String, String> {
    let key = B64
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .map_err(|_| "the webhook's secret is not base64".to_owned())?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).map_err(|e| e.to_string())?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(format!("v1,{}", B64.encode(mac.finalize().into_bytes())))
}

impl Protocol for Webhook {
    fn request(&self, _ctx: &Context, channel: &Channel, out: &Outgoing) -> Result<Request, String> {
        let url = field(channel, "url").ok_or("the webhook has no URL")?;
        let secret = channel.secret.as_deref().ok_or("the webhook has no secret")?;
        let m = &out.message;
        let mut data = match &m.data {
            serde_json::Value::Object(map) => serde_json::Value::Object(map.clone()),
            _ => json!({}),
        };
        data["title"] = json!(m.title);
        data["body"] = json!(m.body);
        if let (Some(page), false) = (&m.take_page, m.handled) {
            data["take_url"] = json!(page);
            data["take_api_url"] = json!(m.take_api);
        }
        let timestamp = chrono::DateTime::from_timestamp(out.timestamp, 0)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .unwrap_or_default();
        let body = json!({ "type": out.event, "timestamp": timestamp, "data": data })
            .to_string()
            .into_bytes();
        let signature = sign(secret, &out.key, out.timestamp, &body)?;
        Ok(Request {
            method: reqwest::Method::POST,
            url: url.to_owned(),
            headers: vec![
                ("content-type", "application/json".into()),
                ("webhook-id", out.key.clone()),
                ("webhook-timestamp", out.timestamp.to_string()),
                ("webhook-signature", signature),
            ],
            body,
            person_url: true,
        })
    }

    fn classify(&self, status: u16, retry_after: Option<Duration>, body: &[u8]) -> Outcome {
        match classify_status("the webhook", status, retry_after, body) {
            // Any other refusal may be a receiver being deployed: Standard Webhooks retries.
            Outcome::Refused { error } if !matches!(status, 401 | 403) => Outcome::Retry {
                error,
                after: retry_after,
            },
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks specification's reference libraries.
    #[test]
    fn signs_as_the_specification_does() {
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let body = br#"{"test": 2432232314}"#;
        let signature = sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body).unwrap();
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }
}
