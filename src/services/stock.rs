//! Stock: what a dose takes from a medication's inventory and gives back, with a ledger row
//! for every move, all in the caller's transaction.

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::doses::{Pagination, Paging};
use super::{ErrorCode, Problem, ServiceError, ServiceResult, invalid, rejected, report};
use crate::db::Stamp;
use crate::domain::dose::DoseStatus;
use crate::domain::medication::{MedicationId, limited_text};
use crate::domain::quantity::Quantity;
use crate::domain::stock::{self, ContainerError, DoseUnitError, DoseWarning, InventoryType, StockStatus};
use crate::domain::units::{self, UnitError, UnitInputError};
use crate::domain::words::Lang;
use crate::services::planner::UserClock;
use crate::store::history::{self, Entry};
use crate::store::medications::{self, Inventory, LedgerRow, Medication, StockChange};
use crate::store::prescriptions;

/// The longest reason for a manual stock change.
const MAX_REASON: usize = 500;

impl From<UnitInputError> for ServiceError {
    fn from(e: UnitInputError) -> Self {
        ServiceError::Invalid(match &e {
            UnitInputError::Required => Problem::new(ErrorCode::UnitRequired, e.to_string()),
            UnitInputError::Unknown(unit) => {
                Problem::new(ErrorCode::UnitInvalid, e.to_string()).with_param("unit", unit.as_str())
            }
        })
    }
}

impl From<UnitError> for ServiceError {
    fn from(e: UnitError) -> Self {
        ServiceError::Invalid(match &e {
            UnitError::Invalid => Problem::new(ErrorCode::UnitInvalid, e.to_string()),
            UnitError::Incompatible { from, to } => Problem::new(ErrorCode::UnitIncompatible, e.to_string())
                .with_param("from", from.as_str())
                .with_param("to", to.as_str()),
        })
    }
}

impl From<DoseUnitError> for ServiceError {
    fn from(e: DoseUnitError) -> Self {
        let code = match e {
            DoseUnitError::StrengthNeeded { .. } => ErrorCode::StrengthNeeded,
            DoseUnitError::Mismatch { .. } => ErrorCode::UnitMismatch,
        };
        let (stock, unit) = e.units();
        let problem = Problem::new(code, e.to_string())
            .with_param("stock", stock)
            .with_param("unit", unit);
        ServiceError::Invalid(problem)
    }
}

impl From<ContainerError> for ServiceError {
    fn from(e: ContainerError) -> Self {
        match e {
            ContainerError::Unit(e) => e.into(),
            ContainerError::Invalid(message) => super::invalid(message),
        }
    }
}

/// A medication's stock after a change, as answers show it; `None` (null) when it keeps none.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StockLevel {
    pub current_quantity: Quantity,
    pub stock_status: StockStatus,
}

impl StockLevel {
    pub fn of(inv: &Inventory) -> StockLevel {
        StockLevel {
            current_quantity: stock::on_hand(inv.current_quantity),
            stock_status: stock::status(inv.current_quantity, inv.reminder_threshold),
        }
    }
}

/// The stock level of a medication whose inventory is on.
pub fn level(conn: &Connection, medication_id: Option<i64>) -> ServiceResult<Option<StockLevel>> {
    let Some(id) = medication_id else {
        return Ok(None);
    };
    Ok(medications::inventory(conn, id)?
        .filter(|inv| inv.enabled)
        .as_ref()
        .map(StockLevel::of))
}

/// Why a recorded dose did not move the stock as it would have: a message for people and a
/// stable code for the client, both null when the stock moved as asked.
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
pub struct StockWarning {
    #[schema(required = true)]
    pub warning: Option<String>,
    #[schema(required = true)]
    pub warning_code: Option<DoseWarning>,
}

impl StockWarning {
    fn new(code: DoseWarning, message: String) -> StockWarning {
        StockWarning {
            warning: Some(message),
            warning_code: Some(code),
        }
    }
}

