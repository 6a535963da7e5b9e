//! `/api/calendar/*`: a person's private calendar feed (make, check, revoke) and the feed
//! itself, which calendar apps fetch without signing in (the secret address is the
//! permission). The rules are in `services::calendar`.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{Message, message};
use super::error::{ApiError, ApiResult, Data, ErrorBody, data};
use super::extract::ApiPath;
use super::limits::limited;
use super::routes;
use super::session::AuthUser;
use crate::security::client_ip::{ClientIp, limit_key};
use crate::services::calendar::{self, FeedStatus, NewFeed};

/// Whether the person has a calendar feed, and since when.
#[utoipa::path(
    get,
    path = "/calendar/feed",
    tag = "calendar",
    responses(
        (status = 200, description = "Whether a feed exists", body = Data<FeedStatus>),
    ),
)]
pub async fn feed_status(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<FeedStatus>>> {
    let status = state
        .db
        .read(move |conn| Ok::<_, ApiError>(calendar::status(conn, user.id)?))
        .await?;
    Ok(data(status))
}

/// Makes a private calendar feed: a secret address serving the next 14 days of planned
/// doses as iCalendar events. The address is shown only now; a new one replaces the old.
#[utoipa::path(
    post,
    path = "/calendar/feed",
    tag = "calendar",
    responses(
        (status = 201, description = "The feed's secret address", body = Data<NewFeed>),
    ),
)]
pub async fn create_feed(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Response> {
    let now = state.clock.now();
    let link_base = state.settings.link_base();
    let feed = state
        .db
        .write(move |conn| Ok::<_, ApiError>(calendar::create(conn, user.id, &link_base, now)?))
        .await?;
    Ok((StatusCode::CREATED, data(feed)).into_response())
}

/// Revokes the calendar feed: its address answers 404 from now on.
#[utoipa::path(
    delete,
    path = "/calendar/feed",
    tag = "calendar",
    responses(
        (status = 200, description = "The feed is revoked (or there was none)", body = Message),
    ),
)]
pub async fn revoke_feed(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Message>> {
    let had = state
        .db
        .write(move |conn| Ok::<_, ApiError>(calendar::revoke(conn, user.id)?))
        .await?;
    Ok(message(if had {
        "Calendar feed revoked"
    } else {
        "There was no calendar feed"
    }))
}

/// The calendar feed (RFC 5545): one event per planned dose of the next 14 days. Fetched
/// by calendar apps without signing in; the path's last segment is `<token>.ics`.
#[utoipa::path(
    get,
    path = "/calendar/{file}",
    tag = "calendar",
    security(()),
    params(("file" = String, Path, description = "The feed's secret token followed by `.ics`")),
    responses(
        (status = 200, description = "The calendar", content_type = "text/calendar", body = String),
        (status = 404, description = "calendar_feed_not_found: unknown or revoked", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ),
)]
pub async fn feed(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiPath(file): ApiPath<String>,
) -> ApiResult<Response> {
    // The same budget as take links: both are secrets in a URL, so guessing is slowed alike.
    limited(state.limits.take_links_per_client.hit(&limit_key(ip)))?;
    let now = state.clock.now();
    let body = state
        .db
        .read(move |conn| Ok::<_, ApiError>(calendar::feed(conn, &file, now)?))
        .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/calendar; charset=utf-8"),
            (header::CACHE_CONTROL, "private, no-store"),
        ],
        body,
    )
        .into_response())
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(feed_status, create_feed, revoke_feed))
        .routes(routes!(feed))
}
