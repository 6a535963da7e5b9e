//! `/api/notifications/*` (SPEC §7): reminders (list, create, change, cancel, send now,
//! plan ahead), delivery history, preferences, push subscriptions, test notifications and
//! the public take links.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::auth::limited;
use super::error::{ApiError, ApiResult, ok};
use super::extract::{ApiJson, ApiPath, ApiQuery, query_number};
use super::session::AuthUser;
use crate::clock;
use crate::domain::medication::{MAX_LEAD_MINUTES, MAX_MESSAGE, MAX_REPEATS};
use crate::reminders::dispatcher::ChannelReport;
use crate::reminders::planner::{self, UserClock};
use crate::security::client_ip::ClientIp;
use crate::security::codes;
use crate::services::doses::{self, NewDose, record_dose};
use crate::services::export;
use crate::store::notify_prefs::{self, GlobalPrefs, MedicationPrefs, Method};
use crate::store::{deliveries, history, medications, push_subscriptions, reminders, settings};
use axum::routing;
use utoipa_axum::router::OpenApiRouter;

const STATUSES: &[&str] = &["scheduled", "sent", "cancelled", "failed"];
const MAX_LIMIT: i64 = 200;

fn success(message: &str, data: impl serde::Serialize) -> Json<Value> {
    Json(json!({ "success": true, "message": message, "data": data }))
}

fn paging(limit: Option<&str>, offset: Option<&str>) -> ApiResult<(i64, i64)> {
    let limit = query_number(limit, "limit")?.unwrap_or(50);
    let offset = query_number(offset, "offset")?.unwrap_or(0);
    if !(1..=MAX_LIMIT).contains(&limit) || offset < 0 {
        return Err(ApiError::bad_request(format!(
            "limit must be between 1 and {MAX_LIMIT}, offset 0 or more"
        )));
    }
    Ok((limit, offset))
}

// --- Reminders ------------------------------------------------------------------------------

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
    let (limit, offset) = paging(q.limit.as_deref(), q.offset.as_deref())?;
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

fn parse_instant(text: Option<&str>, field: &str) -> ApiResult<DateTime<Utc>> {
    let text = text
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| ApiError::bad_request(format!("{field} is required")))?;
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| ApiError::bad_request(format!("{field} must be a date and time (RFC 3339)")))
}

fn lead(minutes: Option<i64>) -> ApiResult<Option<i64>> {
    match minutes {
        Some(m) if !(0..=MAX_LEAD_MINUTES).contains(&m) => Err(ApiError::bad_request(format!(
            "Reminder lead must be between 0 and {MAX_LEAD_MINUTES} minutes"
        ))),
        other => Ok(other),
    }
}

fn message_text(message: Option<String>) -> ApiResult<Option<String>> {
    let message = message.map(|m| m.trim().to_owned()).filter(|m| !m.is_empty());
    if message.as_ref().is_some_and(|m| m.chars().count() > MAX_MESSAGE) {
        return Err(ApiError::bad_request(format!(
            "Message must be at most {MAX_MESSAGE} characters"
        )));
    }
    Ok(message)
}

#[derive(Deserialize)]
pub struct CreateBody {
    medication_id: Option<i64>,
    scheduled_time: Option<String>,
    reminder_minutes_before: Option<i64>,
    message: Option<String>,
}

