//! `/api/medications/*` and `/api/units`: medications, dose logging, inventory, today and
//! adherence. Each handler reads the request, calls `services::{medications, doses, stock}`
//! and shapes the answer; the rules live there.

use axum::Json;
use axum::extract::State;
use std::sync::Arc;

use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{Message, MessageData, message, message_data};
use super::error::{ApiError, ApiResult, Data, ErrorBody, data, data_bytes};
use super::extract::{ApiJson, ApiPath, ApiQuery, query_number};
use super::list_cache::{Answer, Made};
use super::routes;
use super::session::AuthCaller;
use crate::domain::dose::DoseStatus;
use crate::domain::medication::MedicationId;
use crate::domain::quantity::Quantity;
use crate::domain::units::{self, Unit};
use crate::services::access::{self, Caller, Role};
use crate::services::batches::{self, BatchInput, BatchView, Batches, NewBatchInput};
use crate::services::doses::{self, DoseRequest, Logged, Pagination, Paging};
use crate::services::medications::{
    self, AdherenceView, MedicationInput, MedicationView, NewMedicationInput, Reach, TodayView,
};
use crate::services::prescriptions;
use crate::services::stock::{self, Adjusted, Adjustment, InventoryInput, InventoryView, LowStock};
use crate::store::medications::LedgerRow;

fn reach(state: &AppState) -> Reach {
    Reach {
        email_available: state.mailer.is_configured(),
    }
}

/// Whose: one person (of your own account, or one you care for).
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PersonQuery {
    /// One person's (`GET /api/people`); without it, every person of your own account.
    #[param(value_type = Option<i64>)]
    person_id: Option<String>,
}

impl PersonQuery {
    fn id(&self) -> ApiResult<Option<i64>> {
        query_number(self.person_id.as_deref(), "person_id")
    }
}

/// The medications of your own people, or of one person, by name, each with its schedule,
/// stock and latest doses.
#[utoipa::path(
    get,
    path = "/medications",
    tag = "medications",
    security(("bearer" = []), ("api_token" = [])),
    params(PersonQuery),
    responses(
        (status = 200, description = "The medications", body = Data<Vec<MedicationView>>),
        (status = 400, description = "The query cannot be read (`validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 404, description = "No such person you can see (`person_not_found`)", body = ErrorBody),
    ),
)]
pub async fn list(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiQuery(query): ApiQuery<PersonQuery>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let reach = reach(&state);
    let now = state.clock.now();
    let person = query.id()?;
    // Asked before the read begins: a commit after it moves the version on. One person's list
    // is not kept: carers' and owners' views of a person differ in whose account answers, and
    // the whole account's list is the one read all day. An API token's is not kept either: a
    // limited one sees fewer people than its account.
    let version = match (person, caller) {
        (None, Caller::User(_)) => state.db.version(),
        _ => None,
    };
    let account = caller.user_id();
    if let Some(version) = version
        && let Some(answer) = state.list_cache.get(account, version, now, reach.email_available)
    {
        return Ok(answer.response(&headers));
    }
    let listed = state
        .db
        .read_inline(move |conn| {
            let whose = access::whose(conn, caller, person)?;
            Ok::<_, ApiError>(medications::list(
                conn,
                whose.owner_id,
                whose.people.as_deref(),
                reach,
                now,
            )?)
        })
        .await?;
    // About 1.3 KiB a medication with its schedule, stock and latest doses.
    let json = data_bytes(&listed.medications, 256 + listed.medications.len() * 1536)?;
    let answer = Answer::new(
        json,
        Made {
            version: version.unwrap_or(0),
            tz: listed.tz,
            today: listed.today,
            email_available: reach.email_available,
        },
    );
    let response = answer.response(&headers);
    if version.is_some() {
        state.list_cache.keep(account, Arc::new(answer));
    }
    Ok(response)
}

