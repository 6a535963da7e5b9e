//! Notification preferences: the user's global ones and each medication's own (SPEC §3).

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

/// A delivery channel (the domain's `DeliveryMethod`, under the name the engine uses).
pub use crate::domain::notification::DeliveryMethod as Method;
use crate::domain::notification::normalize_methods as normalize;

/// Methods stored as a comma-separated list, in a stable order (push before e-mail).
pub fn encode_methods(methods: &[Method]) -> String {
    normalize(methods)
        .into_iter()
        .map(Method::as_str)
        .collect::<Vec<_>>()
        .join(",")
}

pub fn decode_methods(text: &str) -> Vec<Method> {
    let listed: Vec<Method> = text.split(',').filter_map(Method::parse).collect();
    normalize(&listed)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobalPrefs {
    pub reminders_enabled: bool,
    pub email_enabled: bool,
    pub push_enabled: bool,
    pub sound_enabled: bool,
    pub vibration_enabled: bool,
    pub lead_minutes: i64,
    pub delivery_methods: Vec<Method>,
    pub repeat_interval_minutes: i64,
    pub repeat_max: i64,
    /// Push and e-mail reminders leave medication names out.
    pub hide_medication_names: bool,
}

impl Default for GlobalPrefs {
    fn default() -> Self {
        GlobalPrefs {
            reminders_enabled: true,
            email_enabled: false,
            push_enabled: true,
            sound_enabled: true,
            vibration_enabled: true,
            lead_minutes: 15,
            delivery_methods: vec![Method::Push],
            repeat_interval_minutes: 10,
            repeat_max: 3,
            hide_medication_names: false,
        }
    }
}

const GLOBAL_COLUMNS: &str =
    "reminders_enabled, email_enabled, push_enabled, sound_enabled, vibration_enabled,
     lead_minutes, delivery_methods, repeat_interval_minutes, repeat_max, hide_medication_names";

/// Global preferences from `GLOBAL_COLUMNS` starting at column `at`.
fn global_from(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<GlobalPrefs> {
    Ok(GlobalPrefs {
        reminders_enabled: row.get(at)?,
        email_enabled: row.get(at + 1)?,
        push_enabled: row.get(at + 2)?,
        sound_enabled: row.get(at + 3)?,
        vibration_enabled: row.get(at + 4)?,
        lead_minutes: row.get(at + 5)?,
        delivery_methods: decode_methods(&row.get::<_, String>(at + 6)?),
        repeat_interval_minutes: row.get(at + 7)?,
        repeat_max: row.get(at + 8)?,
        hide_medication_names: row.get(at + 9)?,
    })
}

pub fn global(conn: &Connection, user_id: i64) -> rusqlite::Result<GlobalPrefs> {
    conn.prepare_cached(&format!(
        "SELECT {GLOBAL_COLUMNS} FROM notification_preferences WHERE user_id = ?1"
    ))?
    .query_row([user_id], |row| global_from(row, 0))
    .optional()
    .map(Option::unwrap_or_default)
}

/// The saved global preferences of the users with ids from `first` to `last` (the others
/// have the defaults).
pub fn globals_for_users(
    conn: &Connection,
    first: i64,
    last: i64,
) -> rusqlite::Result<HashMap<i64, GlobalPrefs>> {
    conn.prepare_cached(&format!(
        "SELECT user_id, {GLOBAL_COLUMNS} FROM notification_preferences WHERE user_id BETWEEN ?1 AND ?2"
    ))?
    .query_map([first, last], |row| Ok((row.get(0)?, global_from(row, 1)?)))?
    .collect()
}

pub fn save_global(conn: &Connection, user_id: i64, p: &GlobalPrefs) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO notification_preferences (user_id, reminders_enabled, email_enabled, push_enabled,
            sound_enabled, vibration_enabled, lead_minutes, delivery_methods, repeat_interval_minutes, repeat_max,
            hide_medication_names)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
         ON CONFLICT (user_id) DO UPDATE SET reminders_enabled = excluded.reminders_enabled,
            email_enabled = excluded.email_enabled, push_enabled = excluded.push_enabled,
            sound_enabled = excluded.sound_enabled, vibration_enabled = excluded.vibration_enabled,
            lead_minutes = excluded.lead_minutes, delivery_methods = excluded.delivery_methods,
            repeat_interval_minutes = excluded.repeat_interval_minutes, repeat_max = excluded.repeat_max,
            hide_medication_names = excluded.hide_medication_names",
        params![
            user_id,
            p.reminders_enabled,
            p.email_enabled,
            p.push_enabled,
            p.sound_enabled,
            p.vibration_enabled,
            p.lead_minutes,
            encode_methods(&p.delivery_methods),
            p.repeat_interval_minutes,
            p.repeat_max,
            p.hide_medication_names
        ],
    )?;
    Ok(())
}

