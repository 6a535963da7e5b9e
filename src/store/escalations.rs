//! Missed-dose escalations (issue 16): which carers are due an alert about which planned dose,
//! one `escalations` row that holds per dose and carer (so an alert never goes out twice; one
//! retracted because the clock went back no longer holds), and whose dose a reminder is.
//!
//! A dose is *handled* once an entry other than `missed` answers its reminder: a dose recorded
//! missed (by the engine's grace pass or by hand) still wants someone.

use rusqlite::{Connection, OptionalExtension, params};

use super::stamp_at;
use crate::db::Stamp;

/// A carer due an alert about a dose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Due {
    pub reminder_id: i64,
    pub carer_id: i64,
}

/// Up to `limit` (dose, carer) pairs due an alert at `now`: planned doses from `from` on of
/// medications that escalate, of people not archived, not handled `after_minutes` after their
/// time, to each listed carer who still has an accepted carers row with role record or
/// manage for that person and has had no alert about that dose yet (one retracted because the
/// clock went back does not count).
pub fn due(conn: &Connection, from: &str, now: Stamp, limit: i64) -> rusqlite::Result<Vec<Due>> {
    conn.prepare_cached(
        "WITH escalating AS MATERIALIZED (
             SELECT id, user_id, person_id,
                    CASE WHEN json_valid(escalation) THEN escalation ELSE '{}' END AS rule
             FROM medications WHERE escalation <> '{}')
         SELECT r.id, c.user_id
         FROM escalating m
         -- In this order: the few medications that escalate, then their doses in the window.
         CROSS JOIN reminders r ON r.medication_id = m.id AND r.kind = 'dose'
         JOIN people p ON p.id = m.person_id AND p.archived_at IS NULL
         JOIN json_each(m.rule, '$.carers') j
         JOIN carers c ON c.person_id = m.person_id AND c.user_id = j.value
         LEFT JOIN dose_history h ON h.id = r.history_id
         WHERE r.scheduled_time >= ?1 AND r.scheduled_time <= ?2
           -- A reminder someone cancelled is a dose nobody expects (the grace pass leaves it
           -- alone too); one the dispatcher cancelled because the dose was recorded missed
           -- before it went out is not.
           AND (r.status <> 'cancelled' OR r.answered_at IS NOT NULL)
           AND (r.answered_at IS NULL OR h.status = 'missed')
           AND c.accepted_at IS NOT NULL AND c.role IN ('record', 'manage') AND c.user_id <> m.user_id
           AND strftime('%Y-%m-%dT%H:%M:%fZ', r.scheduled_time,
                        '+' || CAST(json_extract(m.rule, '$.after_minutes') AS INTEGER) || ' minutes') <= ?2
           AND NOT EXISTS (SELECT 1 FROM escalations e
                           WHERE e.reminder_id = r.id AND e.carer_id = c.user_id AND e.retracted_at IS NULL)
         ORDER BY r.scheduled_time, r.id, c.user_id LIMIT ?3",
    )?
    .query_map(params![from, now, limit], |row| {
        Ok(Due {
            reminder_id: row.get(0)?,
            carer_id: row.get(1)?,
        })
    })?
    .collect()
}

/// Starts an alert: its row, pending until its pushes have their answers. `None` when that
/// carer already had one about that dose.
pub fn insert(
    conn: &Connection,
    reminder_id: i64,
    carer_id: i64,
    now: Stamp,
) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(
        "INSERT INTO escalations (reminder_id, carer_id, status, created_at) VALUES (?1, ?2, 'pending', ?3)
         ON CONFLICT (reminder_id, carer_id) WHERE retracted_at IS NULL DO NOTHING RETURNING id",
    )?
    .query_row(params![reminder_id, carer_id, now], |row| row.get(0))
    .optional()
}

/// An alert whose pushes have not had their answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub id: i64,
    pub reminder_id: i64,
    pub carer_id: i64,
    /// The account holding the dose.
    pub owner_id: i64,
    pub medication_id: i64,
    pub person_id: i64,
    pub scheduled_time: Stamp,
}