/// One medication.
#[utoipa::path(
    get,
    path = "/medications/{id}",
    tag = "medications",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id")),
    responses(
        (status = 200, description = "The medication", body = Data<MedicationView>),
        (status = 404, description = "No such medication you can see (`medication_not_found`)", body = ErrorBody),
    ),
)]
pub async fn get(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
) -> ApiResult<Json<Data<MedicationView>>> {
    let reach = reach(&state);
    let now = state.clock.now();
    let medication = state
        .db
        .read(move |conn| {
            let access = access::medication(conn, caller, id)?;
            Ok::<_, ApiError>(medications::get(conn, access.owner_id, id, reach, now)?)
        })
        .await?;
    Ok(data(medication))
}

/// Adds a medication, with its stock when `inventory` is sent, and plans its reminders.
#[utoipa::path(
    post,
    path = "/medications",
    tag = "medications",
    security(("bearer" = []), ("api_token" = [])),
    request_body = NewMedicationInput,
    responses(
        (status = 201, description = "The new medication", body = Data<MedicationView>),
        (status = 400, description = "A field cannot be used (`name_required`, `unit_required`, `unit_invalid`, `unit_mismatch`, `strength_needed`, `validation_failed`, `invalid_request`; a prescription's: `prescription_text_too_long`, `prescription_text_invalid`, `pharmacy_phone_invalid`, `pharmacy_url_invalid`, `prescription_date_invalid`, `prescription_expires_before_written`, `refills_out_of_range`, `refills_left_above_authorised`, `order_days_out_of_range`, with `params.field`)", body = ErrorBody),
        (status = 403, description = "`person_id` names a person you care for with a role below manage (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "`person_id` names no person you can see (`person_not_found`)", body = ErrorBody),
    ),
)]
pub async fn create(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiJson(input): ApiJson<MedicationInput>,
) -> ApiResult<(StatusCode, Json<Data<MedicationView>>)> {
    let (reach, days, now) = (
        reach(&state),
        state.settings.reminders.horizon_days,
        state.clock.now(),
    );
    let created = state
        .db
        .transaction(move |tx| {
            let created = medications::create(tx, caller, input, reach, days, now)?;
            Ok::<_, ApiError>(created)
        })
        .await?;
    Ok((StatusCode::CREATED, data(created)))
}

/// Changes a medication (and its stock, when `inventory` is sent); absent fields stay.
#[utoipa::path(
    put,
    path = "/medications/{id}",
    tag = "medications",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id")),
    request_body = MedicationInput,
    responses(
        (status = 200, description = "The changed medication", body = Data<MedicationView>),
        (status = 400, description = "A field cannot be used (`name_required`, `unit_required`, `unit_invalid`, `unit_mismatch`, `strength_needed`, `validation_failed`, `invalid_request`; a prescription's: `prescription_text_too_long`, `prescription_text_invalid`, `pharmacy_phone_invalid`, `pharmacy_url_invalid`, `prescription_date_invalid`, `prescription_expires_before_written`, `refills_out_of_range`, `refills_left_above_authorised`, `order_days_out_of_range`, with `params.field`)", body = ErrorBody),
        (status = 403, description = "A carer whose role is below manage, or one who moves it to another person: only the owner does (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such medication you can see (`medication_not_found`), or `person_id` names none of the owner's people (`person_not_found`)", body = ErrorBody),
        (status = 409, description = "An inventory `current_quantity` for stock kept in batches (`stock_in_batches`)", body = ErrorBody),
    ),
)]
pub async fn update(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
    ApiJson(input): ApiJson<MedicationInput>,
) -> ApiResult<Json<Data<MedicationView>>> {
    let (reach, days, now) = (
        reach(&state),
        state.settings.reminders.horizon_days,
        state.clock.now(),
    );
    let updated = state
        .db
        .transaction(move |tx| {
            let access = access::medication(tx, caller, id)?.allow(Role::Manage)?;
            let updated = medications::update(tx, &access, id, input, reach, days, now)?;
            Ok::<_, ApiError>(updated)
        })
        .await?;
    Ok(data(updated))
}

