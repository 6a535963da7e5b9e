//! `/api/medications/*`: medications, dose logging, inventory and adherence. Every change to
//! stock happens in one transaction with its ledger row; another user's ids answer 404.

use std::collections::{HashMap, HashSet};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::Connection;
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::{ApiError, ApiResult, ok};
use super::extract::{ApiJson, ApiPath, ApiQuery};
use super::session::AuthUser;
use crate::clock;
use crate::domain::quantity::Quantity;
use crate::domain::schedule::{self, Frequency};
use crate::domain::stock::{self, InventoryType};
use crate::domain::today::{
    Day, DoseOfToday, DoseState, Log, PlannedReminder, ScheduledDose, doses_of_today,
};
use crate::domain::units;
use crate::reminders::planner::{self, UserClock};
use crate::services::report::{self, Adherence};
use crate::store::history::{self, Entry};
use crate::store::medications::{self, Inventory, Medication, StockChange};
use crate::store::notify_prefs;
use crate::store::reminders;
use axum::routing;
use utoipa_axum::router::OpenApiRouter;

use crate::domain::medication::{COLORS, DEFAULT_ICON};
use crate::domain::medication::{MAX_NAME, MAX_NOTES, MAX_SHORT_TEXT, limited_text};
use crate::services::ServiceError;
use crate::services::doses::{self, DoseRequest};
pub const RECENT_DOSES: i64 = 5;

fn not_found() -> ApiError {
    ApiError::not_found("Medication not found")
}

/// A text field: trimmed, with a length limit.
fn text(value: &str, max: usize, label: &str) -> ApiResult<String> {
    limited_text(value, max, label).map_err(ApiError::bad_request)
}

#[derive(Deserialize, Default)]
pub struct ScheduleInput {
    times: Option<Vec<String>>,
    weekdays: Option<Vec<u32>>,
    start_date: Option<String>,
}

#[derive(Deserialize, Default)]
pub struct InventoryInput {
    enabled: Option<bool>,
    inventory_type: Option<String>,
    // The container fields are "absent: keep", "null: clear", or a value.
    #[serde(default, deserialize_with = "nullable")]
    container_type: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    container_quantity: Option<Option<i64>>,
    #[serde(default, deserialize_with = "nullable")]
    container_size: Option<Option<Quantity>>,
    #[serde(default, deserialize_with = "nullable")]
    container_unit: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    item_quantity: Option<Option<i64>>,
    #[serde(default, deserialize_with = "nullable")]
    item_strength: Option<Option<Quantity>>,
    #[serde(default, deserialize_with = "nullable")]
    item_unit: Option<Option<String>>,
    current_quantity: Option<Quantity>,
    reminder_threshold: Option<Quantity>,
}

/// A present field, possibly `null`: `Some(None)` clears, a missing field stays `None`.
fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

#[derive(Deserialize)]
pub struct MedicationInput {
    name: Option<String>,
    unit: Option<String>,
    frequency: Option<String>,
    color: Option<String>,
    icon: Option<String>,
    notes: Option<String>,
    default_quantity: Option<Quantity>,
    schedule: Option<ScheduleInput>,
    inventory: Option<InventoryInput>,
}