/// A one-off reminder for a dose of one medication.
pub async fn create(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<CreateBody>,
) -> ApiResult<Response> {
    let medication_id = body
        .medication_id
        .ok_or_else(|| ApiError::bad_request("medication_id is required"))?;
    let scheduled = parse_instant(body.scheduled_time.as_deref(), "scheduled_time")?;
    let now = Utc::now();
    if scheduled < now - Duration::minutes(1) {
        return Err(ApiError::bad_request("Scheduled time must not be in the past"));
    }
    if scheduled > now + Duration::days(366) {
        return Err(ApiError::bad_request("Scheduled time must be within a year"));
    }
    let lead_minutes = lead(body.reminder_minutes_before)?;
    let message = message_text(body.message)?;
    let created = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let m = medications::find(&tx, user.id, medication_id)?
                .ok_or_else(|| ApiError::not_found("Medication not found"))?;
            let lead_minutes = match lead_minutes {
                Some(l) => l,
                None => {
                    let global = notify_prefs::global(&tx, user.id)?;
                    let own = notify_prefs::for_medication(&tx, m.id)?;
                    notify_prefs::effective(&global, own.as_ref()).lead_minutes
                }
            };
            let reminder = (scheduled - Duration::minutes(lead_minutes)).max(now);
            let id = reminders::insert_one_off(
                &tx,
                user.id,
                &reminders::OneOff {
                    medication_id: m.id,
                    medication_name: &m.name,
                    scheduled: &clock::stamp(scheduled),
                    reminder: &clock::stamp(reminder),
                    message: message.as_deref(),
                },
                &clock::stamp(now),
            )?
            .ok_or_else(|| {
                ApiError::new(
                    StatusCode::CONFLICT,
                    "This medication already has a reminder at that time",
                )
            })?;
            let row = reminders::find(&tx, user.id, id)?;
            tx.commit()?;
            Ok::<_, ApiError>(row)
        })
        .await?;
    Ok((StatusCode::CREATED, success("Notification scheduled", created)).into_response())
}

#[derive(Deserialize)]
pub struct UpdateBody {
    message: Option<String>,
}

/// Changes a scheduled reminder's message (its time follows the schedule and the lead;
/// a one-off reminder is cancelled and set again).
pub async fn update(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(body): ApiJson<UpdateBody>,
) -> ApiResult<Json<Value>> {
    let message = message_text(body.message)?;
    let row = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let current = reminders::find(&tx, user.id, id)?
                .ok_or_else(|| ApiError::not_found("Notification not found"))?;
            if current.status != "scheduled" {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "Only a scheduled notification can be changed",
                ));
            }
            reminders::set_message(&tx, user.id, id, message.as_deref())?;
            let row = reminders::find(&tx, user.id, id)?;
            tx.commit()?;
            Ok(row)
        })
        .await?;
    Ok(success("Notification updated", row))
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
            match reminders::find(conn, user.id, id)? {
                None => return Err(ApiError::not_found("Notification not found")),
                Some(r) if r.status != "scheduled" => {
                    return Err(ApiError::new(
                        StatusCode::CONFLICT,
                        "Only a scheduled notification can be cancelled",
                    ));
                }
                Some(_) => {}
            }
            if !reminders::cancel(conn, user.id, id, &clock::now_stamp())? {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "This notification is being sent right now",
                ));
            }
            Ok(())
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "Notification cancelled" }),
    ))
}

fn results_json(reports: &[ChannelReport]) -> Value {
    json!({ "results": reports.iter().map(|r| json!({
        "channel": r.channel.as_str(),
        "ok": r.ok(),
        "detail": r.detail,
        "fallback": r.fallback,
    })).collect::<Vec<_>>() })
}

/// 200 when a channel delivered; 502 naming every channel's failure otherwise.
fn delivery_answer(reports: &[ChannelReport], success_message: &str) -> Response {
    if reports.iter().any(ChannelReport::ok) {
        return success(success_message, results_json(reports)).into_response();
    }
    let reasons = if reports.is_empty() {
        "no delivery method was chosen".to_owned()
    } else {
        reports
            .iter()
            .map(|r| format!("{}: {}", r.channel.as_str(), r.detail))
            .collect::<Vec<_>>()
            .join("; ")
    };
    (
        StatusCode::BAD_GATEWAY,
        Json(json!({
            "success": false,
            "message": format!("No notification could be sent: {reasons}"),
            "data": results_json(reports),
        })),
    )
        .into_response()
}

