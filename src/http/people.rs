//! `/api/people/*` and `/api/invitations/*`: the care circle — the people an account keeps
//! medicines for, their carers and invitations, and each person's audit list. The rules are
//! in `services::people`.

use std::sync::Arc;

use super::routes;
use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{Message, message};
use super::error::{ApiError, ApiResult, Data, ErrorBody, data};
use super::extract::{ApiJson, ApiPath, ApiQuery, query_number};
use super::limits::limited;
use super::session::AuthUser;
use crate::security::client_ip::{ClientIp, limit_key};
use crate::services::people::{
    self, AuditEntry, CarerInput, CarerView, InvitationView, Invitations, NewPerson, PersonChange,
    PersonView, Removed, RoleChange,
};

/// The people you keep medicines for (you first, then by name; archived ones included),
/// then the people you care for, each with your role.
#[utoipa::path(
    get,
    path = "/people",
    tag = "people",
    responses(
        (status = 200, description = "The people", body = Data<Vec<PersonView>>),
    ),
)]
pub async fn list(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<Vec<PersonView>>>> {
    let listed = state
        .db
        .read(move |conn| Ok::<_, ApiError>(people::list(conn, user.id)?))
        .await?;
    let available = home_assistant_available(&state);
    Ok(data(
        listed.into_iter().map(|p| p.published_by(available)).collect(),
    ))
}

/// Adds a person without a login (a child, a parent) to your account.
#[utoipa::path(
    post,
    path = "/people",
    tag = "people",
    request_body = NewPerson,
    responses(
        (status = 201, description = "The new person", body = Data<PersonView>),
        (status = 400, description = "`person_name_required`, or a name over 100 characters (`validation_failed`)", body = ErrorBody),
    ),
)]
pub async fn create(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(input): ApiJson<NewPerson>,
) -> ApiResult<(StatusCode, Json<Data<PersonView>>)> {
    let now = state.clock.now();
    let created = state
        .db
        .write(move |conn| Ok::<_, ApiError>(people::create(conn, user.id, input, now)?))
        .await?;
    Ok((
        StatusCode::CREATED,
        data(created.published_by(home_assistant_available(&state))),
    ))
}

/// Renames, archives or brings back one of your people, or shows them in Home Assistant
/// (`home_assistant`, by MQTT discovery when the server has `mqtt.url`). An archived person
/// gets no reminders, is left out of Today and is not shown in Home Assistant; their data
/// stays readable.
#[utoipa::path(
    put,
    path = "/people/{id}",
    tag = "people",
    request_body = PersonChange,
    params(("id" = i64, Path, description = "The person's id")),
    responses(
        (status = 200, description = "The person as saved", body = Data<PersonView>),
        (status = 400, description = "`person_name_required`, `validation_failed`, or archiving the account holder (`person_is_account_holder`)", body = ErrorBody),
        (status = 403, description = "You care for this person but are not their owner (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "`person_not_found`", body = ErrorBody),
    ),
)]
pub async fn update(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(change): ApiJson<PersonChange>,
) -> ApiResult<Json<Data<PersonView>>> {
    let (days, now) = (state.settings.reminders.horizon_days, state.clock.now());
    let saved = state
        .db
        .transaction(move |tx| {
            let saved = people::update(tx, user.id, id, change, days, now)?;
            Ok::<_, ApiError>(saved)
        })
        .await?;
    Ok(data(saved.published_by(home_assistant_available(&state))))
}