#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DeleteQuery {
    /// `true` (or `1`) deletes the medication's history too; else it stays, under its name.
    #[param(value_type = Option<bool>)]
    delete_history: Option<String>,
}

/// Removes the medication with its stock; its history stays unless `delete_history=true`.
#[utoipa::path(
    delete,
    path = "/medications/{id}",
    tag = "medications",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id"), DeleteQuery),
    responses(
        (status = 200, description = "Deleted", body = Message),
        (status = 400, description = "The query cannot be read (`invalid_request`)", body = ErrorBody),
        (status = 403, description = "A carer whose role is below manage (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such medication you can see (`medication_not_found`)", body = ErrorBody),
    ),
)]
pub async fn delete(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
    ApiQuery(query): ApiQuery<DeleteQuery>,
) -> ApiResult<Json<Message>> {
    let with_history = matches!(query.delete_history.as_deref(), Some("true" | "1"));
    let now = state.clock.now();
    state
        .db
        .transaction(move |tx| {
            let access = access::medication(tx, caller, id)?.allow(Role::Manage)?;
            medications::delete(tx, &access, id, with_history, now)?;
            Ok::<_, ApiError>(())
        })
        .await?;
    Ok(message("Medication deleted"))
}

/// A dose as sent; what is absent comes from the medication.
#[derive(Deserialize, ToSchema)]
pub struct DoseInput {
    /// RFC 3339; absent or blank is now. Not in the future.
    #[schema(value_type = Option<chrono::DateTime<chrono::Utc>>)]
    taken: Option<String>,
    /// `taken` (the default), `skipped` or `missed`.
    #[schema(value_type = Option<DoseStatus>)]
    status: Option<String>,
    /// Default: the medication's dose; positive, with at most three decimals.
    #[schema(value_type = Option<f64>, minimum = 0.001, maximum = 999999999, multiple_of = 0.001)]
    quantity: Option<Quantity>,
    /// Default: the medication's unit.
    #[schema(min_length = 1, pattern = "\\S")]
    dosage_unit: Option<String>,
    /// A free-text note.
    #[schema(max_length = 64)]
    dosage: Option<String>,
    /// The planned reminder this dose answers (`reminder_id` of today's dose).
    dosage_id: Option<i64>,
    /// The planned dose this logs, by its time (`scheduled_time` of today's dose), for one
    /// that has no reminder: the entry answers that dose only, never another's reminder.
    /// Without this or `dosage_id`, the entry answers the latest due reminder, else the
    /// one coming within the hour.
    #[schema(value_type = Option<chrono::DateTime<chrono::Utc>>)]
    scheduled_time: Option<String>,
    /// Whether the dose comes out of the stock (default true).
    affect_inventory: Option<bool>,
    /// Log a taken dose even though it is sooner or more than the medication's as-needed
    /// limits allow (the app asks "Take anyway?" first).
    confirm: Option<bool>,
}

/// Logs a dose; a taken one comes out of the stock (never below zero: a warning says what
/// the stock could not give).
#[utoipa::path(
    post,
    path = "/medications/{id}/doses",
    tag = "medications",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id")),
    request_body = DoseInput,
    responses(
        (status = 201, description = "The dose is logged", body = MessageData<Logged>),
        (status = 400, description = "A field cannot be used (`future_date`, `unit_required`, `unit_invalid`, `validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 403, description = "A carer whose role is view: logging needs record (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such medication you can see (`medication_not_found`) or reminder of it (`notification_not_found`)", body = ErrorBody),
        (status = 409, description = "A taken dose over the medication's as-needed limits, not confirmed (`dose_too_soon`, `daily_maximum_reached`; `params.next_allowed_at`, `params.time`)", body = ErrorBody),
    ),
)]
pub async fn log_dose(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
    ApiJson(input): ApiJson<DoseInput>,
) -> ApiResult<(StatusCode, Json<MessageData<Logged>>)> {
    let dose = DoseRequest {
        status: doses::status(input.status.as_deref())?,
        taken: doses::taken_at(input.taken.as_deref())?,
        quantity: input.quantity,
        dosage_unit: input.dosage_unit,
        dosage: input.dosage,
        dosage_id: input.dosage_id,
        scheduled_time: doses::taken_at(input.scheduled_time.as_deref())?,
        affect_inventory: input.affect_inventory.unwrap_or(true),
        confirm: input.confirm.unwrap_or(false),
    };
    let now = state.clock.now();
    // Doses logged at the same moment share one commit (and fsync); each is answered once
    // it is on disk.
    let logged = state
        .db
        .write_grouped(move |conn| {
            let access = access::medication(conn, caller, id)?.allow(Role::Record)?;
            Ok::<_, ApiError>(doses::log(conn, &access, id, dose, now)?)
        })
        .await?;
    // The reminder this dose answered is withdrawn from the devices showing it.
    state.engine.wake_withdrawals_if_any();
    Ok((StatusCode::CREATED, message_data("Dose logged", logged)))
}