/// Up to `limit` pending alerts: the ones just started, and any a stopped server left.
pub fn pending(conn: &Connection, limit: i64) -> rusqlite::Result<Vec<Pending>> {
    conn.prepare_cached(
        "SELECT e.id, e.reminder_id, e.carer_id, r.user_id, m.id, m.person_id, r.scheduled_time
         FROM escalations e JOIN reminders r ON r.id = e.reminder_id JOIN medications m ON m.id = r.medication_id
         WHERE e.status = 'pending' ORDER BY e.id LIMIT ?1",
    )?
    .query_map([limit], |row| {
        Ok(Pending {
            id: row.get(0)?,
            reminder_id: row.get(1)?,
            carer_id: row.get(2)?,
            owner_id: row.get(3)?,
            medication_id: row.get(4)?,
            person_id: row.get(5)?,
            scheduled_time: stamp_at(row, 6, "reminders", row.get(1)?)?,
        })
    })?
    .collect()
}

/// Whether an alert is still wanted: not withdrawn, its dose not handled, its person not
/// archived, and its carer still an accepted carer of that person with role record or manage.
pub fn wanted(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "SELECT EXISTS (
             SELECT 1 FROM escalations e
             JOIN reminders r ON r.id = e.reminder_id
             JOIN medications m ON m.id = r.medication_id
             JOIN people p ON p.id = m.person_id AND p.archived_at IS NULL
             JOIN carers c ON c.person_id = m.person_id AND c.user_id = e.carer_id
             LEFT JOIN dose_history h ON h.id = r.history_id
             WHERE e.id = ?1 AND e.status <> 'withdrawn'
               AND (r.answered_at IS NULL OR h.status = 'missed')
               AND c.accepted_at IS NOT NULL AND c.role IN ('record', 'manage'))",
    )?
    .query_row([id], |row| row.get(0))
}

/// Ends a pending alert: `sent` (a channel took it) or `failed`; one withdrawn meanwhile
/// stays withdrawn.
pub fn settle(conn: &Connection, id: i64, status: &str, now: Stamp) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE escalations SET status = ?2, sent_at = CASE WHEN ?2 = 'sent' THEN ?3 END
         WHERE id = ?1 AND status = 'pending'",
    )?
    .execute(params![id, status, now])?;
    Ok(())
}

/// A pending alert that is no longer wanted is not sent.
pub fn drop_pending(conn: &Connection, id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE escalations SET status = 'withdrawn' WHERE id = ?1 AND status = 'pending'")?
        .execute([id])?;
    Ok(())
}

/// The dose was handled: its alerts not yet out are not sent.
pub fn withdraw_pending(conn: &Connection, reminder_id: i64) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE escalations SET status = 'withdrawn' WHERE reminder_id = ?1 AND status = 'pending'",
    )?
    .execute([reminder_id])?;
    Ok(())
}

/// A carer's alert that reached them (a device, a channel or the mail queue took it) and
/// was retracted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retracted {
    pub id: i64,
    pub carer_id: i64,
    /// Its e-mail went to the mail server (or is being handed over): the carer read it there.
    pub mailed: bool,
}

