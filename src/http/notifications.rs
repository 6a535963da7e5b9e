//! `/api/notifications/*`: the planned reminders: list, cancel, plan ahead. Delivery (push,
//! e-mail, take links) arrives with the rest of the reminders work.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::{ApiError, ApiResult};
use super::extract::{ApiJson, ApiPath, ApiQuery, query_number};
use super::medications::UserClock;
use super::session::AuthUser;
use crate::reminders::planner;
use crate::store::{medications, reminders};

const STATUSES: &[&str] = &["scheduled", "sent", "cancelled", "failed"];
const MAX_LIMIT: i64 = 200;
const MAX_DAYS_AHEAD: u32 = 31;

#[derive(Deserialize)]
pub struct ListQuery {
    status: Option<String>,
    limit: Option<String>,
    offset: Option<String>,
}

pub async fn list(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> ApiResult<Json<Value>> {
    let status = q.status.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    if status.as_deref().is_some_and(|s| !STATUSES.contains(&s)) {
        return Err(ApiError::bad_request(
            "Status must be scheduled, sent, cancelled or failed",
        ));
    }
    let limit = query_number(q.limit.as_deref(), "limit")?.unwrap_or(50);
    let offset = query_number(q.offset.as_deref(), "offset")?.unwrap_or(0);
    if !(1..=MAX_LIMIT).contains(&limit) || offset < 0 {
        return Err(ApiError::bad_request(format!(
            "limit must be between 1 and {MAX_LIMIT}, offset 0 or more"
        )));
    }
    let (rows, total) = state
        .db
        .read(move |conn| {
            Ok::<_, ApiError>(reminders::page(conn, user.id, status.as_deref(), limit, offset)?)
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "data": rows, "pagination": { "total": total, "limit": limit, "offset": offset } }),
    ))
}

/// Cancels a scheduled reminder; sent, failed or cancelled ones stay as they are.
pub async fn cancel(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    state
        .db
        .write(move |conn| {
            match reminders::status(conn, user.id, id)? {
                None => return Err(ApiError::not_found("Notification not found")),
                Some(status) if status != "scheduled" => {
                    return Err(ApiError::new(
                        StatusCode::CONFLICT,
                        "Only a scheduled notification can be cancelled",
                    ));
                }
                Some(_) => {}
            }
            reminders::cancel(conn, user.id, id)?;
            Ok(())
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "Notification cancelled" }),
    ))
}

#[derive(Deserialize)]
pub struct ScheduleBody {
    medication_id: Option<i64>,
    days_ahead: Option<u32>,
}

/// The VAPID public key browsers subscribe with; there is always one (generated on first
/// start, or configured), so push needs no manual set-up.
pub async fn push_public_key(State(state): State<AppState>) -> Json<Value> {
    Json(json!({ "success": true, "data": { "publicKey": state.secrets.vapid.public_key } }))
}

/// Plans a medication's reminders for the next `days_ahead` days (default 7).
pub async fn schedule_medication(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<ScheduleBody>,
) -> ApiResult<Json<Value>> {
    let id = body
        .medication_id
        .ok_or_else(|| ApiError::bad_request("medication_id is required"))?;
    let days = body.days_ahead.unwrap_or(planner::HORIZON_DAYS);
    if !(1..=MAX_DAYS_AHEAD).contains(&days) {
        return Err(ApiError::bad_request(format!(
            "days_ahead must be between 1 and {MAX_DAYS_AHEAD}"
        )));
    }
    let added = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let clock = UserClock::load(&tx, user.id)?;
            let m = medications::find(&tx, user.id, id)?
                .ok_or_else(|| ApiError::not_found("Medication not found"))?;
            let added = planner::plan_medication(&tx, user.id, &m, clock.tz, clock.default_time, days)?;
            tx.commit()?;
            Ok::<_, ApiError>(added)
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "Reminders scheduled", "data": { "scheduled": added } }),
    ))
}