/// Applies the input's fields over `m` and validates the result (SPEC §5 messages).
fn apply_medication(m: &mut Medication, input: MedicationInput) -> ApiResult<()> {
    if let Some(name) = input.name {
        m.name = text(&name, MAX_NAME, "Name")?;
    }
    if m.name.is_empty() {
        return Err(ApiError::bad_request("Name is required"));
    }
    if let Some(unit) = input.unit {
        m.unit = unit.trim().to_owned();
    }
    m.unit = units::canonical(&m.unit).map_err(ServiceError::from)?;
    if let Some(frequency) = input.frequency {
        Frequency::parse(frequency.trim()).ok_or_else(|| {
            ApiError::bad_request(format!("Frequency must be one of {}", Frequency::ALL.join(", ")))
        })?;
        m.frequency = frequency.trim().to_owned();
    }
    if let Some(color) = input.color {
        if !COLORS.contains(&color.trim()) {
            return Err(ApiError::bad_request(format!(
                "Color must be one of {}",
                COLORS.join(", ")
            )));
        }
        m.color = color.trim().to_owned();
    }
    if let Some(icon) = input.icon {
        let icon = text(&icon, MAX_SHORT_TEXT, "Icon")?;
        m.icon = if icon.is_empty() {
            DEFAULT_ICON.to_owned()
        } else {
            icon
        };
    }
    if let Some(notes) = input.notes {
        m.notes = text(&notes, MAX_NOTES, "Notes")?;
    }
    if let Some(quantity) = input.default_quantity {
        if !quantity.is_positive() {
            return Err(ApiError::bad_request(
                "Please enter a valid positive number for the dosage amount",
            ));
        }
        m.default_quantity = quantity;
    }
    if let Some(s) = input.schedule {
        if let Some(times) = s.times {
            let parsed = schedule::parse_times(&times).map_err(ApiError::bad_request)?;
            m.schedule_times = parsed.into_iter().map(schedule::format_time).collect();
        }
        if let Some(weekdays) = s.weekdays {
            let parsed = schedule::parse_weekdays(&weekdays).map_err(ApiError::bad_request)?;
            m.schedule_weekdays = parsed.iter().map(|d| d.number_from_monday()).collect();
        }
        if let Some(start) = s.start_date {
            NaiveDate::parse_from_str(start.trim(), "%Y-%m-%d")
                .map_err(|_| ApiError::bad_request("Start date must be written as YYYY-MM-DD"))?;
            m.start_date = start.trim().to_owned();
        }
    }
    Ok(())
}

/// Applies inventory input over the current inventory, validates it, and moves stock with
/// ledger rows: a newly enabled inventory starts full (or at the given quantity), a given
/// quantity on an existing one is a correction.
fn apply_inventory(
    conn: &Connection,
    medication: &Medication,
    input: InventoryInput,
    now: &str,
) -> ApiResult<Inventory> {
    let medication_id = medication.id;
    let existing = medications::inventory(conn, medication_id)?;
    let old_unit = existing.as_ref().map(|i| i.containers.stock_unit().to_owned());
    let was_enabled = existing.as_ref().is_some_and(|i| i.enabled);
    let mut inv = existing.unwrap_or_else(|| Inventory::disabled(now));
    let c = &mut inv.containers;
    if let Some(kind) = input.inventory_type {
        c.inventory_type = match kind.trim() {
            "continuous" => InventoryType::Continuous,
            "discrete" => InventoryType::Discrete,
            _ => {
                return Err(ApiError::bad_request(
                    "Inventory type must be continuous or discrete",
                ));
            }
        };
    }
    fn replace<T>(value: Option<Option<T>>, current: &mut Option<T>) {
        if let Some(value) = value {
            *current = value;
        }
    }
    let text = |value: Option<Option<String>>| {
        value.map(|v| v.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()))
    };
    replace(text(input.container_type), &mut c.container_type);
    replace(text(input.container_unit), &mut c.container_unit);
    replace(text(input.item_unit), &mut c.item_unit);
    replace(input.container_quantity, &mut c.container_quantity);
    replace(input.container_size, &mut c.container_size);
    replace(input.item_quantity, &mut c.item_quantity);
    replace(input.item_strength, &mut c.item_strength);
    if let Some(threshold) = input.reminder_threshold {
        if threshold < Quantity::ZERO {
            return Err(ApiError::bad_request("Reminder threshold cannot be negative"));
        }
        inv.reminder_threshold = threshold;
    }
    inv.enabled = input.enabled.unwrap_or(inv.enabled);
    if input.current_quantity.is_some_and(|q| q < Quantity::ZERO) {
        return Err(ApiError::bad_request("Current quantity cannot be negative"));
    }
    if inv.enabled {
        inv.containers.validate().map_err(ServiceError::from)?;
        for unit in [&mut inv.containers.container_unit, &mut inv.containers.item_unit]
            .into_iter()
            .flatten()
        {
            *unit = units::find(unit).map(|u| u.symbol.to_owned()).unwrap_or_default();
        }
        inv.containers
            .check_dose_unit(&medication.unit)
            .map_err(ServiceError::from)?;
    }
    let old = inv.current_quantity;
    let (target, kind) = match (inv.enabled && !was_enabled, input.current_quantity) {
        (true, given) => (
            given.unwrap_or_else(|| inv.containers.total()),
            StockChange::Initial,
        ),
        (false, Some(given)) => (given, StockChange::Correction),
        (false, None) => (old, StockChange::Correction),
    };
    inv.current_quantity = target;
    inv.updated_at = now.to_owned();
    // A fresh stock (turned on again, or counted in another unit) owes nothing to doses
    // logged before it: deleting one of those later must not add to it.
    if matches!(kind, StockChange::Initial)
        || old_unit
            .as_deref()
            .is_some_and(|u| u != inv.containers.stock_unit())
    {
        history::forget_stock_use(conn, medication_id)?;
    }
    medications::save_inventory(conn, medication_id, &inv)?;
    if target != old || matches!(kind, StockChange::Initial) {
        medications::record_ledger(conn, medication_id, target - old, target, kind, None, None, now)?;
    }
    Ok(inv)
}