/// Deletes one of your people with their medications, reminders and history (archiving
/// keeps them). The account holder cannot be deleted here.
#[utoipa::path(
    delete,
    path = "/people/{id}",
    tag = "people",
    params(("id" = i64, Path, description = "The person's id")),
    responses(
        (status = 200, description = "The person is deleted", body = Message),
        (status = 400, description = "The account holder (`person_is_account_holder`)", body = ErrorBody),
        (status = 403, description = "You care for this person but are not their owner (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "`person_not_found`", body = ErrorBody),
    ),
)]
pub async fn delete(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Message>> {
    state
        .db
        .transaction(move |tx| {
            people::delete(tx, user.id, id)?;
            Ok::<_, ApiError>(())
        })
        .await?;
    Ok(message("Person deleted with their medications and history"))
}

/// The person's carers and open invitations (owner only).
#[utoipa::path(
    get,
    path = "/people/{id}/carers",
    tag = "people",
    params(("id" = i64, Path, description = "The person's id")),
    responses(
        (status = 200, description = "Carers and invitations, oldest first", body = Data<Vec<CarerView>>),
        (status = 403, description = "`not_permitted`", body = ErrorBody),
        (status = 404, description = "`person_not_found`", body = ErrorBody),
    ),
)]
pub async fn carers(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Data<Vec<CarerView>>>> {
    let listed = state
        .db
        .read(move |conn| Ok::<_, ApiError>(people::carers(conn, user.id, id)?))
        .await?;
    Ok(data(listed))
}

/// Invites an address to care for the person with a role (owner only). The invitation's
/// link (valid 7 days) goes out by e-mail when the server sends e-mail, and is in this answer
/// (`invite_url`) only, to share by hand. An address already invited gets a new link.
#[utoipa::path(
    post,
    path = "/people/{id}/carers",
    tag = "people",
    request_body = CarerInput,
    params(("id" = i64, Path, description = "The person's id")),
    responses(
        (status = 201, description = "The invitation, with its link", body = Data<CarerView>),
        (status = 400, description = "`email_required`, `email_invalid`, `role_invalid`, or your own address (`carer_is_owner`)", body = ErrorBody),
        (status = 403, description = "`not_permitted`", body = ErrorBody),
        (status = 404, description = "`person_not_found`", body = ErrorBody),
        (status = 409, description = "That address is already an active carer (`carer_exists`)", body = ErrorBody),
    ),
)]
pub async fn invite(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(input): ApiJson<CarerInput>,
) -> ApiResult<(StatusCode, Json<Data<CarerView>>)> {
    let now = state.clock.now();
    let (mailer, link_base) = (Arc::clone(&state.mailer), state.settings.link_base());
    let (invited, mailed) = state
        .db
        .transaction(move |tx| {
            let server = Invitations {
                mailer: &mailer,
                link_base: &link_base,
            };
            Ok::<_, ApiError>(people::invite(tx, user.id, id, input, &server, now)?)
        })
        .await?;
    if mailed {
        state.mailer.wake_queue();
    }
    Ok((StatusCode::CREATED, data(invited)))
}

/// Changes a carer's role (owner only).
#[utoipa::path(
    put,
    path = "/people/{id}/carers/{carerId}",
    tag = "people",
    request_body = RoleChange,
    params(
        ("id" = i64, Path, description = "The person's id"),
        ("carerId" = i64, Path, description = "The carers row's id"),
    ),
    responses(
        (status = 200, description = "The carer as saved", body = Data<CarerView>),
        (status = 400, description = "`role_invalid`", body = ErrorBody),
        (status = 403, description = "`not_permitted`", body = ErrorBody),
        (status = 404, description = "`person_not_found`, `carer_not_found`", body = ErrorBody),
    ),
)]
pub async fn change_role(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath((id, carer_id)): ApiPath<(i64, i64)>,
    ApiJson(change): ApiJson<RoleChange>,
) -> ApiResult<Json<Data<CarerView>>> {
    let now = state.clock.now();
    let saved = state
        .db
        .transaction(move |tx| {
            let saved = people::change_role(tx, user.id, id, carer_id, change, now)?;
            Ok::<_, ApiError>(saved)
        })
        .await?;
    Ok(data(saved))
}

/// Ends a carer's access or withdraws an invitation (owner), or leaves (the carer themself).
#[utoipa::path(
    delete,
    path = "/people/{id}/carers/{carerId}",
    tag = "people",
    params(
        ("id" = i64, Path, description = "The person's id"),
        ("carerId" = i64, Path, description = "The carers row's id"),
    ),
    responses(
        (status = 200, description = "Access ended", body = Message),
        (status = 403, description = "Another carer's row (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "`person_not_found`, `carer_not_found`", body = ErrorBody),
    ),
)]
pub async fn remove(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath((id, carer_id)): ApiPath<(i64, i64)>,
) -> ApiResult<Json<Message>> {
    let now = state.clock.now();
    let removed = state
        .db
        .transaction(move |tx| {
            let removed = people::remove(tx, user.id, id, carer_id, now)?;
            Ok::<_, ApiError>(removed)
        })
        .await?;
    Ok(message(match removed {
        Removed::Revoked => "Carer removed",
        Removed::Cancelled => "Invitation withdrawn",
        Removed::Left => "You no longer care for this person",
    }))
}

/// A page of the audit list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    /// Lines per page, 1–200 (default 50).
    #[param(value_type = Option<i64>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    /// Lines to skip (default 0).
    #[param(value_type = Option<i64>, minimum = 0)]
    offset: Option<String>,
}

