//! The instance's Telegram bot: it long-polls `getUpdates` (no public address needed) and
//! handles what people send it: `/start <code>` links the chat to the Pillbox channel whose
//! one-time code it is, `/stop` unlinks it, and a press on a reminder's button (Taken,
//! Snooze 10 min, Skip) records it through the reminder's take link and answers the press.
//! Editing the reminder's message to what happened is the channel queue's work.

use std::sync::Arc;
use std::time::Duration as StdDuration;

use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::channels::telegram::method_url;
use super::dispatcher::Engine;
use crate::clock;
use crate::db::DbError;
use crate::domain::dose::DoseStatus;
use crate::security::codes;
use crate::services::reminders as take;
use crate::store::channels as store;

/// How long one `getUpdates` waits for news (Telegram holds the request open).
const POLL_SECONDS: u64 = 25;

/// The running poller.
pub struct Poller {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Poller {
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(StdDuration::from_secs(2), self.task).await;
    }
}

/// Starts the poller when Telegram is set up (`telegram.bot_token`).
pub fn start(engine: &Arc<Engine>) -> Option<Poller> {
    let token = engine.settings.telegram.bot_token.clone()?;
    let (stop, stopped) = watch::channel(false);
    let engine = Arc::clone(engine);
    let task = tokio::spawn(async move { run(engine, token, stopped).await });
    Some(Poller { stop, task })
}

