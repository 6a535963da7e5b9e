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
        .map(Method::word)
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
    /// "If no device takes a push, send it by e-mail" (used only while e-mail is on).
    pub email_fallback: bool,
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
            email_fallback: true,
        }
    }
}

const GLOBAL_COLUMNS: &str =
    "reminders_enabled, email_enabled, push_enabled, sound_enabled, vibration_enabled,
     lead_minutes, delivery_methods, repeat_interval_minutes, repeat_max, hide_medication_names,
     email_fallback";

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
        email_fallback: row.get(at + 10)?,
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
            hide_medication_names, email_fallback)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT (user_id) DO UPDATE SET reminders_enabled = excluded.reminders_enabled,
            email_enabled = excluded.email_enabled, push_enabled = excluded.push_enabled,
            sound_enabled = excluded.sound_enabled, vibration_enabled = excluded.vibration_enabled,
            lead_minutes = excluded.lead_minutes, delivery_methods = excluded.delivery_methods,
            repeat_interval_minutes = excluded.repeat_interval_minutes, repeat_max = excluded.repeat_max,
            hide_medication_names = excluded.hide_medication_names,
            email_fallback = excluded.email_fallback",
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
            p.hide_medication_names,
            p.email_fallback
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

/// Whether e-mail takes over when no device took a reminder's push: the person's choice,
/// and only while e-mail notifications are on (with them off, no reminder e-mail goes out).
pub fn fallback_on(global: &GlobalPrefs) -> bool {
    global.email_enabled && global.email_fallback
}

/// What decides whether a reminder can arrive, besides the preferences.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reachability {
    /// The account has at least one subscribed push device.
    pub push_device: bool,
    /// This server can send e-mail.
    pub email_available: bool,
    /// The account's address is verified.
    pub email_verified: bool,
    /// The person's channels that can carry a reminder now (switched on, linked, not
    /// disabled), by id.
    pub usable_channels: Vec<i64>,
}

impl Reachability {
    fn email_sendable(&self) -> bool {
        self.email_available && self.email_verified
    }
}

/// Why a medication's reminders can reach nobody (the app translates the code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryWarning {
    /// Push is its way, and the account has no subscribed device.
    NoPushDevice,
    /// E-mail is its way, and this server cannot send e-mail.
    EmailUnavailable,
    /// E-mail is its way, and the address is not verified.
    EmailUnverified,
    /// Every method it uses is switched off.
    NoMethod,
    /// Its only ways are channels, and none of them can carry it (switched off, a Telegram
    /// chat not linked, disabled).
    ChannelUnavailable,
}

impl DeliveryWarning {
    pub fn code(self) -> &'static str {
        match self {
            DeliveryWarning::NoPushDevice => "no_push_device",
            DeliveryWarning::EmailUnavailable => "email_unavailable",
            DeliveryWarning::EmailUnverified => "email_unverified",
            DeliveryWarning::NoMethod => "no_method",
            DeliveryWarning::ChannelUnavailable => "channel_unavailable",
        }
    }

    /// Why e-mail cannot go out, or `None` when it can.
    fn of_email(reach: &Reachability) -> Option<DeliveryWarning> {
        match (reach.email_available, reach.email_verified) {
            (false, _) => Some(DeliveryWarning::EmailUnavailable),
            (true, false) => Some(DeliveryWarning::EmailUnverified),
            (true, true) => None,
        }
    }
}

