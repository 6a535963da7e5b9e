//! `/api/notifications/*` (SPEC §7): reminders (list, create, change, cancel, send now,
//! plan ahead), delivery history, preferences, push subscriptions, test notifications and
//! the public take links. The rules are in `services::{reminders, notifications,
//! push_subscriptions}`; these handlers read the request and shape the answer.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{Message, MessageData, message, message_data};
use super::error::{ApiError, ApiResult, Data, ErrorBody, data};
use super::extract::{ApiJson, ApiPath, ApiQuery, query_number};
use super::limits::limited;
use super::routes;
use super::session::AuthUser;
use crate::domain::notification::{DeliveryMethod, ReminderStatus, check_methods};
use crate::security::client_ip::{ClientIp, limit_key};
use crate::services::doses::{self, Recorded};
use crate::services::notifications::{
    self as prefs, GlobalChanges, MedicationChanges, MedicationPreferences, NotificationSettings, Preferences,
};
use crate::services::reminders::{self, NewReminder, Paging, Snoozed, TakeDetails};
use crate::services::rounds::ChannelReport;
use crate::services::{ErrorCode, push_subscriptions};
use crate::store::deliveries::Delivery;
use crate::store::reminders::Reminder;

/// A page of a list: the rows, and where they are in the whole.
#[derive(Serialize, ToSchema)]
pub struct Paged<T> {
    /// Always true.
    pub success: bool,
    pub data: Vec<T>,
    pub pagination: Pagination,
}

#[derive(Serialize, ToSchema)]
pub struct Pagination {
    /// How many rows there are in all.
    pub total: i64,
    pub limit: i64,
    pub offset: i64,
}

fn paged<T>(rows: Vec<T>, total: i64, page: Paging) -> Json<Paged<T>> {
    Json(Paged {
        success: true,
        data: rows,
        pagination: Pagination {
            total,
            limit: page.limit,
            offset: page.offset,
        },
    })
}

fn paging(limit: Option<&str>, offset: Option<&str>) -> ApiResult<Paging> {
    let limit = query_number(limit, "limit")?;
    let offset = query_number(offset, "offset")?;
    Ok(reminders::paging(limit, offset)?)
}

// --- Reminders ------------------------------------------------------------------------------

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// Only reminders with this status.
    #[param(value_type = Option<ReminderStatus>)]
    status: Option<String>,
    /// Rows per page, 1 to 200 (default 50).
    #[param(value_type = Option<i64>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    /// Rows to skip (default 0).
    #[param(value_type = Option<i64>, minimum = 0)]
    offset: Option<String>,
}

/// The person's reminders, soonest first.
#[utoipa::path(
    get,
    path = "/notifications",
    tag = "reminders",
    params(ListQuery),
    responses(
        (status = 200, description = "A page of reminders", body = Paged<Reminder>),
        (status = 400, description = "A bad status, limit or offset", body = ErrorBody),
    ),
)]
pub async fn list(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> ApiResult<Json<Paged<Reminder>>> {
    let status = q
        .status
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse::<ReminderStatus>()
                .map_err(|_| ApiError::bad_request("Status must be scheduled, sent, cancelled or failed"))
        })
        .transpose()?;
    let page = paging(q.limit.as_deref(), q.offset.as_deref())?;
    let (rows, total) = state
        .db
        .read(move |conn| Ok::<_, ApiError>(reminders::list(conn, user.id, status, page)?))
        .await?;
    Ok(paged(rows, total, page))
}

/// A date and time in RFC 3339 (required).
fn parse_instant(text: Option<&str>, field: &str) -> ApiResult<DateTime<Utc>> {
    let text = text
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| ApiError::bad_request(format!("{field} is required")))?;
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| ApiError::bad_request(format!("{field} must be a date and time (RFC 3339)")))
}

#[derive(Deserialize, ToSchema)]
pub struct CreateBody {
    #[schema(value_type = i64, required = true, minimum = 1)]
    medication_id: Option<i64>,
    /// The dose's time, RFC 3339: at most a minute past, within a year.
    #[schema(value_type = String, required = true, format = DateTime)]
    scheduled_time: Option<String>,
    /// Minutes before the dose; default: the medication's preference.
    #[schema(minimum = 0, maximum = 1440)]
    reminder_minutes_before: Option<i64>,
    #[schema(max_length = 500)]
    message: Option<String>,
}

