//! Stock batches with expiry dates: a medication's stock entered as packs, each with its
//! expiry date and lot. While a medication has batches, its single count
//! (`inventories.current_quantity`) is kept equal to what its batches that have not expired
//! hold; every change of a batch moves that count with a ledger row naming the batch. Doses
//! draw from the batch that expires first and give back to the batches they came from.
//! Everything runs in the caller's transaction.

use chrono::{DateTime, NaiveDate, Utc};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{ErrorCode, Problem, ServiceError, ServiceResult, not_found, rejected};
use crate::db::{DbError, Stamp};
use crate::domain::medication::{MedicationId, limited_text};
use crate::domain::quantity::Quantity;
use crate::domain::stock::{self, Containers, InventoryType, MAX_COUNT};
use crate::domain::units::{self, Category};
use crate::services::planner::{OwnerClocks, UserClock};
use crate::store::batches::{self, Batch, BatchFields};
use crate::store::medications::{self, Inventory, LedgerBatch, Medication, StockChange};
use crate::store::{history, prescriptions};

/// The longest lot number.
const MAX_LOT: usize = 100;

/// A batch as the API shows it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BatchView {
    pub id: i64,
    pub medication_id: i64,
    /// What the batch held when entered, in the stock's unit.
    pub quantity: Quantity,
    /// What is left of it.
    pub remaining: Quantity,
    /// The last day the batch may be used (`YYYY-MM-DD`).
    pub expires_on: String,
    #[schema(required = true)]
    pub lot: Option<String>,
    /// Past its expiry: what is left is not counted as available.
    pub expired: bool,
    /// Not expired, and expiring within 30 days.
    pub expiring_soon: bool,
    /// Days from today to the expiry day (negative once past).
    pub days_left: i64,
    #[schema(value_type = String)]
    pub created_at: Stamp,
    #[schema(value_type = String)]
    pub updated_at: Stamp,
}

impl BatchView {
    pub fn of(b: &Batch, today: NaiveDate) -> BatchView {
        BatchView {
            id: b.id,
            medication_id: b.medication_id,
            quantity: b.quantity,
            remaining: b.remaining,
            expires_on: b.expires_on.to_string(),
            lot: b.lot.clone(),
            // A batch the expiry pass has not reached yet is shown as it is.
            expired: b.expired || stock::batch_expired(b.expires_on, today),
            expiring_soon: !b.expired
                && b.remaining > Quantity::ZERO
                && stock::batch_expiring_soon(b.expires_on, today),
            days_left: (b.expires_on - today).num_days(),
            created_at: b.created_at,
            updated_at: b.updated_at,
        }
    }
}

/// What a medication's batches say about its stock, on its inventory: null for a medication
/// counted without batches.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BatchSummary {
    /// How many batches it has.
    pub count: usize,
    /// What expired batches still hold: not counted in `current_quantity`.
    pub expired_remaining: Quantity,
    /// Batches with stock left that expire within 30 days, the first first.
    pub expiring_soon: Vec<BatchView>,
}

impl BatchSummary {
    /// The summary of `batches` (one medication's), `None` when there are none.
    pub fn of(batches: &[&Batch], today: NaiveDate) -> Option<BatchSummary> {
        if batches.is_empty() {
            return None;
        }
        let views: Vec<BatchView> = batches.iter().map(|b| BatchView::of(b, today)).collect();
        Some(BatchSummary {
            count: views.len(),
            expired_remaining: views
                .iter()
                .filter(|b| b.expired)
                .fold(Quantity::ZERO, |sum, b| sum + b.remaining),
            expiring_soon: views.into_iter().filter(|b| b.expiring_soon).collect(),
        })
    }
}

/// A medication's batches with the stock they make up.
#[derive(Debug, Serialize, ToSchema)]
pub struct Batches {
    /// The first to expire first.
    pub batches: Vec<BatchView>,
    /// What the batches that have not expired hold: the medication's stock.
    pub available: Quantity,
    /// What expired batches still hold.
    pub expired_remaining: Quantity,
    /// The unit batches are counted in (the stock's unit).
    pub unit: String,
    /// Days before expiry a batch is listed as expiring soon.
    pub notice_days: i64,
}