/// Sends a scheduled reminder now, over its usual channels.
pub async fn send_now(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Response> {
    let now = clock::now_stamp();
    let claim = reminders::new_claim(&clock::stamp(Utc::now() + Duration::minutes(10)));
    let held = claim.clone();
    state
        .db
        .write(move |conn| {
            let r = reminders::find(conn, user.id, id)?
                .ok_or_else(|| ApiError::not_found("Notification not found"))?;
            if r.status != "scheduled" || !reminders::claim_now(conn, user.id, id, &now, &claim)? {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    if r.status == "scheduled" {
                        "This notification is being sent right now"
                    } else {
                        "Only a scheduled notification can be sent"
                    },
                ));
            }
            Ok(())
        })
        .await?;
    // Sent from its own task: a client that goes away does not cut a delivery in half.
    let engine = std::sync::Arc::clone(&state.engine);
    let reports = tokio::spawn(async move { engine.dispatch(id, &held).await })
        .await
        .map_err(|e| ApiError::internal(format!("sending failed: {e}")))??;
    match reports {
        Some(reports) => Ok(delivery_answer(&reports, "Notification sent")),
        None => {
            let reason = state
                .db
                .read(move |conn| Ok::<_, ApiError>(reminders::find(conn, user.id, id)?))
                .await?
                .and_then(|r| r.failure_reason)
                .unwrap_or_else(|| "nothing to send".into());
            Err(ApiError::new(
                StatusCode::CONFLICT,
                format!("The notification was not sent: {reason}"),
            ))
        }
    }
}

#[derive(Deserialize)]
pub struct ScheduleBody {
    medication_id: Option<i64>,
    days_ahead: Option<u32>,
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
    if !(1..=planner::MAX_DAYS_AHEAD).contains(&days) {
        return Err(ApiError::bad_request(format!(
            "days_ahead must be between 1 and {}",
            planner::MAX_DAYS_AHEAD
        )));
    }
    let added = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let clock = UserClock::load(&tx, user.id)?;
            let m = medications::find(&tx, user.id, id)?
                .ok_or_else(|| ApiError::not_found("Medication not found"))?;
            let added = planner::plan_medication(&tx, user.id, &m, &clock, days)?;
            tx.commit()?;
            Ok::<_, ApiError>(added)
        })
        .await?;
    Ok(success("Reminders scheduled", json!({ "scheduled": added })))
}

// --- Delivery history -------------------------------------------------------------------------

#[derive(Deserialize)]
pub struct HistoryQuery {
    limit: Option<String>,
    offset: Option<String>,
    start_date: Option<String>,
    end_date: Option<String>,
}

fn query_date(text: Option<&str>, field: &str) -> ApiResult<Option<NaiveDate>> {
    text.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            NaiveDate::parse_from_str(t, "%Y-%m-%d")
                .map_err(|_| ApiError::bad_request(format!("{field} must be a date (YYYY-MM-DD)")))
        })
        .transpose()
}

pub async fn delivery_history(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> ApiResult<Json<Value>> {
    let (limit, offset) = paging(q.limit.as_deref(), q.offset.as_deref())?;
    let start = query_date(q.start_date.as_deref(), "start_date")?;
    let end = query_date(q.end_date.as_deref(), "end_date")?;
    if let (Some(s), Some(e)) = (start, end)
        && s > e
    {
        return Err(ApiError::bad_request("start_date must not be after end_date"));
    }
    let (rows, total) = state
        .db
        .read(move |conn| {
            let clock = UserClock::load(conn, user.id)?;
            let from = start.map(|d| clock::stamp(clock.start_of(d)));
            let until = end
                .and_then(|d| d.succ_opt())
                .map(|d| clock::stamp(clock.start_of(d)));
            Ok::<_, ApiError>(deliveries::page(
                conn,
                user.id,
                from.as_deref(),
                until.as_deref(),
                limit,
                offset,
            )?)
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "data": rows, "pagination": { "total": total, "limit": limit, "offset": offset } }),
    ))
}

// --- Preferences ---------------------------------------------------------------------------

fn global_json(p: &GlobalPrefs, email_available: bool) -> Value {
    let mut body = export::preferences_view(p);
    body["email_available"] = json!(email_available);
    body
}

fn methods(list: Vec<String>) -> ApiResult<Vec<Method>> {
    let parsed: Option<Vec<Method>> = list.iter().map(|m| Method::parse(m)).collect();
    let parsed = parsed.ok_or_else(|| ApiError::bad_request("Delivery methods must be push or email"))?;
    if parsed.is_empty() {
        return Err(ApiError::bad_request("Choose at least one delivery method"));
    }
    Ok(notify_prefs::normalize(&parsed))
}