/// A medication's own preferences; `None` fields follow the global ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MedicationPrefs {
    pub delivery_methods: Option<Vec<Method>>,
    pub lead_minutes: Option<i64>,
    pub custom_message: Option<String>,
}

fn medication_prefs_from(row: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<MedicationPrefs> {
    Ok(MedicationPrefs {
        delivery_methods: row.get::<_, Option<String>>(at)?.map(|m| decode_methods(&m)),
        lead_minutes: row.get(at + 1)?,
        custom_message: row.get(at + 2)?,
    })
}

pub fn for_medication(conn: &Connection, medication_id: i64) -> rusqlite::Result<Option<MedicationPrefs>> {
    conn.prepare_cached(
        "SELECT delivery_methods, lead_minutes, custom_message
         FROM medication_notification_preferences WHERE medication_id = ?1",
    )?
    .query_row([medication_id], |row| medication_prefs_from(row, 0))
    .optional()
}

/// The own preferences of every medication of the user that has some, by medication id.
pub fn for_medications_of(
    conn: &Connection,
    user_id: i64,
) -> rusqlite::Result<HashMap<i64, MedicationPrefs>> {
    conn.prepare_cached(
        "SELECT p.medication_id, p.delivery_methods, p.lead_minutes, p.custom_message
         FROM medications m JOIN medication_notification_preferences p ON p.medication_id = m.id
         WHERE m.user_id = ?1",
    )?
    .query_map([user_id], |row| {
        Ok((
            row.get(0)?,
            MedicationPrefs {
                delivery_methods: row.get::<_, Option<String>>(1)?.map(|m| decode_methods(&m)),
                lead_minutes: row.get(2)?,
                custom_message: row.get(3)?,
            },
        ))
    })?
    .collect()
}

/// The own preferences of the medications of the users with ids from `first` to `last`,
/// by medication id.
pub fn for_medications_of_users(
    conn: &Connection,
    first: i64,
    last: i64,
) -> rusqlite::Result<HashMap<i64, MedicationPrefs>> {
    conn.prepare_cached(
        "SELECT p.medication_id, p.delivery_methods, p.lead_minutes, p.custom_message
         FROM medication_notification_preferences p JOIN medications m ON m.id = p.medication_id
         WHERE m.user_id BETWEEN ?1 AND ?2",
    )?
    .query_map([first, last], |row| {
        Ok((row.get(0)?, medication_prefs_from(row, 1)?))
    })?
    .collect()
}

pub fn save_for_medication(
    conn: &Connection,
    medication_id: i64,
    p: &MedicationPrefs,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO medication_notification_preferences (medication_id, delivery_methods, lead_minutes, custom_message)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (medication_id) DO UPDATE SET delivery_methods = excluded.delivery_methods,
            lead_minutes = excluded.lead_minutes, custom_message = excluded.custom_message",
        params![
            medication_id,
            p.delivery_methods.as_deref().map(encode_methods),
            p.lead_minutes,
            p.custom_message
        ],
    )?;
    Ok(())
}

pub fn clear_for_medication(conn: &Connection, medication_id: i64) -> rusqlite::Result<()> {
    conn.execute(
        "DELETE FROM medication_notification_preferences WHERE medication_id = ?1",
        [medication_id],
    )?;
    Ok(())
}

/// What applies to one medication's reminders: its own values, else the global ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Effective {
    pub methods: Vec<Method>,
    pub lead_minutes: i64,
    pub custom_message: Option<String>,
}