/// Stock a taken entry uses now: zero unless taken, inventory-affecting, and the
/// medication's inventory is on. An error when the dose cannot be counted in the stock.
fn stock_use_of(
    entry: &Entry,
    medication: Option<&Medication>,
    inventory: Option<&Inventory>,
) -> Result<Quantity, UnitError> {
    let taken = entry.status == DoseStatus::Taken;
    match (taken, entry.affect_inventory, medication, inventory) {
        (true, true, Some(m), Some(inv)) if inv.enabled => {
            inv.containers.usage(entry.quantity, &entry.dosage_unit, &m.unit)
        }
        _ => Ok(Quantity::ZERO),
    }
}

/// "2 tablets", "1 tablet", "0.5 ml": an amount in plain English for stored texts.
fn amount(quantity: Quantity, unit: &str) -> String {
    Lang::En.words().amount(quantity, unit)
}

/// Brings the stock in line with what `entry` should use, writing the ledger row. The
/// entry is never refused for its stock: a dose the stock cannot count leaves it alone,
/// and one larger than what is left takes only that (stock never goes below zero); both
/// answer a warning. `stock_used` is always what really came out of the stock, so a
/// delete or a switch gives back exactly that.
pub fn settle(
    conn: &Connection,
    user_id: i64,
    entry: &mut Entry,
    now: DateTime<Utc>,
) -> ServiceResult<StockWarning> {
    settle_to(conn, user_id, entry, Settling::Dose, now)
}

/// Settles a taken entry whose amount was corrected from `was` (quantity and unit): the
/// stock moves by the difference between the two amounts, both counted with today's
/// inventory settings, and the ledger row is a `correction` that says so. What the dose took
/// before stays its own: a dose that took less (imported, logged while the stock was short
/// or not yet tracked) is not charged again for it.
pub fn correct(
    conn: &Connection,
    user_id: i64,
    entry: &mut Entry,
    was: (Quantity, &str),
    now: DateTime<Utc>,
) -> ServiceResult<StockWarning> {
    let reason = format!(
        "Dose corrected from {} to {}",
        amount(was.0, was.1),
        amount(entry.quantity, &entry.dosage_unit)
    );
    settle_to(
        conn,
        user_id,
        entry,
        Settling::Correction { reason: &reason, was },
        now,
    )
}

/// Gives back all the stock `entry` used, before it is deleted.
pub fn release(conn: &Connection, user_id: i64, entry: &mut Entry, now: DateTime<Utc>) -> ServiceResult<()> {
    settle_to(conn, user_id, entry, Settling::Delete, now).map(|_| ())
}

/// Why the stock of an entry is settled, which the ledger row says.
#[derive(Clone, Copy)]
enum Settling<'a> {
    /// A dose recorded or switched to or from taken.
    Dose,
    /// A taken dose's amount corrected from `was`, with what changed.
    Correction {
        reason: &'a str,
        was: (Quantity, &'a str),
    },
    /// The entry is being deleted.
    Delete,
}