/// The clock went back to before the dose's grace ran out: every alert about it that holds
/// no longer does (`retracted_at`); pending and sent ones are withdrawn. Returns the ones
/// that had reached their carer, who must be told.
pub fn retract(conn: &Connection, reminder_id: i64, now: Stamp) -> rusqlite::Result<Vec<Retracted>> {
    conn.prepare_cached(
        "UPDATE escalations SET retracted_at = ?2,
                status = CASE WHEN status IN ('pending', 'sent') THEN 'withdrawn' ELSE status END
         WHERE reminder_id = ?1 AND retracted_at IS NULL
           -- Only an alert whose own time (the dose's plus `after_minutes`) is again to come:
           -- one whose dose is late at the corrected time still holds.
           AND EXISTS (SELECT 1 FROM reminders r JOIN medications m ON m.id = r.medication_id
                       WHERE r.id = escalations.reminder_id
                         AND strftime('%Y-%m-%dT%H:%M:%fZ', r.scheduled_time, '+' || CAST(json_extract(
                               CASE WHEN json_valid(m.escalation) THEN m.escalation ELSE '{}' END,
                               '$.after_minutes') AS INTEGER) || ' minutes') > ?2)
         RETURNING id, carer_id, sent_at IS NOT NULL,
                   EXISTS (SELECT 1 FROM mail_outbox o WHERE o.escalation_id = escalations.id
                             AND (o.accepted_at IS NOT NULL OR o.sending_since IS NOT NULL))",
    )?
    .query_map(params![reminder_id, now], |row| {
        Ok((
            Retracted {
                id: row.get(0)?,
                carer_id: row.get(1)?,
                mailed: row.get(3)?,
            },
            row.get::<_, bool>(2)?,
        ))
    })?
    .filter_map(|row| row.map(|(retracted, sent)| sent.then_some(retracted)).transpose())
    .collect()
}

/// How a dose was handled (the answering entry's status; taken when the entry is gone), or
/// `None` while it is not (unanswered, or recorded missed).
pub fn handled(conn: &Connection, reminder_id: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached(
        "SELECT coalesce(h.status, 'taken') FROM reminders r LEFT JOIN dose_history h ON h.id = r.history_id
         WHERE r.id = ?1 AND r.answered_at IS NOT NULL",
    )?
    .query_row([reminder_id], |row| row.get::<_, String>(0))
    .optional()
    .map(|status| status.filter(|s| s != "missed"))
}

/// Whether an alert's e-mail is in the queue (or went out).
pub fn has_mail(conn: &Connection, id: i64) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT EXISTS (SELECT 1 FROM mail_outbox WHERE escalation_id = ?1)")?
        .query_row([id], |row| row.get(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An owner (1) with a dependent person (Tom), carers 2 (record), 3 (manage), 4 (view)
    /// and 5 (invited, not accepted), and Tom's medication escalating after 30 minutes to all
    /// of them, with a dose at 08:00.
    fn database() -> (Connection, i64, i64) {
        let dir = tempfile::tempdir().unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        crate::db::migrations::migrate(&mut conn, dir.path()).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES
                 (1, 'o@x.test', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'), (2, 'a@x.test', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'), (3, 'b@x.test', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
                 (4, 'v@x.test', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'), (5, 'i@x.test', 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
             INSERT INTO people (id, owner_id, name, created_at, updated_at) VALUES (100, 1, 'Tom', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
             INSERT INTO carers (person_id, email, role, user_id, accepted_at, created_at, updated_at) VALUES
                 (100, 'a@x.test', 'record', 2, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'), (100, 'b@x.test', 'manage', 3, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'),
                 (100, 'v@x.test', 'view', 4, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
             INSERT INTO carers (person_id, email, role, user_id, created_at, updated_at) VALUES
                 (100, 'i@x.test', 'record', 5, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');
             INSERT INTO medications (id, user_id, person_id, name, unit, frequency, color, icon, default_quantity,
                                      start_date, created_at, updated_at, escalation)
                  VALUES (1, 1, 100, 'Aspirin', 'tablets', 'daily', 'blue', 'pill', 1000, '2026-01-01', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z',
                          '{\"after_minutes\":30,\"carers\":[2,3,4,5,1]}');
             INSERT INTO reminders (id, user_id, medication_id, medication_name, scheduled_time, reminder_time,
                                    next_attempt_at, created_at)
                  VALUES (10, 1, 1, 'Aspirin', '2026-03-02T08:00:00.000Z', '2026-03-02T08:00:00.000Z', NULL, '2026-01-01T00:00:00.000Z');",
        )
        .unwrap();
        (conn, 10, 1)
    }

    const FROM: &str = "2026-03-01T00:00:00.000Z";

    fn carers(conn: &Connection, now: Stamp) -> Vec<i64> {
        due(conn, FROM, now, 100)
            .unwrap()
            .into_iter()
            .map(|d| d.carer_id)
            .collect()
    }

    #[test]
    fn only_carers_who_may_record_are_due_once_after_the_wait() {
        let (conn, reminder, _) = database();
        assert!(carers(&conn, Stamp::at("2026-03-02T08:29:59.000Z")).is_empty());
        // Not the viewer, not the one still invited, not the owner listed by mistake.
        assert_eq!(carers(&conn, Stamp::at("2026-03-02T08:30:00.000Z")), vec![2, 3]);
        assert!(
            insert(&conn, reminder, 2, Stamp::at("2026-03-02T00:00:00Z"))
                .unwrap()
                .is_some()
        );
        assert!(
            insert(&conn, reminder, 2, Stamp::at("2026-03-02T00:00:00Z"))
                .unwrap()
                .is_none()
        );
        assert_eq!(carers(&conn, Stamp::at("2026-03-02T09:00:00.000Z")), vec![3]);
        // Revoked: gone from the list.
        conn.execute("DELETE FROM carers WHERE user_id = 3", []).unwrap();
        assert!(carers(&conn, Stamp::at("2026-03-02T09:00:00.000Z")).is_empty());
    }

    #[test]
    fn a_handled_dose_or_an_archived_person_alerts_nobody_a_missed_one_does() {
        let (conn, reminder, _) = database();
        let now = Stamp::at("2026-03-02T09:00:00.000Z");
        let answer_with = |status: &str| {
            conn.execute("DELETE FROM dose_history_rows", []).unwrap();
            conn.execute(
                "INSERT INTO dose_history_rows (id, user_id, medication_id, medication_name, medication_unit, status,
                                           taken_at, quantity, dosage_unit, affect_inventory, created_at)
                 VALUES (7, 1, 1, 'Aspirin', 'tablets', ?1, '2026-03-02T08:00:00.000Z', 1000, 'tablets', 0, '2026-01-01T00:00:00.000Z')",
                [status],
            )
            .unwrap();
            conn.execute(
                "UPDATE reminders SET answered_at = '2026-01-01T00:00:00.000Z', history_id = 7 WHERE id = ?1",
                [reminder],
            )
            .unwrap();
        };
        answer_with("taken");
        assert!(carers(&conn, now).is_empty());
        assert_eq!(handled(&conn, reminder).unwrap().as_deref(), Some("taken"));
        answer_with("missed");
        assert_eq!(carers(&conn, now), vec![2, 3]);
        assert_eq!(handled(&conn, reminder).unwrap(), None);
        conn.execute(
            "UPDATE people SET archived_at = '2026-01-01T00:00:00.000Z' WHERE id = 100",
            [],
        )
        .unwrap();
        assert!(carers(&conn, now).is_empty());
    }

    #[test]
    fn a_retracted_alert_names_the_carers_it_reached_and_no_longer_counts() {
        let (conn, reminder, _) = database();
        let now = Stamp::at("2026-03-02T09:00:00.000Z");
        let reached = insert(&conn, reminder, 2, now).unwrap().unwrap();
        settle(&conn, reached, "sent", now).unwrap();
        let waiting = insert(&conn, reminder, 3, now).unwrap().unwrap();
        assert!(carers(&conn, now).is_empty());

        let told = retract(&conn, reminder, Stamp::at("2026-03-02T07:30:00.000Z")).unwrap();
        assert_eq!(
            told,
            [Retracted {
                id: reached,
                carer_id: 2,
                mailed: false
            }],
            "only the carer it reached is told"
        );
        assert!(
            !wanted(&conn, waiting).unwrap(),
            "the one not yet out is not sent"
        );
        assert!(
            retract(&conn, reminder, Stamp::at("2026-03-02T07:30:00.000Z"))
                .unwrap()
                .is_empty(),
            "retracted once"
        );
        // Both are due an alert again once the dose is late, and get one each.
        assert_eq!(carers(&conn, now), vec![2, 3]);
        let again = insert(&conn, reminder, 2, now).unwrap().unwrap();
        assert_ne!(again, reached);
        assert!(insert(&conn, reminder, 2, now).unwrap().is_none());
    }

    #[test]
    fn an_alert_whose_dose_is_still_late_at_the_corrected_time_is_not_retracted() {
        let (conn, reminder, _) = database();
        let sent = Stamp::at("2026-03-02T08:30:00.000Z");
        let alert = insert(&conn, reminder, 2, sent).unwrap().unwrap();
        settle(&conn, alert, "sent", sent).unwrap();
        // Set back to 08:35: the 08:00 dose is 35 minutes late, past its 30-minute alert.
        assert!(
            retract(&conn, reminder, Stamp::at("2026-03-02T08:35:00.000Z"))
                .unwrap()
                .is_empty()
        );
        assert!(wanted(&conn, alert).unwrap());
        // Carer 2 is not alerted twice (carer 3, never alerted, is due one).
        assert_eq!(carers(&conn, Stamp::at("2026-03-02T08:35:00.000Z")), vec![3]);
        // Set back to 08:20, before the alert's time: it no longer holds.
        assert_eq!(
            retract(&conn, reminder, Stamp::at("2026-03-02T08:20:00.000Z"))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn a_broken_or_missing_rule_alerts_nobody() {
        let (conn, _, medication) = database();
        for rule in ["{}", "{\"carers\":[2]}", "not json", "{\"after_minutes\":30}"] {
            conn.execute(
                "UPDATE medications SET escalation = ?2 WHERE id = ?1",
                params![medication, rule],
            )
            .unwrap();
            assert!(
                carers(&conn, Stamp::at("2026-03-03T00:00:00.000Z")).is_empty(),
                "{rule}"
            );
        }
    }

    #[test]
    fn handling_the_dose_withdraws_carers_devices_and_stops_pending_alerts() {
        let (conn, reminder, _) = database();
        conn.execute_batch(
            "INSERT INTO push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at) VALUES
                 (1, 1, 'https://p/1', 'k', 'a', '2026-01-01T00:00:00.000Z'), (2, 2, 'https://p/2', 'k', 'a', '2026-01-01T00:00:00.000Z');",
        )
        .unwrap();
        let alert = insert(&conn, reminder, 2, Stamp::at("2026-03-02T00:00:00Z"))
            .unwrap()
            .unwrap();
        let other = insert(&conn, reminder, 3, Stamp::at("2026-03-02T00:00:00Z"))
            .unwrap()
            .unwrap();
        settle(&conn, alert, "sent", Stamp::at("2026-03-02T00:00:00Z")).unwrap();
        crate::store::reminders::shown_on(&conn, reminder, 1, "r10n0").unwrap();
        crate::store::reminders::shown_on(&conn, reminder, 2, "e1").unwrap();
        let queued = |conn: &Connection| -> Vec<i64> {
            conn.prepare("SELECT subscription_id FROM push_withdrawals ORDER BY 1")
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<rusqlite::Result<_>>()
                .unwrap()
        };
        // Recorded missed or snoozed: only the account holder's device; the carers' alerts stay.
        crate::store::reminders::withdraw(&conn, reminder, "missed", Stamp::at("2026-03-02T00:00:00Z"))
            .unwrap();
        assert_eq!(queued(&conn), vec![1]);
        assert!(wanted(&conn, other).unwrap());
        // Taken: the carer's device too, and the alert not yet out is not sent.
        crate::store::reminders::withdraw(&conn, reminder, "taken", Stamp::at("2026-03-02T00:00:00Z"))
            .unwrap();
        assert_eq!(queued(&conn), vec![1, 2]);
        let status: String = conn
            .query_row("SELECT status FROM escalations WHERE id = ?1", [other], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(status, "withdrawn");
        assert!(!wanted(&conn, other).unwrap());
    }
}