/// A one-off reminder for a dose of one medication.
#[utoipa::path(
    post,
    path = "/notifications",
    tag = "reminders",
    request_body = CreateBody,
    responses(
        (status = 201, description = "The reminder", body = MessageData<Reminder>),
        (status = 400, description = "A missing or bad field", body = ErrorBody),
        (status = 404, description = "medication_not_found", body = ErrorBody),
        (status = 409, description = "reminder_exists: the medication has a reminder at that time", body = ErrorBody),
    ),
)]
pub async fn create(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<CreateBody>,
) -> ApiResult<Response> {
    let medication_id = body
        .medication_id
        .ok_or_else(|| ApiError::bad_request("medication_id is required"))?;
    let scheduled = parse_instant(body.scheduled_time.as_deref(), "scheduled_time")?;
    let new = NewReminder {
        medication_id,
        scheduled,
        lead_minutes: body.reminder_minutes_before,
        message: body.message,
    };
    let now = state.clock.now();
    let created = state
        .db
        .write(move |conn| Ok::<_, ApiError>(reminders::create(conn, user.id, new, now)?))
        .await?;
    Ok((
        StatusCode::CREATED,
        message_data("Notification scheduled", created),
    )
        .into_response())
}

#[derive(Deserialize, ToSchema)]
pub struct UpdateBody {
    /// The new message; blank or absent clears it. At most 500 characters.
    message: Option<String>,
}

/// Changes a scheduled reminder's message (its time follows the schedule and the lead;
/// a one-off reminder is cancelled and set again).
#[utoipa::path(
    put,
    path = "/notifications/{id}",
    tag = "reminders",
    params(("id" = i64, Path, description = "The reminder's id")),
    request_body = UpdateBody,
    responses(
        (status = 200, description = "The changed reminder", body = MessageData<Reminder>),
        (status = 400, description = "The message is too long", body = ErrorBody),
        (status = 404, description = "notification_not_found", body = ErrorBody),
        (status = 409, description = "notification_not_scheduled", body = ErrorBody),
    ),
)]
pub async fn update(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(body): ApiJson<UpdateBody>,
) -> ApiResult<Json<MessageData<Reminder>>> {
    let row = state
        .db
        .write(move |conn| {
            Ok::<_, ApiError>(reminders::set_message(
                conn,
                user.id,
                id,
                body.message.as_deref(),
            )?)
        })
        .await?;
    Ok(message_data("Notification updated", row))
}

