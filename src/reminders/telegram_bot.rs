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
use crate::db::{DbError, Stamp};
use crate::domain::dose::DoseStatus;
use crate::security::codes;
use crate::services::ServiceError;
use crate::services::messages::Formats;
use crate::services::reminders as take;
use crate::services::rounds::load_recipient;
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

/// The language a chat is answered in: the linked person's own, else the one Telegram says
/// the sender uses (`from.language_code`), else English.
async fn formats_of(engine: &Engine, user_id: Option<i64>, telegram_language: Option<&str>) -> Formats {
    let fallback = Formats::new(
        chrono_tz::UTC,
        None,
        None,
        telegram_language.map(|code| &code[..code.len().min(2)]),
    );
    let Some(user_id) = user_id else {
        return fallback;
    };
    engine
        .db
        .read(move |conn| Ok::<_, DbError>(load_recipient(conn, user_id)?))
        .await
        .ok()
        .flatten()
        .map_or(fallback, |recipient| recipient.formats)
}

/// The person a chat is linked to, if it is.
async fn owner_of_chat(engine: &Engine, chat: i64) -> Option<i64> {
    engine
        .db
        .read(move |conn| Ok::<_, DbError>(store::telegram_of_chat(conn, chat)?))
        .await
        .ok()
        .and_then(|channels| channels.first().map(|c| c.user_id))
}

async fn handle(engine: &Arc<Engine>, update: &Value) -> Reply {
    if let Some(message) = update.get("message") {
        let Some(chat) = message.pointer("/chat/id").and_then(Value::as_i64) else {
            return Reply::None;
        };
        let language = message.pointer("/from/language_code").and_then(Value::as_str);
        let text = message
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim();
        if let Some(code) = text.strip_prefix("/start").map(str::trim) {
            if code.is_empty() {
                let words = formats_of(engine, owner_of_chat(engine, chat).await, language)
                    .await
                    .words();
                return Reply::Text(chat, words.bot_start_hint.into());
            }
            let hash = codes::hash_link_token(code);
            let now = Stamp::from(engine.clock.now());
            let linked = engine
                .db
                .write(move |conn| {
                    let Some(id) = store::link_chat(conn, &hash, chat, now)? else {
                        return Ok::<_, DbError>(None);
                    };
                    Ok(store::by_id(conn, id)?.map(|c| c.user_id))
                })
                .await;
            let person = linked.as_ref().ok().copied().flatten();
            let words = formats_of(engine, person, language).await.words();
            return Reply::Text(
                chat,
                match linked {
                    Ok(Some(_)) => words.bot_linked.into(),
                    Ok(None) => words.bot_link_used.into(),
                    Err(e) => {
                        tracing::error!("linking a Telegram chat failed: {e}");
                        words.bot_link_failed.into()
                    }
                },
            );
        }
        if text == "/stop" {
            let person = owner_of_chat(engine, chat).await;
            let stopped = engine
                .db
                .write(move |conn| Ok::<_, DbError>(store::unlink_chat(conn, chat)?))
                .await
                .unwrap_or(0);
            let words = formats_of(engine, person, language).await.words();
            return Reply::Text(
                chat,
                if stopped > 0 {
                    words.bot_unlinked.into()
                } else {
                    words.bot_not_linked.into()
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
    let language = press.pointer("/from/language_code").and_then(Value::as_str);
    let chat = press.pointer("/message/chat/id").and_then(Value::as_i64);
    let data = press
        .get("data")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    // Only a linked chat's buttons count (the token is the permission, the chat its owner).
    let person = match chat {
        Some(chat) => owner_of_chat(engine, chat).await,
        None => None,
    };
    let formats = formats_of(engine, person, language).await;
    let words = formats.words();
    if person.is_none() {
        return Reply::Callback(id, words.bot_not_linked.into());
    }
    let (action, token) = match data.split_once(':') {
        Some((action @ ("t" | "s" | "z"), token)) => (action, token.to_owned()),
        _ => return Reply::Callback(id, words.bot_failed.into()),
    };
    let now = engine.clock.now();
    let at = |instant: chrono::DateTime<chrono::Utc>| {
        instant
            .with_timezone(&formats.tz)
            .format(formats.time)
            .to_string()
    };
    let outcome = if action == "z" {
        engine
            .db
            .write(move |conn| take::snooze(conn, &token, Some(10), now).map(|_| ()))
            .await
            .map(|()| {
                words
                    .handled_snoozed
                    .replace("{time}", &at(now + chrono::Duration::minutes(10)))
            })
    } else {
        let status = if action == "t" {
            DoseStatus::Taken
        } else {
            DoseStatus::Skipped
        };
        let done = match status {
            DoseStatus::Taken => words.handled_taken,
            _ => words.handled_skipped,
        };
        engine
            .db
            .write(move |conn| take::log_take(conn, &token, status, now).map(|_| ()))
            .await
            .map(|()| done.replace("{time}", &at(now)))
    };
    engine.wake_withdrawals_if_any();
    Reply::Callback(
        id,
        match outcome {
            Ok(text) => text,
            Err(ServiceError::NotFound(_)) => words.bot_expired.into(),
            Err(ServiceError::Conflict(_)) => words.bot_already_logged.into(),
            Err(e) => {
                tracing::warn!("a Telegram button could not be answered: {e}");
                words.bot_failed.into()
            }
        },
    )
}