/// A medication's inventory (disabled when none was set up).
#[utoipa::path(
    get,
    path = "/medications/{id}/inventory",
    tag = "inventory",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id")),
    responses(
        (status = 200, description = "The inventory", body = Data<InventoryView>),
        (status = 404, description = "No such medication you can see (`medication_not_found`)", body = ErrorBody),
    ),
)]
pub async fn get_inventory(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
) -> ApiResult<Json<Data<InventoryView>>> {
    let now = state.clock.now();
    let inventory = state
        .db
        .read(move |conn| {
            let access = access::medication(conn, caller, id)?;
            Ok::<_, ApiError>(stock::get(conn, access.owner_id, id, now)?)
        })
        .await?;
    Ok(data(inventory))
}

/// Sets up or changes a medication's inventory (`PUT` and `POST` alike). A newly enabled one
/// starts full (or at `current_quantity`); a `current_quantity` on an enabled one is a
/// correction.
#[utoipa::path(
    method(put, post),
    path = "/medications/{id}/inventory",
    tag = "inventory",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id")),
    request_body = InventoryInput,
    responses(
        (status = 200, description = "The inventory", body = Data<InventoryView>),
        (status = 400, description = "The set-up cannot be used (`unit_mismatch`, `strength_needed`, `unit_invalid`, `unit_required`, `validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 403, description = "A carer whose role is below manage (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such medication you can see (`medication_not_found`)", body = ErrorBody),
        (status = 409, description = "A `current_quantity` for stock kept in batches (`stock_in_batches`)", body = ErrorBody),
    ),
)]
pub async fn save_inventory(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
    ApiJson(input): ApiJson<InventoryInput>,
) -> ApiResult<Json<Data<InventoryView>>> {
    let now = state.clock.now();
    let inventory = state
        .db
        .transaction(move |tx| {
            let saved = medications::change_stock(tx, caller, id, now, |tx, owner| {
                stock::save(tx, owner, id, input, now)
            })?;
            Ok::<_, ApiError>(saved)
        })
        .await?;
    Ok(data(inventory))
}

/// A manual stock change (a refill, a lost tablet), with an optional reason.
#[utoipa::path(
    post,
    path = "/medications/{id}/inventory/adjust",
    tag = "inventory",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id")),
    request_body = Adjustment,
    responses(
        (status = 200, description = "The stock after the change", body = MessageData<Adjusted>),
        (status = 400, description = "The change cannot be made (`inventory_not_enabled`, `stock_below_zero`, `validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 403, description = "A carer whose role is below manage (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such medication you can see (`medication_not_found`)", body = ErrorBody),
        (status = 409, description = "Stock kept in batches is changed through them (`stock_in_batches`)", body = ErrorBody),
    ),
)]
pub async fn adjust_inventory(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
    ApiJson(input): ApiJson<Adjustment>,
) -> ApiResult<Json<MessageData<Adjusted>>> {
    let now = state.clock.now();
    let adjusted = state
        .db
        .transaction(move |tx| {
            let adjusted = medications::change_stock(tx, caller, id, now, |tx, owner| {
                stock::adjust(tx, owner, id, input, now)
            })?;
            Ok::<_, ApiError>(adjusted)
        })
        .await?;
    Ok(message_data("Inventory adjusted", adjusted))
}

