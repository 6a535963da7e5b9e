//! Telegram (https://core.telegram.org/bots/api): one bot for the instance. Reminders are
//! `sendMessage` with an inline keyboard (Taken / Snooze 10 min / Skip); the handled
//! message edits the reminder's message (`editMessageText`) so the chat shows what
//! happened. The bot's updates (links, presses, /stop) are read by `telegram_bot`.

use std::time::Duration;

use serde_json::json;

use super::{Context, Outcome, Outgoing, Protocol, Request, classify_status};
use crate::store::channels::Channel;

pub struct Telegram;

/// A button's callback data: the status letter and the take link's token (at most 64 bytes).
pub fn callback(status: char, token: &str) -> String {
    format!("{status}:{token}")
}

/// A Bot API method's address.
pub fn method_url(api: &str, token: &str, method: &str) -> String {
    format!("{}/bot{token}/{method}", api.trim_end_matches('/'))
}

impl Protocol for Telegram {
    fn request(&self, ctx: &Context, channel: &Channel, out: &Outgoing) -> Result<Request, String> {
        let bot = ctx
            .telegram_token
            .as_deref()
            .ok_or("Telegram is not set up on this server (telegram.bot_token)")?;
        let chat = channel.chat_id.ok_or("the Telegram chat is not linked yet")?;
        let m = &out.message;
        let text = format!("{}\n{}", m.title, m.body);
        let mut body = json!({ "chat_id": chat, "text": text });
        if let (Some(token), false) = (&m.token, m.handled) {
            let mut row = vec![json!({ "text": m.labels.taken, "callback_data": callback('t', token) })];
            if m.snooze {
                row.push(json!({ "text": m.labels.snooze, "callback_data": callback('z', token) }));
            }
            row.push(json!({ "text": m.labels.skip, "callback_data": callback('s', token) }));
            body["reply_markup"] = json!({ "inline_keyboard": [row] });
        }
        let method = match (&out.replaces, m.handled) {
            (Some(message_id), true) => {
                body["message_id"] = json!(message_id.parse::<i64>().map_err(|_| "bad Telegram message id")?);
                "editMessageText"
            }
            _ => "sendMessage",
        };
        Ok(Request::json(
            reqwest::Method::POST,
            method_url(&ctx.telegram_api, bot, method),
            &body,
            false,
        ))
    }

    fn classify(&self, status: u16, retry_after: Option<Duration>, body: &[u8]) -> Outcome {
        let answer: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
        let description = answer
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or_default();
        match status {
            200 => Outcome::Delivered {
                remote_id: answer
                    .pointer("/result/message_id")
                    .and_then(serde_json::Value::as_i64)
                    .map(|id| id.to_string()),
            },
            401 | 404 => Outcome::Refused {
                error: format!("Telegram answered {status}: the bot token was refused"),
            },
            // The person blocked the bot or left the chat.
            403 => Outcome::Gone {
                error: format!("Telegram answered 403: {description}"),
            },
            429 => Outcome::Retry {
                error: "Telegram answered 429: too many requests".into(),
                after: retry_after.or_else(|| {
                    answer
                        .pointer("/parameters/retry_after")
                        .and_then(serde_json::Value::as_u64)
                        .map(Duration::from_secs)
                }),
            },
            // An edit that changes nothing is not a failure.
            400 if description.contains("message is not modified") => Outcome::Delivered { remote_id: None },
            _ => classify_status("Telegram", status, retry_after, description.as_bytes()),
        }
    }
}
