//! A person's channels (issue 24): ntfy, Gotify, Telegram and signed webhooks, checked when
//! saved. Secrets (tokens, passwords, a webhook's signing secret) are write-only: answers say
//! whether one is set, and a webhook's secret is shown once, when it is made.

use base64::Engine as _;
use chrono::{DateTime, Duration, Utc};
use rand_core::RngCore;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

use super::error::{ErrorCode, Problem, ServiceError, ServiceResult, not_found};
use crate::clock;
use crate::db::Stamp;
use crate::domain::notification::DeliveryMethod;
use crate::security::codes;
use crate::security::outbound::{Policy, UrlRefused};
use crate::store::channels::{self as store, Channel, NewChannel};
use crate::store::notify_prefs;

/// The kinds of channel.
pub const KINDS: [&str; 4] = ["ntfy", "gotify", "telegram", "webhook"];
/// The events a webhook can receive.
pub const EVENTS: [&str; 9] = [
    "reminder.due",
    "reminder.handled",
    "dose.logged",
    "dose.missed",
    "stock.low",
    "refill.due",
    "batch.expiring",
    "batch.expired",
    "escalation.sent",
];
/// The longest channel name.
pub const MAX_NAME: usize = 60;
/// A Telegram link code works this long.
const LINK_CODE_HOURS: i64 = 24;

/// A channel as the API shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChannelView {
    pub id: i64,
    /// ntfy, gotify, telegram or webhook.
    pub kind: String,
    pub name: String,
    /// What may be shown: `server_url`, `topic`, `username` (ntfy); `server_url` (Gotify);
    /// `url`, `events` (webhook). Never a token, password or secret.
    #[schema(value_type = Object)]
    pub config: Value,
    /// A token, password or webhook secret is set (its value is never answered).
    pub secret_set: bool,
    pub enabled: bool,
    /// active; pending (a Telegram chat not linked yet); disabled (`state_reason`: `gone`
    /// when a webhook answered 410, `telegram_stopped` when the chat sent /stop).
    pub state: String,
    #[schema(required = true)]
    pub state_reason: Option<String>,
    /// The last send's outcome, in English, and when.
    #[schema(required = true)]
    pub last_result: Option<String>,
    #[schema(required = true, value_type = Option<String>)]
    pub last_result_at: Option<Stamp>,
    #[schema(value_type = String)]
    pub created_at: Stamp,
    /// The method word that chooses it for reminders: `channel:<id>`.
    pub method: DeliveryMethod,
}

impl ChannelView {
    pub fn of(c: &Channel) -> ChannelView {
        ChannelView {
            id: c.id,
            kind: c.kind.clone(),
            name: c.name.clone(),
            config: c.config.clone(),
            secret_set: c.secret.is_some(),
            enabled: c.enabled,
            state: c.state.clone(),
            state_reason: c.state_reason.clone(),
            last_result: c.last_result.clone(),
            last_result_at: c.last_result_at,
            created_at: c.created_at,
            method: DeliveryMethod::Channel(c.id),
        }
    }
}

/// A new channel, as answered once: with the webhook's secret or the Telegram link.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedChannel {
    #[serde(flatten)]
    pub channel: ChannelView,
    /// A webhook's signing secret (`whsec_…`), shown this once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// A Telegram channel: the link that binds a chat (`https://t.me/<bot>?start=<code>`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_url: Option<String>,
}

/// What a person sends to create or change a channel.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ChannelBody {
    /// ntfy, gotify, telegram or webhook (create only; a channel keeps its kind).
    #[schema(value_type = Option<ChannelKind>)]
    pub kind: Option<String>,
    /// One line, at most 60 characters; the kind's name when left out.
    #[schema(max_length = 60, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    pub name: Option<String>,
    /// ntfy: `server_url`, `topic`, and `token` (`tk_…`) or `username` + `password`.
    /// Gotify: `server_url`, `token` (an application token). Webhook: `url`, `events`.
    /// Telegram: nothing. On a change, a secret left out stays; `null` removes it.
    #[schema(value_type = Option<ChannelConfig>)]
    pub config: Option<Map<String, Value>>,
    pub enabled: Option<bool>,
}

/// What a person sends to create a channel: `ChannelBody` with its `kind` and that kind's
/// settings (the document's name for the body of `POST /api/channels`).
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum NewChannelBody {
    Ntfy(NewNtfyChannel),
    Gotify(NewGotifyChannel),
    Webhook(NewWebhookChannel),
    Telegram(NewTelegramChannel),
}