fn inventory_json(medication: &Medication, inv: &Inventory, clock: &UserClock) -> Value {
    let c = &inv.containers;
    let forecast = forecast(medication, inv, clock);
    json!({
        "id": medication.id,
        "enabled": inv.enabled,
        "inventory_type": c.inventory_type,
        "container_type": c.container_type,
        "container_quantity": c.container_quantity,
        "container_size": c.container_size,
        "container_unit": c.container_unit,
        "item_quantity": c.item_quantity,
        "item_strength": c.item_strength,
        "item_unit": c.item_unit,
        "total_quantity": c.total(),
        "total_unit": c.stock_unit(),
        "current_quantity": stock::on_hand(inv.current_quantity),
        "reminder_threshold": inv.reminder_threshold,
        "stock_status": stock::status(inv.current_quantity, inv.reminder_threshold),
        "runs_out_on": forecast.map(|d| d.to_string()),
        "updated_at": inv.updated_at,
    })
}

fn forecast(m: &Medication, inv: &Inventory, clock: &UserClock) -> Option<NaiveDate> {
    report::runs_out_on(m, inv, clock)
}

fn schedule_json(m: &Medication, clock: &UserClock) -> Value {
    let summary = report::schedule_summary(m, clock);
    json!({
        "times": m.schedule_times,
        "weekdays": m.schedule_weekdays,
        "start_date": m.start_date,
        "effective_times": summary.effective_times,
        "effective_weekdays": summary.effective_weekdays,
    })
}

fn dose_json(e: &Entry) -> Value {
    json!({ "id": e.id, "status": e.status, "taken": e.taken, "quantity": e.quantity, "dosage_unit": e.dosage_unit })
}

/// "no_method" when the medication's reminders go out by no method, so the person learns
/// why no reminder comes.
fn delivery_warning(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    email_available: bool,
) -> ApiResult<Option<&'static str>> {
    let global = notify_prefs::global(conn, user_id)?;
    let own = notify_prefs::for_medication(conn, medication_id)?;
    Ok(notify_prefs::delivery_warning(
        &global,
        own.as_ref(),
        email_available,
    ))
}

/// The full medication as the API shows it: schedule, inventory, recent doses and whether
/// its reminders can reach the person.
fn medication_json(
    conn: &Connection,
    user_id: i64,
    m: &Medication,
    clock: &UserClock,
    email_available: bool,
) -> ApiResult<Value> {
    let inventory = medications::inventory(conn, m.id)?;
    let doses = history::recent(conn, user_id, m.id, RECENT_DOSES)?;
    Ok(json!({
        "id": m.id,
        "name": m.name,
        "unit": m.unit,
        "frequency": m.frequency,
        "color": m.color,
        "icon": m.icon,
        "notes": m.notes,
        "default_quantity": m.default_quantity,
        "schedule": schedule_json(m, clock),
        "created_at": m.created_at,
        "updated_at": m.updated_at,
        "doses": doses.iter().map(dose_json).collect::<Vec<_>>(),
        "inventory": inventory.as_ref().map(|inv| inventory_json(m, inv, clock)),
        "delivery_warning": delivery_warning(conn, user_id, m.id, email_available)?,
    }))
}