pub async fn get_preferences(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Value>> {
    let prefs = state
        .db
        .read(move |conn| Ok::<_, ApiError>(notify_prefs::global(conn, user.id)?))
        .await?;
    Ok(ok(global_json(&prefs, state.mailer.is_configured())))
}

#[derive(Deserialize)]
pub struct PreferencesBody {
    email_notifications_enabled: Option<bool>,
    push_notifications_enabled: Option<bool>,
    notification_sound_enabled: Option<bool>,
    notification_vibration_enabled: Option<bool>,
    default_reminder_minutes_before: Option<i64>,
    default_delivery_methods: Option<Vec<String>>,
    reminders_enabled: Option<bool>,
    repeat_interval_minutes: Option<i64>,
    repeat_max: Option<i64>,
    /// Read-only; accepted (and ignored) so a client can send back what it got.
    #[serde(rename = "email_available")]
    _email_available: Option<bool>,
}

/// Saves global preferences and re-plans the user's reminders when the lead or the master
/// switch changed.
async fn save_global(state: &AppState, user_id: i64, update: GlobalUpdate) -> ApiResult<GlobalPrefs> {
    let days = state.settings.reminders.horizon_days;
    state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let before = notify_prefs::global(&tx, user_id)?;
            let mut p = before.clone();
            update.apply(&mut p);
            notify_prefs::save_global(&tx, user_id, &p)?;
            if let Some(time) = &update.daily_time {
                let mut s = settings::get(&tx, user_id)?;
                s.default_reminder_time = time.clone();
                settings::save(&tx, user_id, &s)?;
            }
            if before.lead_minutes != p.lead_minutes
                || before.reminders_enabled != p.reminders_enabled
                || update.daily_time.is_some()
            {
                planner::plan_user(&tx, user_id, days)?;
            }
            tx.commit()?;
            Ok::<_, ApiError>(p)
        })
        .await
}

#[derive(Default)]
struct GlobalUpdate {
    reminders_enabled: Option<bool>,
    email_enabled: Option<bool>,
    push_enabled: Option<bool>,
    sound_enabled: Option<bool>,
    vibration_enabled: Option<bool>,
    lead_minutes: Option<i64>,
    methods: Option<Vec<Method>>,
    repeat_interval_minutes: Option<i64>,
    repeat_max: Option<i64>,
    daily_time: Option<String>,
}

impl GlobalUpdate {
    fn apply(&self, p: &mut GlobalPrefs) {
        macro_rules! set {
            ($field:ident, $target:ident) => {
                if let Some(v) = self.$field.clone() {
                    p.$target = v;
                }
            };
        }
        set!(reminders_enabled, reminders_enabled);
        set!(email_enabled, email_enabled);
        set!(push_enabled, push_enabled);
        set!(sound_enabled, sound_enabled);
        set!(vibration_enabled, vibration_enabled);
        set!(lead_minutes, lead_minutes);
        set!(methods, delivery_methods);
        set!(repeat_interval_minutes, repeat_interval_minutes);
        set!(repeat_max, repeat_max);
    }
}

pub async fn put_preferences(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PreferencesBody>,
) -> ApiResult<Json<Value>> {
    if body
        .repeat_interval_minutes
        .is_some_and(|m| !(1..=MAX_LEAD_MINUTES).contains(&m))
    {
        return Err(ApiError::bad_request(format!(
            "Repeat interval must be between 1 and {MAX_LEAD_MINUTES} minutes"
        )));
    }
    if body.repeat_max.is_some_and(|n| !(0..=MAX_REPEATS).contains(&n)) {
        return Err(ApiError::bad_request(format!(
            "Repeats must be between 0 and {MAX_REPEATS}"
        )));
    }
    let update = GlobalUpdate {
        reminders_enabled: body.reminders_enabled,
        email_enabled: body.email_notifications_enabled,
        push_enabled: body.push_notifications_enabled,
        sound_enabled: body.notification_sound_enabled,
        vibration_enabled: body.notification_vibration_enabled,
        lead_minutes: lead(body.default_reminder_minutes_before)?,
        methods: body.default_delivery_methods.map(methods).transpose()?,
        repeat_interval_minutes: body.repeat_interval_minutes,
        repeat_max: body.repeat_max,
        daily_time: None,
    };
    let saved = save_global(&state, user.id, update).await?;
    Ok(success(
        "Preferences saved successfully",
        global_json(&saved, state.mailer.is_configured()),
    ))
}

