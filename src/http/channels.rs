//! `/api/channels/*`: a person's channels (ntfy, Gotify, Telegram, signed webhooks), which
//! join push and e-mail as delivery methods (`channel:<id>`). The rules are in
//! `services::channels`; sending is the engine's (`reminders::channel_queue`).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{Message, message};
use super::error::{ApiError, ApiResult, Data, ErrorBody, data};
use super::extract::{ApiJson, ApiPath};
use super::routes;
use super::session::AuthUser;
use crate::domain::notification::DeliveryMethod;
use crate::services::ErrorCode;
use crate::services::channels::{
    self, ChannelBody, ChannelView, CreatedChannel, NewChannelBody, TelegramBot,
};

/// Your channels, oldest first. Secrets are never answered (`secret_set` says whether one is).
#[utoipa::path(
    get,
    path = "/channels",
    tag = "channels",
    responses(
        (status = 200, description = "The channels", body = Data<Vec<ChannelView>>),
    ),
)]
pub async fn list(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<Vec<ChannelView>>>> {
    let listed = state
        .db
        .read(move |conn| Ok::<_, ApiError>(channels::list(conn, user.id)?))
        .await?;
    Ok(data(listed))
}

/// Adds a channel. `kind` is ntfy, gotify, telegram or webhook; `config` holds its settings
/// (see `ChannelBody`). A webhook's answer carries its signing `secret` this once; a
/// Telegram channel's carries `link_url`, and the channel is `pending` until a chat sends
/// the bot that link's /start.
#[utoipa::path(
    post,
    path = "/channels",
    tag = "channels",
    request_body = NewChannelBody,
    responses(
        (status = 201, description = "The new channel", body = Data<CreatedChannel>),
        (status = 400, description = "`channel_invalid` (`params.field` names the setting: an unknown kind, a missing topic or token, a URL that is not http(s), a line break in a token), `channel_address_not_allowed` (a loopback, link-local or private address the operator has not allowed), `telegram_not_configured`", body = ErrorBody),
    ),
)]
pub async fn create(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<ChannelBody>,
) -> ApiResult<(StatusCode, Json<Data<CreatedChannel>>)> {
    let now = state.clock.now();
    let engine = state.engine.clone();
    let created = state
        .db
        .write(move |conn| {
            let bot = TelegramBot {
                username: engine.telegram_username(),
            };
            Ok::<_, ApiError>(channels::create(
                conn,
                user.id,
                &body,
                engine.channels.policy(),
                &bot,
                now,
            )?)
        })
        .await?;
    Ok((StatusCode::CREATED, data(created)))
}

/// Changes a channel: its `name`, `enabled`, or settings in `config` (settings left out stay
/// as they are; a secret left out stays, `null` removes an optional one). A webhook disabled
/// because it answered 410 is active again once enabled.
#[utoipa::path(
    put,
    path = "/channels/{id}",
    tag = "channels",
    request_body = ChannelBody,
    params(("id" = i64, Path, description = "The channel's id")),
    responses(
        (status = 200, description = "The channel as saved", body = Data<ChannelView>),
        (status = 400, description = "`channel_invalid` (`params.field`), `channel_address_not_allowed`", body = ErrorBody),
        (status = 404, description = "`channel_not_found`", body = ErrorBody),
    ),
)]
pub async fn update(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(body): ApiJson<ChannelBody>,
) -> ApiResult<Json<Data<ChannelView>>> {
    let engine = state.engine.clone();
    let saved = state
        .db
        .write(move |conn| {
            Ok::<_, ApiError>(channels::update(
                conn,
                user.id,
                id,
                &body,
                engine.channels.policy(),
            )?)
        })
        .await?;
    Ok(data(saved))
}

