//! Reminder preferences (SPEC §3): the person's global ones, the Settings page's view of
//! them, and each medication's own. Saving a change that moves reminders re-plans them.

use chrono::{DateTime, NaiveTime, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::{ErrorCode, ServiceResult, not_found};
use crate::domain::notification::{
    DeliveryMethod, check_lead, check_message, check_repeat_interval, check_repeats,
};
use crate::services::planner::{self, UserClock};
use crate::store::notify_prefs::{self, GlobalPrefs, MedicationPrefs};
use crate::store::{medications, settings};

/// The global preferences as `GET /api/notifications/preferences` names them (the export
/// uses the same names, without `email_available`).
#[derive(Debug, Serialize, ToSchema)]
pub struct Preferences {
    pub email_notifications_enabled: bool,
    pub push_notifications_enabled: bool,
    pub notification_sound_enabled: bool,
    pub notification_vibration_enabled: bool,
    pub default_reminder_minutes_before: i64,
    pub default_delivery_methods: Vec<DeliveryMethod>,
    /// The master switch for medication reminders.
    pub reminders_enabled: bool,
    pub repeat_interval_minutes: i64,
    pub repeat_max: i64,
    /// Push and e-mail reminders say "Time for your 08:00 medicines" without naming them.
    pub hide_medication_names: bool,
    /// If no device takes a push, it is sent by e-mail. On only while e-mail notifications
    /// are on (with them off no reminder e-mail goes out); on by default with them.
    pub email_fallback_enabled: bool,
    /// Read-only: whether this server can send e-mail at all.
    pub email_available: bool,
}

impl Preferences {
    pub fn new(p: &GlobalPrefs, email_available: bool) -> Preferences {
        Preferences {
            email_notifications_enabled: p.email_enabled,
            push_notifications_enabled: p.push_enabled,
            notification_sound_enabled: p.sound_enabled,
            notification_vibration_enabled: p.vibration_enabled,
            default_reminder_minutes_before: p.lead_minutes,
            default_delivery_methods: p.delivery_methods.clone(),
            reminders_enabled: p.reminders_enabled,
            repeat_interval_minutes: p.repeat_interval_minutes,
            repeat_max: p.repeat_max,
            hide_medication_names: p.hide_medication_names,
            email_fallback_enabled: notify_prefs::fallback_on(p),
            email_available,
        }
    }
}

/// The Settings page's view of the notification settings.
#[derive(Debug, Serialize, ToSchema)]
pub struct NotificationSettings {
    pub medication_reminders: bool,
    pub reminder_time_before: i64,
    /// HH:MM, the time a once-daily medication without times is due.
    pub daily_reminder_time: String,
    pub push_notifications: bool,
    pub email_notifications: bool,
}

impl NotificationSettings {
    fn new(p: &GlobalPrefs, daily_time: String) -> NotificationSettings {
        NotificationSettings {
            medication_reminders: p.reminders_enabled,
            reminder_time_before: p.lead_minutes,
            daily_reminder_time: daily_time,
            push_notifications: p.push_enabled,
            email_notifications: p.email_enabled,
        }
    }
}

/// What applies to one medication's reminders, and whether that is just the defaults.
#[derive(Debug, Serialize, ToSchema)]
pub struct MedicationPreferences {
    pub medication_id: i64,
    pub delivery_methods: Vec<DeliveryMethod>,
    pub reminder_minutes_before: i64,
    pub custom_message: Option<String>,
    /// True when the medication has no preferences of its own.
    pub uses_defaults: bool,
}

impl MedicationPreferences {
    fn new(medication_id: i64, global: &GlobalPrefs, own: Option<&MedicationPrefs>) -> MedicationPreferences {
        let e = notify_prefs::effective(global, own);
        MedicationPreferences {
            medication_id,
            delivery_methods: e.methods,
            reminder_minutes_before: e.lead_minutes,
            custom_message: e.custom_message,
            uses_defaults: own.is_none(),
        }
    }
}

/// Changes to the global preferences; `None` leaves a value as it is.
#[derive(Debug, Default)]
pub struct GlobalChanges {
    pub reminders_enabled: Option<bool>,
    pub email_enabled: Option<bool>,
    pub push_enabled: Option<bool>,
    pub sound_enabled: Option<bool>,
    pub vibration_enabled: Option<bool>,
    pub lead_minutes: Option<i64>,
    pub methods: Option<Vec<DeliveryMethod>>,
    pub repeat_interval_minutes: Option<i64>,
    pub repeat_max: Option<i64>,
    pub hide_medication_names: Option<bool>,
    pub email_fallback: Option<bool>,
    /// The default reminder time (a user setting, shown among the notification settings).
    pub daily_time: Option<NaiveTime>,
}

impl GlobalChanges {
    fn check(&self) -> ServiceResult<()> {
        if let Some(m) = self.repeat_interval_minutes {
            check_repeat_interval(m)?;
        }
        if let Some(n) = self.repeat_max {
            check_repeats(n)?;
        }
        if let Some(l) = self.lead_minutes {
            check_lead(l)?;
        }
        Ok(())
    }

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
        set!(hide_medication_names, hide_medication_names);
        set!(email_fallback, email_fallback);
    }
}

pub fn preferences(conn: &Connection, user_id: i64, email_available: bool) -> ServiceResult<Preferences> {
    Ok(Preferences::new(
        &notify_prefs::global(conn, user_id)?,
        email_available,
    ))
}