/// A medication's stock batches, the first to expire first, with what they make up.
#[utoipa::path(
    get,
    path = "/medications/{id}/inventory/batches",
    tag = "inventory",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id")),
    responses(
        (status = 200, description = "The batches", body = Data<Batches>),
        (status = 404, description = "No such medication you can see (`medication_not_found`)", body = ErrorBody),
    ),
)]
pub async fn list_batches(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
) -> ApiResult<Json<Data<Batches>>> {
    let now = state.clock.now();
    let listed = state
        .db
        .read(move |conn| {
            let access = access::medication(conn, caller, id)?;
            Ok::<_, ApiError>(batches::list(conn, access.owner_id, id, now)?)
        })
        .await?;
    Ok(data(listed))
}

/// Adds a stock batch (`quantity` in the stock's unit, `expires_on`, optional `lot`). A
/// medication without stock gets stock with its first batch; the first batch of a
/// medication counted as one number replaces that number.
#[utoipa::path(
    post,
    path = "/medications/{id}/inventory/batches",
    tag = "inventory",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id")),
    request_body = NewBatchInput,
    responses(
        (status = 201, description = "The batch as saved", body = Data<BatchView>),
        (status = 400, description = "The batch cannot be used (`batch_quantity_required`, `batch_quantity_out_of_range`, `batch_expiry_required`, `batch_expiry_invalid`, `batch_lot_too_long`, `validation_failed`, `unit_mismatch`, `strength_needed`, `invalid_request`)", body = ErrorBody),
        (status = 403, description = "A carer whose role is below manage (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such medication you can see (`medication_not_found`)", body = ErrorBody),
    ),
)]
pub async fn add_batch(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
    ApiJson(input): ApiJson<BatchInput>,
) -> ApiResult<(StatusCode, Json<Data<BatchView>>)> {
    let now = state.clock.now();
    let added = state
        .db
        .transaction(move |tx| {
            let added = medications::change_stock(tx, caller, id, now, |tx, owner| {
                batches::add(tx, owner, id, input, now)
            })?;
            Ok::<_, ApiError>(added)
        })
        .await?;
    Ok((StatusCode::CREATED, data(added)))
}

/// Changes a stock batch; what is absent stays.
#[utoipa::path(
    put,
    path = "/medications/{id}/inventory/batches/{batchId}",
    tag = "inventory",
    security(("bearer" = []), ("api_token" = [])),
    params(
        ("id" = i64, Path, description = "The medication's id"),
        ("batchId" = i64, Path, description = "The batch's id"),
    ),
    request_body = BatchInput,
    responses(
        (status = 200, description = "The batch as saved", body = Data<BatchView>),
        (status = 400, description = "The change cannot be used (`batch_quantity_out_of_range`, `batch_quantity_below_drawn`, `batch_remaining_out_of_range`, `batch_expiry_invalid`, `batch_lot_too_long`, `invalid_request`)", body = ErrorBody),
        (status = 403, description = "A carer whose role is below manage (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such medication or batch you can see (`medication_not_found`, `batch_not_found`)", body = ErrorBody),
    ),
)]
pub async fn update_batch(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath((id, batch_id)): ApiPath<(i64, i64)>,
    ApiJson(input): ApiJson<BatchInput>,
) -> ApiResult<Json<Data<BatchView>>> {
    let now = state.clock.now();
    let id = MedicationId(id);
    let saved = state
        .db
        .transaction(move |tx| {
            let saved = medications::change_stock(tx, caller, id, now, |tx, owner| {
                batches::update(tx, owner, id, batch_id, input, now)
            })?;
            Ok::<_, ApiError>(saved)
        })
        .await?;
    Ok(data(saved))
}

