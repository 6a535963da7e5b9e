//! ntfy (https://docs.ntfy.sh/publish/): JSON publishing to the server's root, so titles and
//! bodies in any language arrive intact; `http` buttons that post the take link and clear
//! the notification; one `sequence_id` per reminder, so a repeat or the handled message
//! replaces the one before.

use std::time::Duration;

use base64::Engine as _;
use serde_json::json;

use super::{Context, Outcome, Outgoing, Priority, Protocol, Request, classify_status, field};
use crate::store::channels::Channel;

pub struct Ntfy;

/// ntfy's numeric priorities: 3 default, 4 high, 5 max.
fn priority(p: Priority) -> u8 {
    match p {
        Priority::Default => 3,
        Priority::High => 4,
        Priority::Urgent => 5,
    }
}

impl Protocol for Ntfy {
    fn request(&self, _ctx: &Context, channel: &Channel, out: &Outgoing) -> Result<Request, String> {
        let server = field(channel, "server_url").ok_or("the ntfy channel has no server URL")?;
        let topic = field(channel, "topic").ok_or("the ntfy channel has no topic")?;
        let m = &out.message;
        let mut actions = Vec::new();
        if let (Some(api), false) = (&m.take_api, m.handled) {
            let post = |label: &str, body: serde_json::Value| {
                json!({
                    "action": "http",
                    "label": label,
                    "url": api,
                    "method": "POST",
                    "headers": { "Content-Type": "application/json" },
                    "body": body.to_string(),
                    "clear": true,
                })
            };
            actions.push(post(&m.labels.taken, json!({ "status": "taken" })));
            if m.snooze {
                actions.push(post(
                    &m.labels.snooze,
                    json!({ "status": "snoozed", "minutes": 10 }),
                ));
            }
            actions.push(post(&m.labels.skip, json!({ "status": "skipped" })));
        }
        let view = m.take_page.as_ref().filter(|_| !m.handled).unwrap_or(&m.open_url);
        actions.push(json!({ "action": "view", "label": m.labels.open, "url": view, "clear": false }));
        let tags: &[&str] = match (m.handled, m.priority) {
            (true, _) => &["white_check_mark"],
            (false, Priority::Urgent) => &["warning", "pill"],
            (false, _) => &["pill"],
        };
        let body = json!({
            "topic": topic,
            "title": m.title,
            "message": m.body,
            "tags": tags,
            "priority": if m.handled { 2 } else { priority(m.priority) },
            "click": view,
            "actions": actions,
            "sequence_id": out.key,
        });
        let mut request = Request::json(
            reqwest::Method::POST,
            server.trim_end_matches('/').to_owned() + "/",
            &body,
            true,
        );
        if let Some(secret) = &channel.secret {
            let value = match field(channel, "username") {
                Some(user) => format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{secret}"))
                ),
                None => format!("Bearer {secret}"),
            };
            request.headers.push(("authorization", value));
        }
        Ok(request)
    }

    fn classify(&self, status: u16, retry_after: Option<Duration>, body: &[u8]) -> Outcome {
        match classify_status("ntfy", status, retry_after, body) {
            // ntfy names the message it stored.
            Outcome::Delivered { .. } => Outcome::Delivered {
                remote_id: serde_json::from_slice::<serde_json::Value>(body)
                    .ok()
                    .and_then(|v| v.get("id").and_then(|id| id.as_str()).map(str::to_owned)),
            },
            Outcome::Refused { error } if status == 403 => Outcome::Refused {
                error: error.replace(
                    "the access token was refused",
                    "the token (or user) may not publish to this topic",
                ),
            },
            other => other,
        }
    }
}