/// Cancels a scheduled reminder; sent, failed or cancelled ones stay as they are.
#[utoipa::path(
    delete,
    path = "/notifications/{id}",
    tag = "reminders",
    params(("id" = i64, Path, description = "The reminder's id")),
    responses(
        (status = 200, description = "Cancelled", body = Message),
        (status = 404, description = "notification_not_found", body = ErrorBody),
        (status = 409, description = "notification_not_scheduled, or notification_sending", body = ErrorBody),
    ),
)]
pub async fn cancel(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Message>> {
    let now = state.clock.now();
    state
        .db
        .write(move |conn| Ok::<_, ApiError>(reminders::cancel(conn, user.id, id, now)?))
        .await?;
    Ok(message("Notification cancelled"))
}

/// One channel's outcome of a test or send-now notification.
#[derive(Serialize, ToSchema)]
pub struct ChannelResult {
    pub channel: DeliveryMethod,
    /// Delivered; for a reminder's e-mail, queued (its result joins the history when the
    /// mail server answers).
    pub ok: bool,
    /// What happened, in English ("Sent to 2 of 2 devices", "Queued for …", or why it failed).
    pub detail: String,
    /// What happened, as a code the app translates with `params`: `push_sent`
    /// (`delivered`, `devices`), `push_no_device`, `push_failed` (`devices`, `detail`),
    /// `push_off`, `email_sent` / `email_queued` / `fallback_queued` (`address`),
    /// `email_failed` (`detail`), `email_unavailable`, `email_unverified`, `email_off`,
    /// `fallback_skipped` (`reason`: `email_off`, `fallback_off`, `email_unavailable`,
    /// `email_unverified`).
    pub code: String,
    #[schema(value_type = Object)]
    pub params: serde_json::Value,
    /// E-mail was used (or would have been) because no device took the push.
    pub fallback: bool,
}

/// Every channel's outcome of one delivery.
#[derive(Serialize, ToSchema)]
pub struct ChannelResults {
    pub results: Vec<ChannelResult>,
}

impl ChannelResults {
    fn of(reports: &[ChannelReport]) -> ChannelResults {
        ChannelResults {
            results: reports
                .iter()
                .map(|r| ChannelResult {
                    channel: r.channel,
                    ok: r.ok(),
                    detail: r.detail.clone(),
                    code: r.code.to_owned(),
                    params: r.params.clone(),
                    fallback: r.fallback,
                })
                .collect(),
        }
    }
}

/// The 502 answer when no channel delivered: an error body that also carries each
/// channel's outcome.
#[derive(Serialize, ToSchema)]
pub struct DeliveryFailure {
    /// Always false.
    pub success: bool,
    pub message: String,
    /// `delivery_failed`.
    pub code: ErrorCode,
    pub data: ChannelResults,
}

/// A 409 of sending a reminder now: the reminder could not be sent at all (an error body), or
/// no channel could be tried (the failure with each channel's outcome).
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used: each answer is built as one of its two bodies
pub enum SendConflict {
    Failure(DeliveryFailure),
    Refused(ErrorBody),
}

/// 200 when a channel delivered; otherwise the failure of every channel: 409 when none
/// could even be tried (nothing subscribed, e-mail not set up — the person can change that),
/// 502 when a push service or the mail server failed.
fn delivery_answer(reports: &[ChannelReport], success_message: &str) -> Response {
    if reports.iter().any(ChannelReport::ok) {
        return message_data(success_message, ChannelResults::of(reports)).into_response();
    }
    let reasons = if reports.is_empty() {
        "no delivery method was chosen".to_owned()
    } else {
        reports
            .iter()
            .map(|r| format!("{}: {}", r.channel, r.detail))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let status = if reports.iter().all(|r| r.unavailable) {
        StatusCode::CONFLICT
    } else {
        StatusCode::BAD_GATEWAY
    };
    (
        status,
        Json(DeliveryFailure {
            success: false,
            message: format!("No notification could be sent: {reasons}"),
            code: ErrorCode::DeliveryFailed,
            data: ChannelResults::of(reports),
        }),
    )
        .into_response()
}

/// Sends a scheduled reminder now, over its usual channels.
#[utoipa::path(
    post,
    path = "/notifications/{id}/send",
    tag = "reminders",
    params(("id" = i64, Path, description = "The reminder's id")),
    responses(
        (status = 200, description = "Delivered on at least one channel", body = MessageData<ChannelResults>),
        (status = 404, description = "notification_not_found", body = ErrorBody),
        (status = 409, description = "notification_not_scheduled, notification_sending, or notification_not_sent (nothing to send); or delivery_failed with each channel's outcome: no channel could be tried (nothing subscribed, e-mail not configured, methods off)", body = SendConflict),
        (status = 502, description = "delivery_failed: a push service or the mail server failed", body = DeliveryFailure),
    ),
)]
pub async fn send_now(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Response> {
    let now = state.clock.now();
    let claim = state
        .db
        .write(move |conn| Ok::<_, ApiError>(reminders::claim_for_sending(conn, user.id, id, now)?))
        .await?;
    // Sent from its own task: a client that goes away does not cut a delivery in half.
    let engine = std::sync::Arc::clone(&state.engine);
    let reports = tokio::spawn(async move { engine.dispatch(id, &claim).await })
        .await
        .map_err(|e| ApiError::internal(format!("sending failed: {e}")))??;
    match reports {
        Some(reports) => Ok(delivery_answer(&reports, "Notification sent")),
        None => {
            let refusal = state
                .db
                .read(move |conn| Ok::<_, ApiError>(reminders::not_sent(conn, user.id, id)?))
                .await?;
            Err(refusal.into())
        }
    }
}

#[derive(Deserialize, ToSchema)]
pub struct ScheduleBody {
    #[schema(required = true, minimum = 1)]
    medication_id: Option<i64>,
    /// Default 7.
    #[schema(minimum = 1, maximum = 31)]
    days_ahead: Option<u32>,
}

/// How many reminders were added.
#[derive(Serialize, ToSchema)]
pub struct Scheduled {
    pub scheduled: usize,
}

/// Plans a medication's reminders for the next `days_ahead` days (default 7).
#[utoipa::path(
    post,
    path = "/notifications/schedule-medication",
    tag = "reminders",
    request_body = ScheduleBody,
    responses(
        (status = 200, description = "Reminders planned", body = MessageData<Scheduled>),
        (status = 400, description = "A missing or bad field", body = ErrorBody),
        (status = 404, description = "medication_not_found", body = ErrorBody),
    ),
)]
pub async fn schedule_medication(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<ScheduleBody>,
) -> ApiResult<Json<MessageData<Scheduled>>> {
    let id = body
        .medication_id
        .ok_or_else(|| ApiError::bad_request("medication_id is required"))?;
    let days = body.days_ahead;
    let now = state.clock.now();
    let added = state
        .db
        .write(move |conn| Ok::<_, ApiError>(reminders::plan_ahead(conn, user.id, id, days, now)?))
        .await?;
    Ok(message_data(
        "Reminders scheduled",
        Scheduled { scheduled: added },
    ))
}