/// Deletes a stock batch; what it held leaves the stock.
#[utoipa::path(
    delete,
    path = "/medications/{id}/inventory/batches/{batchId}",
    tag = "inventory",
    security(("bearer" = []), ("api_token" = [])),
    params(
        ("id" = i64, Path, description = "The medication's id"),
        ("batchId" = i64, Path, description = "The batch's id"),
    ),
    responses(
        (status = 200, description = "Deleted", body = Message),
        (status = 403, description = "A carer whose role is below manage (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such medication or batch you can see (`medication_not_found`, `batch_not_found`)", body = ErrorBody),
    ),
)]
pub async fn delete_batch(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath((id, batch_id)): ApiPath<(i64, i64)>,
) -> ApiResult<Json<Message>> {
    let now = state.clock.now();
    let id = MedicationId(id);
    state
        .db
        .transaction(move |tx| {
            medications::change_stock(tx, caller, id, now, |tx, owner| {
                batches::delete(tx, owner, id, batch_id, now)
            })?;
            Ok::<_, ApiError>(())
        })
        .await?;
    Ok(message("Batch deleted"))
}

/// Marks a refill (or a new prescription) ordered: the medication stops showing it as needing
/// ordering, and its refill reminder is not sent, until stock is added (which counts a refill
/// down).
#[utoipa::path(
    post,
    path = "/medications/{id}/refill-ordered",
    tag = "medications",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id")),
    responses(
        (status = 200, description = "The medication, its prescription marked ordered", body = Data<MedicationView>),
        (status = 403, description = "A carer whose role is below record (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such medication you can see (`medication_not_found`), or it has no prescription (`prescription_not_found`)", body = ErrorBody),
    ),
)]
pub async fn refill_ordered(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
) -> ApiResult<Json<Data<MedicationView>>> {
    let reach = reach(&state);
    let now = state.clock.now();
    let medication = state
        .db
        .transaction(move |tx| {
            let access = access::medication(tx, caller, id)?.allow(Role::Record)?;
            prescriptions::mark_ordered(tx, id.0, now)?;
            medications::audit_change(tx, &access, id, "medication.updated", now)?;
            Ok::<_, ApiError>(medications::get(tx, access.owner_id, id, reach, now)?)
        })
        .await?;
    Ok(data(medication))
}

/// Which page of the ledger: the same parameters as the history's pages.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LedgerQuery {
    /// Rows per page, 1 to 100 (default 20).
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// Rows to pass over; wins over `page`.
    #[param(value_type = Option<i64>, minimum = 0)]
    offset: Option<String>,
    /// The page, from 1.
    #[param(value_type = Option<i64>, minimum = 1)]
    page: Option<String>,
}

/// One page of the stock ledger: `{"success": true, "data": […], "pagination": {…}}`, as
/// the history pages.
#[derive(Serialize, ToSchema)]
pub struct LedgerPage {
    /// Always true.
    success: bool,
    /// Newest first.
    data: Vec<LedgerRow>,
    pagination: Pagination,
}

/// The stock ledger, newest first, paged like the history.
#[utoipa::path(
    get,
    path = "/medications/{id}/inventory/ledger",
    tag = "inventory",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id"), LedgerQuery),
    responses(
        (status = 200, description = "One page of the ledger", body = LedgerPage),
        (status = 400, description = "A page cannot be used (`validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 404, description = "No such medication you can see (`medication_not_found`)", body = ErrorBody),
    ),
)]
pub async fn ledger(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
    ApiQuery(q): ApiQuery<LedgerQuery>,
) -> ApiResult<Json<LedgerPage>> {
    let paging = Paging::new(
        query_number(q.limit.as_deref(), "limit")?,
        query_number(q.offset.as_deref(), "offset")?,
        query_number(q.page.as_deref(), "page")?,
    )?;
    let (rows, pagination) = state
        .db
        .read(move |conn| {
            let access = access::medication(conn, caller, id)?;
            Ok::<_, ApiError>(stock::ledger(conn, access.owner_id, id, paging)?)
        })
        .await?;
    Ok(Json(LedgerPage {
        success: true,
        data: rows,
        pagination,
    }))
}