macro_rules! new_channel {
    ($name:ident, $kind:ident, $kind_name:literal, $config:ty, $about:literal) => {
        #[doc = $about]
        #[derive(Deserialize, ToSchema)]
        #[allow(dead_code)]
        pub struct $name {
            kind: $kind,
            /// One line, at most 60 characters; the kind's name when left out.
            #[schema(max_length = 60, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
            name: Option<String>,
            config: $config,
            enabled: Option<bool>,
        }

        #[doc = concat!("`", $kind_name, "`")]
        #[derive(Deserialize, ToSchema)]
        #[allow(dead_code)]
        pub enum $kind {
            #[serde(rename = $kind_name)]
            #[schema(rename = $kind_name)]
            Kind,
        }
    };
}

new_channel!(
    NewNtfyChannel,
    NtfyKind,
    "ntfy",
    NtfyConfig,
    "A new ntfy channel."
);
new_channel!(
    NewGotifyChannel,
    GotifyKind,
    "gotify",
    GotifyConfig,
    "A new Gotify channel."
);
new_channel!(
    NewWebhookChannel,
    WebhookKind,
    "webhook",
    WebhookConfig,
    "A new webhook."
);
new_channel!(
    NewTelegramChannel,
    TelegramKind,
    "telegram",
    Option<TelegramConfig>,
    "A new Telegram channel: refused (`telegram_not_configured`) unless the operator set up a bot."
);

/// The kinds of channel (what `kind` takes; `KINDS`).
#[derive(ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)]
pub enum ChannelKind {
    Ntfy,
    Gotify,
    Telegram,
    Webhook,
}

/// A channel's settings, one set per kind (what `config` takes; `check_config` holds the
/// rules). Addresses are http(s) URLs (the document asks for a host name; a public IP
/// address is taken too); a loopback, link-local or private one is refused unless the
/// operator allows its network.
#[derive(Deserialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum ChannelConfig {
    Ntfy(NtfyConfig),
    Gotify(GotifyConfig),
    Webhook(WebhookConfig),
    Telegram(TelegramConfig),
}

/// An ntfy channel's settings.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct NtfyConfig {
    /// The ntfy server, e.g. `https://ntfy.sh`.
    #[schema(
        pattern = "^\\s*https?://[A-Za-z][A-Za-z0-9.-]*(:[0-9]{1,5})?(/[^\\s\\x00-\\x1f\\x7f-\\x9f]*)?\\s*$",
        max_length = 2000
    )]
    server_url: String,
    /// Letters, digits, `-` and `_`, at most 64.
    #[schema(pattern = "^\\s*[A-Za-z0-9_-]{1,64}\\s*$")]
    topic: String,
    /// An access token (`tk_…`); `null` removes it.
    #[schema(max_length = 2000, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    token: Option<String>,
    /// With `password`, instead of a token.
    #[schema(max_length = 2000, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    username: Option<String>,
    #[schema(max_length = 2000, pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*$")]
    password: Option<String>,
}

/// A Gotify channel's settings.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct GotifyConfig {
    /// The Gotify server.
    #[schema(
        pattern = "^\\s*https?://[A-Za-z][A-Za-z0-9.-]*(:[0-9]{1,5})?(/[^\\s\\x00-\\x1f\\x7f-\\x9f]*)?\\s*$",
        max_length = 2000
    )]
    server_url: String,
    /// An application token: required when the channel is made, kept when left out on a
    /// change.
    #[schema(
        max_length = 2000,
        pattern = "^[^\\x00-\\x1f\\x7f-\\x9f]*\\S[^\\x00-\\x1f\\x7f-\\x9f]*$"
    )]
    token: Option<String>,
}

/// A webhook's settings.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct WebhookConfig {
    /// Where the signed `POST`s go.
    #[schema(
        pattern = "^\\s*https?://[A-Za-z][A-Za-z0-9.-]*(:[0-9]{1,5})?(/[^\\s\\x00-\\x1f\\x7f-\\x9f]*)?\\s*$",
        max_length = 2000
    )]
    url: String,
    /// Some of the events in `EVENTS`; all of them when left out.
    #[schema(schema_with = webhook_events)]
    events: Option<Vec<String>>,
}

