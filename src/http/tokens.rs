//! `/api/tokens`: the account's API tokens, for scripts and Home Assistant (make one, list
//! them, revoke one). Only a password sign-in's session reaches these routes; a token sent
//! here answers 403 `token_not_allowed`. The rules live in `services::api_tokens`.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{Message, message};
use super::error::{ApiError, ApiResult, Data, ErrorBody, data};
use super::extract::{ApiJson, ApiPath};
use super::routes;
use super::session::AuthUser;
use crate::services::api_tokens::{self, CreatedToken, NewToken, Scope, TokenView};

/// A token to make.
#[derive(Deserialize, ToSchema)]
pub struct TokenInput {
    /// What it is for ("Home Assistant"); 1 to 100 characters, trimmed.
    #[schema(min_length = 1, max_length = 100, pattern = "\\S")]
    name: String,
    /// `read` (see medications and history), `record` (also log and correct doses) or
    /// `manage` (also change medications and stock): a carer's view, record and manage.
    #[schema(value_type = Scope)]
    scope: String,
    /// Only these people of your account (`GET /api/people`); absent or null for all of
    /// them, also people added later.
    #[schema(schema_with = person_ids)]
    person_ids: Option<Vec<i64>>,
    /// Days until it stops working, 1 to 3650; absent or null for never.
    #[schema(minimum = 1, maximum = 3650)]
    expires_in_days: Option<i64>,
}

/// The document's `person_ids`: at least one id (an empty list names no one, and is refused),
/// or null.
fn person_ids() -> utoipa::openapi::schema::Array {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    crate::domain::api_schema::nullable_array(
        ObjectBuilder::new()
            .schema_type(Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Int64,
            )))
            .minimum(Some(1)),
        "Only these people of your account (`GET /api/people`); absent or null for all of \
         them, also people added later.",
    )
    .min_items(Some(1))
    .build()
}

/// The account's API tokens, oldest first (never their secrets).
#[utoipa::path(
    get,
    path = "/tokens",
    tag = "tokens",
    responses(
        (status = 200, description = "The tokens", body = Data<Vec<TokenView>>),
        (status = 403, description = "Sent with an API token: sign in with your password (`token_not_allowed`)", body = ErrorBody),
    ),
)]
pub async fn list(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<Vec<TokenView>>>> {
    let tokens = state
        .db
        .read(move |conn| Ok::<_, ApiError>(api_tokens::list(conn, user.id)?))
        .await?;
    Ok(data(tokens))
}

/// Makes an API token. Its secret (`token`) is in this answer only: it is stored hashed and
/// never shown again. Send it as `Authorization: Bearer pbx_…`.
#[utoipa::path(
    post,
    path = "/tokens",
    tag = "tokens",
    request_body = TokenInput,
    responses(
        (status = 201, description = "The new token, with its secret", body = Data<CreatedToken>),
        (status = 400, description = "A field cannot be used (`api_token_name_required`, `api_token_name_too_long`, `api_token_scope_invalid`, `api_token_expiry_invalid`, `validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 403, description = "Sent with an API token: sign in with your password (`token_not_allowed`)", body = ErrorBody),
        (status = 404, description = "`person_ids` names someone who is not one of your account's people (`person_not_found`)", body = ErrorBody),
        (status = 409, description = "The account has 50 tokens already (`api_token_limit_reached`)", body = ErrorBody),
    ),
)]
pub async fn create(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(input): ApiJson<TokenInput>,
) -> ApiResult<(StatusCode, Json<Data<CreatedToken>>)> {
    let new = NewToken {
        name: input.name,
        scope: Scope::parse(input.scope.trim())?,
        person_ids: input.person_ids,
        expires_in_days: input.expires_in_days,
    };
    let now = state.clock.now();
    let created = state
        .db
        .transaction(move |tx| Ok::<_, ApiError>(api_tokens::create(tx, user.id, new, now)?))
        .await?;
    tracing::info!(user_id = user.id, token_id = created.view.id, "API token created");
    Ok((StatusCode::CREATED, data(created)))
}

/// Revokes one of the account's tokens: it is refused (401) from the next request on.
#[utoipa::path(
    delete,
    path = "/tokens/{id}",
    tag = "tokens",
    params(("id" = i64, Path, description = "The token's id")),
    responses(
        (status = 200, description = "Revoked", body = Message),
        (status = 403, description = "Sent with an API token: sign in with your password (`token_not_allowed`)", body = ErrorBody),
        (status = 404, description = "None of your tokens has this id (`api_token_not_found`)", body = ErrorBody),
    ),
)]
pub async fn revoke(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Message>> {
    state
        .db
        .write(move |conn| Ok::<_, ApiError>(api_tokens::revoke(conn, user.id, id)?))
        .await?;
    tracing::info!(user_id = user.id, token_id = id, "API token revoked");
    Ok(message("API token revoked"))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(revoke))
}