fn medication_prefs_json(medication_id: i64, global: &GlobalPrefs, own: Option<&MedicationPrefs>) -> Value {
    let e = notify_prefs::effective(global, own);
    json!({
        "medication_id": medication_id,
        "delivery_methods": e.methods.iter().map(|m| m.as_str()).collect::<Vec<_>>(),
        "reminder_minutes_before": e.lead_minutes,
        "custom_message": e.custom_message,
        "uses_defaults": own.is_none(),
    })
}

pub async fn get_medication_preferences(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    let body = state
        .db
        .read(move |conn| {
            medications::find(conn, user.id, id)?
                .ok_or_else(|| ApiError::not_found("Medication not found"))?;
            let global = notify_prefs::global(conn, user.id)?;
            let own = notify_prefs::for_medication(conn, id)?;
            Ok::<_, ApiError>(medication_prefs_json(id, &global, own.as_ref()))
        })
        .await?;
    Ok(ok(body))
}

#[derive(Deserialize)]
pub struct MedicationPreferencesBody {
    delivery_methods: Option<Vec<String>>,
    reminder_minutes_before: Option<i64>,
    custom_message: Option<String>,
    use_defaults: Option<bool>,
}

pub async fn put_medication_preferences(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(body): ApiJson<MedicationPreferencesBody>,
) -> ApiResult<Json<Value>> {
    let use_defaults = body.use_defaults == Some(true);
    let delivery = body.delivery_methods.map(methods).transpose()?;
    let lead_minutes = lead(body.reminder_minutes_before)?;
    let message_given = body.custom_message.is_some();
    let message = message_text(body.custom_message)?;
    let days = state.settings.reminders.horizon_days;
    let saved = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let m = medications::find(&tx, user.id, id)?
                .ok_or_else(|| ApiError::not_found("Medication not found"))?;
            let global = notify_prefs::global(&tx, user.id)?;
            if use_defaults {
                notify_prefs::clear_for_medication(&tx, id)?;
            } else {
                let mut own = notify_prefs::for_medication(&tx, id)?.unwrap_or_default();
                if delivery.is_some() {
                    own.delivery_methods = delivery;
                }
                if lead_minutes.is_some() {
                    own.lead_minutes = lead_minutes;
                }
                if message_given {
                    own.custom_message = message;
                }
                notify_prefs::save_for_medication(&tx, id, &own)?;
            }
            let clock = UserClock::load(&tx, user.id)?;
            planner::plan_medication(&tx, user.id, &m, &clock, days)?;
            let own = notify_prefs::for_medication(&tx, id)?;
            let body = medication_prefs_json(id, &global, own.as_ref());
            tx.commit()?;
            Ok::<_, ApiError>(body)
        })
        .await?;
    Ok(success("Preferences saved successfully", saved))
}

fn settings_json(p: &GlobalPrefs, daily_time: &str) -> Value {
    json!({
        "medication_reminders": p.reminders_enabled,
        "reminder_time_before": p.lead_minutes,
        "daily_reminder_time": daily_time,
        "push_notifications": p.push_enabled,
        "email_notifications": p.email_enabled,
    })
}