// --- Delivery history -------------------------------------------------------------------------

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// Rows per page, 1 to 200 (default 50).
    #[param(value_type = Option<i64>, minimum = 1, maximum = 200)]
    limit: Option<String>,
    /// Rows to skip (default 0).
    #[param(value_type = Option<i64>, minimum = 0)]
    offset: Option<String>,
    /// First day (YYYY-MM-DD, in the person's zone).
    #[param(value_type = Option<NaiveDate>)]
    start_date: Option<String>,
    /// Last day (YYYY-MM-DD, in the person's zone).
    #[param(value_type = Option<NaiveDate>)]
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

/// Every attempt to deliver a notification, newest first.
#[utoipa::path(
    get,
    path = "/notifications/history",
    tag = "notifications",
    params(HistoryQuery),
    responses(
        (status = 200, description = "A page of deliveries", body = Paged<Delivery>),
        (status = 400, description = "A bad limit, offset or date", body = ErrorBody),
    ),
)]
pub async fn delivery_history(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> ApiResult<Json<Paged<Delivery>>> {
    let page = paging(q.limit.as_deref(), q.offset.as_deref())?;
    let start = query_date(q.start_date.as_deref(), "start_date")?;
    let end = query_date(q.end_date.as_deref(), "end_date")?;
    let now = state.clock.now();
    let (rows, total) = state
        .db
        .read(move |conn| {
            Ok::<_, ApiError>(reminders::delivery_history(conn, user.id, start, end, page, now)?)
        })
        .await?;
    Ok(paged(rows, total, page))
}

// --- Preferences ---------------------------------------------------------------------------

fn methods(list: &[String]) -> ApiResult<Vec<DeliveryMethod>> {
    Ok(check_methods(list).map_err(crate::services::ServiceError::from)?)
}

/// The global reminder preferences.
#[utoipa::path(
    get,
    path = "/notifications/preferences",
    tag = "notifications",
    responses(
        (status = 200, description = "The preferences", body = Data<Preferences>),
    ),
)]
pub async fn get_preferences(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<Preferences>>> {
    let email_available = state.mailer.is_configured();
    let prefs = state
        .db
        .read(move |conn| Ok::<_, ApiError>(prefs::preferences(conn, user.id, email_available)?))
        .await?;
    Ok(data(prefs))
}

#[derive(Deserialize, ToSchema)]
pub struct PreferencesBody {
    email_notifications_enabled: Option<bool>,
    push_notifications_enabled: Option<bool>,
    notification_sound_enabled: Option<bool>,
    notification_vibration_enabled: Option<bool>,
    /// 0 to 1440.
    #[schema(minimum = 0, maximum = 1440)]
    default_reminder_minutes_before: Option<i64>,
    /// push and/or email, at least one, each once.
    #[schema(value_type = Option<Vec<DeliveryMethod>>, min_items = 1)]
    default_delivery_methods: Option<Vec<String>>,
    reminders_enabled: Option<bool>,
    /// 1 to 1440.
    #[schema(minimum = 1, maximum = 1440)]
    repeat_interval_minutes: Option<i64>,
    /// 0 to 10.
    #[schema(minimum = 0, maximum = 10)]
    repeat_max: Option<i64>,
    /// Push and e-mail reminders leave medication names (and doses, messages) out.
    hide_medication_names: Option<bool>,
    /// If no device takes a push, send it by e-mail (applies while e-mail notifications are on).
    email_fallback_enabled: Option<bool>,
    /// Read-only; accepted (and ignored) so a client can send back what it got.
    #[serde(rename = "email_available")]
    _email_available: Option<bool>,
}

/// Saves global preferences; changing the lead or the master switch re-plans reminders.
#[utoipa::path(
    put,
    path = "/notifications/preferences",
    tag = "notifications",
    request_body = PreferencesBody,
    responses(
        (status = 200, description = "The saved preferences", body = MessageData<Preferences>),
        (status = 400, description = "A value out of range", body = ErrorBody),
    ),
)]
pub async fn put_preferences(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PreferencesBody>,
) -> ApiResult<Json<MessageData<Preferences>>> {
    let changes = GlobalChanges {
        reminders_enabled: body.reminders_enabled,
        email_enabled: body.email_notifications_enabled,
        push_enabled: body.push_notifications_enabled,
        sound_enabled: body.notification_sound_enabled,
        vibration_enabled: body.notification_vibration_enabled,
        lead_minutes: body.default_reminder_minutes_before,
        methods: body
            .default_delivery_methods
            .as_deref()
            .map(methods)
            .transpose()?,
        repeat_interval_minutes: body.repeat_interval_minutes,
        repeat_max: body.repeat_max,
        hide_medication_names: body.hide_medication_names,
        email_fallback: body.email_fallback_enabled,
        daily_time: None,
    };
    let days = state.settings.reminders.horizon_days;
    let email_available = state.mailer.is_configured();
    let now = state.clock.now();
    let saved_prefs = state
        .db
        .write(move |conn| {
            Ok::<_, ApiError>(prefs::save_preferences(
                conn,
                user.id,
                &changes,
                days,
                email_available,
                now,
            )?)
        })
        .await?;
    Ok(message_data("Preferences saved successfully", saved_prefs))
}