pub async fn list(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Json<Value>> {
    let email_available = state.mailer.is_configured();
    let list = state
        .db
        .read(move |conn| {
            let clock = UserClock::load(conn, user.id)?;
            medications::list(conn, user.id)?
                .iter()
                .map(|m| medication_json(conn, user.id, m, &clock, email_available))
                .collect::<ApiResult<Vec<_>>>()
        })
        .await?;
    Ok(ok(list))
}

pub async fn get(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    let email_available = state.mailer.is_configured();
    let medication = state
        .db
        .read(move |conn| {
            let clock = UserClock::load(conn, user.id)?;
            let m = medications::find(conn, user.id, id)?.ok_or_else(not_found)?;
            medication_json(conn, user.id, &m, &clock, email_available)
        })
        .await?;
    Ok(ok(medication))
}

pub async fn create(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiJson(mut input): ApiJson<MedicationInput>,
) -> ApiResult<Response> {
    if input.name.as_deref().is_none_or(|n| n.trim().is_empty()) {
        return Err(ApiError::bad_request("Name is required"));
    }
    if input.unit.as_deref().is_none_or(|u| u.trim().is_empty()) {
        return Err(ApiError::bad_request("Unit is required"));
    }
    let inventory = input.inventory.take();
    let days = state.settings.reminders.horizon_days;
    let email_available = state.mailer.is_configured();
    let created = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let clock = UserClock::load(&tx, user.id)?;
            let now = clock::now_stamp();
            let mut m = Medication {
                id: 0,
                name: String::new(),
                unit: String::new(),
                frequency: "daily".into(),
                color: "blue".into(),
                icon: DEFAULT_ICON.into(),
                notes: String::new(),
                default_quantity: Quantity::whole(1),
                schedule_times: Vec::new(),
                schedule_weekdays: Vec::new(),
                start_date: clock.today().to_string(),
                created_at: now.clone(),
                updated_at: now.clone(),
            };
            apply_medication(&mut m, input)?;
            m.id = medications::insert(&tx, user.id, &m)?;
            if let Some(inventory) = inventory {
                apply_inventory(&tx, &m, inventory, &now)?;
            }
            planner::plan_medication(&tx, user.id, &m, &clock, days)?;
            let body = medication_json(&tx, user.id, &m, &clock, email_available)?;
            tx.commit()?;
            Ok::<_, ApiError>(body)
        })
        .await?;
    Ok((StatusCode::CREATED, ok(created)).into_response())
}

pub async fn update(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(mut input): ApiJson<MedicationInput>,
) -> ApiResult<Json<Value>> {
    let inventory = input.inventory.take();
    let days = state.settings.reminders.horizon_days;
    let email_available = state.mailer.is_configured();
    let updated = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let clock = UserClock::load(&tx, user.id)?;
            let mut m = medications::find(&tx, user.id, id)?.ok_or_else(not_found)?;
            let unit_before = m.unit.clone();
            apply_medication(&mut m, input)?;
            m.updated_at = clock::now_stamp();
            medications::update(&tx, user.id, &m)?;
            if let Some(inventory) = inventory {
                apply_inventory(&tx, &m, inventory, &m.updated_at)?;
            } else if m.unit != unit_before
                && let Some(inv) = medications::inventory(&tx, m.id)?.filter(|inv| inv.enabled)
            {
                // A new dose unit must still draw from the stock as it is counted.
                inv.containers
                    .check_dose_unit(&m.unit)
                    .map_err(ServiceError::from)?;
            }
            planner::plan_medication(&tx, user.id, &m, &clock, days)?;
            let body = medication_json(&tx, user.id, &m, &clock, email_available)?;
            tx.commit()?;
            Ok::<_, ApiError>(body)
        })
        .await?;
    Ok(ok(updated))
}

#[derive(Deserialize)]
pub struct DeleteQuery {
    delete_history: Option<String>,
}

/// Removes the medication with its stock; its history stays unless `delete_history=true`.
pub async fn delete(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiQuery(query): ApiQuery<DeleteQuery>,
) -> ApiResult<Json<Value>> {
    let with_history = matches!(query.delete_history.as_deref(), Some("true" | "1"));
    state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            if !medications::delete(&tx, user.id, id, with_history)? {
                return Err(not_found());
            }
            tx.commit()?;
            Ok(())
        })
        .await?;
    Ok(Json(json!({ "success": true, "message": "Medication deleted" })))
}

#[derive(Deserialize)]
pub struct DoseInput {
    taken: Option<String>,
    status: Option<String>,
    quantity: Option<Quantity>,
    dosage_unit: Option<String>,
    dosage: Option<String>,
    dosage_id: Option<i64>,
    affect_inventory: Option<bool>,
}