/// Saves global preferences and re-plans the person's reminders (for `horizon_days`) when
/// the lead, the master switch or the default reminder time changed. Answers the saved
/// preferences and the default reminder time.
fn save_global(
    conn: &mut Connection,
    user_id: i64,
    changes: &GlobalChanges,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<(GlobalPrefs, String)> {
    changes.check()?;
    let tx = conn.transaction()?;
    if let Some(methods) = &changes.methods {
        check_own_channels(&tx, user_id, methods)?;
    }
    let before = notify_prefs::global(&tx, user_id)?;
    let mut p = before.clone();
    changes.apply(&mut p);
    notify_prefs::save_global(&tx, user_id, &p)?;
    let mut s = settings::get(&tx, user_id)?;
    if let Some(time) = changes.daily_time {
        s.default_reminder_time = time.format("%H:%M").to_string();
        settings::save(&tx, user_id, &s)?;
    }
    if before.lead_minutes != p.lead_minutes
        || before.reminders_enabled != p.reminders_enabled
        || changes.daily_time.is_some()
    {
        planner::plan_user_at(&tx, user_id, horizon_days, now)?;
    }
    tx.commit()?;
    Ok((p, s.default_reminder_time))
}

pub fn save_preferences(
    conn: &mut Connection,
    user_id: i64,
    changes: &GlobalChanges,
    horizon_days: u32,
    email_available: bool,
    now: DateTime<Utc>,
) -> ServiceResult<Preferences> {
    let (saved, _) = save_global(conn, user_id, changes, horizon_days, now)?;
    Ok(Preferences::new(&saved, email_available))
}

pub fn settings(conn: &Connection, user_id: i64) -> ServiceResult<NotificationSettings> {
    let p = notify_prefs::global(conn, user_id)?;
    let s = settings::get(conn, user_id)?;
    Ok(NotificationSettings::new(&p, s.default_reminder_time))
}

pub fn save_settings(
    conn: &mut Connection,
    user_id: i64,
    changes: &GlobalChanges,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<NotificationSettings> {
    let (saved, daily_time) = save_global(conn, user_id, changes, horizon_days, now)?;
    Ok(NotificationSettings::new(&saved, daily_time))
}

/// Every channel among chosen methods must be one of the person's own.
fn check_own_channels(conn: &Connection, user_id: i64, methods: &[DeliveryMethod]) -> ServiceResult<()> {
    for id in methods.iter().filter_map(|m| m.channel_id()) {
        if crate::store::channels::find(conn, user_id, id)?.is_none() {
            return Err(super::error::rejected(
                ErrorCode::DeliveryMethodUnknown,
                format!("channel:{id} is not one of your channels"),
            ));
        }
    }
    Ok(())
}

fn medication_not_found() -> super::ServiceError {
    not_found(ErrorCode::MedicationNotFound, "Medication not found")
}

pub fn medication_preferences(
    conn: &Connection,
    user_id: i64,
    medication_id: i64,
) -> ServiceResult<MedicationPreferences> {
    medications::find(conn, user_id, medication_id)?.ok_or_else(medication_not_found)?;
    let global = notify_prefs::global(conn, user_id)?;
    let own = notify_prefs::for_medication(conn, medication_id)?;
    Ok(MedicationPreferences::new(medication_id, &global, own.as_ref()))
}

/// Changes to one medication's own preferences; `None` leaves a value as it is.
#[derive(Debug, Default)]
pub struct MedicationChanges {
    /// Drop its own preferences: it follows the global ones (the other fields are checked,
    /// not saved).
    pub use_defaults: bool,
    pub methods: Option<Vec<DeliveryMethod>>,
    pub lead_minutes: Option<i64>,
    /// `Some(None)` (a blank message) clears it.
    pub custom_message: Option<Option<String>>,
}

/// Saves a medication's own preferences (or drops them) and re-plans its reminders.
pub fn save_medication_preferences(
    conn: &mut Connection,
    user_id: i64,
    medication_id: i64,
    changes: MedicationChanges,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<MedicationPreferences> {
    let lead_minutes = changes.lead_minutes.map(check_lead).transpose()?;
    let custom_message = changes
        .custom_message
        .map(|m| check_message(m.as_deref()))
        .transpose()?;
    let tx = conn.transaction()?;
    let m = medications::find(&tx, user_id, medication_id)?.ok_or_else(medication_not_found)?;
    if let Some(methods) = &changes.methods {
        check_own_channels(&tx, user_id, methods)?;
    }
    let global = notify_prefs::global(&tx, user_id)?;
    if changes.use_defaults {
        notify_prefs::clear_for_medication(&tx, medication_id)?;
    } else {
        let mut own = notify_prefs::for_medication(&tx, medication_id)?.unwrap_or_default();
        if changes.methods.is_some() {
            own.delivery_methods = changes.methods;
        }
        if lead_minutes.is_some() {
            own.lead_minutes = lead_minutes;
        }
        if let Some(message) = custom_message {
            own.custom_message = message;
        }
        notify_prefs::save_for_medication(&tx, medication_id, &own)?;
    }
    let clock = UserClock::at(&tx, user_id, now)?;
    planner::plan_medication(&tx, user_id, &m, &clock, horizon_days)?;
    let own = notify_prefs::for_medication(&tx, medication_id)?;
    let saved = MedicationPreferences::new(medication_id, &global, own.as_ref());
    tx.commit()?;
    Ok(saved)
}