/// Why a medication's reminders would reach the person by no way at all, as the dispatcher
/// sends them: its methods whose global switch is on, and e-mail after a push no device
/// took when the fallback is on. `None` when one can arrive, or reminders are off by choice.
pub fn delivery_warning(
    global: &GlobalPrefs,
    own: Option<&MedicationPrefs>,
    reach: &Reachability,
) -> Option<DeliveryWarning> {
    if !global.reminders_enabled {
        return None;
    }
    let channels = channels(global, &effective(global, own).methods);
    let push = channels.contains(&Method::Push);
    let email = channels.contains(&Method::Email);
    let chosen: Vec<i64> = channels.iter().filter_map(|m| m.channel_id()).collect();
    if !push && !email && chosen.is_empty() {
        return Some(DeliveryWarning::NoMethod);
    }
    let by_push = push && reach.push_device;
    let by_channel = chosen.iter().any(|id| reach.usable_channels.contains(id));
    // E-mail takes over from push, and from channels, when the person chose the fallback.
    let by_email = (email || ((push || !chosen.is_empty()) && fallback_on(global))) && reach.email_sendable();
    if by_push || by_email || by_channel {
        return None;
    }
    match (push, email) {
        (true, _) => Some(DeliveryWarning::NoPushDevice),
        (false, true) => DeliveryWarning::of_email(reach),
        (false, false) => Some(DeliveryWarning::ChannelUnavailable),
    }
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
    fn a_medication_whose_reminders_reach_nobody_is_flagged_with_why() {
        let everything = Reachability {
            push_device: true,
            email_available: true,
            email_verified: true,
            usable_channels: vec![7],
        };
        let no_device = Reachability {
            push_device: false,
            ..everything.clone()
        };
        let global = GlobalPrefs::default();
        let email_only = MedicationPrefs {
            delivery_methods: Some(vec![Method::Email]),
            ..MedicationPrefs::default()
        };
        let warning =
            |g: &GlobalPrefs, own: Option<&MedicationPrefs>, r: &Reachability| delivery_warning(g, own, r);
        // Its own method is e-mail while e-mail is off globally.
        assert_eq!(
            warning(&global, Some(&email_only), &everything),
            Some(DeliveryWarning::NoMethod)
        );
        assert_eq!(warning(&global, None, &everything), None, "push reaches a device");
        assert_eq!(
            warning(&global, None, &no_device),
            Some(DeliveryWarning::NoPushDevice)
        );
        let email_on = GlobalPrefs {
            email_enabled: true,
            ..GlobalPrefs::default()
        };
        assert_eq!(warning(&email_on, Some(&email_only), &everything), None);
        let no_mail_server = Reachability {
            email_available: false,
            ..everything.clone()
        };
        assert_eq!(
            warning(&email_on, Some(&email_only), &no_mail_server),
            Some(DeliveryWarning::EmailUnavailable)
        );
        let unverified = Reachability {
            email_verified: false,
            ..everything.clone()
        };
        assert_eq!(
            warning(&email_on, Some(&email_only), &unverified),
            Some(DeliveryWarning::EmailUnverified)
        );
        // Push without a device, but e-mail takes over.
        assert_eq!(warning(&email_on, None, &no_device), None);
        let no_fallback = GlobalPrefs {
            email_fallback: false,
            ..email_on.clone()
        };
        assert_eq!(
            warning(&no_fallback, None, &no_device),
            Some(DeliveryWarning::NoPushDevice)
        );
        assert!(
            !fallback_on(&global),
            "e-mail off: no fallback whatever was chosen"
        );
        let push_off = GlobalPrefs {
            push_enabled: false,
            ..GlobalPrefs::default()
        };
        assert_eq!(
            warning(&push_off, None, &everything),
            Some(DeliveryWarning::NoMethod)
        );
        let reminders_off = GlobalPrefs {
            reminders_enabled: false,
            ..push_off
        };
        assert_eq!(warning(&reminders_off, None, &no_device), None, "off by choice");
        assert_eq!(DeliveryWarning::NoPushDevice.code(), "no_push_device");
    }

    #[test]
    fn a_medication_reached_by_channels_is_flagged_only_when_none_can_carry_it() {
        let reach = |usable: Vec<i64>| Reachability {
            push_device: false,
            email_available: true,
            email_verified: true,
            usable_channels: usable,
        };
        let ntfy_only = MedicationPrefs {
            delivery_methods: Some(vec![Method::Channel(7)]),
            ..MedicationPrefs::default()
        };
        let global = GlobalPrefs::default();
        assert_eq!(delivery_warning(&global, Some(&ntfy_only), &reach(vec![7])), None);
        assert_eq!(
            delivery_warning(&global, Some(&ntfy_only), &reach(vec![8])),
            Some(DeliveryWarning::ChannelUnavailable)
        );
        // With e-mail on and the fallback chosen, e-mail takes over.
        let email_on = GlobalPrefs {
            email_enabled: true,
            ..GlobalPrefs::default()
        };
        assert_eq!(
            delivery_warning(&email_on, Some(&ntfy_only), &reach(vec![])),
            None
        );
    }
}