pub async fn log_dose(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(input): ApiJson<DoseInput>,
) -> ApiResult<Response> {
    let dose = DoseRequest {
        status: doses::status(input.status.as_deref())?,
        taken: doses::taken_at(input.taken.as_deref())?,
        quantity: input.quantity,
        dosage_unit: input.dosage_unit,
        dosage: input.dosage,
        dosage_id: input.dosage_id,
        affect_inventory: input.affect_inventory.unwrap_or(true),
    };
    let now = state.clock.now();
    let logged = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let logged = doses::log(&tx, user.id, id, dose, now)?;
            tx.commit()?;
            Ok::<_, ApiError>(logged)
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "success": true, "message": "Dose logged", "data": logged })),
    )
        .into_response())
}

pub async fn get_inventory(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    let body = state
        .db
        .read(move |conn| {
            let clock = UserClock::load(conn, user.id)?;
            let m = medications::find(conn, user.id, id)?.ok_or_else(not_found)?;
            let inv = medications::inventory(conn, id)?.unwrap_or_else(|| Inventory::disabled(&m.created_at));
            Ok::<_, ApiError>(inventory_json(&m, &inv, &clock))
        })
        .await?;
    Ok(ok(body))
}

pub async fn save_inventory(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(input): ApiJson<InventoryInput>,
) -> ApiResult<Json<Value>> {
    let body = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let clock = UserClock::load(&tx, user.id)?;
            let m = medications::find(&tx, user.id, id)?.ok_or_else(not_found)?;
            let inv = apply_inventory(&tx, &m, input, &clock::now_stamp())?;
            let body = inventory_json(&m, &inv, &clock);
            tx.commit()?;
            Ok::<_, ApiError>(body)
        })
        .await?;
    Ok(ok(body))
}

#[derive(Deserialize)]
pub struct Adjustment {
    adjustment: Option<Quantity>,
    reason: Option<String>,
}

/// A manual stock change (a refill, a lost tablet), with an optional reason.
pub async fn adjust_inventory(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
    ApiJson(input): ApiJson<Adjustment>,
) -> ApiResult<Json<Value>> {
    let change = input
        .adjustment
        .filter(|a| *a != Quantity::ZERO)
        .ok_or_else(|| ApiError::bad_request("Adjustment must be a non-zero number"))?;
    let reason = input
        .reason
        .map(|r| text(&r, 500, "Reason"))
        .transpose()?
        .filter(|r| !r.is_empty());
    let body = state
        .db
        .write(move |conn| {
            let tx = conn.transaction()?;
            let clock = UserClock::load(&tx, user.id)?;
            let m = medications::find(&tx, user.id, id)?.ok_or_else(not_found)?;
            let Some(before) = medications::inventory(&tx, id)?.filter(|inv| inv.enabled) else {
                return Err(ApiError::bad_request(
                    "Inventory is not enabled for this medication",
                ));
            };
            // Refused rather than clamped: a count that does not add up is a typo to fix.
            if stock::on_hand(before.current_quantity) + change < Quantity::ZERO {
                return Err(ApiError::bad_request("Stock cannot go below zero"));
            }
            let now = clock::now_stamp();
            medications::move_stock(
                &tx,
                id,
                change,
                StockChange::Adjustment,
                reason.as_deref(),
                None,
                &now,
            )?;
            let inv = medications::inventory(&tx, id)?.ok_or_else(not_found)?;
            let body = json!({
                "current_quantity": stock::on_hand(inv.current_quantity),
                "stock_status": stock::status(inv.current_quantity, inv.reminder_threshold),
                "inventory": inventory_json(&m, &inv, &clock),
            });
            tx.commit()?;
            Ok(body)
        })
        .await?;
    Ok(Json(
        json!({ "success": true, "message": "Inventory adjusted", "data": body }),
    ))
}

pub async fn ledger(
    State(state): State<AppState>,
    AuthUser(user): AuthUser,
    ApiPath(id): ApiPath<i64>,
) -> ApiResult<Json<Value>> {
    let rows = state
        .db
        .read(move |conn| {
            medications::find(conn, user.id, id)?.ok_or_else(not_found)?;
            Ok::<_, ApiError>(medications::ledger(conn, id, 500)?)
        })
        .await?;
    Ok(ok(rows))
}

