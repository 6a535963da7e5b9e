//! Local servers that follow the published protocols of the channels Pillbox sends to (none
//! of the real ones can run here): ntfy's JSON publishing with token auth, actions and
//! sequence ids (and its app's way of performing an `http` action), Gotify's `/message`,
//! Telegram's Bot API (getMe, getUpdates long poll, sendMessage, editMessageText,
//! answerCallbackQuery), and a webhook receiver that keeps what arrived for a verifier.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// A request as it arrived.
#[derive(Debug, Clone)]
pub struct Arrived {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Arrived {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Inner {
    arrived: Vec<Arrived>,
    /// ntfy and Gotify: the token a publisher must present (none: anyone may publish).
    token: Option<String>,
    /// The status the webhook answers.
    webhook_status: Option<u16>,
    /// Telegram: updates waiting for getUpdates, and the next message id.
    updates: VecDeque<Value>,
    next_update: i64,
    next_message: i64,
    /// ntfy: answers nothing for this long (a server that hangs).
    stall: Option<Duration>,
    /// ntfy: the next publishes get this status and `Retry-After` instead of being taken.
    refuse_next: VecDeque<(u16, Option<u64>)>,
    /// ntfy: publishes begun, answered or not.
    ntfy_hits: usize,
}

/// One local server that speaks all four protocols on its own paths.
#[derive(Clone)]
pub struct Doubles {
    pub base: String,
    inner: Arc<Mutex<Inner>>,
    news: Arc<Notify>,
}

type Shared = (Arc<Mutex<Inner>>, Arc<Notify>);

impl Doubles {
    pub async fn start() -> Doubles {
        let inner = Arc::new(Mutex::new(Inner {
            next_message: 100,
            ..Inner::default()
        }));
        let news = Arc::new(Notify::new());
        let app = Router::new()
            .route("/ntfy/", post(ntfy))
            .route("/gotify/message", post(gotify))
            .route("/hook", post(webhook))
            .route("/tg/{bot}/{method}", post(telegram))
            .with_state((inner.clone(), news.clone()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Doubles { base, inner, news }
    }

    pub fn require_token(&self, token: &str) {
        self.inner.lock().unwrap().token = Some(token.to_owned());
    }

    pub fn webhook_answers(&self, status: u16) {
        self.inner.lock().unwrap().webhook_status = Some(status);
    }

    /// The next ntfy publish is answered `status` (with `Retry-After: retry_after`).
    pub fn ntfy_refuses_next(&self, status: u16, retry_after: Option<u64>) {
        self.inner
            .lock()
            .unwrap()
            .refuse_next
            .push_back((status, retry_after));
    }

    /// Publishes the ntfy double answered, taken or not.
    pub fn ntfy_attempts(&self) -> usize {
        self.arrived("/ntfy-attempt").len()
    }

    pub fn ntfy_hits(&self) -> usize {
        self.inner.lock().unwrap().ntfy_hits
    }

    pub fn stall_ntfy(&self, pause: Duration) {
        self.inner.lock().unwrap().stall = Some(pause);
    }

    pub fn arrived(&self, prefix: &str) -> Vec<Arrived> {
        self.inner
            .lock()
            .unwrap()
            .arrived
            .iter()
            .filter(|a| a.path.starts_with(prefix))
            .cloned()
            .collect()
    }

    /// Waits until `n` requests under `prefix` arrived (at most 20 s).
    pub async fn wait_for(&self, prefix: &str, n: usize) -> Vec<Arrived> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let got = self.arrived(prefix);
            if got.len() >= n || tokio::time::Instant::now() > deadline {
                assert!(got.len() >= n, "{n} requests to {prefix} expected, got {got:?}");
                return got;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// What the ntfy app shows now: per sequence id, the latest message.
    pub fn ntfy_shown(&self) -> Vec<Value> {
        let mut shown: Vec<Value> = Vec::new();
        for m in self.arrived("/ntfy/").iter().map(Arrived::json) {
            match shown
                .iter_mut()
                .find(|s| s["sequence_id"] == m["sequence_id"] && !m["sequence_id"].is_null())
            {
                Some(old) => *old = m,
                None => shown.push(m),
            }
        }
        shown
    }

    /// Presses an `http` action button of an ntfy message the way the ntfy app does: the
    /// request the action names (method, headers, body), to its URL. Returns the status.
    pub async fn ntfy_press(&self, message: &Value, label: &str) -> (u16, Value) {
        let action = message["actions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["label"] == label && a["action"] == "http")
            .unwrap_or_else(|| panic!("no http action {label:?} in {message}"))
            .clone();
        let client = reqwest::Client::new();
        let method = action["method"].as_str().unwrap_or("POST");
        let mut request = client.request(method.parse().unwrap(), action["url"].as_str().unwrap());
        if let Some(headers) = action["headers"].as_object() {
            for (k, v) in headers {
                request = request.header(k, v.as_str().unwrap());
            }
        }
        if let Some(body) = action["body"].as_str() {
            request = request.body(body.to_owned());
        }
        let answer = request.send().await.unwrap();
        let status = answer.status().as_u16();
        (status, answer.json().await.unwrap_or(Value::Null))
    }

    /// Telegram: a person sends the bot a text from chat `chat`.
    pub fn telegram_says(&self, chat: i64, text: &str) {
        self.telegram_says_in(chat, text, "en");
    }

    /// Telegram: a person whose Telegram speaks `language` (its `language_code`) sends the bot
    /// a text from chat `chat`.
    pub fn telegram_says_in(&self, chat: i64, text: &str, language: &str) {
        let mut inner = self.inner.lock().unwrap();
        inner.next_update += 1;
        let id = inner.next_update;
        inner.updates.push_back(json!({
            "update_id": id,
            "message": {
                "message_id": 1,
                "from": { "id": chat, "is_bot": false, "first_name": "Kim", "language_code": language },
                "chat": { "id": chat, "type": "private" },
                "date": 0,
                "text": text,
            },
        }));
        drop(inner);
        self.news.notify_waiters();
    }

    /// Telegram: a person presses a button of message `message_id` in chat `chat`.
    pub fn telegram_presses(&self, chat: i64, message_id: i64, data: &str) {
        let mut inner = self.inner.lock().unwrap();
        inner.next_update += 1;
        let id = inner.next_update;
        inner.updates.push_back(json!({
            "update_id": id,
            "callback_query": {
                "id": format!("cb{id}"),
                "from": { "id": chat, "is_bot": false, "first_name": "Kim" },
                "message": { "message_id": message_id, "chat": { "id": chat, "type": "private" }, "date": 0 },
                "data": data,
            },
        }));
        drop(inner);
        self.news.notify_waiters();
    }
}

fn arrive(inner: &Arc<Mutex<Inner>>, path: String, headers: &HeaderMap, body: &Bytes) {
    inner.lock().unwrap().arrived.push(Arrived {
        path,
        headers: headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or_default().to_owned()))
            .collect(),
        body: body.to_vec(),
    });
}

fn authorised(inner: &Arc<Mutex<Inner>>, presented: Option<&str>) -> bool {
    match &inner.lock().unwrap().token {
        None => true,
        Some(token) => presented == Some(token.as_str()),
    }
}

/// ntfy: `POST /` with a JSON message; `Authorization: Bearer tk_…` when the topic is
/// protected; the answer is the stored message with its id.
async fn ntfy(State((inner, _)): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let stall = {
        let mut inner = inner.lock().unwrap();
        inner.ntfy_hits += 1;
        inner.stall
    };
    if let Some(pause) = stall {
        tokio::time::sleep(pause).await;
    }
    arrive(&inner, "/ntfy-attempt".into(), &headers, &body);
    let refusal = inner.lock().unwrap().refuse_next.pop_front();
    if let Some((status, retry_after)) = refusal {
        let mut answer = (
            StatusCode::from_u16(status).unwrap(),
            r#"{"code":42901,"http":429,"error":"limit reached: too many requests"}"#,
        )
            .into_response();
        if let Some(seconds) = retry_after {
            answer
                .headers_mut()
                .insert("retry-after", seconds.to_string().parse().unwrap());
        }
        return answer;
    }
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if !authorised(&inner, bearer) {
        return (
            StatusCode::UNAUTHORIZED,
            r#"{"code":40101,"http":401,"error":"unauthorized"}"#,
        )
            .into_response();
    }
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        return (
            StatusCode::BAD_REQUEST,
            r#"{"code":40024,"http":400,"error":"invalid request: body must be JSON"}"#,
        )
            .into_response();
    };
    if message["topic"].as_str().is_none_or(str::is_empty) {
        return (
            StatusCode::BAD_REQUEST,
            r#"{"code":40009,"http":400,"error":"invalid topic"}"#,
        )
            .into_response();
    }
    arrive(&inner, "/ntfy/".into(), &headers, &body);
    let id = format!("m{}", inner.lock().unwrap().arrived.len());
    axum::Json(
        json!({ "id": id, "event": "message", "topic": message["topic"], "message": message["message"] }),
    )
    .into_response()
}

/// Gotify: `POST /message` with the application token in `X-Gotify-Key`.
async fn gotify(State((inner, _)): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let key = headers.get("x-gotify-key").and_then(|v| v.to_str().ok());
    if !authorised(&inner, key) {
        return (StatusCode::UNAUTHORIZED, r#"{"error":"Unauthorized","errorCode":401,"errorDescription":"you need to provide a valid access token or user credentials to access this api"}"#).into_response();
    }
    arrive(&inner, "/gotify/message".into(), &headers, &body);
    let id = inner.lock().unwrap().arrived.len();
    axum::Json(json!({ "id": id, "appid": 1 })).into_response()
}

async fn webhook(State((inner, _)): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    arrive(&inner, "/hook".into(), &headers, &body);
    let status = inner.lock().unwrap().webhook_status.unwrap_or(204);
    StatusCode::from_u16(status).unwrap().into_response()
}

/// The Bot API under `/tg/bot<token>/<method>`; the double's bot is `pillbox_test_bot`
/// with the token `123:test`.
async fn telegram(
    State((inner, news)): State<Shared>,
    Path((bot, method)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if bot != "bot123:test" {
        return (
            StatusCode::UNAUTHORIZED,
            axum::Json(json!({ "ok": false, "error_code": 401, "description": "Unauthorized" })),
        )
            .into_response();
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let ok = |result: Value| axum::Json(json!({ "ok": true, "result": result })).into_response();
    match method.as_str() {
        "getMe" => {
            ok(json!({ "id": 123, "is_bot": true, "first_name": "Pillbox", "username": "pillbox_test_bot" }))
        }
        "getUpdates" => {
            let offset = request["offset"].as_i64().unwrap_or(0);
            let wait = Duration::from_secs(request["timeout"].as_u64().unwrap_or(0).min(25));
            let deadline = tokio::time::Instant::now() + wait;
            loop {
                let notified = news.notified();
                {
                    let mut inner = inner.lock().unwrap();
                    inner
                        .updates
                        .retain(|u| u["update_id"].as_i64().unwrap_or(0) >= offset);
                    if !inner.updates.is_empty() {
                        return ok(Value::Array(inner.updates.iter().cloned().collect()));
                    }
                }
                if tokio::time::timeout_at(deadline, notified).await.is_err() {
                    return ok(json!([]));
                }
            }
        }
        "sendMessage" | "editMessageText" | "answerCallbackQuery" => {
            arrive(&inner, format!("/tg/{method}"), &headers, &body);
            if method == "answerCallbackQuery" {
                return ok(json!(true));
            }
            let mut inner = inner.lock().unwrap();
            let id = if method == "sendMessage" {
                inner.next_message += 1;
                inner.next_message
            } else {
                request["message_id"].as_i64().unwrap_or(0)
            };
            ok(
                json!({ "message_id": id, "chat": { "id": request["chat_id"] }, "date": 0, "text": request["text"] }),
            )
        }
        _ => (
            StatusCode::NOT_FOUND,
            axum::Json(json!({ "ok": false, "error_code": 404, "description": "Not Found" })),
        )
            .into_response(),
    }
}