/// Deletes a channel; the reminders that chose it keep their other methods (a medication
/// left with none follows the global ones; global methods left empty become push).
#[utoipa::path(
    delete,
    path = "/channels/{id}",
    tag = "channels",
    params(("id" = i64, Path, description = "The channel's id")),
    responses(
        (status = 200, description = "The channel is deleted", body = Message),
        (status = 404, description = "`channel_not_found`", body = ErrorBody),
    ),
)]
pub async fn delete(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Message>> {
    state
        .db
        .write(move |conn| Ok::<_, ApiError>(channels::delete(conn, user.id, id)?))
        .await?;
    Ok(message("Channel deleted"))
}

/// A new Telegram link for a channel (pending, or stopped from the chat).
#[utoipa::path(
    post,
    path = "/channels/{id}/link",
    tag = "channels",
    params(("id" = i64, Path, description = "The channel's id")),
    responses(
        (status = 200, description = "The channel with its new `link_url`", body = Data<CreatedChannel>),
        (status = 400, description = "`channel_invalid` (not a Telegram channel), `telegram_not_configured`", body = ErrorBody),
        (status = 404, description = "`channel_not_found`", body = ErrorBody),
    ),
)]
pub async fn link(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Data<CreatedChannel>>> {
    let now = state.clock.now();
    let engine = state.engine.clone();
    let linked = state
        .db
        .write(move |conn| {
            let bot = TelegramBot {
                username: engine.telegram_username(),
            };
            Ok::<_, ApiError>(channels::relink(conn, user.id, id, &bot, now)?)
        })
        .await?;
    Ok(data(linked))
}

/// What a channel answered a test message.
#[derive(Serialize, ToSchema)]
pub struct TestResult {
    pub ok: bool,
    /// The channel's own answer ("ntfy answered 401: the access token was refused").
    pub detail: String,
    /// `channel_sent`, `channel_failed` or `channel_unavailable`, with `params` (`name`,
    /// `kind`, `detail`), for the app to translate.
    pub code: String,
    #[schema(value_type = Object)]
    pub params: serde_json::Value,
}

#[derive(Serialize, ToSchema)]
pub struct TestAnswer {
    pub success: bool,
    pub message: String,
    /// `delivery_failed` when the channel did not take it.
    #[schema(required = true)]
    pub code: Option<ErrorCode>,
    pub data: TestResult,
}

/// Sends a test message to the channel now and answers with what it said. The test joins
/// the delivery history.
#[utoipa::path(
    post,
    path = "/channels/{id}/test",
    tag = "channels",
    params(("id" = i64, Path, description = "The channel's id")),
    responses(
        (status = 200, description = "The channel took it", body = TestAnswer),
        (status = 404, description = "`channel_not_found`", body = ErrorBody),
        (status = 409, description = "`delivery_failed`: the channel is switched off, waiting for its Telegram link, or disabled", body = TestAnswer),
        (status = 502, description = "`delivery_failed`: the channel refused it or did not answer in time (`data.detail` says which)", body = TestAnswer),
    ),
)]
pub async fn test(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Response> {
    let channel = state
        .db
        .read(move |conn| Ok::<_, ApiError>(channels::get(conn, user.id, id)?))
        .await?;
    let reports = state
        .engine
        .send_test(user.id, &[DeliveryMethod::Channel(channel.id)])
        .await?;
    let Some(report) = reports
        .into_iter()
        .find(|r| r.channel == DeliveryMethod::Channel(channel.id))
    else {
        return Err(ApiError::internal("the test produced no result"));
    };
    let result = TestResult {
        ok: report.ok(),
        detail: report.detail.clone(),
        code: report.code.to_owned(),
        params: report.params.clone(),
    };
    let (status, text, code) = match (report.ok(), report.unavailable) {
        (true, _) => (StatusCode::OK, format!("Test sent to {}", channel.name), None),
        (false, true) => (
            StatusCode::CONFLICT,
            format!("{} cannot be used now: {}", channel.name, report.detail),
            Some(ErrorCode::DeliveryFailed),
        ),
        (false, false) => (
            StatusCode::BAD_GATEWAY,
            format!("{}: {}", channel.name, report.detail),
            Some(ErrorCode::DeliveryFailed),
        ),
    };
    Ok((
        status,
        Json(TestAnswer {
            success: report.ok(),
            message: text,
            code,
            data: result,
        }),
    )
        .into_response())
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(update, delete))
        .routes(routes!(link))
        .routes(routes!(test))
}