/// Medications whose stock is low or out.
pub async fn low_stock(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Json<Value>> {
    let rows = state
        .db
        .read(move |conn| {
            let clock = UserClock::load(conn, user.id)?;
            let mut low = Vec::new();
            for m in medications::list(conn, user.id)? {
                if let Some(inv) = medications::inventory(conn, m.id)?.filter(|inv| inv.enabled)
                    && stock::status(inv.current_quantity, inv.reminder_threshold) != stock::StockStatus::InStock
                {
                    low.push(json!({ "medication_id": m.id, "name": m.name, "color": m.color, "inventory": inventory_json(&m, &inv, &clock) }));
                }
            }
            Ok::<_, ApiError>(low)
        })
        .await?;
    Ok(ok(rows))
}

/// Adherence per medication over the last 7 and 30 days (local days), and a daily series
/// for the chart.
pub async fn adherence(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Json<Value>> {
    let body = state
        .db
        .read(move |conn| {
            let clock = UserClock::load(conn, user.id)?;
            let today = clock.today();
            let first_30 = today - chrono::Duration::days(29);
            let first_7 = today - chrono::Duration::days(6);
            let rows = history::since(conn, user.id, &clock::stamp(clock.start_of(first_30)))?;
            let meds = medications::list(conn, user.id)?;
            let mut per_med: std::collections::HashMap<i64, (Adherence, Adherence)> = Default::default();
            let mut daily = vec![Adherence::default(); 30];
            for (medication_id, status, taken) in &rows {
                let Ok(instant) = DateTime::parse_from_rfc3339(taken) else { continue };
                let day = instant.with_timezone(&clock.tz).date_naive();
                let Ok(index) = usize::try_from((day - first_30).num_days()) else { continue };
                if index >= daily.len() {
                    continue;
                }
                daily[index].add(status);
                if let Some(id) = medication_id {
                    let entry = per_med.entry(*id).or_default();
                    entry.1.add(status);
                    if day >= first_7 {
                        entry.0.add(status);
                    }
                }
            }
            let medications: Vec<Value> = meds
                .iter()
                .map(|m| {
                    let (last7, last30) = per_med.get(&m.id).copied().unwrap_or_default();
                    json!({ "medication_id": m.id, "name": m.name, "color": m.color, "last7": last7, "last30": last30 })
                })
                .collect();
            let series: Vec<Value> = daily
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let date = first_30 + chrono::Duration::days(i as i64);
                    json!({ "date": date.to_string(), "taken": t.taken, "skipped": t.skipped, "missed": t.missed })
                })
                .collect();
            Ok::<_, ApiError>(json!({ "medications": medications, "daily": series }))
        })
        .await?;
    Ok(ok(body))
}

fn instant(text: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Utc))
}

/// Today's doses for one user, with the state their logs give them (see `domain::today`).
fn doses_today(
    conn: &Connection,
    user_id: i64,
    meds: &[Medication],
    clock: &UserClock,
    now: DateTime<Utc>,
) -> ApiResult<Vec<DoseOfToday>> {
    let today = now.with_timezone(&clock.tz).date_naive();
    let yesterday = today.pred_opt().unwrap_or(today);
    let (from, today_from, until) = (
        clock.start_of(yesterday),
        clock.start_of(today),
        clock.start_of(today.succ_opt().unwrap_or(today)),
    );
    // Yesterday's doses take part so that a log just after midnight answers last night's
    // dose, as it answers last night's reminder.
    let doses: Vec<ScheduledDose> = meds
        .iter()
        .flat_map(|m| {
            planner::doses_of(m, clock, yesterday, 2, from - chrono::Duration::seconds(1))
                .into_iter()
                .map(|at| ScheduledDose {
                    medication_id: m.id,
                    at,
                })
        })
        .collect();
    let logs_from = clock::stamp(from - chrono::Duration::hours(1));
    let mut entries = history::between(conn, user_id, &logs_from, &clock::stamp(until))?;
    let mut found = Vec::new();
    for r in reminders::for_days(
        conn,
        user_id,
        &clock::stamp(from),
        &clock::stamp(until),
        &logs_from,
    )? {
        let Some(at) = instant(&r.scheduled_time) else {
            continue;
        };
        // The answer to one of today's reminders counts whenever it says it was taken.
        if let Some(h) = r.history_id
            && at >= today_from
            && !entries.iter().any(|e| e.id == h)
            && let Some(entry) = history::find(conn, user_id, h)?
        {
            entries.push(entry);
        }
        let reminder = PlannedReminder {
            id: r.id,
            medication_id: r.medication_id,
            at,
            history_id: r.history_id,
        };
        found.push((r.kind == "dose", reminder));
    }
    // A planned dose reminder goes last, so it wins over a one-off set for the same dose.
    found.sort_by_key(|(planned, _)| *planned);
    let answered: HashSet<i64> = found.iter().filter_map(|(_, r)| r.history_id).collect();
    let planned: Vec<PlannedReminder> = found.into_iter().map(|(_, r)| r).collect();
    let logs: Vec<Log> = entries
        .iter()
        .filter_map(|e| {
            Some(Log {
                id: e.id,
                medication_id: e.medication_id?,
                status: DoseState::logged(&e.status)?,
                taken: instant(&e.taken)?,
            })
        })
        .collect();
    Ok(doses_of_today(&Day {
        doses: &doses,
        today_from,
        reminders: &planned,
        logs: &logs,
        answered_reminders: &answered,
        now,
    }))
}