fn settle_to(
    conn: &Connection,
    user_id: i64,
    entry: &mut Entry,
    settling: Settling<'_>,
    now: DateTime<Utc>,
) -> ServiceResult<StockWarning> {
    let deleting = matches!(settling, Settling::Delete);
    let correction = match settling {
        Settling::Correction { reason, .. } => Some(reason),
        Settling::Dose | Settling::Delete => None,
    };
    let at = now;
    let now = Stamp::from(now);
    let medication = match entry.medication_id {
        Some(id) => medications::find(conn, user_id, id)?,
        None => None,
    };
    let inventory = match &medication {
        Some(m) => medications::inventory(conn, m.id)?,
        None => None,
    };
    let used = if deleting {
        Ok(Quantity::ZERO)
    } else {
        stock_use_of(entry, medication.as_ref(), inventory.as_ref())
    };
    let should_use = match (used, settling) {
        // Only the difference: the earlier amount as today's settings count it, when they can.
        (Ok(usage), Settling::Correction { was, .. }) => {
            let mut before = entry.clone();
            before.quantity = was.0;
            was.1.clone_into(&mut before.dosage_unit);
            match stock_use_of(&before, medication.as_ref(), inventory.as_ref()) {
                Ok(was_usage) => (entry.stock_used + usage - was_usage).max(Quantity::ZERO),
                Err(_) => usage,
            }
        }
        (Ok(usage), _) => usage,
        (Err(_), _) => {
            let (Some(m), Some(inv)) = (&medication, &inventory) else {
                return Ok(StockWarning::default());
            };
            let c = &inv.containers;
            let why = match c.check_dose_unit(&m.unit) {
                Err(e) => e.to_string(),
                Ok(()) => format!(
                    "A dose in {} cannot be counted in {}.",
                    entry.dosage_unit,
                    c.stock_unit()
                ),
            };
            return Ok(StockWarning::new(
                DoseWarning::StockUnitMismatch,
                format!(
                    "The dose is recorded, but the stock was left as it was. {}.",
                    why.trim_end_matches('.')
                ),
            ));
        }
    };
    let delta = should_use - entry.stock_used;
    let (Some(m), Some(inv)) = (&medication, &inventory) else {
        entry.stock_used = should_use;
        return Ok(StockWarning::default());
    };
    if delta == Quantity::ZERO {
        return Ok(StockWarning::default());
    }
    if super::batches::in_batches(conn, m.id)? {
        return settle_batches(conn, user_id, entry, m.id, should_use, delta, correction, at);
    }
    if delta < Quantity::ZERO {
        medications::move_stock(
            conn,
            m.id,
            -delta,
            correction.map_or(StockChange::DoseReverted, |_| StockChange::Correction),
            correction,
            Some(entry.id),
            now,
        )?;
        entry.stock_used = should_use;
        return Ok(StockWarning::default());
    }
    let draw = stock::draw(inv.current_quantity, delta);
    let unit = inv.containers.stock_unit();
    let beyond =
        (draw.short > Quantity::ZERO).then(|| format!("{} taken beyond the stock", amount(draw.short, unit)));
    let reason = match (correction, &beyond) {
        (Some(corrected), Some(beyond)) => Some(format!("{corrected}; {beyond}")),
        (Some(corrected), None) => Some(corrected.to_owned()),
        (None, beyond) => beyond.clone(),
    };
    medications::move_stock(
        conn,
        m.id,
        -draw.taken,
        correction.map_or(StockChange::Dose, |_| StockChange::Correction),
        reason.as_deref(),
        Some(entry.id),
        now,
    )?;
    entry.stock_used = entry.stock_used + draw.taken;
    Ok(match beyond {
        None => StockWarning::default(),
        Some(beyond) => StockWarning::new(
            DoseWarning::StockShort,
            if draw.taken == Quantity::ZERO {
                format!("The dose is recorded, but the stock was already empty ({beyond}).")
            } else {
                format!(
                    "The dose is recorded, but the stock had only {}: it is now 0 ({beyond}).",
                    amount(draw.taken, unit)
                )
            },
        ),
    })
}