async fn run(engine: Arc<Engine>, token: String, mut stopped: watch::Receiver<bool>) {
    let api = engine.settings.telegram.api_url.clone();
    let client = reqwest::Client::builder()
        .timeout(StdDuration::from_secs(POLL_SECONDS + 10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default();
    let call = |method: &'static str, body: Value| {
        let request = client
            .post(method_url(&api, &token, method))
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        async move {
            let answer = request.send().await.map_err(|e| e.to_string())?;
            let status = answer.status();
            let bytes = answer.bytes().await.map_err(|e| e.to_string())?;
            let value: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
            if !status.is_success() || value.get("ok") != Some(&Value::Bool(true)) {
                return Err(format!(
                    "Telegram answered {status}: {}",
                    value
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                ));
            }
            Ok(value.get("result").cloned().unwrap_or(Value::Null))
        }
    };
    let mut wait = StdDuration::from_secs(1);
    // Who the bot is: its user name makes the links people open.
    loop {
        tokio::select! {
            _ = stopped.changed() => return,
            result = call("getMe", json!({})) => match result {
                Ok(me) => {
                    if let Some(name) = me.get("username").and_then(Value::as_str) {
                        let _ = engine.telegram_username.set(name.to_owned());
                    }
                    break;
                }
                Err(e) => {
                    tracing::warn!("the Telegram bot cannot be reached: {e}");
                    tokio::select! {
                        _ = stopped.changed() => return,
                        () = tokio::time::sleep(wait) => {}
                    }
                    wait = (wait * 2).min(StdDuration::from_secs(300));
                }
            }
        }
    }
    let mut offset: i64 = 0;
    wait = StdDuration::from_secs(1);
    loop {
        let body = json!({
            "offset": offset,
            "timeout": POLL_SECONDS,
            "allowed_updates": ["message", "callback_query"],
        });
        let updates = tokio::select! {
            _ = stopped.changed() => return,
            result = call("getUpdates", body) => result,
        };
        let updates = match updates {
            Ok(Value::Array(list)) => {
                wait = StdDuration::from_secs(1);
                list
            }
            Ok(_) => Vec::new(),
            Err(e) => {
                tracing::warn!("reading the Telegram bot's updates failed: {e}");
                tokio::select! {
                    _ = stopped.changed() => return,
                    () = tokio::time::sleep(wait) => {}
                }
                wait = (wait * 2).min(StdDuration::from_secs(300));
                continue;
            }
        };
        for update in updates {
            if let Some(id) = update.get("update_id").and_then(Value::as_i64) {
                offset = offset.max(id + 1);
            }
            let reply = handle(&engine, &update).await;
            match reply {
                Reply::None => {}
                Reply::Text(chat, text) => {
                    if let Err(e) = call("sendMessage", json!({ "chat_id": chat, "text": text })).await {
                        tracing::warn!("answering a Telegram chat failed: {e}");
                    }
                }
                Reply::Callback(id, text) => {
                    if let Err(e) = call(
                        "answerCallbackQuery",
                        json!({ "callback_query_id": id, "text": text }),
                    )
                    .await
                    {
                        tracing::warn!("answering a Telegram button failed: {e}");
                    }
                }
            }
        }
    }
}

enum Reply {
    None,
    Text(i64, String),
    Callback(String, String),
}

async fn handle(engine: &Arc<Engine>, update: &Value) -> Reply {
    if let Some(message) = update.get("message") {
        let Some(chat) = message.pointer("/chat/id").and_then(Value::as_i64) else {
            return Reply::None;
        };
        let text = message
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim();
        if let Some(code) = text.strip_prefix("/start").map(str::trim) {
            if code.is_empty() {
                return Reply::Text(
                    chat,
                    "Open the link from Pillbox (Settings → Notifications → Channels) to get reminders here."
                        .into(),
                );
            }
            let hash = codes::hash_link_token(code);
            let now = clock::stamp(engine.clock.now());
            let linked = engine
                .db
                .write(move |conn| Ok::<_, DbError>(store::link_chat(conn, &hash, chat, &now)?))
                .await;
            return Reply::Text(
                chat,
                match linked {
                    Ok(Some(_)) => "Linked: Pillbox reminders arrive in this chat. Send /stop to end them.".into(),
                    Ok(None) => "This link is used or expired: make a new one in Pillbox (Settings → Notifications → Channels).".into(),
                    Err(e) => {
                        tracing::error!("linking a Telegram chat failed: {e}");
                        "Pillbox could not link this chat; try again in a minute.".into()
                    }
                },
            );
        }
        if text == "/stop" {
            let stopped = engine
                .db
                .write(move |conn| Ok::<_, DbError>(store::unlink_chat(conn, chat)?))
                .await
                .unwrap_or(0);
            return Reply::Text(
                chat,
                if stopped > 0 {
                    "Unlinked: no more Pillbox reminders here. Link again from Pillbox's settings.".into()
                } else {
                    "This chat is not linked to Pillbox.".into()
                },
            );
        }
        return Reply::None;
    }
    let Some(press) = update.get("callback_query") else {
        return Reply::None;
    };
    let id = press
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let chat = press.pointer("/message/chat/id").and_then(Value::as_i64);
    let data = press
        .get("data")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let Some((action, token)) = data.split_once(':') else {
        return Reply::Callback(id, "Unknown button".into());
    };
    let token = token.to_owned();
    // Only a linked chat's buttons count (the token is the permission, the chat its owner).
    let linked = match chat {
        Some(chat) => engine
            .db
            .read(move |conn| Ok::<_, DbError>(!store::telegram_of_chat(conn, chat)?.is_empty()))
            .await
            .unwrap_or(false),
        None => false,
    };
    if !linked {
        return Reply::Callback(id, "This chat is not linked to Pillbox any more.".into());
    }
    let now = engine.clock.now();
    let outcome = match action {
        "z" => {
            engine
                .db
                .write(move |conn| {
                    take::snooze(conn, &token, Some(10), now).map(|(_, time)| format!("Snoozed until {time}"))
                })
                .await
        }
        "t" | "s" => {
            let status = if action == "t" {
                DoseStatus::Taken
            } else {
                DoseStatus::Skipped
            };
            engine
                .db
                .write(move |conn| take::log_take(conn, &token, status, now).map(|_| format!("✓ {status}")))
                .await
        }
        _ => return Reply::Callback(id, "Unknown button".into()),
    };
    engine.wake_withdrawals_if_any();
    Reply::Callback(
        id,
        match outcome {
            Ok(text) => text,
            Err(e) => e.to_string(),
        },
    )
}