/// A batch as sent: on `POST`, `quantity` and `expires_on` are needed; on `PUT`, what is
/// absent stays.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct BatchInput {
    /// What the batch holds, in the stock's unit: more than 0, at most 1,000,000, at most
    /// three decimals.
    #[schema(value_type = f64, required = false, minimum = 0.001, maximum = 1000000, multiple_of = 0.001)]
    pub quantity: Option<Quantity>,
    /// On `PUT` only: a count of what is left (0 to `quantity`). Without it, a changed
    /// `quantity` moves what is left by the same amount.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 1000000, multiple_of = 0.001)]
    pub remaining: Option<Quantity>,
    #[schema(schema_with = expires_on, required = false)]
    pub expires_on: Option<String>,
    /// The lot (batch) number printed on the pack; empty or null clears it.
    #[serde(default, deserialize_with = "super::stock::nullable")]
    #[schema(value_type = Option<String>, max_length = 100)]
    pub lot: Option<Option<String>>,
}

/// A new batch: `BatchInput` with what `POST` needs (the document's name for its body).
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct NewBatchInput {
    /// What the batch holds, in the stock's unit: more than 0, at most 1,000,000, at most
    /// three decimals.
    #[schema(value_type = f64, minimum = 0.001, maximum = 1000000, multiple_of = 0.001)]
    quantity: Quantity,
    #[schema(schema_with = expires_on)]
    expires_on: String,
    /// The lot (batch) number printed on the pack.
    #[schema(max_length = 100)]
    lot: Option<String>,
}

/// The document's `expires_on`: the last day the batch may be used.
fn expires_on() -> utoipa::openapi::schema::Object {
    crate::domain::api_schema::day(false, "The last day the batch may be used, `YYYY-MM-DD`.")
}

fn batch_not_found() -> ServiceError {
    not_found(ErrorCode::BatchNotFound, "Batch not found")
}

fn medication_not_found() -> ServiceError {
    not_found(ErrorCode::MedicationNotFound, "Medication not found")
}

fn positive(quantity: Quantity) -> ServiceResult<Quantity> {
    let out_of_range = |message: String| {
        ServiceError::Invalid(
            Problem::new(ErrorCode::BatchQuantityOutOfRange, message).with_param("max", MAX_COUNT),
        )
    };
    if quantity <= Quantity::ZERO {
        return Err(out_of_range("Quantity must be more than 0".into()));
    }
    if quantity > Quantity::whole(MAX_COUNT) {
        return Err(out_of_range(format!("Quantity must be at most {MAX_COUNT}")));
    }
    Ok(quantity)
}

/// A `YYYY-MM-DD` day; the refusal names what was sent (`params.expires_on`).
fn expiry(text: &str) -> ServiceResult<NaiveDate> {
    NaiveDate::parse_from_str(text.trim(), "%Y-%m-%d").map_err(|_| {
        ServiceError::Invalid(
            Problem::new(
                ErrorCode::BatchExpiryInvalid,
                "Expiry date must be a date (YYYY-MM-DD)",
            )
            .with_param("expires_on", text),
        )
    })
}

fn lot(value: Option<String>) -> ServiceResult<Option<String>> {
    value
        .map(|l| {
            limited_text(&l, MAX_LOT, "Lot").map_err(|message| {
                ServiceError::Invalid(
                    Problem::new(ErrorCode::BatchLotTooLong, message).with_param("max", MAX_LOT),
                )
            })
        })
        .transpose()
        .map(|l| l.filter(|l| !l.is_empty()))
}

/// What is left of a batch: from 0 to its quantity.
fn checked_remaining(remaining: Quantity, quantity: Quantity) -> ServiceResult<Quantity> {
    if remaining < Quantity::ZERO || remaining > quantity {
        return Err(rejected(
            ErrorCode::BatchRemainingOutOfRange,
            "Remaining must be from 0 to the batch's quantity",
        ));
    }
    Ok(remaining)
}

