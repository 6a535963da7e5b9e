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
use super::medications::{
    Warning, dosage_text, dose_quantity, dose_unit, parse_status, parse_taken, settle_stock, stock_summary,
};
use super::session::AuthUser;
use crate::clock;
use crate::domain::quantity::Quantity;
use crate::reminders::planner::UserClock;
use crate::store::history::{self, Entry, Filter};
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
        .map(|s| parse_status(Some(s)))
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
                status: status.map(str::to_owned),
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
    let status = input
        .status
        .as_deref()
        .map(|s| parse_status(Some(s)))
        .transpose()?;
    let body = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let mut entry = history::find(&tx, user.id, id)?
                .ok_or_else(|| ApiError::not_found("History entry not found"))?;
            let stock_relevant = |e: &Entry| (e.status.clone(), e.quantity, e.dosage_unit.clone());
            let before = stock_relevant(&entry);
            if let Some(status) = status {
                entry.status = status.to_owned();
            }
            if let Some(taken) = input.taken.filter(|t| !t.trim().is_empty()) {
                entry.taken = parse_taken(Some(&taken))?;
            }
            if let Some(quantity) = input.quantity {
                entry.quantity = dose_quantity(quantity)?;
            }
            if let Some(unit) = input.dosage_unit {
                entry.dosage_unit = dose_unit(&unit)?;
            }
            if input.dosage.is_some() {
                entry.dosage = dosage_text(input.dosage)?;
            }
            // Stock moves only when what the dose took changes; editing the time or the note
            // of an old entry never re-prices it against today's inventory settings.
            let warning = if stock_relevant(&entry) != before {
                settle_stock(&tx, user.id, &mut entry, &clock::now_stamp())?
            } else {
                None
            };
            history::update(&tx, user.id, &entry)?;
            let mut body = json!({ "entry": entry, "inventory": stock_summary(&tx, entry.medication_id)? });
            Warning::add_to(warning.as_ref(), &mut body);
            tx.commit()?;
            Ok::<_, ApiError>(body)
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
    let body = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let mut entry = history::find(&tx, user.id, id)?
                .ok_or_else(|| ApiError::not_found("History entry not found"))?;
            entry.status = "deleted".into();
            settle_stock(&tx, user.id, &mut entry, &clock::now_stamp())?;
            history::delete(&tx, user.id, id)?;
            let inventory = stock_summary(&tx, entry.medication_id)?;
            tx.commit()?;
            Ok::<_, ApiError>(json!({ "inventory": inventory }))
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "Entry deleted", "data": body }),
    ))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .route("/medications/history", routing::get(list))
        .route("/medications/history/{id}", routing::put(update).delete(delete))
        .route("/medications/{id}/history", routing::get(for_medication))
}
