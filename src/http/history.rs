//! `/api/medications/history*`: the dose history with filters and real paging, status
//! switches and deletes that move stock back.

use axum::Json;
use axum::extract::State;
use chrono::{DateTime, NaiveDate, Utc};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::{ApiError, ApiResult};
use super::extract::{ApiJson, ApiPath, ApiQuery, query_number};
use super::session::AuthUser;
use crate::clock;
use crate::domain::quantity::Quantity;
use crate::reminders::planner::UserClock;
use crate::services::doses::{self, EntryChange};
use crate::store::history::{self, Filter};
use crate::store::medications;
use axum::routing;
use utoipa_axum::router::OpenApiRouter;

pub const DEFAULT_PAGE_SIZE: i64 = 20;
pub const MAX_PAGE_SIZE: i64 = 100;

/// Query parameters arrive as text and are checked here, so a bad one is a 400 with a
/// message rather than a bare rejection.
#[derive(Deserialize, Default)]
pub struct HistoryQuery {
    limit: Option<String>,
    offset: Option<String>,
    page: Option<String>,
    date_from: Option<String>,
    date_to: Option<String>,
    status: Option<String>,
    #[serde(rename = "medicationId")]
    medication_id: Option<String>,
}

/// A date filter bound: `YYYY-MM-DD` in the user's zone, or an RFC 3339 instant.
fn bound(value: &Option<String>, clock: &UserClock, end_of_day: bool) -> ApiResult<Option<String>> {
    let Some(text) = value.as_deref().map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        let day = if end_of_day {
            date.succ_opt().unwrap_or(date)
        } else {
            date
        };
        return Ok(Some(clock::stamp(clock.start_of(day))));
    }
    DateTime::parse_from_rfc3339(text)
        .map(|t| Some(clock::stamp(t.with_timezone(&Utc))))
        .map_err(|_| ApiError::bad_request("Dates must be written as YYYY-MM-DD"))
}

struct Paging {
    limit: i64,
    offset: i64,
}

fn paging(q: &HistoryQuery) -> ApiResult<Paging> {
    let limit = query_number(q.limit.as_deref(), "limit")?.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&limit) {
        return Err(ApiError::bad_request(format!(
            "limit must be between 1 and {MAX_PAGE_SIZE}"
        )));
    }
    let offset = match (
        query_number(q.offset.as_deref(), "offset")?,
        query_number(q.page.as_deref(), "page")?,
    ) {
        (Some(offset), _) => offset,
        (None, Some(page)) if page >= 1 => (page - 1).saturating_mul(limit),
        (None, Some(_)) => return Err(ApiError::bad_request("page must be 1 or more")),
        (None, None) => 0,
    };
    if offset < 0 {
        return Err(ApiError::bad_request("offset cannot be negative"));
    }
    Ok(Paging { limit, offset })
}

async fn page_of(
    state: AppState,
    user_id: i64,
    q: HistoryQuery,
    medication: Option<i64>,
) -> ApiResult<Json<Value>> {
    let paging = paging(&q)?;
    let status = q
        .status
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| doses::status(Some(s)))
        .transpose()?;
    let medication_id = medication.or(query_number(q.medication_id.as_deref(), "medicationId")?);
    let (entries, total) = state
        .db
        .read(move |conn| {
            let clock = UserClock::load(conn, user_id)?;
            if let Some(id) = medication {
                medications::find(conn, user_id, id)?
                    .ok_or_else(|| ApiError::not_found("Medication not found"))?;
            }
            let filter = Filter {
                status: status.map(|s| s.to_string()),
                medication_id,
                from: bound(&q.date_from, &clock, false)?,
                until: bound(&q.date_to, &clock, true)?,
            };
            Ok::<_, ApiError>(history::page(
                conn,
                user_id,
                &filter,
                paging.limit,
                paging.offset,
            )?)
        })
        .await?;
    let pages = (total + paging.limit - 1) / paging.limit;
    Ok(Json(json!({
        "success": true,
        "data": entries,
        "pagination": {
            "total": total,
            "limit": paging.limit,
            "offset": paging.offset,
            "page": paging.offset / paging.limit + 1,
            "pages": pages.max(1),
        },
    })))
}

pub async fn list(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> ApiResult<Json<Value>> {
    page_of(state, user.id, q, None).await
}

pub async fn for_medication(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> ApiResult<Json<Value>> {
    page_of(state, user.id, q, Some(id)).await
}

#[derive(Deserialize)]
pub struct EntryUpdate {
    status: Option<String>,
    taken: Option<String>,
    quantity: Option<Quantity>,
    dosage_unit: Option<String>,
    dosage: Option<String>,
}

/// Corrects an entry; switching to or from taken moves the stock with a ledger row.
pub async fn update(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(input): ApiJson<EntryUpdate>,
) -> ApiResult<Json<Value>> {
    let change = EntryChange {
        status: input
            .status
            .as_deref()
            .map(|s| doses::status(Some(s)))
            .transpose()?,
        taken: doses::taken_at(input.taken.as_deref())?,
        quantity: input.quantity,
        dosage_unit: input.dosage_unit,
        dosage: input.dosage,
    };
    let now = state.clock.now();
    let body = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let updated = doses::update_entry(&tx, user.id, id, change, now)?;
            tx.commit()?;
            Ok::<_, ApiError>(updated)
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "Entry updated", "data": body }),
    ))
}

/// Deletes an entry and gives back the stock it used.
pub async fn delete(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    let now = state.clock.now();
    let inventory = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let inventory = doses::delete_entry(&tx, user.id, id, now)?;
            tx.commit()?;
            Ok::<_, ApiError>(inventory)
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "Entry deleted", "data": { "inventory": inventory } }),
    ))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .route("/medications/history", routing::get(list))
        .route("/medications/history/{id}", routing::put(update).delete(delete))
        .route("/medications/{id}/history", routing::get(for_medication))
}