/// The Settings page's view of the notification settings.
pub async fn get_settings(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Json<Value>> {
    let body = state
        .db
        .read(move |conn| {
            let p = notify_prefs::global(conn, user.id)?;
            let s = settings::get(conn, user.id)?;
            Ok::<_, ApiError>(settings_json(&p, &s.default_reminder_time))
        })
        .await?;
    Ok(ok(body))
}

#[derive(Deserialize)]
pub struct SettingsBody {
    medication_reminders: Option<bool>,
    reminder_time_before: Option<i64>,
    daily_reminder_time: Option<String>,
    push_notifications: Option<bool>,
    email_notifications: Option<bool>,
}

pub async fn put_settings(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<SettingsBody>,
) -> ApiResult<Json<Value>> {
    let daily_time = body
        .daily_reminder_time
        .map(|t| {
            NaiveTime::parse_from_str(t.trim(), "%H:%M")
                .map(|time| time.format("%H:%M").to_string())
                .map_err(|_| ApiError::bad_request("Daily reminder time must be written as HH:MM"))
        })
        .transpose()?;
    let update = GlobalUpdate {
        reminders_enabled: body.medication_reminders,
        email_enabled: body.email_notifications,
        push_enabled: body.push_notifications,
        lead_minutes: lead(body.reminder_time_before)?,
        daily_time: daily_time.clone(),
        ..GlobalUpdate::default()
    };
    let saved = save_global(&state, user.id, update).await?;
    let daily = state
        .db
        .read(move |conn| Ok::<_, ApiError>(settings::get(conn, user.id)?.default_reminder_time))
        .await?;
    Ok(success(
        "Notification settings updated successfully",
        settings_json(&saved, &daily),
    ))
}

// --- Push subscriptions and tests ------------------------------------------------------------

/// The VAPID public key browsers subscribe with; there is always one (generated on first
/// start, or configured), so push needs no manual set-up.
pub async fn push_public_key(State(state): State<AppState>) -> Json<Value> {
    Json(json!({ "success": true, "data": { "publicKey": state.secrets.vapid.public_key } }))
}

#[derive(Deserialize)]
pub struct SubscriptionKeys {
    p256dh: Option<String>,
    auth: Option<String>,
}

#[derive(Deserialize)]
pub struct SubscriptionBody {
    endpoint: Option<String>,
    keys: Option<SubscriptionKeys>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegisterBody {
    subscription: Option<SubscriptionBody>,
    user_agent: Option<String>,
}

fn key_bytes(text: &str) -> Option<usize> {
    use base64::Engine;
    let trimmed = text.trim().trim_end_matches('=');
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(trimmed)
        .ok()
        .map(|b| b.len())
}

pub async fn push_register(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<RegisterBody>,
) -> ApiResult<Response> {
    let invalid = || ApiError::bad_request("Invalid push subscription");
    let sub = body.subscription.ok_or_else(invalid)?;
    let endpoint = sub
        .endpoint
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty())
        .ok_or_else(invalid)?;
    let keys = sub.keys.ok_or_else(invalid)?;
    let (p256dh, auth) = (keys.p256dh.ok_or_else(invalid)?, keys.auth.ok_or_else(invalid)?);
    if endpoint.len() > 2048 || key_bytes(&p256dh) != Some(65) || key_bytes(&auth) != Some(16) {
        return Err(invalid());
    }
    if !state.engine.pusher.endpoint_allowed(&endpoint) {
        return Err(ApiError::bad_request("This push service is not allowed"));
    }
    let user_agent = body.user_agent.map(|ua| ua.chars().take(300).collect::<String>());
    state
        .db
        .write(move |conn| {
            let saved = push_subscriptions::upsert(
                conn,
                user.id,
                &endpoint,
                p256dh.trim(),
                auth.trim(),
                user_agent.as_deref(),
                &clock::now_stamp(),
            )?;
            if !saved {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "This push subscription belongs to another account",
                ));
            }
            Ok::<_, ApiError>(())
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "success": true, "message": "Push subscription saved" })),
    )
        .into_response())
}

#[derive(Deserialize)]
pub struct UnregisterBody {
    endpoint: Option<String>,
}

pub async fn push_unregister(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<UnregisterBody>,
) -> ApiResult<Json<Value>> {
    let endpoint = body
        .endpoint
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty())
        .ok_or_else(|| ApiError::bad_request("endpoint is required"))?;
    state
        .db
        .write(move |conn| Ok::<_, ApiError>(push_subscriptions::remove(conn, user.id, &endpoint)?))
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "Push subscription removed" }),
    ))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TestBody {
    delivery_methods: Option<Vec<String>>,
}

pub async fn test(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<TestBody>,
) -> ApiResult<Response> {
    let chosen = methods(body.delivery_methods.unwrap_or_default())?;
    let reports = state.engine.send_test(user.id, &chosen).await?;
    Ok(delivery_answer(&reports, "Test notification sent!"))
}

// --- Take links ------------------------------------------------------------------------------

fn invalid_token() -> ApiError {
    ApiError::not_found("Invalid or expired token")
}

/// The reminder, its medication and the history entry that answered it, for a live token.
fn take_lookup(
    conn: &rusqlite::Connection,
    token: &str,
) -> ApiResult<(reminders::TakeTarget, medications::Medication, i64)> {
    let target = reminders::by_take_token(conn, &codes::hash_link_token(token), &clock::now_stamp())?
        .ok_or_else(invalid_token)?;
    let user_id = target.user_id;
    let medication = target
        .reminder
        .medication_id
        .map(|m| medications::find(conn, user_id, m))
        .transpose()?
        .flatten()
        .ok_or_else(invalid_token)?;
    Ok((target, medication, user_id))
}

