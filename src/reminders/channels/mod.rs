//! Channels: ntfy, Gotify, Telegram and signed webhooks. Each is one module behind
//! `Protocol` (build the request for a message, say what the answer means); the queue
//! (`channel_queue`) sends what they build, bounded in time and retried with backoff.

pub mod gotify;
pub mod ntfy;
pub mod telegram;
pub mod webhook;

use std::time::Duration;

pub use crate::services::messages::{Labels, Message, Priority};
use crate::store::channels::Channel;

/// What is sent: the message, its event, and the key every attempt shares.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub event: String,
    pub message: Message,
    /// ntfy's sequence id, the webhook-id: the same for every attempt and, for a
    /// reminder, for every message about it.
    pub key: String,
    /// The channel's own id of an earlier message this one replaces (a Telegram message).
    pub replaces: Option<String>,
    /// Unix seconds of this attempt.
    pub timestamp: i64,
}

/// An HTTP request a protocol built.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: reqwest::Method,
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
    /// The URL is the person's (checked against `channels.allow_networks`), not the
    /// operator's (the Telegram Bot API).
    pub person_url: bool,
}

impl Request {
    fn json(method: reqwest::Method, url: String, body: &serde_json::Value, person_url: bool) -> Request {
        Request {
            method,
            url,
            headers: vec![("content-type", "application/json".into())],
            body: body.to_string().into_bytes(),
            person_url,
        }
    }
}

/// What a channel's answer means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Taken; with the channel's own id of the message, if it names one.
    Delivered { remote_id: Option<String> },
    /// Worth trying again (a server error, too many requests, no answer), after `after`
    /// when the server said how long.
    Retry { error: String, after: Option<Duration> },
    /// A retry will not help (a refused token, a bad request).
    Refused { error: String },
    /// The endpoint is gone for good (a webhook's 410): the channel is disabled.
    Gone { error: String },
}

impl Outcome {
    pub fn error(&self) -> Option<&str> {
        match self {
            Outcome::Delivered { .. } => None,
            Outcome::Retry { error, .. } | Outcome::Refused { error } | Outcome::Gone { error } => {
                Some(error)
            }
        }
    }
}

/// A channel kind's protocol.
pub trait Protocol: Sync {
    /// The request that sends `out` over `channel`; `Err` when the channel's set-up cannot
    /// make one (a missing token).
    fn request(&self, ctx: &Context, channel: &Channel, out: &Outgoing) -> Result<Request, String>;

    /// What an answer means (the default: the status line, with the kind's words).
    fn classify(&self, status: u16, retry_after: Option<Duration>, body: &[u8]) -> Outcome;
}

/// What building a request needs besides the channel and the message.
#[derive(Debug, Clone)]
pub struct Context {
    pub telegram_api: String,
    pub telegram_token: Option<String>,
}

/// The protocol of a kind.
pub fn protocol(kind: &str) -> Option<&'static dyn Protocol> {
    match kind {
        "ntfy" => Some(&ntfy::Ntfy),
        "gotify" => Some(&gotify::Gotify),
        "telegram" => Some(&telegram::Telegram),
        "webhook" => Some(&webhook::Webhook),
        _ => None,
    }
}

/// The usual meaning of an HTTP status, in words that name the service.
pub fn classify_status(service: &str, status: u16, retry_after: Option<Duration>, body: &[u8]) -> Outcome {
    let detail = || {
        let text = String::from_utf8_lossy(body);
        let text: String = text.chars().take(200).collect();
        let text = text.trim().to_owned();
        if text.is_empty() {
            String::new()
        } else {
            format!(" ({text})")
        }
    };
    match status {
        200..=299 => Outcome::Delivered { remote_id: None },
        401 | 403 => Outcome::Refused {
            error: format!("{service} answered {status}: the access token was refused"),
        },
        410 => Outcome::Gone {
            error: format!("{service} answered 410: the endpoint is gone"),
        },
        429 => Outcome::Retry {
            error: format!("{service} answered 429: too many requests"),
            after: retry_after,
        },
        400..=499 => Outcome::Refused {
            error: format!("{service} answered {status}{}", detail()),
        },
        _ => Outcome::Retry {
            error: format!("{service} answered {status}{}", detail()),
            after: retry_after,
        },
    }
}

/// A channel URL with a path joined to it (`https://ntfy.example/` + `topic`).
pub fn join(base: &str, path: &str) -> String {
    format!("{}/{}", base.trim_end_matches('/'), path.trim_start_matches('/'))
}

/// A text config field of a channel.
pub fn field<'a>(channel: &'a Channel, name: &str) -> Option<&'a str> {
    channel
        .config
        .get(name)
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
}