/// `settle_to` for a medication whose stock is kept in batches: a dose draws from the batch
/// that expires first, and what it gives back goes to the batches it came from.
#[allow(clippy::too_many_arguments)]
fn settle_batches(
    conn: &Connection,
    user_id: i64,
    entry: &mut Entry,
    medication_id: i64,
    should_use: Quantity,
    delta: Quantity,
    correction: Option<&str>,
    now: DateTime<Utc>,
) -> ServiceResult<StockWarning> {
    if delta < Quantity::ZERO {
        super::batches::give_back(
            conn,
            medication_id,
            entry.id,
            Quantity::ZERO - delta,
            correction.map_or(StockChange::DoseReverted, |_| StockChange::Correction),
            correction,
            now,
        )?;
        entry.stock_used = should_use;
        return Ok(StockWarning::default());
    }
    let kind = correction.map_or(StockChange::Dose, |_| StockChange::Correction);
    let drawn = super::batches::draw(
        conn,
        user_id,
        medication_id,
        entry.id,
        delta,
        kind,
        correction,
        now,
    )?;
    entry.stock_used = entry.stock_used + drawn.taken;
    if drawn.short == Quantity::ZERO {
        return Ok(StockWarning::default());
    }
    let unit = medications::inventory(conn, medication_id)?
        .map(|inv| inv.containers.stock_unit().to_owned())
        .unwrap_or_default();
    let beyond = format!("{} taken beyond the stock", amount(drawn.short, &unit));
    let reason = match correction {
        Some(corrected) => format!("{corrected}; {beyond}"),
        None => beyond.clone(),
    };
    medications::move_stock(
        conn,
        medication_id,
        Quantity::ZERO,
        kind,
        Some(&reason),
        Some(entry.id),
        Stamp::from(now),
    )?;
    let expired = match drawn.expired_remaining > Quantity::ZERO {
        true => format!(
            " {} is left only in expired batches, which is not counted.",
            amount(drawn.expired_remaining, &unit)
        ),
        false => String::new(),
    };
    let message = if drawn.taken == Quantity::ZERO {
        format!("The dose is recorded, but no batch that has not expired had stock left ({beyond}).{expired}")
    } else {
        format!(
            "The dose is recorded, but the batches that have not expired had only {}: the stock is now 0 ({beyond}).{expired}",
            amount(drawn.taken, &unit)
        )
    };
    Ok(StockWarning::new(DoseWarning::StockShort, message))
}

/// A dose or stock unit from the catalogue, as its canonical symbol (`mcg` is `μg`).
pub fn unit(text: &str) -> ServiceResult<String> {
    Ok(units::canonical(text)?)
}

fn medication_not_found() -> ServiceError {
    super::not_found(ErrorCode::MedicationNotFound, "Medication not found")
}

/// A medication's inventory as the API shows it: its set-up, totals, status and forecast.
#[derive(Debug, Serialize, ToSchema)]
pub struct InventoryView {
    /// The medication's id.
    pub id: i64,
    pub enabled: bool,
    pub inventory_type: InventoryType,
    #[schema(required = true)]
    pub container_type: Option<String>,
    #[schema(required = true)]
    pub container_quantity: Option<i64>,
    #[schema(required = true)]
    pub container_size: Option<Quantity>,
    #[schema(required = true)]
    pub container_unit: Option<String>,
    #[schema(required = true)]
    pub item_quantity: Option<i64>,
    #[schema(required = true)]
    pub item_strength: Option<Quantity>,
    #[schema(required = true)]
    pub item_unit: Option<String>,
    /// What the containers hold when full.
    pub total_quantity: Quantity,
    /// The unit stock is counted in.
    pub total_unit: String,
    pub current_quantity: Quantity,
    pub reminder_threshold: Quantity,
    pub stock_status: StockStatus,
    /// The day the stock runs out at the scheduled use (`YYYY-MM-DD`); null when unknown.
    #[schema(required = true)]
    pub runs_out_on: Option<String>,
    #[schema(value_type = String)]
    pub updated_at: Stamp,
    /// Stock kept in batches: how many, what expired ones still hold (not counted) and the
    /// ones expiring within 30 days. Null for a medication counted as one number.
    #[schema(required = true)]
    pub batches: Option<super::batches::BatchSummary>,
}

impl InventoryView {
    /// With what the medication's batches say (`batches` are its own).
    pub fn with_batches(
        mut self,
        batches: &[&crate::store::batches::Batch],
        today: chrono::NaiveDate,
    ) -> InventoryView {
        self.batches = super::batches::BatchSummary::of(batches, today);
        self
    }

    /// With the medication's batches, read.
    pub fn read_batches(self, conn: &Connection, clock: &UserClock) -> ServiceResult<InventoryView> {
        let batches = crate::store::batches::list(conn, self.id)?;
        let refs: Vec<_> = batches.iter().collect();
        Ok(self.with_batches(&refs, clock.today()))
    }

    pub fn of(medication: &Medication, inv: &Inventory, clock: &UserClock) -> InventoryView {
        InventoryView::with_forecast(medication, inv, report::runs_out_on(medication, inv, clock))
    }