/// A batch of an export file, checked as the API checks a new batch (and a changed
/// `remaining`): its fields, not yet counted as expired or not (that needs the owner's day).
pub fn checked_file(
    quantity: Quantity,
    remaining: Option<Quantity>,
    expires_on: &str,
    lot_number: Option<String>,
) -> ServiceResult<BatchFields> {
    let quantity = positive(quantity)?;
    let remaining = checked_remaining(remaining.unwrap_or(quantity), quantity)?;
    Ok(BatchFields {
        quantity,
        remaining,
        expires_on: expiry(expires_on)?,
        lot: lot(lot_number)?,
        expired: false,
    })
}

/// "lot A123" or "expiring 2027-03-31": how texts name a batch.
fn label(b: &BatchFields) -> String {
    match &b.lot {
        Some(lot) => format!("lot {lot}"),
        None => format!("expiring {}", b.expires_on),
    }
}

fn ledger_batch(id: i64, b: &BatchFields) -> LedgerBatch<'_> {
    LedgerBatch {
        id,
        lot: b.lot.as_deref(),
    }
}

/// What a batch adds to the medication's count: what is left, unless it expired.
fn counted(b: &BatchFields) -> Quantity {
    if b.expired { Quantity::ZERO } else { b.remaining }
}

fn fields(b: &Batch) -> BatchFields {
    BatchFields {
        quantity: b.quantity,
        remaining: b.remaining,
        expires_on: b.expires_on,
        lot: b.lot.clone(),
        expired: b.expired,
    }
}

/// The medication and its stock in batches, the first to expire first.
pub fn list(
    conn: &Connection,
    user_id: i64,
    medication_id: MedicationId,
    now: DateTime<Utc>,
) -> ServiceResult<Batches> {
    let m = medications::find(conn, user_id, medication_id.0)?.ok_or_else(medication_not_found)?;
    let today = UserClock::at(conn, user_id, now)?.today();
    let inv = medications::inventory(conn, m.id)?;
    let views: Vec<BatchView> = batches::list(conn, m.id)?
        .iter()
        .map(|b| BatchView::of(b, today))
        .collect();
    let sum = |expired: bool| {
        views
            .iter()
            .filter(|b| b.expired == expired)
            .fold(Quantity::ZERO, |sum, b| sum + b.remaining)
    };
    Ok(Batches {
        available: sum(false),
        expired_remaining: sum(true),
        unit: inv
            .filter(|i| i.enabled)
            .map(|i| i.containers.stock_unit().to_owned())
            .unwrap_or_else(|| m.unit.clone()),
        notice_days: stock::EXPIRY_NOTICE_DAYS,
        batches: views,
    })
}

/// The stock set-up a medication without stock gets with its first batch: counted in the
/// medication's own unit (items when it is a count, else one container of that unit).
pub fn first_containers(m: &Medication, quantity: Quantity) -> Containers {
    let unit = units::find(&m.unit).map(|u| u.symbol.to_owned());
    match units::find(&m.unit).map(|u| u.category) {
        Some(Category::Count) => Containers {
            inventory_type: InventoryType::Discrete,
            container_type: Some("box".into()),
            container_quantity: Some(1),
            container_size: None,
            container_unit: None,
            item_quantity: Some((quantity.to_f64().ceil() as i64).clamp(1, MAX_COUNT)),
            item_strength: None,
            item_unit: unit,
        },
        _ => Containers {
            inventory_type: InventoryType::Continuous,
            container_type: None,
            container_quantity: Some(1),
            container_size: Some(quantity),
            container_unit: unit,
            item_quantity: None,
            item_strength: None,
            item_unit: None,
        },
    }
}

