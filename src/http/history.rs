//! `/api/medications/history*`: the dose history with filters and real paging, corrections
//! and deletes that move stock back. The rules live in `services::doses`.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;

use super::AppState;
use super::answers::{MessageData, message_data};
use super::error::{ApiError, ApiResult, ErrorBody};
use super::extract::{ApiJson, ApiPath, ApiQuery, query_number};
use super::routes;
use super::session::AuthCaller;
use crate::domain::dose::{DoseStatus, EntryId};
use crate::domain::medication::MedicationId;
use crate::domain::quantity::Quantity;
use crate::services::access::{self, Caller, Role};
use crate::services::doses::{self, EntryChange, HistoryFilter, ListedEntry, Logged, Pagination, Paging};
use crate::services::stock::StockLevel;

/// Query parameters arrive as text and are checked here, so a bad one is a 400 with a
/// message rather than a bare rejection.
#[derive(Deserialize, Default, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HistoryQuery {
    /// Entries per page, 1 to 100 (default 20).
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    limit: Option<String>,
    /// Entries to pass over; wins over `page`.
    #[param(value_type = Option<i64>, minimum = 0)]
    offset: Option<String>,
    /// The page, from 1.
    #[param(value_type = Option<i64>, minimum = 1)]
    page: Option<String>,
    /// `YYYY-MM-DD` (in the person's zone) or an RFC 3339 instant.
    #[param(
        pattern = "^\\s*([0-9]{4}-((0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|(0[13-9]|1[0-2])-(29|30)|(0[13578]|1[02])-31)(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?)?\\s*$"
    )]
    date_from: Option<String>,
    /// `YYYY-MM-DD` (the whole day) or an RFC 3339 instant.
    #[param(
        pattern = "^\\s*([0-9]{4}-((0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])|(0[13-9]|1[0-2])-(29|30)|(0[13578]|1[02])-31)(T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))?)?\\s*$"
    )]
    date_to: Option<String>,
    #[param(value_type = Option<DoseStatus>)]
    status: Option<String>,
    /// Only this medication's entries: one of your own, or of a person you care for; any
    /// other id answers 404 `medication_not_found`.
    #[serde(rename = "medicationId")]
    #[param(rename = "medicationId", value_type = Option<i64>)]
    medication_id: Option<String>,
    /// Only this person's entries: one of the account's people, or a person you care for
    /// (`GET /api/people`). Without it, everyone's you can see: your own people's and the
    /// people's you care for (each entry names its person).
    #[param(value_type = Option<i64>)]
    person_id: Option<String>,
}

/// One page of history: `{"success": true, "data": […], "pagination": {…}}`.
#[derive(Serialize, ToSchema)]
pub struct HistoryPage {
    /// Always true.
    success: bool,
    /// Newest first.
    data: Vec<ListedEntry>,
    pagination: Pagination,
}

/// What is left of the stock after a delete.
#[derive(Serialize, ToSchema)]
pub struct AfterDelete {
    /// Null when the medication keeps no stock (or is gone).
    #[schema(required = true)]
    inventory: Option<StockLevel>,
}

async fn page_of(
    state: AppState,
    caller: Caller,
    q: HistoryQuery,
    medication: Option<MedicationId>,
) -> ApiResult<Json<HistoryPage>> {
    let paging = Paging::new(
        query_number(q.limit.as_deref(), "limit")?,
        query_number(q.offset.as_deref(), "offset")?,
        query_number(q.page.as_deref(), "page")?,
    )?;
    let filter = HistoryFilter {
        status: q
            .status
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| doses::status(Some(s)))
            .transpose()?,
        medication_id: query_number(q.medication_id.as_deref(), "medicationId")?,
        date_from: q.date_from,
        date_to: q.date_to,
    };
    let person = query_number(q.person_id.as_deref(), "person_id")?;
    let now = state.clock.now();
    let (entries, pagination) = state
        .db
        .read(move |conn| {
            Ok::<_, ApiError>(doses::history(
                conn, caller, person, medication, filter, paging, now,
            )?)
        })
        .await?;
    Ok(Json(HistoryPage {
        success: true,
        data: entries,
        pagination,
    }))
}