    /// As `of`, with the day the stock runs out already worked out (`report::runs_out_on`):
    /// a caller that needs it for something else too (a prescription's refill) works it out once.
    pub fn with_forecast(
        medication: &Medication,
        inv: &Inventory,
        runs_out_on: Option<chrono::NaiveDate>,
    ) -> InventoryView {
        let c = &inv.containers;
        InventoryView {
            id: medication.id,
            enabled: inv.enabled,
            inventory_type: c.inventory_type,
            container_type: c.container_type.clone(),
            container_quantity: c.container_quantity,
            container_size: c.container_size,
            container_unit: c.container_unit.clone(),
            item_quantity: c.item_quantity,
            item_strength: c.item_strength,
            item_unit: c.item_unit.clone(),
            total_quantity: c.total(),
            total_unit: c.stock_unit().to_owned(),
            current_quantity: stock::on_hand(inv.current_quantity),
            reminder_threshold: inv.reminder_threshold,
            stock_status: stock::status(inv.current_quantity, inv.reminder_threshold),
            runs_out_on: runs_out_on.map(|d| d.to_string()),
            updated_at: inv.updated_at,
            batches: None,
        }
    }
}

/// A change to an inventory; what is absent stays. The container fields are "absent:
/// keep", "null: clear", or a value.
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct InventoryInput {
    enabled: Option<bool>,
    #[schema(value_type = Option<InventoryType>)]
    inventory_type: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    container_type: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 1000000)]
    container_quantity: Option<Option<i64>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999, multiple_of = 0.001)]
    container_size: Option<Option<Quantity>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    container_unit: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<i64>, minimum = 1, maximum = 1000000)]
    item_quantity: Option<Option<i64>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999, multiple_of = 0.001)]
    item_strength: Option<Option<Quantity>>,
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>)]
    item_unit: Option<Option<String>>,
    /// On a newly enabled inventory: the starting count (default: full); else a correction.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999, multiple_of = 0.001)]
    current_quantity: Option<Quantity>,
    /// Low stock at or below this many; at most a billion.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 999999999, multiple_of = 0.001)]
    reminder_threshold: Option<Quantity>,
}