/// Adds a batch. A medication without stock (or with its stock off) gets stock with it; the
/// first batch of a medication counted as one number replaces that number, which from then
/// on is what its batches hold.
pub fn add(
    conn: &Connection,
    user_id: i64,
    medication_id: MedicationId,
    input: BatchInput,
    now: DateTime<Utc>,
) -> ServiceResult<BatchView> {
    let m = medications::find(conn, user_id, medication_id.0)?.ok_or_else(medication_not_found)?;
    let quantity = positive(
        input
            .quantity
            .ok_or_else(|| rejected(ErrorCode::BatchQuantityRequired, "Quantity is required"))?,
    )?;
    let expires_on = expiry(
        input
            .expires_on
            .as_deref()
            .ok_or_else(|| rejected(ErrorCode::BatchExpiryRequired, "Expiry date is required"))?,
    )?;
    let lot = lot(input.lot.flatten())?;
    let today = UserClock::at(conn, user_id, now)?.today();
    let stamp = Stamp::from(now);
    let existing = medications::inventory(conn, m.id)?;
    let had_batches = batches::any(conn, m.id)?;
    let turned_on = !existing.as_ref().is_some_and(|i| i.enabled);
    if turned_on {
        let mut inv = existing.unwrap_or_else(|| Inventory::disabled(stamp));
        let usable = inv.containers.validate().is_ok() && inv.containers.check_dose_unit(&m.unit).is_ok();
        if !usable {
            inv.containers = first_containers(&m, quantity);
            inv.containers.check_dose_unit(&m.unit)?;
        }
        inv.enabled = true;
        // Stock turned off keeps its batches: turned on again, it counts them.
        inv.current_quantity = available(conn, m.id)?;
        inv.updated_at = stamp;
        medications::save_inventory(conn, m.id, &inv)?;
    }
    if !had_batches {
        // Doses logged before owe nothing to the batches: deleting one gives nothing back.
        history::forget_stock_use(conn, m.id)?;
    }
    let b = BatchFields {
        quantity,
        remaining: quantity,
        expires_on,
        lot,
        expired: stock::batch_expired(expires_on, today),
    };
    let id = batches::insert(conn, m.id, &b, stamp)?;
    // A batch is stock coming in: a refill ordered is here, and one fewer is left.
    prescriptions::stock_added(conn, m.id, stamp)?;
    // What the single count held, which the first batch replaces.
    let before = match (turned_on, had_batches) {
        (false, false) => medications::inventory(conn, m.id)?
            .map(|i| stock::on_hand(i.current_quantity))
            .unwrap_or_default(),
        _ => Quantity::ZERO,
    };
    let (kind, reason) = match (turned_on, had_batches) {
        (true, _) => (StockChange::Initial, format!("Batch {} added", label(&b))),
        (false, false) => (
            StockChange::Correction,
            format!("Stock now counted in batches: batch {} added", label(&b)),
        ),
        (false, true) => (StockChange::Adjustment, format!("Batch {} added", label(&b))),
    };
    let change = counted(&b) - before;
    if change != Quantity::ZERO || turned_on || !had_batches {
        medications::move_batch_stock(
            conn,
            m.id,
            change,
            kind,
            Some(&reason),
            None,
            Some(ledger_batch(id, &b)),
            stamp,
        )?;
    }
    let batch = batches::find(conn, m.id, id)?.ok_or_else(batch_not_found)?;
    Ok(BatchView::of(&batch, today))
}

/// Changes a batch; what is absent stays. The medication's count moves by what the batch
/// now counts more or less.
pub fn update(
    conn: &Connection,
    user_id: i64,
    medication_id: MedicationId,
    batch_id: i64,
    input: BatchInput,
    now: DateTime<Utc>,
) -> ServiceResult<BatchView> {
    let m = medications::find(conn, user_id, medication_id.0)?.ok_or_else(medication_not_found)?;
    let old = batches::find(conn, m.id, batch_id)?.ok_or_else(batch_not_found)?;
    let today = UserClock::at(conn, user_id, now)?.today();
    let before = fields(&old);
    let mut b = before.clone();
    if let Some(quantity) = input.quantity {
        b.quantity = positive(quantity)?;
        b.remaining = b.remaining + b.quantity - before.quantity;
        if b.remaining < Quantity::ZERO {
            return Err(rejected(
                ErrorCode::BatchQuantityBelowDrawn,
                "Quantity cannot be less than what doses already took from the batch",
            ));
        }
    }
    if let Some(remaining) = input.remaining {
        b.remaining = checked_remaining(remaining, b.quantity)?;
    }
    if let Some(text) = input.expires_on.as_deref() {
        b.expires_on = expiry(text)?;
        b.expired = stock::batch_expired(b.expires_on, today);
    }
    if let Some(l) = input.lot {
        b.lot = lot(l)?;
    }
    let stamp = Stamp::from(now);
    batches::update(conn, batch_id, &b, stamp)?;
    let change = counted(&b) - counted(&before);
    if change != Quantity::ZERO {
        let reason = format!("Batch {} changed", label(&b));
        medications::move_batch_stock(
            conn,
            m.id,
            change,
            StockChange::Correction,
            Some(&reason),
            None,
            Some(ledger_batch(batch_id, &b)),
            stamp,
        )?;
    }
    let batch = batches::find(conn, m.id, batch_id)?.ok_or_else(batch_not_found)?;
    Ok(BatchView::of(&batch, today))
}