/// What applies to one medication's reminders.
#[utoipa::path(
    get,
    path = "/notifications/medications/{id}/preferences",
    tag = "notifications",
    params(("id" = i64, Path, description = "The medication's id")),
    responses(
        (status = 200, description = "The medication's preferences", body = Data<MedicationPreferences>),
        (status = 404, description = "medication_not_found", body = ErrorBody),
    ),
)]
pub async fn get_medication_preferences(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Data<MedicationPreferences>>> {
    let body = state
        .db
        .read(move |conn| Ok::<_, ApiError>(prefs::medication_preferences(conn, user.id, id)?))
        .await?;
    Ok(data(body))
}

#[derive(Deserialize, ToSchema)]
pub struct MedicationPreferencesBody {
    /// push and/or email, at least one, each once.
    #[schema(value_type = Option<Vec<DeliveryMethod>>, min_items = 1)]
    delivery_methods: Option<Vec<String>>,
    /// 0 to 1440.
    #[schema(minimum = 0, maximum = 1440)]
    reminder_minutes_before: Option<i64>,
    /// At most 500 characters; blank clears it.
    #[schema(max_length = 500)]
    custom_message: Option<String>,
    /// True drops the medication's own preferences.
    use_defaults: Option<bool>,
}

/// Saves a medication's own preferences (or drops them) and re-plans its reminders.
#[utoipa::path(
    put,
    path = "/notifications/medications/{id}/preferences",
    tag = "notifications",
    params(("id" = i64, Path, description = "The medication's id")),
    request_body = MedicationPreferencesBody,
    responses(
        (status = 200, description = "The medication's preferences", body = MessageData<MedicationPreferences>),
        (status = 400, description = "A value out of range", body = ErrorBody),
        (status = 404, description = "medication_not_found", body = ErrorBody),
    ),
)]
pub async fn put_medication_preferences(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(body): ApiJson<MedicationPreferencesBody>,
) -> ApiResult<Json<MessageData<MedicationPreferences>>> {
    let changes = MedicationChanges {
        use_defaults: body.use_defaults == Some(true),
        methods: body.delivery_methods.as_deref().map(methods).transpose()?,
        lead_minutes: body.reminder_minutes_before,
        custom_message: body.custom_message.map(Some),
    };
    let days = state.settings.reminders.horizon_days;
    let now = state.clock.now();
    let body = state
        .db
        .write(move |conn| {
            Ok::<_, ApiError>(prefs::save_medication_preferences(
                conn, user.id, id, changes, days, now,
            )?)
        })
        .await?;
    Ok(message_data("Preferences saved successfully", body))
}

/// The Settings page's view of the notification settings.
#[utoipa::path(
    get,
    path = "/notifications/settings",
    tag = "notifications",
    responses(
        (status = 200, description = "The settings", body = Data<NotificationSettings>),
    ),
)]
pub async fn get_settings(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
) -> ApiResult<Json<Data<NotificationSettings>>> {
    let body = state
        .db
        .read(move |conn| Ok::<_, ApiError>(prefs::settings(conn, user.id)?))
        .await?;
    Ok(data(body))
}

#[derive(Deserialize, ToSchema)]
pub struct SettingsBody {
    medication_reminders: Option<bool>,
    /// 0 to 1440.
    #[schema(minimum = 0, maximum = 1440)]
    reminder_time_before: Option<i64>,
    /// HH:MM.
    #[schema(pattern = "^\\s*([01][0-9]|2[0-3]):[0-5][0-9]\\s*$")]
    daily_reminder_time: Option<String>,
    push_notifications: Option<bool>,
    email_notifications: Option<bool>,
}