/// A present field, possibly `null`: `Some(None)` clears, a missing field stays `None`.
pub(crate) fn nullable<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Applies inventory input over the current inventory, validates it, and moves stock with
/// ledger rows: a newly enabled inventory starts full (or at the given quantity), a given
/// quantity on an existing one is a correction.
pub fn apply(
    conn: &Connection,
    medication: &Medication,
    input: InventoryInput,
    now: Stamp,
) -> ServiceResult<Inventory> {
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
            _ => return Err(invalid("Inventory type must be continuous or discrete")),
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
            return Err(invalid("Reminder threshold cannot be negative"));
        }
        inv.reminder_threshold = threshold;
    }
    inv.enabled = input.enabled.unwrap_or(inv.enabled);
    if input.current_quantity.is_some_and(|q| q < Quantity::ZERO) {
        return Err(invalid("Current quantity cannot be negative"));
    }
    if inv.enabled {
        inv.containers.validate()?;
        for unit in [&mut inv.containers.container_unit, &mut inv.containers.item_unit]
            .into_iter()
            .flatten()
        {
            *unit = units::find(unit).map(|u| u.symbol.to_owned()).unwrap_or_default();
        }
        inv.containers.check_dose_unit(&medication.unit)?;
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
    // Stock kept in batches is what its batches hold; it is changed through them.
    let target = match super::batches::in_batches(conn, medication_id)? {
        true if input.current_quantity.is_some() => return Err(super::batches::counted_in_batches()),
        true => super::batches::available(conn, medication_id)?,
        false => target,
    };
    inv.current_quantity = target;
    inv.updated_at = now;
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

/// A medication's inventory (a disabled one when it never had any).
pub fn get(
    conn: &Connection,
    user_id: i64,
    medication_id: MedicationId,
    now: DateTime<Utc>,
) -> ServiceResult<InventoryView> {
    let medication_id = medication_id.0;
    let clock = UserClock::at(conn, user_id, now)?;
    let m = medications::find(conn, user_id, medication_id)?.ok_or_else(medication_not_found)?;
    let inv =
        medications::inventory(conn, medication_id)?.unwrap_or_else(|| Inventory::disabled(m.created_at));
    InventoryView::of(&m, &inv, &clock).read_batches(conn, &clock)
}

/// Saves a medication's inventory set-up (see `apply`).
pub fn save(
    conn: &Connection,
    user_id: i64,
    medication_id: MedicationId,
    input: InventoryInput,
    now: DateTime<Utc>,
) -> ServiceResult<InventoryView> {
    let medication_id = medication_id.0;
    let clock = UserClock::at(conn, user_id, now)?;
    let m = medications::find(conn, user_id, medication_id)?.ok_or_else(medication_not_found)?;
    let inv = apply(conn, &m, input, Stamp::from(now))?;
    InventoryView::of(&m, &inv, &clock).read_batches(conn, &clock)
}

/// A manual stock change as sent.
#[derive(Debug, Deserialize, ToSchema)]
pub struct Adjustment {
    /// How much to add (a refill) or take away (a lost tablet): not zero, at most three
    /// decimals, and the stock cannot go below zero.
    #[schema(schema_with = nonzero_change, required = true)]
    pub adjustment: Option<Quantity>,
    #[schema(max_length = 500)]
    pub reason: Option<String>,
}

/// The document's `adjustment`: a take-away or an addition, in thousandths, never zero (the
/// server refuses zero with `validation_failed`). JSON Schema says "not zero" as one of two
/// ranges that each leave it out.
fn nonzero_change() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
    let range = |description: &str| {
        ObjectBuilder::new()
            .schema_type(Type::Number)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Double,
            )))
            .description(Some(description))
            .multiple_of(Some(0.001))
    };
    OneOfBuilder::new()
        .description(Some(
            "How much to add (a refill) or take away (a lost tablet): not zero, at most three \
             decimals, and the stock cannot go below zero.",
        ))
        .item(
            range("Taken away")
                .minimum(Some(-999_999_999))
                .exclusive_maximum(Some(0)),
        )
        .item(
            range("Added")
                .exclusive_minimum(Some(0))
                .maximum(Some(999_999_999)),
        )
        .build()
        .into()
}

/// The stock after an adjustment, with the whole inventory.
#[derive(Debug, Serialize, ToSchema)]
pub struct Adjusted {
    pub current_quantity: Quantity,
    pub stock_status: StockStatus,
    pub inventory: InventoryView,
}

/// A manual stock change (a refill, a lost tablet), with an optional reason.
pub fn adjust(
    conn: &Connection,
    user_id: i64,
    medication_id: MedicationId,
    input: Adjustment,
    now: DateTime<Utc>,
) -> ServiceResult<Adjusted> {
    let medication_id = medication_id.0;
    let change = input
        .adjustment
        .filter(|a| *a != Quantity::ZERO)
        .ok_or_else(|| invalid("Adjustment must be a non-zero number"))?;
    let reason = input
        .reason
        .map(|r| limited_text(&r, MAX_REASON, "Reason").map_err(invalid))
        .transpose()?
        .filter(|r| !r.is_empty());
    let clock = UserClock::at(conn, user_id, now)?;
    let m = medications::find(conn, user_id, medication_id)?.ok_or_else(medication_not_found)?;
    let Some(before) = medications::inventory(conn, medication_id)?.filter(|inv| inv.enabled) else {
        return Err(rejected(
            ErrorCode::InventoryNotEnabled,
            "Inventory is not enabled for this medication",
        ));
    };
    if super::batches::in_batches(conn, medication_id)? {
        return Err(super::batches::counted_in_batches());
    }
    // Refused rather than clamped: a count that does not add up is a typo to fix.
    if stock::on_hand(before.current_quantity) + change < Quantity::ZERO {
        return Err(rejected(ErrorCode::StockBelowZero, "Stock cannot go below zero"));
    }
    medications::move_stock(
        conn,
        medication_id,
        change,
        StockChange::Adjustment,
        reason.as_deref(),
        None,
        Stamp::from(now),
    )?;
    if change > Quantity::ZERO {
        // A refill came in: the one ordered is here, and one fewer is left.
        prescriptions::stock_added(conn, medication_id, Stamp::from(now))?;
    }
    let inv = medications::inventory(conn, medication_id)?.ok_or_else(medication_not_found)?;
    Ok(Adjusted {
        current_quantity: stock::on_hand(inv.current_quantity),
        stock_status: stock::status(inv.current_quantity, inv.reminder_threshold),
        inventory: InventoryView::of(&m, &inv, &clock),
    })
}