fn plausible_token(token: &str) -> bool {
    token.len() <= 128
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

pub async fn take_details(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiPath(token): ApiPath<String>,
) -> ApiResult<Json<Value>> {
    limited(state.limits.take_links_per_client.hit(&ip.to_string()))?;
    if !plausible_token(&token) {
        return Err(invalid_token());
    }
    let body = state
        .db
        .read(move |conn| {
            let (target, m, user_id) = take_lookup(conn, &token)?;
            let r = &target.reminder;
            let logged = match (&r.answered_at, target.history_id) {
                (None, _) => Value::Null,
                (Some(at), Some(entry)) => match history::find(conn, user_id, entry)? {
                    Some(e) => json!({ "status": e.status, "taken": e.taken }),
                    None => json!({ "status": Value::Null, "taken": at }),
                },
                (Some(at), None) => json!({ "status": Value::Null, "taken": at }),
            };
            let global = notify_prefs::global(conn, user_id)?;
            let own = notify_prefs::for_medication(conn, m.id)?;
            let message = r
                .message
                .clone()
                .or(notify_prefs::effective(&global, own.as_ref()).custom_message);
            Ok::<_, ApiError>(json!({
                "title": r.title,
                "medication_name": m.name,
                "quantity": m.default_quantity,
                "dosage": Value::Null,
                "dosage_unit": m.unit,
                "scheduled_time": r.scheduled_time,
                "message": message,
                "logged": logged,
            }))
        })
        .await?;
    Ok(ok(body))
}

#[derive(Deserialize, Default)]
pub struct TakeBody {
    status: Option<String>,
}

pub async fn take_log(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiPath(token): ApiPath<String>,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    limited(state.limits.take_links_per_client.hit(&ip.to_string()))?;
    if !plausible_token(&token) {
        return Err(invalid_token());
    }
    // The body is optional: a bare POST logs the dose as taken.
    let body: TakeBody = if body.iter().all(u8::is_ascii_whitespace) {
        TakeBody::default()
    } else {
        serde_json::from_slice(&body).map_err(|_| ApiError::bad_request("Invalid JSON body"))?
    };
    let status = doses::status(body.status.as_deref())?;
    let now = state.clock.now();
    let entry = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let (target, m, user_id) = take_lookup(&tx, &token)?;
            if target.reminder.answered_at.is_some() {
                return Err(ApiError::new(
                    StatusCode::CONFLICT,
                    "This dose was already logged",
                ));
            }
            let recorded = record_dose(
                &tx,
                user_id,
                &m,
                NewDose {
                    status,
                    taken: now,
                    quantity: m.default_quantity,
                    dosage_unit: m.unit.clone(),
                    dosage: None,
                    dosage_id: Some(target.reminder.id),
                    affect_inventory: true,
                },
                now,
            )?;
            tx.commit()?;
            Ok::<_, ApiError>(recorded)
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "success": true,
            "message": format!("Medication {status} logged successfully"),
            "data": entry,
        })),
    )
        .into_response())
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .route("/notifications", routing::get(list).post(create))
        .route(
            "/notifications/settings",
            routing::get(get_settings).put(put_settings),
        )
        .route(
            "/notifications/preferences",
            routing::get(get_preferences).put(put_preferences),
        )
        .route(
            "/notifications/medications/{id}/preferences",
            routing::get(get_medication_preferences).put(put_medication_preferences),
        )
        .route("/notifications/history", routing::get(delivery_history))
        .route(
            "/notifications/schedule-medication",
            routing::post(schedule_medication),
        )
        .route("/notifications/push/public-key", routing::get(push_public_key))
        .route("/notifications/push/register", routing::post(push_register))
        .route("/notifications/push/unregister", routing::post(push_unregister))
        .route("/notifications/test", routing::post(test))
        .route(
            "/notifications/take/{token}",
            routing::get(take_details).post(take_log),
        )
        .route("/notifications/{id}", routing::put(update).delete(cancel))
        .route("/notifications/{id}/send", routing::post(send_now))
}
