//! Gotify (https://gotify.net/docs/pushmsg): `POST /message` with the application token in
//! `X-Gotify-Key`, a Markdown body whose links take, snooze or skip the dose, and the take
//! page as the notification's click target.

use std::time::Duration;

use serde_json::json;

use super::{Context, Outcome, Outgoing, Priority, Protocol, Request, classify_status, field, join};
use crate::store::channels::Channel;

pub struct Gotify;

impl Protocol for Gotify {
    fn request(&self, _ctx: &Context, channel: &Channel, out: &Outgoing) -> Result<Request, String> {
        let server = field(channel, "server_url").ok_or("the Gotify channel has no server URL")?;
        let token = channel
            .secret
            .as_deref()
            .ok_or("the Gotify channel has no application token")?;
        let m = &out.message;
        let mut text = m.body.clone();
        if let (Some(page), false) = (&m.take_page, m.handled) {
            // Gotify's links open a page; the take page asks before it records anything.
            text.push_str(&format!("\n\n[{}]({page})", m.labels.taken));
            if m.snooze {
                text.push_str(&format!(" · [{}]({page}?action=snooze)", m.labels.snooze));
            }
            text.push_str(&format!(" · [{}]({page}?action=skip)", m.labels.skip));
        }
        text.push_str(&format!("\n\n[{}]({})", m.labels.open, m.open_url));
        let click = m.take_page.as_ref().filter(|_| !m.handled).unwrap_or(&m.open_url);
        let body = json!({
            "title": m.title,
            "message": text,
            "priority": match (m.handled, m.priority) {
                (true, _) => 2,
                (false, Priority::Default) => 5,
                (false, Priority::High) => 7,
                (false, Priority::Urgent) => 10,
            },
            "extras": {
                "client::display": { "contentType": "text/markdown" },
                "client::notification": { "click": { "url": click } },
                "pillbox::reminder": { "key": out.key, "event": out.event },
            },
        });
        let mut request = Request::json(reqwest::Method::POST, join(server, "message"), &body, true);
        request.headers.push(("x-gotify-key", token.to_owned()));
        Ok(request)
    }

    fn classify(&self, status: u16, retry_after: Option<Duration>, body: &[u8]) -> Outcome {
        match classify_status("Gotify", status, retry_after, body) {
            Outcome::Delivered { .. } => Outcome::Delivered {
                remote_id: serde_json::from_slice::<serde_json::Value>(body)
                    .ok()
                    .and_then(|v| v.get("id").and_then(serde_json::Value::as_i64))
                    .map(|id| id.to_string()),
            },
            Outcome::Refused { error } if status == 401 || status == 403 => Outcome::Refused {
                error: error.replace("the access token", "the application token"),
            },
            other => other,
        }
    }
}