/// The most recent rows of a medication's stock ledger, newest first.
pub fn ledger(
    conn: &Connection,
    user_id: i64,
    medication_id: MedicationId,
    paging: Paging,
) -> ServiceResult<(Vec<LedgerRow>, Pagination)> {
    let medication_id = medication_id.0;
    medications::find(conn, user_id, medication_id)?.ok_or_else(medication_not_found)?;
    let (rows, count) = medications::ledger(conn, medication_id, paging.limit, paging.offset)?;
    Ok((rows, Pagination::of(paging, count)))
}

/// A medication whose stock is low or out.
#[derive(Debug, Serialize, ToSchema)]
pub struct LowStock {
    pub medication_id: i64,
    pub name: String,
    pub color: String,
    pub inventory: InventoryView,
}

/// The person's medications whose stock is low or out.
/// The account's (`user_id` is the owner's) medications low on stock, of `people` only when
/// given.
pub fn low(
    conn: &Connection,
    user_id: i64,
    people: Option<&[i64]>,
    now: DateTime<Utc>,
) -> ServiceResult<Vec<LowStock>> {
    let clock = UserClock::at(conn, user_id, now)?;
    let inventories = medications::inventories(conn, user_id)?;
    let mut low = Vec::new();
    let list = medications::list(conn, user_id)?;
    for m in list
        .into_iter()
        .filter(|m| people.is_none_or(|people| people.contains(&m.person_id)))
    {
        if let Some(inv) = inventories.get(&m.id).filter(|inv| inv.enabled)
            && stock::status(inv.current_quantity, inv.reminder_threshold) != StockStatus::InStock
        {
            low.push(LowStock {
                medication_id: m.id,
                name: m.name.clone(),
                color: m.color.clone(),
                inventory: InventoryView::of(&m, inv, &clock).read_batches(conn, &clock)?,
            });
        }
    }
    Ok(low)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(e: ServiceError) -> Problem {
        match e {
            ServiceError::Invalid(p) => p,
            other => panic!("not a 400: {other:?}"),
        }
    }

    #[test]
    fn unit_problems_carry_their_code_and_values() {
        let p = problem(units::canonical("spoons").unwrap_err().into());
        assert_eq!(
            (p.code, p.message.as_str()),
            (
                ErrorCode::UnitInvalid,
                "Unit 'spoons' is not a valid medical unit"
            )
        );
        assert_eq!(p.params["unit"], "spoons");
        assert_eq!(
            problem(units::canonical(" ").unwrap_err().into()).code,
            ErrorCode::UnitRequired
        );
        let p = problem(units::convert(Quantity::whole(1), "mg", "ml").unwrap_err().into());
        assert_eq!(p.code, ErrorCode::UnitIncompatible);
        assert_eq!((&p.params["from"], &p.params["to"]), (&"mg".into(), &"ml".into()));
        let strength = DoseUnitError::StrengthNeeded {
            stock: "tablets".into(),
            unit: "mg".into(),
            item: "tablet".into(),
        };
        let p = problem(strength.into());
        assert_eq!(p.code, ErrorCode::StrengthNeeded);
        assert_eq!(
            (&p.params["stock"], &p.params["unit"]),
            (&"tablets".into(), &"mg".into())
        );
        let mismatch = DoseUnitError::Mismatch {
            stock: "ml".into(),
            unit: "units".into(),
            hint: ", a unit a dose converts to".into(),
        };
        assert_eq!(problem(mismatch.into()).code, ErrorCode::UnitMismatch);
    }
}