/// Today's scheduled doses in the user's zone with their state: answered by a logged dose
/// (through its reminder, or the nearest one as the reminder engine matches them), else
/// upcoming or due. Each carries its planned reminder's id for logging it as `dosage_id`.
pub async fn today(State(state): State<AppState>, AuthUser(user): AuthUser) -> ApiResult<Json<Value>> {
    let email_available = state.mailer.is_configured();
    let body = state
        .db
        .read(move |conn| {
            let clock = UserClock::load(conn, user.id)?;
            let now = Utc::now();
            let meds = medications::list(conn, user.id)?;
            let by_id: HashMap<i64, &Medication> = meds.iter().map(|m| (m.id, m)).collect();
            let mut doses: Vec<(DoseOfToday, &Medication)> = doses_today(conn, user.id, &meds, &clock, now)?
                .into_iter()
                .filter_map(|d| by_id.get(&d.medication_id).map(|m| (d, *m)))
                .collect();
            // By time, then by name, as the day reads.
            doses.sort_by_cached_key(|(d, m)| (d.at, m.name.to_lowercase(), m.id));
            let warnings = meds
                .iter()
                .map(|m| Ok((m.id, delivery_warning(conn, user.id, m.id, email_available)?)))
                .collect::<ApiResult<HashMap<i64, Option<&str>>>>()?;
            let rows: Vec<Value> = doses
                .into_iter()
                .map(|(dose, m)| {
                    json!({
                    "medication_id": m.id,
                    "name": m.name,
                    "color": m.color,
                    "icon": m.icon,
                    "unit": m.unit,
                    "quantity": m.default_quantity,
                    "scheduled_time": clock::stamp(dose.at),
                    "local_time": dose.at.with_timezone(&clock.tz).format("%H:%M").to_string(),
                    "status": dose.status,
                    "history_id": dose.history_id,
                    "reminder_id": dose.reminder_id,
                    "delivery_warning": warnings.get(&m.id).copied().flatten(),
                    })
                })
                .collect();
            let date = now.with_timezone(&clock.tz).date_naive();
            Ok::<_, ApiError>(json!({ "date": date.to_string(), "doses": rows }))
        })
        .await?;
    Ok(ok(body))
}

/// The unit catalogue (SPEC §3), so the client and server agree on it.
pub async fn units_catalogue() -> Json<Value> {
    ok(units::CATALOGUE)
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .route("/units", routing::get(units_catalogue))
        .route("/medications", routing::get(list).post(create))
        .route("/medications/adherence", routing::get(adherence))
        .route("/medications/today", routing::get(today))
        .route("/medications/inventory/low-stock", routing::get(low_stock))
        .route("/medications/{id}", routing::get(get).put(update).delete(delete))
        .route("/medications/{id}/doses", routing::post(log_dose))
        .route(
            "/medications/{id}/inventory",
            routing::get(get_inventory)
                .post(save_inventory)
                .put(save_inventory),
        )
        .route(
            "/medications/{id}/inventory/adjust",
            routing::post(adjust_inventory),
        )
        .route("/medications/{id}/inventory/ledger", routing::get(ledger))
}