/// Medications whose stock is low or out.
#[utoipa::path(
    get,
    path = "/medications/inventory/low-stock",
    tag = "inventory",
    security(("bearer" = []), ("api_token" = [])),
    params(PersonQuery),
    responses(
        (status = 200, description = "Medications low on stock or out of it", body = Data<Vec<LowStock>>),
        (status = 400, description = "The query cannot be read (`validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 404, description = "No such person you can see (`person_not_found`)", body = ErrorBody),
    ),
)]
pub async fn low_stock(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiQuery(query): ApiQuery<PersonQuery>,
) -> ApiResult<Json<Data<Vec<LowStock>>>> {
    let now = state.clock.now();
    let person = query.id()?;
    let rows = state
        .db
        .read(move |conn| {
            let whose = access::whose(conn, caller, person)?;
            Ok::<_, ApiError>(stock::low(conn, whose.owner_id, whose.people.as_deref(), now)?)
        })
        .await?;
    Ok(data(rows))
}

/// Adherence per medication over the last 7 and 30 days (local days), and a daily series
/// for the chart: of one person, or without `person_id` of everyone you can see (your own
/// people and the people you care for).
#[utoipa::path(
    get,
    path = "/medications/adherence",
    tag = "medications",
    security(("bearer" = []), ("api_token" = [])),
    params(PersonQuery),
    responses(
        (status = 200, description = "Adherence", body = Data<AdherenceView>),
        (status = 400, description = "The query cannot be read (`validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 404, description = "No such person you can see (`person_not_found`)", body = ErrorBody),
    ),
)]
pub async fn adherence(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiQuery(query): ApiQuery<PersonQuery>,
) -> ApiResult<Json<Data<AdherenceView>>> {
    let now = state.clock.now();
    let person = query.id()?;
    let body = state
        .db
        .read(move |conn| Ok::<_, ApiError>(medications::adherence(conn, caller, person, now)?))
        .await?;
    Ok(data(body))
}

/// Today's scheduled doses in the person's zone, by time, each answered by a logged dose or
/// upcoming or due, with its planned reminder's id for logging it as `dosage_id`.
#[utoipa::path(
    get,
    path = "/medications/today",
    tag = "medications",
    security(("bearer" = []), ("api_token" = [])),
    params(PersonQuery),
    responses(
        (status = 200, description = "Today's doses", body = Data<TodayView>),
        (status = 400, description = "The query cannot be read (`validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 404, description = "No such person you can see (`person_not_found`)", body = ErrorBody),
    ),
)]
pub async fn today(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiQuery(query): ApiQuery<PersonQuery>,
) -> ApiResult<Json<Data<TodayView>>> {
    let (reach, now) = (reach(&state), state.clock.now());
    let person = query.id()?;
    let body = state
        .db
        .read(move |conn| Ok::<_, ApiError>(medications::today(conn, caller, person, reach, now)?))
        .await?;
    Ok(data(body))
}

/// The unit catalogue (SPEC §3), so the client and server agree on it.
#[utoipa::path(
    get,
    path = "/units",
    tag = "medications",
    security(()),
    responses((status = 200, description = "The units a dose or stock can be in", body = Data<Vec<Unit>>)),
)]
pub async fn units_catalogue() -> Json<Data<&'static [Unit]>> {
    data(units::CATALOGUE)
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(units_catalogue))
        .routes(routes!(list, create))
        .routes(routes!(adherence))
        .routes(routes!(today))
        .routes(routes!(low_stock))
        .routes(routes!(get, update, delete))
        .routes(routes!(log_dose))
        .routes(routes!(get_inventory, save_inventory))
        .routes(routes!(adjust_inventory))
        .routes(routes!(list_batches, add_batch))
        .routes(routes!(update_batch, delete_batch))
        .routes(routes!(refill_ordered))
        .routes(routes!(ledger))
}