/// Saves the Settings page's notification settings.
#[utoipa::path(
    put,
    path = "/notifications/settings",
    tag = "notifications",
    request_body = SettingsBody,
    responses(
        (status = 200, description = "The saved settings", body = MessageData<NotificationSettings>),
        (status = 400, description = "A bad time or lead", body = ErrorBody),
    ),
)]
pub async fn put_settings(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<SettingsBody>,
) -> ApiResult<Json<MessageData<NotificationSettings>>> {
    let daily_time = body
        .daily_reminder_time
        .map(|t| {
            NaiveTime::parse_from_str(t.trim(), "%H:%M")
                .map_err(|_| ApiError::bad_request("Daily reminder time must be written as HH:MM"))
        })
        .transpose()?;
    let changes = GlobalChanges {
        reminders_enabled: body.medication_reminders,
        email_enabled: body.email_notifications,
        push_enabled: body.push_notifications,
        lead_minutes: body.reminder_time_before,
        daily_time,
        ..GlobalChanges::default()
    };
    let days = state.settings.reminders.horizon_days;
    let now = state.clock.now();
    let body = state
        .db
        .write(move |conn| Ok::<_, ApiError>(prefs::save_settings(conn, user.id, &changes, days, now)?))
        .await?;
    Ok(message_data("Notification settings updated successfully", body))
}

// --- Push subscriptions and tests ------------------------------------------------------------

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublicKey {
    /// The VAPID public key, base64url.
    pub public_key: String,
}

/// The VAPID public key browsers subscribe with; there is always one (generated on first
/// start, or configured), so push needs no manual set-up.
#[utoipa::path(
    get,
    path = "/notifications/push/public-key",
    tag = "push",
    security(()),
    responses((status = 200, description = "The key", body = Data<PublicKey>)),
)]
pub async fn push_public_key(State(state): State<AppState>) -> Json<Data<PublicKey>> {
    data(PublicKey {
        public_key: state.secrets.vapid.public_key.clone(),
    })
}

#[derive(Deserialize, ToSchema)]
pub struct SubscriptionKeys {
    /// The browser's public key, base64url: an uncompressed point on P-256, 65 bytes (87
    /// characters, `=` padding allowed); one not on the curve is refused.
    #[schema(value_type = String, required = true, pattern = "^\\s*[A-Za-z0-9_-]{86}[AEIMQUYcgkosw048]=?\\s*$")]
    p256dh: Option<String>,
    /// base64url, 16 bytes (22 characters, `=` padding allowed).
    #[schema(value_type = String, required = true, pattern = "^\\s*[A-Za-z0-9_-]{21}[AQgw](==)?\\s*$")]
    auth: Option<String>,
}

/// `PushSubscription.toJSON()`.
#[derive(Deserialize, ToSchema)]
pub struct SubscriptionBody {
    /// An https URL of a known push service (Google's, Mozilla's, Apple's, Microsoft's),
    /// or one under a prefix the operator allows (`push.allow_endpoints`); at most 2048
    /// bytes, without credentials or dot segments.
    #[schema(value_type = String, required = true, max_length = 2048,
        pattern = "^\\s*https://([a-z0-9]+\\.)*(fcm\\.googleapis\\.com|android\\.googleapis\\.com|push\\.services\\.mozilla\\.com|push\\.apple\\.com|notify\\.windows\\.com)(/[A-Za-z0-9_:-]*)*\\s*$")]
    endpoint: Option<String>,
    #[schema(value_type = SubscriptionKeys, required = true)]
    keys: Option<SubscriptionKeys>,
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegisterBody {
    #[schema(value_type = SubscriptionBody, required = true)]
    subscription: Option<SubscriptionBody>,
    user_agent: Option<String>,
}

/// Keeps this browser's push subscription for the person.
#[utoipa::path(
    post,
    path = "/notifications/push/register",
    tag = "push",
    request_body = RegisterBody,
    responses(
        (status = 201, description = "Saved", body = Message),
        (status = 400, description = "invalid_subscription, or push_service_not_allowed", body = ErrorBody),
        (status = 409, description = "subscription_taken: another account's endpoint with other keys", body = ErrorBody),
    ),
)]
pub async fn push_register(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<RegisterBody>,
) -> ApiResult<Response> {
    let sub = body.subscription;
    let keys = sub.as_ref().and_then(|s| s.keys.as_ref());
    let offered = push_subscriptions::Offered {
        endpoint: sub.as_ref().and_then(|s| s.endpoint.clone()),
        p256dh: keys.and_then(|k| k.p256dh.clone()),
        auth: keys.and_then(|k| k.auth.clone()),
        user_agent: body.user_agent,
    };
    let checked = push_subscriptions::check(offered, |e| state.engine.pusher.endpoint_allowed(e))?;
    let now = state.clock.now();
    state
        .db
        .write(move |conn| Ok::<_, ApiError>(push_subscriptions::register(conn, user.id, &checked, now)?))
        .await?;
    Ok((StatusCode::CREATED, message("Push subscription saved")).into_response())
}