pub fn effective(global: &GlobalPrefs, own: Option<&MedicationPrefs>) -> Effective {
    Effective {
        methods: own
            .and_then(|o| o.delivery_methods.clone())
            .unwrap_or_else(|| global.delivery_methods.clone()),
        lead_minutes: own.and_then(|o| o.lead_minutes).unwrap_or(global.lead_minutes),
        custom_message: own.and_then(|o| o.custom_message.clone()),
    }
}

/// The channels a reminder actually uses: the chosen methods whose global switch is on.
pub fn channels(global: &GlobalPrefs, methods: &[Method]) -> Vec<Method> {
    methods
        .iter()
        .copied()
        .filter(|m| method_off(global, *m).is_none())
        .collect()
}

/// Why a method carries no reminders: its global switch is off. `None` when it is on.
pub fn method_off(global: &GlobalPrefs, method: Method) -> Option<&'static str> {
    match method {
        Method::Push if !global.push_enabled => {
            Some("Push notifications are turned off in your notification settings")
        }
        Method::Email if !global.email_enabled => {
            Some("E-mail notifications are turned off in your notification settings")
        }
        _ => None,
    }
}

/// A medication's reminders that would reach the person by no method: "no_method" when
/// reminders are on but every method it uses is switched off (or is e-mail on a server
/// that cannot send e-mail). `None` when they can go out, or reminders are off by choice.
pub fn delivery_warning(
    global: &GlobalPrefs,
    own: Option<&MedicationPrefs>,
    email_available: bool,
) -> Option<&'static str> {
    if !global.reminders_enabled {
        return None;
    }
    let methods = effective(global, own).methods;
    let usable = channels(global, &methods)
        .into_iter()
        .any(|m| m != Method::Email || email_available);
    (!usable).then_some("no_method")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_round_trip_in_a_stable_order() {
        assert_eq!(encode_methods(&[Method::Email, Method::Push]), "push,email");
        assert_eq!(
            decode_methods("email,push,fax"),
            vec![Method::Push, Method::Email]
        );
        assert_eq!(decode_methods(""), Vec::<Method>::new());
    }

    #[test]
    fn own_values_win_over_global_and_switches_filter_channels() {
        let global = GlobalPrefs::default();
        let own = MedicationPrefs {
            delivery_methods: Some(vec![Method::Push, Method::Email]),
            lead_minutes: None,
            custom_message: Some("with food".into()),
        };
        let e = effective(&global, Some(&own));
        assert_eq!(e.lead_minutes, 15);
        assert_eq!(e.methods, vec![Method::Push, Method::Email]);
        // E-mail is off globally by default, so only push is used.
        assert_eq!(channels(&global, &e.methods), vec![Method::Push]);
        let email_on = GlobalPrefs {
            email_enabled: true,
            ..GlobalPrefs::default()
        };
        assert_eq!(channels(&email_on, &e.methods), vec![Method::Push, Method::Email]);
    }

    #[test]
    fn a_medication_whose_methods_are_all_off_is_flagged() {
        let global = GlobalPrefs::default();
        let email_only = MedicationPrefs {
            delivery_methods: Some(vec![Method::Email]),
            ..MedicationPrefs::default()
        };
        // Its own method is e-mail while e-mail is off globally.
        assert_eq!(
            delivery_warning(&global, Some(&email_only), true),
            Some("no_method")
        );
        assert_eq!(
            method_off(&global, Method::Email),
            Some("E-mail notifications are turned off in your notification settings")
        );
        assert_eq!(delivery_warning(&global, None, true), None, "push is on");
        let email_on = GlobalPrefs {
            email_enabled: true,
            ..GlobalPrefs::default()
        };
        assert_eq!(delivery_warning(&email_on, Some(&email_only), true), None);
        assert_eq!(
            delivery_warning(&email_on, Some(&email_only), false),
            Some("no_method"),
            "this server cannot send e-mail"
        );
        let push_off = GlobalPrefs {
            push_enabled: false,
            ..GlobalPrefs::default()
        };
        assert_eq!(delivery_warning(&push_off, None, true), Some("no_method"));
        let reminders_off = GlobalPrefs {
            reminders_enabled: false,
            ..push_off
        };
        assert_eq!(
            delivery_warning(&reminders_off, None, true),
            None,
            "off by choice"
        );
    }
}