/// Deletes a batch; what it counted leaves the medication's stock. Doses that drew from it
/// give nothing back to it when undone.
pub fn delete(
    conn: &Connection,
    user_id: i64,
    medication_id: MedicationId,
    batch_id: i64,
    now: DateTime<Utc>,
) -> ServiceResult<()> {
    let m = medications::find(conn, user_id, medication_id.0)?.ok_or_else(medication_not_found)?;
    let old = batches::find(conn, m.id, batch_id)?.ok_or_else(batch_not_found)?;
    let b = fields(&old);
    batches::delete(conn, batch_id)?;
    let stamp = Stamp::from(now);
    let change = Quantity::ZERO - counted(&b);
    let reason = format!("Batch {} removed", label(&b));
    medications::move_batch_stock(
        conn,
        m.id,
        change,
        StockChange::Correction,
        Some(&reason),
        None,
        Some(ledger_batch(batch_id, &b)),
        stamp,
    )?;
    Ok(())
}

/// Takes an expired batch out of its medication's count, with a ledger row.
fn expire(conn: &Connection, b: &Batch, now: Stamp) -> rusqlite::Result<()> {
    batches::set_expired(conn, b.id, now)?;
    let f = fields(b);
    if b.remaining > Quantity::ZERO {
        let reason = format!("Batch {} expired on {}", label(&f), b.expires_on);
        medications::move_batch_stock(
            conn,
            b.medication_id,
            Quantity::ZERO - b.remaining,
            StockChange::Correction,
            Some(&reason),
            None,
            Some(ledger_batch(b.id, &f)),
            now,
        )?;
    }
    Ok(())
}

/// The expiry pass: every batch whose owner's day is past its expiry stops counting. Returns
/// how many expired.
pub fn expire_due(conn: &mut Connection, now: DateTime<Utc>) -> Result<usize, DbError> {
    // No time zone is more than a day ahead of UTC: later expiries cannot be due.
    let horizon = now.date_naive().succ_opt().unwrap_or(NaiveDate::MAX);
    let tx = conn.transaction()?;
    let mut done = 0;
    let mut clocks = OwnerClocks::at(now);
    for (user_id, b) in batches::counted_expiring_before(&tx, horizon)? {
        let today = clocks.of(&tx, user_id)?.today();
        if stock::batch_expired(b.expires_on, today) {
            expire(&tx, &b, Stamp::from(now))?;
            done += 1;
        }
    }
    tx.commit()?;
    Ok(done)
}

/// What a dose took from batches.
pub struct Drawn {
    pub taken: Quantity,
    pub short: Quantity,
    /// What expired batches still held when the dose was short: the stock is not empty,
    /// only out of date.
    pub expired_remaining: Quantity,
}