#[derive(Deserialize, ToSchema)]
pub struct UnregisterBody {
    /// Required: not blank.
    #[schema(value_type = String, required = true, pattern = "\\S")]
    endpoint: Option<String>,
}

/// Forgets one of the person's push endpoints (no error when it was not known).
#[utoipa::path(
    post,
    path = "/notifications/push/unregister",
    tag = "push",
    request_body = UnregisterBody,
    responses(
        (status = 200, description = "Removed", body = Message),
        (status = 400, description = "endpoint is required", body = ErrorBody),
    ),
)]
pub async fn push_unregister(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<UnregisterBody>,
) -> ApiResult<Json<Message>> {
    state
        .db
        .write(move |conn| {
            Ok::<_, ApiError>(push_subscriptions::unregister(
                conn,
                user.id,
                body.endpoint.as_deref(),
            )?)
        })
        .await?;
    Ok(message("Push subscription removed"))
}

#[derive(Deserialize, ToSchema)]
pub struct PushStatusBody {
    /// This browser's subscription endpoint (`PushSubscription.endpoint`).
    endpoint: Option<String>,
}

/// Whether this browser's push subscription is one the server sends the person's
/// reminders to.
#[derive(Serialize, ToSchema)]
pub struct PushStatus {
    /// The endpoint is registered for the signed-in person.
    pub registered: bool,
    /// How many devices the person has subscribed, this one included.
    pub devices: usize,
}

/// Whether the server knows this browser's subscription (the push switch shows it on only
/// then), and how many devices take the person's reminders.
#[utoipa::path(
    post,
    path = "/notifications/push/status",
    tag = "push",
    request_body = PushStatusBody,
    responses(
        (status = 200, description = "What the server knows", body = Data<PushStatus>),
        (status = 400, description = "The body is not `{\"endpoint\": \"…\"}` (`invalid_request`)", body = ErrorBody),
    ),
)]
pub async fn push_status(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<PushStatusBody>,
) -> ApiResult<Json<Data<PushStatus>>> {
    let (registered, devices) = state
        .db
        .read(move |conn| {
            Ok::<_, ApiError>(push_subscriptions::status(
                conn,
                user.id,
                body.endpoint.as_deref(),
            )?)
        })
        .await?;
    Ok(data(PushStatus { registered, devices }))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TestBody {
    /// push and/or email, at least one.
    #[schema(value_type = Vec<DeliveryMethod>, required = true, min_items = 1)]
    delivery_methods: Option<Vec<String>>,
}

/// Sends a test notification now the way a reminder over the chosen methods goes: methods
/// switched off are skipped, push goes to every device, and when no device took it the
/// e-mail fallback is sent or skipped as for a reminder. `results` lists each step.
#[utoipa::path(
    post,
    path = "/notifications/test",
    tag = "notifications",
    request_body = TestBody,
    responses(
        (status = 200, description = "Delivered on at least one channel", body = MessageData<ChannelResults>),
        (status = 400, description = "No or unknown delivery methods", body = ErrorBody),
        (status = 409, description = "delivery_failed: no channel could be tried (nothing subscribed, e-mail not configured, methods off)", body = DeliveryFailure),
        (status = 502, description = "delivery_failed: a push service or the mail server failed", body = DeliveryFailure),
    ),
)]
pub async fn test(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(body): ApiJson<TestBody>,
) -> ApiResult<Response> {
    let chosen = methods(&body.delivery_methods.unwrap_or_default())?;
    let reports = state.engine.send_test(user.id, &chosen).await?;
    Ok(delivery_answer(&reports, "Test notification sent!"))
}

// --- Take links ------------------------------------------------------------------------------

/// What a take link shows: the reminder and its dose, and whether it was logged already.
#[utoipa::path(
    get,
    path = "/notifications/take/{token}",
    tag = "reminders",
    security(()),
    params(("token" = String, Path, description = "The token of the reminder's take link")),
    responses(
        (status = 200, description = "The reminder's dose", body = Data<TakeDetails>),
        (status = 404, description = "invalid_token: unknown or expired", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ),
)]
pub async fn take_details(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiPath(token): ApiPath<String>,
) -> ApiResult<Json<Data<TakeDetails>>> {
    limited(state.limits.take_links_per_client.hit(&limit_key(ip)))?;
    let now = state.clock.now();
    let body = state
        .db
        .read(move |conn| Ok::<_, ApiError>(reminders::take_details(conn, &token, now)?))
        .await?;
    Ok(data(body))
}