/// The document's webhook `events`: a list of `EVENTS`' names (from the list itself, so that
/// an event added there is in the document too), or null.
fn webhook_events() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    crate::domain::api_schema::nullable_array(
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(EVENTS)),
        format!(
            "Some of {}; all of them when left out.",
            EVENTS.map(|e| format!("`{e}`")).join(", ")
        ),
    )
    .build()
}

/// A Telegram channel has no settings: it is bound to a chat through its link.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
pub struct TelegramConfig {}

fn field_error(field: &str, message: impl Into<String>) -> ServiceError {
    ServiceError::Invalid(Problem::new(ErrorCode::ChannelInvalid, message).with_param("field", field))
}

fn channel_not_found() -> ServiceError {
    not_found(ErrorCode::ChannelNotFound, "Channel not found")
}

/// A text field: trimmed, present, one line.
fn text(config: &Map<String, Value>, field: &str, required: bool) -> ServiceResult<Option<String>> {
    match config.get(field) {
        None | Some(Value::Null) if required => Err(field_error(field, format!("{field} is required"))),
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let s = s.trim();
            if s.is_empty() && required {
                return Err(field_error(field, format!("{field} is required")));
            }
            if s.chars().any(char::is_control) {
                return Err(field_error(
                    field,
                    format!("{field} must be one line without control characters (check what was pasted)"),
                ));
            }
            if s.len() > 2000 {
                return Err(field_error(field, format!("{field} is too long")));
            }
            Ok((!s.is_empty()).then(|| s.to_owned()))
        }
        Some(_) => Err(field_error(field, format!("{field} must be text"))),
    }
}

fn url(config: &Map<String, Value>, field: &str, policy: &Policy) -> ServiceResult<String> {
    let value = text(config, field, true)?.unwrap_or_default();
    match policy.check_url(&value) {
        Ok(url) => Ok(url.to_string()),
        Err(UrlRefused::Address(why)) => Err(ServiceError::Invalid(
            Problem::new(
                ErrorCode::ChannelAddressNotAllowed,
                format!("This address is not allowed: {why}"),
            )
            .with_param("field", field),
        )),
        Err(UrlRefused::Malformed(why)) => Err(field_error(field, format!("{field}: {why}"))),
    }
}

/// The shown configuration and the secret of a kind, from what a person sent. `old` is the
/// channel being changed (its secret stays unless the body names it).
fn check_config(
    kind: &str,
    config: &Map<String, Value>,
    old: Option<&Channel>,
    policy: &Policy,
) -> ServiceResult<(Value, Option<String>)> {
    let keep = |field: &str| match config.get(field) {
        None => Ok(old.and_then(|c| c.secret.clone())),
        Some(_) => text(config, field, false),
    };
    let allowed: &[&str] = match kind {
        "ntfy" => &["server_url", "topic", "token", "username", "password"],
        "gotify" => &["server_url", "token"],
        "webhook" => &["url", "events"],
        _ => &[],
    };
    if let Some(unknown) = config.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(field_error(
            unknown,
            format!("{unknown} is not a setting of a {kind} channel"),
        ));
    }
    match kind {
        "ntfy" => {
            let server_url = url(config, "server_url", policy)?;
            let topic = text(config, "topic", true)?.unwrap_or_default();
            if topic.len() > 64
                || !topic
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
            {
                return Err(field_error(
                    "topic",
                    "topic may have only letters, digits, - and _, at most 64 of them",
                ));
            }
            let username = text(config, "username", false)?;
            let secret = match &username {
                Some(_) => keep("password")?,
                None => keep("token")?,
            };
            if username.is_some() && secret.is_none() {
                return Err(field_error("password", "password is required with a username"));
            }
            let mut shown = json!({ "server_url": server_url, "topic": topic });
            if let Some(user) = username {
                shown["username"] = json!(user);
            }
            Ok((shown, secret))
        }
        "gotify" => {
            let server_url = url(config, "server_url", policy)?;
            let token = keep("token")?.ok_or_else(|| field_error("token", "token is required"))?;
            Ok((json!({ "server_url": server_url }), Some(token)))
        }
        "webhook" => {
            let url = url(config, "url", policy)?;
            let events: Vec<String> = match config.get("events") {
                None | Some(Value::Null) => match old {
                    Some(c) => c
                        .config
                        .get("events")
                        .and_then(|e| serde_json::from_value(e.clone()).ok())
                        .unwrap_or_default(),
                    None => EVENTS.iter().map(|e| (*e).to_owned()).collect(),
                },
                Some(Value::Array(list)) => {
                    let mut out = Vec::new();
                    for e in list {
                        match e.as_str().filter(|e| EVENTS.contains(e)) {
                            Some(e) if !out.iter().any(|o| o == e) => out.push(e.to_owned()),
                            Some(_) => {}
                            None => {
                                return Err(field_error(
                                    "events",
                                    format!("events are some of: {}", EVENTS.join(", ")),
                                ));
                            }
                        }
                    }
                    out
                }
                Some(_) => return Err(field_error("events", "events must be a list")),
            };
            let secret = old
                .and_then(|c| c.secret.clone())
                .unwrap_or_else(new_webhook_secret);
            Ok((json!({ "url": url, "events": events }), Some(secret)))
        }
        "telegram" => Ok((json!({}), None)),
        _ => Err(field_error(
            "kind",
            format!("kind must be one of: {}", KINDS.join(", ")),
        )),
    }
}