/// What carers changed for the person, and changes to the circle, newest first (owner only).
#[utoipa::path(
    get,
    path = "/people/{id}/audit",
    tag = "people",
    params(("id" = i64, Path, description = "The person's id"), AuditQuery),
    responses(
        (status = 200, description = "The audit list", body = Data<Vec<AuditEntry>>),
        (status = 400, description = "`limit` or `offset` out of range (`validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 403, description = "`not_permitted`", body = ErrorBody),
        (status = 404, description = "`person_not_found`", body = ErrorBody),
    ),
)]
pub async fn audit(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(query): ApiQuery<AuditQuery>,
) -> ApiResult<Json<Data<Vec<AuditEntry>>>> {
    let limit = query_number(query.limit.as_deref(), "limit")?;
    let offset = query_number(query.offset.as_deref(), "offset")?;
    let lines = state
        .db
        .read(move |conn| Ok::<_, ApiError>(people::audit(conn, user.id, id, limit, offset)?))
        .await?;
    Ok(data(lines))
}

/// What an invitation offers, for the signed-in account it was sent to.
#[utoipa::path(
    get,
    path = "/invitations/{token}",
    tag = "people",
    params(("token" = String, Path, description = "The invitation link's token")),
    responses(
        (status = 200, description = "The invitation", body = Data<InvitationView>),
        (status = 400, description = "Your own person (`carer_is_owner`)", body = ErrorBody),
        (status = 403, description = "Sent to another address (`invitation_other_account`, `params.email` masked)", body = ErrorBody),
        (status = 404, description = "Unknown, expired or used (`invitation_not_found`)", body = ErrorBody),
    ),
)]
pub async fn invitation(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(token): ApiPath<String>,
) -> ApiResult<Json<Data<InvitationView>>> {
    let now = state.clock.now();
    let found = state
        .db
        .read(move |conn| Ok::<_, ApiError>(people::invitation(conn, user.id, &user.email, &token, now)?))
        .await?;
    Ok(data(found))
}

/// What an invitation offers, for whoever holds its link (no session): who invites, for
/// whom and with which role; the invited address is masked. Rate-limited per client address.
#[utoipa::path(
    get,
    path = "/invitations/{token}/preview",
    tag = "people",
    security(()),
    params(("token" = String, Path, description = "The invitation link's token")),
    responses(
        (status = 200, description = "The invitation, its address masked", body = Data<InvitationView>),
        (status = 404, description = "Unknown, expired or used (`invitation_not_found`)", body = ErrorBody),
        (status = 429, description = "Too many look-ups from this address (`rate_limited`)", body = ErrorBody),
    ),
)]
pub async fn invitation_preview(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiPath(token): ApiPath<String>,
) -> ApiResult<Json<Data<InvitationView>>> {
    limited(state.limits.take_links_per_client.hit(&limit_key(ip)))?;
    let now = state.clock.now();
    let found = state
        .db
        .read(move |conn| Ok::<_, ApiError>(people::invitation_preview(conn, &token, now)?))
        .await?;
    Ok(data(found))
}

/// Accepts an invitation: you become the person's carer with the invited role.
#[utoipa::path(
    post,
    path = "/invitations/{token}/accept",
    tag = "people",
    params(("token" = String, Path, description = "The invitation link's token")),
    responses(
        (status = 200, description = "The person you now care for", body = Data<PersonView>),
        (status = 400, description = "Your own person (`carer_is_owner`)", body = ErrorBody),
        (status = 403, description = "Sent to another address (`invitation_other_account`)", body = ErrorBody),
        (status = 404, description = "Unknown, expired or used (`invitation_not_found`)", body = ErrorBody),
        (status = 409, description = "You already care for this person (`carer_exists`)", body = ErrorBody),
    ),
)]
pub async fn accept(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(token): ApiPath<String>,
) -> ApiResult<Json<Data<PersonView>>> {
    let now = state.clock.now();
    let person = state
        .db
        .transaction(move |tx| {
            let person = people::accept(tx, user.id, &user.email, &token, now)?;
            Ok::<_, ApiError>(person)
        })
        .await?;
    Ok(data(person.published_by(home_assistant_available(&state))))
}

/// Whether this server publishes to Home Assistant: `mqtt.url` is set (`serve` refuses to start
/// with one it cannot use).
fn home_assistant_available(state: &AppState) -> bool {
    state.settings.mqtt.url.is_some()
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(update, delete))
        .routes(routes!(carers, invite))
        .routes(routes!(change_role, remove))
        .routes(routes!(audit))
        .routes(routes!(invitation))
        .routes(routes!(invitation_preview))
        .routes(routes!(accept))
}