/// The person's dose history, newest first, filtered and paged.
#[utoipa::path(
    get,
    path = "/medications/history",
    tag = "history",
    security(("bearer" = []), ("api_token" = [])),
    params(HistoryQuery),
    responses(
        (status = 200, description = "One page of history", body = HistoryPage),
        (status = 400, description = "A filter or page cannot be used (`validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 404, description = "`medicationId` names no medication you can see (`medication_not_found`), or `person_id` no person you can see (`person_not_found`)", body = ErrorBody),
    ),
)]
pub async fn list(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> ApiResult<Json<HistoryPage>> {
    page_of(state, caller, q, None).await
}

/// One medication's dose history, newest first, filtered and paged.
#[utoipa::path(
    get,
    path = "/medications/{id}/history",
    tag = "history",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The medication's id"), HistoryQuery),
    responses(
        (status = 200, description = "One page of history", body = HistoryPage),
        (status = 400, description = "A filter or page cannot be used (`validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 404, description = "No such medication you can see, in the path or in `medicationId` (`medication_not_found`), or `person_id` names no person you can see (`person_not_found`)", body = ErrorBody),
    ),
)]
pub async fn for_medication(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<MedicationId>,
    ApiQuery(q): ApiQuery<HistoryQuery>,
) -> ApiResult<Json<HistoryPage>> {
    page_of(state, caller, q, Some(id)).await
}

/// A correction to an entry; absent fields stay.
#[derive(Deserialize, ToSchema)]
pub struct EntryUpdate {
    #[schema(value_type = Option<DoseStatus>)]
    status: Option<String>,
    /// RFC 3339, not in the future; blank keeps it.
    #[schema(value_type = Option<chrono::DateTime<chrono::Utc>>)]
    taken: Option<String>,
    /// Positive, with at most three decimals.
    #[schema(value_type = Option<f64>, minimum = 0.001, maximum = 999999999, multiple_of = 0.001)]
    quantity: Option<Quantity>,
    #[schema(min_length = 1, pattern = "\\S")]
    dosage_unit: Option<String>,
    /// A free-text note; blank clears it.
    #[schema(max_length = 64)]
    dosage: Option<String>,
}

/// Corrects an entry; switching to or from taken moves the stock with a ledger row.
#[utoipa::path(
    put,
    path = "/medications/history/{id}",
    tag = "history",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The entry's id")),
    request_body = EntryUpdate,
    responses(
        (status = 200, description = "The corrected entry and the stock", body = MessageData<Logged>),
        (status = 400, description = "A field cannot be used (`future_date`, `unit_required`, `unit_invalid`, `validation_failed`, `invalid_request`)", body = ErrorBody),
        (status = 403, description = "A carer whose role does not allow changing doses (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such entry you can see (`entry_not_found`)", body = ErrorBody),
    ),
)]
pub async fn update(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<EntryId>,
    ApiJson(input): ApiJson<EntryUpdate>,
) -> ApiResult<Json<MessageData<Logged>>> {
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
    let updated = state
        .db
        .transaction(move |tx| {
            let access = access::entry(tx, caller, id.0)?.allow(Role::Record)?;
            let updated = doses::update_entry(tx, &access, id, change, now)?;
            Ok::<_, ApiError>(updated)
        })
        .await?;
    Ok(message_data("Entry updated", updated))
}

/// Deletes an entry and gives back the stock it used.
#[utoipa::path(
    delete,
    path = "/medications/history/{id}",
    tag = "history",
    security(("bearer" = []), ("api_token" = [])),
    params(("id" = i64, Path, description = "The entry's id")),
    responses(
        (status = 200, description = "Deleted; the stock after it", body = MessageData<AfterDelete>),
        (status = 403, description = "A carer whose role does not allow changing doses (`not_permitted`)", body = ErrorBody),
        (status = 404, description = "No such entry you can see (`entry_not_found`)", body = ErrorBody),
    ),
)]
pub async fn delete(
    State(state): State<AppState>,
    AuthCaller(caller): AuthCaller,
    ApiPath(id): ApiPath<EntryId>,
) -> ApiResult<Json<MessageData<AfterDelete>>> {
    let now = state.clock.now();
    let inventory = state
        .db
        .transaction(move |tx| {
            let access = access::entry(tx, caller, id.0)?.allow(Role::Record)?;
            let inventory = doses::delete_entry(tx, &access, id, now)?;
            Ok::<_, ApiError>(inventory)
        })
        .await?;
    Ok(message_data("Entry deleted", AfterDelete { inventory }))
}

/// This module's routes under `/api`.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(update, delete))
        .routes(routes!(for_medication))
}