/// A webhook's signing secret: `whsec_` and base64 of 32 random bytes.
pub fn new_webhook_secret() -> String {
    let mut bytes = [0u8; 32];
    rand_core::OsRng.fill_bytes(&mut bytes);
    format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

fn check_name(name: Option<&str>, kind: &str) -> ServiceResult<String> {
    let name = name
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or(match kind {
            "ntfy" => "ntfy",
            "gotify" => "Gotify",
            "telegram" => "Telegram",
            _ => "Webhook",
        });
    if name.chars().count() > MAX_NAME {
        return Err(field_error(
            "name",
            format!("name must be at most {MAX_NAME} characters"),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(field_error("name", "name must be one line"));
    }
    Ok(name.to_owned())
}

pub fn list(conn: &Connection, user_id: i64) -> ServiceResult<Vec<ChannelView>> {
    Ok(store::list(conn, user_id)?.iter().map(ChannelView::of).collect())
}

pub fn get(conn: &Connection, user_id: i64, id: i64) -> ServiceResult<Channel> {
    store::find(conn, user_id, id)?.ok_or_else(channel_not_found)
}

/// What creating a Telegram channel needs: the bot's user name, when Telegram is set up.
pub struct TelegramBot<'a> {
    pub username: Option<&'a str>,
}

/// Creates a channel. A webhook's secret and a Telegram link are answered this once.
pub fn create(
    conn: &mut Connection,
    user_id: i64,
    body: &ChannelBody,
    policy: &Policy,
    bot: &TelegramBot<'_>,
    now: DateTime<Utc>,
) -> ServiceResult<CreatedChannel> {
    let kind = body
        .kind
        .as_deref()
        .map(str::trim)
        .filter(|k| KINDS.contains(k))
        .ok_or_else(|| field_error("kind", format!("kind must be one of: {}", KINDS.join(", "))))?;
    let name = check_name(body.name.as_deref(), kind)?;
    let empty = Map::new();
    let (config, secret) = check_config(kind, body.config.as_ref().unwrap_or(&empty), None, policy)?;
    let (code, bot_name) = if kind == "telegram" {
        let bot_name = bot.username.ok_or_else(|| {
            ServiceError::Invalid(Problem::new(
                ErrorCode::TelegramNotConfigured,
                "Telegram is not set up on this server: the administrator sets telegram.bot_token",
            ))
        })?;
        (Some(codes::link_token()), Some(bot_name))
    } else {
        (None, None)
    };
    let at = clock::stamp(now);
    let tx = conn.transaction()?;
    let id = store::insert(
        &tx,
        &NewChannel {
            user_id,
            kind,
            name: &name,
            config: &config,
            secret: secret.as_deref(),
            state: if code.is_some() { "pending" } else { "active" },
            link_code_hash: code.as_deref().map(codes::hash_link_token).as_deref(),
            link_expires_at: code
                .as_ref()
                .map(|_| Stamp::from(now + Duration::hours(LINK_CODE_HOURS))),
            now: &at,
        },
    )?;
    if body.enabled == Some(false) {
        let mut c = store::find(&tx, user_id, id)?.ok_or_else(channel_not_found)?;
        c.enabled = false;
        store::update(&tx, &c)?;
    }
    let channel = store::find(&tx, user_id, id)?.ok_or_else(channel_not_found)?;
    tx.commit()?;
    Ok(CreatedChannel {
        channel: ChannelView::of(&channel),
        secret: (kind == "webhook").then(|| secret.unwrap_or_default()),
        link_url: code.zip(bot_name).map(|(code, bot)| telegram_link(bot, &code)),
    })
}

/// `https://t.me/<bot>?start=<code>`: a Telegram start parameter takes `A-Z a-z 0-9 _ -`,
/// which the link token's URL-safe base64 is.
pub fn telegram_link(bot: &str, code: &str) -> String {
    format!("https://t.me/{bot}?start={code}")
}

/// A new link for a pending (or stopped) Telegram channel.
pub fn relink(
    conn: &mut Connection,
    user_id: i64,
    id: i64,
    bot: &TelegramBot<'_>,
    now: DateTime<Utc>,
) -> ServiceResult<CreatedChannel> {
    let tx = conn.transaction()?;
    let channel = store::find(&tx, user_id, id)?.ok_or_else(channel_not_found)?;
    if channel.kind != "telegram" {
        return Err(field_error("kind", "only a Telegram channel is linked"));
    }
    let bot_name = bot.username.ok_or_else(|| {
        ServiceError::Invalid(Problem::new(
            ErrorCode::TelegramNotConfigured,
            "Telegram is not set up on this server: the administrator sets telegram.bot_token",
        ))
    })?;
    let code = codes::link_token();
    store::set_link_code(
        &tx,
        id,
        &codes::hash_link_token(&code),
        &clock::stamp(now + Duration::hours(LINK_CODE_HOURS)),
    )?;
    let channel = store::find(&tx, user_id, id)?.ok_or_else(channel_not_found)?;
    tx.commit()?;
    Ok(CreatedChannel {
        channel: ChannelView::of(&channel),
        secret: None,
        link_url: Some(telegram_link(bot_name, &code)),
    })
}

/// Changes a channel's name, settings or switch. Switching a disabled webhook back on makes
/// it active again.
pub fn update(
    conn: &mut Connection,
    user_id: i64,
    id: i64,
    body: &ChannelBody,
    policy: &Policy,
) -> ServiceResult<ChannelView> {
    let tx = conn.transaction()?;
    let mut channel = store::find(&tx, user_id, id)?.ok_or_else(channel_not_found)?;
    if let Some(kind) = body.kind.as_deref()
        && kind != channel.kind
    {
        return Err(field_error(
            "kind",
            "a channel keeps its kind: add a new channel instead",
        ));
    }
    if body.name.is_some() {
        channel.name = check_name(body.name.as_deref(), &channel.kind)?;
    }
    if let Some(config) = &body.config {
        // A change names the whole shown configuration: what it leaves out is as before.
        let mut merged = channel.config.as_object().cloned().unwrap_or_default();
        for (k, v) in config {
            merged.insert(k.clone(), v.clone());
        }
        let (shown, secret) = check_config(&channel.kind, &merged, Some(&channel), policy)?;
        channel.config = shown;
        channel.secret = secret;
    }
    if let Some(enabled) = body.enabled {
        channel.enabled = enabled;
        if enabled && channel.state == "disabled" && channel.state_reason.as_deref() == Some("gone") {
            store::set_state(&tx, id, "active", None)?;
        }
    }
    store::update(&tx, &channel)?;
    let saved = store::find(&tx, user_id, id)?.ok_or_else(channel_not_found)?;
    tx.commit()?;
    Ok(ChannelView::of(&saved))
}

/// Deletes a channel, and takes it out of the delivery methods that chose it: a
/// medication left with no method of its own follows the global ones, and global methods
/// left empty become push.
pub fn delete(conn: &mut Connection, user_id: i64, id: i64) -> ServiceResult<()> {
    let tx = conn.transaction()?;
    if !store::delete(&tx, user_id, id)? {
        return Err(channel_not_found());
    }
    let gone = DeliveryMethod::Channel(id);
    let mut global = notify_prefs::global(&tx, user_id)?;
    if global.delivery_methods.contains(&gone) {
        global.delivery_methods.retain(|m| *m != gone);
        if global.delivery_methods.is_empty() {
            global.delivery_methods = vec![DeliveryMethod::Push];
        }
        notify_prefs::save_global(&tx, user_id, &global)?;
    }
    for (medication_id, mut own) in notify_prefs::for_medications_of(&tx, user_id)? {
        if let Some(methods) = own.delivery_methods.as_mut()
            && methods.contains(&gone)
        {
            methods.retain(|m| *m != gone);
            if methods.is_empty() {
                own.delivery_methods = None;
            }
            notify_prefs::save_for_medication(&tx, medication_id, &own)?;
        }
    }
    tx.commit()?;
    Ok(())
}