/// Takes `wanted` for history entry `history_id` from the batches that have not expired,
/// the first to expire first, with a ledger row per batch. Batches past their expiry are
/// taken out of the count first.
#[allow(clippy::too_many_arguments)]
pub fn draw(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
    history_id: i64,
    wanted: Quantity,
    kind: StockChange,
    reason: Option<&str>,
    now: DateTime<Utc>,
) -> ServiceResult<Drawn> {
    let today = UserClock::at(conn, user_id, now)?.today();
    let stamp = Stamp::from(now);
    let all = batches::list(conn, medication_id)?;
    for b in all
        .iter()
        .filter(|b| !b.expired && stock::batch_expired(b.expires_on, today))
    {
        expire(conn, b, stamp)?;
    }
    let usable: Vec<&Batch> = all
        .iter()
        .filter(|b| !b.expired && !stock::batch_expired(b.expires_on, today))
        .collect();
    let order: Vec<(i64, Quantity)> = usable.iter().map(|b| (b.id, b.remaining)).collect();
    let (takes, short) = stock::first_expiry_first_out(&order, wanted);
    let mut taken = Quantity::ZERO;
    for (id, take) in takes {
        let Some(b) = usable.iter().find(|b| b.id == id) else {
            continue;
        };
        batches::move_remaining(conn, id, Quantity::ZERO - take, stamp)?;
        let drawn = batches::drawn(conn, history_id, id)?;
        batches::set_draw(conn, history_id, id, drawn + take)?;
        medications::move_batch_stock(
            conn,
            medication_id,
            Quantity::ZERO - take,
            kind,
            reason,
            Some(history_id),
            Some(LedgerBatch {
                id,
                lot: b.lot.as_deref(),
            }),
            stamp,
        )?;
        taken = taken + take;
    }
    let expired_remaining = all
        .iter()
        .filter(|b| b.expired || stock::batch_expired(b.expires_on, today))
        .fold(Quantity::ZERO, |sum, b| sum + b.remaining);
    Ok(Drawn {
        taken,
        short,
        expired_remaining,
    })
}

/// Gives up to `amount` back to the batches history entry `history_id` drew from, the one
/// that expires last first. A batch that has expired since takes it back without counting
/// it. Returns what was given back: never more than the entry drew from batches that still
/// exist.
pub fn give_back(
    conn: &Connection,
    medication_id: i64,
    history_id: i64,
    amount: Quantity,
    kind: StockChange,
    reason: Option<&str>,
    now: DateTime<Utc>,
) -> ServiceResult<Quantity> {
    let stamp = Stamp::from(now);
    let mut left = amount;
    for d in batches::draws(conn, history_id)? {
        if left <= Quantity::ZERO {
            break;
        }
        let Some(b) = batches::find(conn, medication_id, d.batch_id)? else {
            continue;
        };
        let back = left.min(d.quantity);
        batches::move_remaining(conn, b.id, back, stamp)?;
        batches::set_draw(conn, history_id, b.id, d.quantity - back)?;
        let named = Some(LedgerBatch {
            id: b.id,
            lot: b.lot.as_deref(),
        });
        if b.expired {
            let balance = medications::inventory(conn, medication_id)?
                .map(|i| stock::on_hand(i.current_quantity))
                .unwrap_or_default();
            let why = format!(
                "Given back to batch {}, which expired on {}: not counted",
                label(&fields(&b)),
                b.expires_on
            );
            medications::record_batch_ledger(
                conn,
                medication_id,
                Quantity::ZERO,
                balance,
                kind,
                Some(reason.unwrap_or(&why)),
                Some(history_id),
                named,
                stamp,
            )?;
        } else {
            medications::move_batch_stock(
                conn,
                medication_id,
                back,
                kind,
                reason,
                Some(history_id),
                named,
                stamp,
            )?;
        }
        left = left - back;
    }
    Ok(amount - left)
}

/// What the medication's batches that are still counted hold.
pub fn available(conn: &Connection, medication_id: i64) -> ServiceResult<Quantity> {
    Ok(batches::list(conn, medication_id)?
        .iter()
        .filter(|b| !b.expired)
        .fold(Quantity::ZERO, |sum, b| sum + b.remaining))
}

/// Whether the medication's stock is kept in batches.
pub fn in_batches(conn: &Connection, medication_id: i64) -> ServiceResult<bool> {
    Ok(batches::any(conn, medication_id)?)
}

/// The refusal of a single-count change on a medication counted in batches.
pub fn counted_in_batches() -> ServiceError {
    super::conflict(
        ErrorCode::StockInBatches,
        "This medication's stock is kept in batches: add, change or remove a batch instead",
    )
}
