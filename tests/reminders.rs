//! Planned reminders over HTTP against the real binary: planned from schedules in the
//! user's zone, replaced (never duplicated) when schedules or zones change, listed,
//! cancelled, and scoped to their owner.

mod common;

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use common::{Server, assert_lead, call, get_json, instant, post, save_settings};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

async fn account(server: &Server, email: &str) -> String {
    let (status, body) = post(
        server,
        "/api/auth/register",
        None,
        json!({ "email": email, "password": "secret123" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"]["token"].as_str().unwrap().to_owned()
}

async fn scheduled(server: &Server, token: &str) -> Vec<Value> {
    let (status, body) = get_json(
        server,
        "/api/notifications?status=scheduled&limit=200",
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

/// The doses at `times` (local, in `tz`) over the 7 days from `now`'s day that are still ahead
/// of `now` (the server's clock) and not before the medication's first day (today where it
/// was created, which another zone may not have reached yet).
fn expected(tz: chrono_tz::Tz, start: NaiveDate, times: &[&str], now: DateTime<Utc>) -> Vec<DateTime<Utc>> {
    let today = now.with_timezone(&tz).date_naive();
    let mut all: Vec<DateTime<Utc>> = (0..7)
        .map(|d| today + Duration::days(d))
        .filter(|date| *date >= start)
        .flat_map(|date| {
            times.iter().map(move |t| {
                let local = date.and_time(NaiveTime::parse_from_str(t, "%H:%M").unwrap());
                tz.from_local_datetime(&local)
                    .earliest()
                    .unwrap()
                    .with_timezone(&Utc)
            })
        })
        .filter(|t| *t > now)
        .collect();
    all.sort();
    all
}

#[tokio::test]
async fn schedules_become_reminders_in_the_users_zone() {
    // No sending here: a dose minutes away must not be attempted while the plans change. The
    // clock starts at noon in Berlin (06:00 in New York), hours from every time planned here:
    // a reminder minutes away is kept when its zone changes, which the real hour once hit.
    // No daylight-saving change in either zone in the week planned.
    let server = Server::start_with(|c| {
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "3600");
        common::with_clock_start(c, "2026-02-04T11:00:00Z");
    });
    let token = account(&server, "ann@example.org").await;
    save_settings(&server, &token, json!({ "timezone": "Europe/Berlin" })).await;
    let before = common::advance(&server, 0).await;
    let (_, med) = post(
        &server,
        "/api/medications",
        Some(&token),
        json!({ "name": "Ibuprofen", "unit": "mg" }),
    )
    .await;
    let id = med["data"]["id"].as_i64().unwrap();
    let start = NaiveDate::parse_from_str(
        med["data"]["schedule"]["start_date"].as_str().unwrap(),
        "%Y-%m-%d",
    )
    .unwrap();

    let reminders = scheduled(&server, &token).await;
    let times: Vec<DateTime<Utc>> = reminders.iter().map(|r| instant(&r["scheduled_time"])).collect();
    assert_eq!(
        times,
        expected(
            chrono_tz::Europe::Berlin,
            start,
            &["09:00"],
            common::advance(&server, 0).await
        ),
        "daily at the default 09:00, Berlin time"
    );
    for r in &reminders {
        assert_lead(r, 15, before);
        assert_eq!(
            (r["title"].as_str(), r["medication_name"].as_str()),
            (Some("Time for Ibuprofen"), Some("Ibuprofen"))
        );
    }

    // A new schedule replaces the future reminders; planning again adds nothing.
    let path = format!("/api/medications/{id}");
    let body = json!({ "frequency": "twice_daily", "schedule": { "times": ["08:00", "20:00"] } });
    assert_eq!(
        call(&server, Method::PUT, &path, Some(&token), Some(body))
            .await
            .0,
        StatusCode::OK
    );
    let times: Vec<DateTime<Utc>> = scheduled(&server, &token)
        .await
        .iter()
        .map(|r| instant(&r["scheduled_time"]))
        .collect();
    assert_eq!(
        times,
        expected(
            chrono_tz::Europe::Berlin,
            start,
            &["08:00", "20:00"],
            common::advance(&server, 0).await
        )
    );
    let (status, body) = post(
        &server,
        "/api/notifications/schedule-medication",
        Some(&token),
        json!({ "medication_id": id }),
    )
    .await;
    assert_eq!(
        (status, &body["data"]["scheduled"]),
        (StatusCode::OK, &json!(0)),
        "never duplicated"
    );
    let ids: Vec<Value> = scheduled(&server, &token)
        .await
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(ids.len(), times.len(), "the same reminders, not copies");
    let (_, body) = post(
        &server,
        "/api/notifications/schedule-medication",
        Some(&token),
        json!({ "medication_id": id, "days_ahead": 14 }),
    )
    .await;
    assert!(body["data"]["scheduled"].as_i64().unwrap() >= 13, "{body}");

    // Another zone moves every wall-clock time to another instant.
    save_settings(&server, &token, json!({ "timezone": "America/New_York" })).await;
    let times: Vec<DateTime<Utc>> = scheduled(&server, &token)
        .await
        .iter()
        .map(|r| instant(&r["scheduled_time"]))
        .collect();
    assert_eq!(
        times,
        expected(
            chrono_tz::America::New_York,
            start,
            &["08:00", "20:00"],
            common::advance(&server, 0).await
        )
    );

    // As-needed medication has no reminders; deleting a medication removes its reminders.
    let body = json!({ "frequency": "as_needed" });
    call(&server, Method::PUT, &path, Some(&token), Some(body)).await;
    assert!(scheduled(&server, &token).await.is_empty());
    call(
        &server,
        Method::PUT,
        &path,
        Some(&token),
        Some(json!({ "frequency": "daily" })),
    )
    .await;
    assert!(!scheduled(&server, &token).await.is_empty());
    call(&server, Method::DELETE, &path, Some(&token), None).await;
    let (_, all) = get_json(&server, "/api/notifications", Some(&token)).await;
    assert_eq!(all["pagination"]["total"], 0);
}

#[tokio::test]
async fn cancelling_and_ownership() {
    let server = Server::start_with(|c| {
        c.env("PILLBOX_SIGNUPS", "open");
    });
    let ann = account(&server, "ann@example.org").await;
    let bob = account(&server, "bob@example.org").await;
    let (_, med) = post(
        &server,
        "/api/medications",
        Some(&ann),
        json!({ "name": "A", "unit": "tablets", "schedule": { "times": ["12:00"] } }),
    )
    .await;
    let med_id = med["data"]["id"].as_i64().unwrap();
    let reminders = scheduled(&server, &ann).await;
    let first = reminders[0]["id"].as_i64().unwrap();
    let path = format!("/api/notifications/{first}");

    let (status, body) = call(&server, Method::DELETE, &path, Some(&bob), None).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::NOT_FOUND, Some("Notification not found"))
    );
    assert!(scheduled(&server, &bob).await.is_empty());
    let (status, _) = post(
        &server,
        "/api/notifications/schedule-medication",
        Some(&bob),
        json!({ "medication_id": med_id }),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    assert_eq!(
        call(&server, Method::DELETE, &path, Some(&ann), None).await.0,
        StatusCode::OK
    );
    let (status, body) = call(&server, Method::DELETE, &path, Some(&ann), None).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::CONFLICT,
            Some("Only a scheduled notification can be cancelled")
        )
    );
    let (_, cancelled) = get_json(&server, "/api/notifications?status=cancelled", Some(&ann)).await;
    assert_eq!(cancelled["data"][0]["id"], first);
    // Planning again keeps a cancelled dose cancelled.
    post(
        &server,
        "/api/notifications/schedule-medication",
        Some(&ann),
        json!({ "medication_id": med_id }),
    )
    .await;
    assert!(scheduled(&server, &ann).await.iter().all(|r| r["id"] != first));
    assert_eq!(
        get_json(&server, "/api/notifications?status=cancelled", Some(&ann))
            .await
            .1["pagination"]["total"],
        1
    );

    for (path, body) in [
        (
            "/api/notifications/schedule-medication",
            json!({ "medication_id": med_id, "days_ahead": 0 }),
        ),
        ("/api/notifications/schedule-medication", json!({})),
    ] {
        assert_eq!(
            post(&server, path, Some(&ann), body).await.0,
            StatusCode::BAD_REQUEST
        );
    }
    assert_eq!(
        get_json(&server, "/api/notifications?status=lost", Some(&ann))
            .await
            .0,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        get_json(&server, "/api/notifications", None).await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_test_clock_start_sets_the_servers_time_and_a_bad_one_stops_the_start() {
    let start = instant(&json!("2026-03-02T06:30:00Z"));
    let server = Server::start_with(|c| common::with_clock_start(c, "2026-03-02T06:30:00Z"));
    let now = common::advance(&server, 0).await;
    assert!(
        now >= start && now - start < Duration::seconds(60),
        "the server's time is {now}"
    );
    // What the server stamps follows it: a medication created now was created that day.
    let token = account(&server, "clock@example.org").await;
    let (status, created) = post(
        &server,
        "/api/medications",
        Some(&token),
        json!({ "name": "Aspirin", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert!(
        created["data"]["created_at"]
            .as_str()
            .is_some_and(|at| at.starts_with("2026-03-02T06:3")),
        "{created}"
    );

    let dir = tempfile::tempdir().unwrap();
    let refused = Server::start_in(&dir.path().join("data"), |c| {
        c.env("PILLBOX_TEST_CLOCK_START", "tomorrow morning");
    });
    let log = refused
        .err()
        .expect("a start that cannot be read stops the server");
    assert!(
        log.contains("PILLBOX_TEST_CLOCK_START must be an RFC 3339 instant"),
        "{log}"
    );
}

/// A medication added at 22:30 with doses at 22:00 and 23:00: the 22:00 dose has no
/// reminder (it was past when planned), the 23:00 one has. Tapping 22:00's "Taken" on Today
/// logs that dose: Today shows 22:00 taken and 23:00 still to come, and 23:00's reminder
/// still goes out; before, the entry answered 23:00's reminder (the nearest coming within
/// the hour), so Today showed 23:00 taken and 22:00 due, and 23:00 was never reminded.
#[tokio::test]
async fn a_dose_named_by_its_time_answers_that_dose_not_the_next_ones_reminder() {
    let server = Server::start_with(|c| common::with_clock_start(c, "2026-03-02T22:30:00Z"));
    let token = account(&server, "late@example.org").await;
    save_settings(&server, &token, json!({ "timezone": "UTC" })).await;
    let med = common::medication(
        &server,
        &token,
        json!({ "name": "Metformin", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                "schedule": { "times": ["22:00", "23:00"] } }),
    )
    .await;
    let today = || async {
        let (status, body) = get_json(&server, "/api/medications/today", Some(&token)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        body["data"]["doses"].as_array().unwrap().clone()
    };
    let doses = today().await;
    assert_eq!(doses.len(), 2, "{doses:?}");
    assert_eq!(
        (&doses[0]["status"], &doses[0]["reminder_id"]),
        (&json!("due"), &Value::Null)
    );
    let later = doses[1]["reminder_id"].as_i64().expect("23:00 has its reminder");

    // A time that cannot be read changes nothing.
    let path = format!("/api/medications/{med}/doses");
    let (status, body) = post(
        &server,
        &path,
        Some(&token),
        json!({ "scheduled_time": "at ten" }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    let (status, body) = post(
        &server,
        &path,
        Some(&token),
        json!({ "status": "taken", "scheduled_time": doses[0]["scheduled_time"] }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let states: Vec<_> = today().await.iter().map(|d| d["status"].clone()).collect();
    assert_eq!(states, [json!("taken"), json!("upcoming")]);
    let (_, list) = get_json(&server, "/api/notifications?limit=50", Some(&token)).await;
    let reminder = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == later)
        .cloned();
    let reminder = reminder.expect("23:00's reminder is listed");
    assert_eq!(
        (&reminder["status"], &reminder["answered_at"]),
        (&json!("scheduled"), &Value::Null)
    );
    // Past 23:00's grace (midnight) nobody logged it: it is recorded missed, and the 22:30
    // entry stays 22:00's (before, the grace pass took it for 23:00's).
    common::advance_clock(&server, 95 * 60).await;
    let (_, history) = get_json(&server, "/api/medications/history?limit=10", Some(&token)).await;
    let entries: Vec<_> = history["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["status"].as_str().unwrap().to_owned(),
                e["taken"].as_str().unwrap()[11..16].to_owned(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("missed".to_owned(), "23:00".to_owned()),
            ("taken".to_owned(), "22:30".to_owned())
        ],
        "{history}"
    );
}

#[tokio::test]
async fn today_lists_the_days_doses_with_their_state() {
    use chrono::Datelike;
    // The server's day starts at 01:00 UTC, early afternoon (13:00) in a zone 12 hours
    // ahead: the day has doses behind and ahead of it (and its times differ from UTC).
    const START: &str = "2026-03-02T01:00:00Z";
    // No sending here: the test only reads plans.
    let server = Server::start_with(|c| {
        common::with_clock_start(c, START);
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
            .env("PILLBOX_SIGNUPS", "open");
    });
    let token = account(&server, "ann@example.org").await;
    let zone = "Etc/GMT-12";
    let tz: chrono_tz::Tz = zone.parse().unwrap();
    save_settings(&server, &token, json!({ "timezone": zone })).await;
    let today = instant(&json!(START)).with_timezone(&tz).date_naive();
    assert_eq!(today, NaiveDate::from_ymd_opt(2026, 3, 2).unwrap());
    let local = |time: &str| -> DateTime<Utc> {
        let t = NaiveTime::parse_from_str(time, "%H:%M").unwrap();
        tz.from_local_datetime(&today.and_time(t))
            .unwrap()
            .with_timezone(&Utc)
    };
    let create = |body: Value| {
        let server = &server;
        let token = token.clone();
        async move {
            let (status, created) = post(server, "/api/medications", Some(&token), body).await;
            assert_eq!(status, StatusCode::CREATED, "{created}");
            created["data"]["id"].as_i64().unwrap()
        }
    };
    let aspirin = create(
        json!({ "name": "Aspirin", "unit": "tablets", "color": "red", "default_quantity": 1,
                                "schedule": { "times": ["08:00", "20:00"] } }),
    )
    .await;
    let metformin = create(
        json!({ "name": "Metformin", "unit": "mg", "default_quantity": 500,
                                  "schedule": { "times": ["09:00", "10:30", "21:00"] } }),
    )
    .await;
    create(json!({ "name": "Ibuprofen", "unit": "mg", "frequency": "as_needed" })).await;
    let tomorrow = (today + Duration::days(1)).weekday().number_from_monday();
    create(
        json!({ "name": "Vitamin D", "unit": "drops", "frequency": "weekly",
                   "schedule": { "times": ["10:00"], "weekdays": [tomorrow] } }),
    )
    .await;

    let day = || async {
        let (status, body) = get_json(&server, "/api/medications/today", Some(&token)).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body["data"]["date"], today.to_string());
        body["data"]["doses"].as_array().unwrap().clone()
    };
    let shape = |doses: &[Value]| -> Vec<(String, String, String)> {
        doses
            .iter()
            .map(|d| {
                assert_eq!(
                    instant(&d["scheduled_time"]),
                    local(d["local_time"].as_str().unwrap())
                );
                (
                    d["name"].as_str().unwrap().to_owned(),
                    d["local_time"].as_str().unwrap().to_owned(),
                    d["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let row = |name: &str, time: &str, status: &str| (name.to_owned(), time.to_owned(), status.to_owned());

    // Nothing logged yet: the morning is due, the evening upcoming with its planned reminder.
    let doses = day().await;
    assert_eq!(
        shape(&doses),
        [
            row("Aspirin", "08:00", "due"),
            row("Metformin", "09:00", "due"),
            row("Metformin", "10:30", "due"),
            row("Aspirin", "20:00", "upcoming"),
            row("Metformin", "21:00", "upcoming"),
        ],
        "as-needed and other weekdays' doses are not today's: {doses:?}"
    );
    assert_eq!(
        (
            &doses[0]["medication_id"],
            &doses[0]["color"],
            &doses[0]["unit"],
            &doses[0]["quantity"]
        ),
        (&json!(aspirin), &json!("red"), &json!("tablets"), &json!(1))
    );
    assert_eq!(doses[1]["medication_id"], metformin);
    assert!(
        doses[..3]
            .iter()
            .all(|d| d["reminder_id"].is_null() && d["history_id"].is_null())
    );
    let evening = doses[3]["reminder_id"].as_i64().expect("a planned reminder");
    assert!(doses[4]["reminder_id"].is_i64());

    // A late morning log, a skipped dose, and the evening dose logged early by its reminder.
    let log = |medication: i64, body: Value| {
        let server = &server;
        let token = token.clone();
        async move {
            let (status, logged) = post(
                server,
                &format!("/api/medications/{medication}/doses"),
                Some(&token),
                body,
            )
            .await;
            assert_eq!(status, StatusCode::CREATED, "{logged}");
            logged["data"]["entry"]["id"].as_i64().unwrap()
        }
    };
    let morning = log(aspirin, json!({ "taken": local("08:10").to_rfc3339() })).await;
    let skipped = log(
        metformin,
        json!({ "status": "skipped", "taken": local("09:05").to_rfc3339() }),
    )
    .await;
    let early = log(aspirin, json!({ "dosage_id": evening })).await;

    let doses = day().await;
    assert_eq!(
        shape(&doses),
        [
            row("Aspirin", "08:00", "taken"),
            row("Metformin", "09:00", "skipped"),
            row("Metformin", "10:30", "due"),
            row("Aspirin", "20:00", "taken"),
            row("Metformin", "21:00", "upcoming"),
        ]
    );
    let ids: Vec<&Value> = doses.iter().map(|d| &d["history_id"]).collect();
    assert_eq!(
        ids,
        [
            &json!(morning),
            &json!(skipped),
            &Value::Null,
            &json!(early),
            &Value::Null
        ]
    );
    assert_eq!(doses[3]["reminder_id"], evening);

    // Another account has a day of its own.
    let other = account(&server, "bob@example.org").await;
    let (_, theirs) = get_json(&server, "/api/medications/today", Some(&other)).await;
    assert_eq!(theirs["data"]["doses"], json!([]));
}