#[derive(Deserialize, Default, ToSchema)]
pub struct TakeBody {
    /// taken (the default), skipped, missed, or snoozed (with `minutes`).
    #[schema(value_type = Option<TakeStatus>)]
    status: Option<String>,
    /// For `snoozed`: 10, 30 or 60.
    #[schema(schema_with = snooze_minutes)]
    minutes: Option<i64>,
}

/// The document's `minutes`: one of `reminders::SNOOZE_MINUTES`, or null.
fn snooze_minutes() -> utoipa::openapi::schema::Object {
    crate::domain::api_schema::integer_choices(
        &reminders::SNOOZE_MINUTES,
        true,
        "For `snoozed`: 10, 30 or 60.",
    )
}

/// What a take link may record: a dose's status, or a snooze.
#[derive(ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)]
pub enum TakeStatus {
    Taken,
    Skipped,
    Missed,
    Snoozed,
}

/// Logs the dose a take link asks about, without signing in (the link is the permission).
/// The body is optional: a bare POST logs the dose as taken. `{"status": "snoozed",
/// "minutes": 10}` (10, 30 or 60) instead sends the reminder again that much later (200,
/// "Snoozed until HH:MM" in the person's zone); the link (and the new reminder's) still
/// logs the dose afterwards. Handling a reminder withdraws its push notifications.
#[utoipa::path(
    post,
    path = "/notifications/take/{token}",
    tag = "reminders",
    security(()),
    params(("token" = String, Path, description = "The token of the reminder's take link")),
    request_body(content = TakeBody, description = "Optional; a bare POST logs the dose as taken"),
    responses(
        (status = 201, description = "The history entry, with `warning` and `warning_code` (null unless the stock could not follow)", body = MessageData<Recorded>),
        (status = 200, description = "Snoozed: when the reminder goes out again", body = MessageData<Snoozed>),
        (status = 400, description = "A bad body or status; invalid_snooze_minutes", body = ErrorBody),
        (status = 403, description = "not_permitted: a carer's alert link cannot snooze the person's reminder", body = ErrorBody),
        (status = 404, description = "invalid_token: unknown or expired", body = ErrorBody),
        (status = 409, description = "dose_already_logged", body = ErrorBody),
        (status = 429, description = "rate_limited", body = ErrorBody),
    ),
)]
pub async fn take_log(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    ApiPath(token): ApiPath<String>,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    limited(state.limits.take_links_per_client.hit(&limit_key(ip)))?;
    let now = state.clock.now();
    // An implausible token is refused before the body is read.
    reminders::check_token(&token)?;
    let body: TakeBody = if body.iter().all(u8::is_ascii_whitespace) {
        TakeBody::default()
    } else {
        serde_json::from_slice(&body)
            .map_err(|_| ApiError::bad_request("Invalid JSON body").with_code(ErrorCode::InvalidRequest))?
    };
    if body.status.as_deref() == Some("snoozed") {
        let minutes = body.minutes;
        let (snoozed, time) = state
            .db
            .write(move |conn| Ok::<_, ApiError>(reminders::snooze(conn, &token, minutes, now)?))
            .await?;
        state.engine.wake_withdrawals_if_any();
        return Ok(message_data(format!("Snoozed until {time}"), snoozed).into_response());
    }
    let status = doses::status(body.status.as_deref())?;
    let entry = state
        .db
        .write(move |conn| Ok::<_, ApiError>(reminders::log_take(conn, &token, status, now)?))
        .await?;
    state.engine.wake_withdrawals_if_any();
    Ok((
        StatusCode::CREATED,
        message_data(format!("Medication {status} logged successfully"), entry),
    )
        .into_response())
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(get_settings, put_settings))
        .routes(routes!(get_preferences, put_preferences))
        .routes(routes!(get_medication_preferences, put_medication_preferences))
        .routes(routes!(delivery_history))
        .routes(routes!(schedule_medication))
        .routes(routes!(push_public_key))
        .routes(routes!(push_register))
        .routes(routes!(push_unregister))
        .routes(routes!(push_status))
        .routes(routes!(test))
        .routes(routes!(take_details, take_log))
        .routes(routes!(update, cancel))
        .routes(routes!(send_now))
}
