//! Reminders a person can act on (issue 15), end to end against the real binary: a dose
//! not logged within its grace is recorded as missed (once), a medication's own follow-ups,
//! snoozing through the take link, the push payload's actions and the withdrawal other
//! devices get, "hide medication names", and the private calendar feed. The local push
//! service checks VAPID and decrypts every message; the clock is the test clock.

mod common;

use std::process::Command;
use std::time::Duration;

use chrono::Duration as Span;
use common::push::PushService;
use common::{Server, SmtpSink, advance, call, get_json, medication, post, register_device, remind_in};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn engine_env(command: &mut Command, push: &PushService) {
    common::with_test_clock(command);
    command
        .env("PILLBOX_SIGNUPS", "open")
        .env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
        .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix())
        .env("PILLBOX_PUBLIC_URL", "http://pillbox.test");
}

async fn start() -> (PushService, Server) {
    let push = PushService::start().await;
    let server = Server::start_with(|c| engine_env(c, &push));
    (push, server)
}

async fn put_prefs(server: &Server, token: &str, body: Value) -> Value {
    let (status, saved) = call(
        server,
        Method::PUT,
        "/api/notifications/preferences",
        Some(token),
        Some(body),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    saved["data"].clone()
}

async fn reminders(server: &Server, token: &str, query: &str) -> Vec<Value> {
    let (status, body) = get_json(
        server,
        &format!("/api/notifications?limit=200{query}"),
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

async fn history(server: &Server, token: &str) -> Vec<Value> {
    let (status, body) = get_json(server, "/api/medications/history?limit=100", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

/// The pushes a device has received so far whose title mentions `name` (or all with "").
fn pushes_about(push: &PushService, device: &str, name: &str) -> Vec<Value> {
    push.received(device)
        .into_iter()
        .map(|r| r.payload)
        .filter(|p| p["kind"] != "withdraw" && p["title"].as_str().unwrap_or_default().contains(name))
        .collect()
}

fn withdrawals(push: &PushService, device: &str) -> Vec<Value> {
    push.received(device)
        .into_iter()
        .map(|r| r.payload)
        .filter(|p| p["kind"] == "withdraw")
        .collect()
}

async fn wait_withdrawal(push: &PushService, device: &str, n: usize) -> Value {
    for _ in 0..200 {
        let got = withdrawals(push, device);
        if got.len() >= n {
            return got[n - 1].clone();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "no withdrawal #{n} for {device}: {:?}",
        push.received(device)
            .iter()
            .map(|r| &r.payload)
            .collect::<Vec<_>>()
    );
}

/// The engine on a test clock that starts at 10:00 UTC (2026-03-02), both times the missed-dose
/// test starts its server: on the real clock, a start after 22:39 UTC put the dose's grace past
/// midnight, and Today (a day in UTC) no longer showed it.
fn at_ten_utc(command: &mut Command, push: &PushService) {
    engine_env(command, push);
    common::with_clock_start(command, "2026-03-02T10:00:00Z");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dose_not_logged_within_its_grace_is_recorded_missed_once() {
    let push = PushService::start().await;
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let server = Server::start_in(&data_dir, |c| at_ten_utc(c, &push)).unwrap();
    let token = common::verified_account(&server, "grace@example.test").await;
    common::save_settings(&server, &token, json!({ "timezone": "UTC" })).await;
    register_device(&server, &token, &push, "phone").await;
    let now = advance(&server, 0).await;
    // A dose 20 minutes from now (whole minutes), with 30 minutes of grace.
    let due = now + Span::minutes(20);
    let time = due.format("%H:%M").to_string();
    let forgotten = medication(
        &server,
        &token,
        json!({ "name": "Forgotten", "unit": "tablets", "frequency": "daily",
                "schedule": { "times": [time], "grace_minutes": 30 } }),
    )
    .await;
    let taken = medication(
        &server,
        &token,
        json!({ "name": "Taken", "unit": "tablets", "frequency": "daily",
                "schedule": { "times": [time], "grace_minutes": 30 } }),
    )
    .await;

    // Just before the grace ends, nothing is missed; "Taken" is logged in time.
    advance(&server, 20 * 60 + 29 * 60).await;
    let (status, body) = post(
        &server,
        &format!("/api/medications/{taken}/doses"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(
        history(&server, &token)
            .await
            .iter()
            .all(|e| e["status"] != "missed")
    );

    // Past the grace: "Forgotten" is missed, at its dose time, without stock; once only.
    advance(&server, 2 * 60).await;
    advance(&server, 30 * 60).await;
    let entries = history(&server, &token).await;
    let missed: Vec<&Value> = entries.iter().filter(|e| e["status"] == "missed").collect();
    assert_eq!(missed.len(), 1, "{entries:?}");
    assert_eq!(missed[0]["medication_id"], forgotten);
    let at = common::instant(&missed[0]["taken"]);
    assert_eq!(at.format("%H:%M").to_string(), time, "{}", missed[0]);
    let answered: Vec<Value> = reminders(&server, &token, "")
        .await
        .into_iter()
        .filter(|r| r["medication_id"] == forgotten && common::instant(&r["scheduled_time"]) <= at)
        .collect();
    assert_eq!(answered.len(), 1, "{answered:?}");
    assert!(
        answered[0]["answered_at"].is_string(),
        "the reminder is answered: {}",
        answered[0]
    );
    // The phone showed its reminder; it is withdrawn as missed.
    let shown = pushes_about(&push, "phone", "Forgotten");
    assert!(!shown.is_empty());
    let withdrawn: Vec<Value> = withdrawals(&push, "phone")
        .into_iter()
        .filter(|w| w["tag"] == format!("reminder-{}", answered[0]["id"]))
        .collect();
    assert_eq!(withdrawn.len(), 1, "{withdrawn:?}");
    assert_eq!(withdrawn[0]["outcome"], "missed");

    // Today shows it missed; the taken one stays taken.
    let (_, today) = get_json(&server, "/api/medications/today", Some(&token)).await;
    let doses = today["data"].to_string();
    assert!(doses.contains("missed"), "{doses}");

    // Killed (SIGKILL) and started again, its clock from the same start and on past all of it, nothing
    // is recorded twice: the entry and the answer were one transaction.
    drop(server);
    let server = Server::start_in(&data_dir, |c| at_ten_utc(c, &push)).unwrap();
    let token = common::login(&server, "grace@example.test").await;
    advance(&server, (20 + 29 + 2 + 30 + 10) * 60).await;
    let missed = history(&server, &token)
        .await
        .into_iter()
        .filter(|e| e["status"] == "missed" && e["medication_id"] == forgotten)
        .count();
    assert_eq!(missed, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_medication_overrides_the_persons_follow_ups() {
    let (push, server) = start().await;
    let token = common::verified_account(&server, "follow@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    // The person: every 10 minutes, at most 3.
    put_prefs(
        &server,
        &token,
        json!({ "repeat_interval_minutes": 10, "repeat_max": 3 }),
    )
    .await;
    let own = medication(
        &server,
        &token,
        json!({ "name": "Usual", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    let fast = medication(
        &server,
        &token,
        json!({ "name": "Quick", "unit": "tablets", "frequency": "as_needed",
                "schedule": { "repeat_every_minutes": 5, "repeat_times": 1 } }),
    )
    .await;
    let none = medication(
        &server,
        &token,
        json!({ "name": "Quiet", "unit": "tablets", "frequency": "as_needed",
                "schedule": { "repeat_times": 0 } }),
    )
    .await;
    for med in [own, fast, none] {
        remind_in(&server, &token, med, 1).await;
    }
    advance(&server, 1).await;
    // Step through 45 minutes, 5 at a time, noting at which step each push came.
    let mut seen: Vec<(usize, String)> = Vec::new();
    for step in 0..10 {
        if step > 0 {
            advance(&server, 5 * 60).await;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let all = pushes_about(&push, "phone", "");
        for p in all.iter().skip(seen.len()) {
            seen.push((step, p["title"].as_str().unwrap().to_owned()));
        }
    }
    let steps = |name: &str| -> Vec<usize> {
        seen.iter()
            .filter(|(_, t)| t.contains(name))
            .map(|(s, _)| *s)
            .collect()
    };
    assert_eq!(steps("Usual"), vec![0, 2, 4, 6], "{seen:?}");
    assert_eq!(steps("Quick"), vec![0, 1], "{seen:?}");
    assert_eq!(steps("Quiet"), vec![0], "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn snoozing_sends_the_reminder_again_later_without_the_old_follow_ups() {
    let (push, server) = start().await;
    let token = common::verified_account(&server, "snooze@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    // Follow-ups every 5 minutes: one would come before the 10-minute snooze ends.
    put_prefs(
        &server,
        &token,
        json!({ "repeat_interval_minutes": 5, "repeat_max": 3 }),
    )
    .await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Aspirin", "unit": "tablets", "frequency": "as_needed", "default_quantity": 2 }),
    )
    .await;
    let id = remind_in(&server, &token, med, 1).await;
    advance(&server, 1).await;
    let first = push.wait_for("phone", 1, Duration::from_secs(20)).await.payload;
    assert_eq!(first["tag"], format!("reminder-{id}"));
    assert_eq!(first["actions"], json!(["take", "snooze", "skip"]));
    let old = first["token"].as_str().unwrap().to_owned();
    assert!(first["takeUrl"].as_str().unwrap().ends_with(&old), "{first}");

    // Only 10, 30 or 60 minutes.
    let take = format!("/api/notifications/take/{old}");
    for minutes in [json!(15), json!(0), json!("ten"), Value::Null] {
        let (status, body) = post(
            &server,
            &take,
            None,
            json!({ "status": "snoozed", "minutes": minutes }),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{minutes}: {body}");
        if minutes.is_number() || minutes.is_null() {
            assert_eq!(body["code"], "invalid_snooze_minutes", "{body}");
        }
    }
    let (status, body) = post(
        &server,
        &take,
        None,
        json!({ "status": "snoozed", "minutes": 10 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let until = common::instant(&body["data"]["snoozed_until"]);
    assert_eq!(
        body["message"],
        format!("Snoozed until {}", until.format("%H:%M"))
    );

    // The phone's notification is withdrawn; the Scheduled list has the reminder again.
    let withdrawn = wait_withdrawal(&push, "phone", 1).await;
    assert_eq!(
        withdrawn,
        json!({ "kind": "withdraw", "tag": format!("reminder-{id}"), "outcome": "snoozed" })
    );
    let scheduled = reminders(&server, &token, "&status=scheduled").await;
    let again = scheduled
        .iter()
        .find(|r| r["id"] == id)
        .expect("listed as scheduled");
    assert_eq!(common::instant(&again["reminder_time"]), until);
    let (_, details) = get_json(&server, &take, None).await;
    assert_eq!(common::instant(&details["data"]["snoozed_until"]), until);
    assert!(details["data"]["logged"].is_null());

    // Five minutes on, no follow-up of the old one (the clock answers once the pass has
    // sent whatever it sends); at ten, the reminder itself.
    advance(&server, 5 * 60).await;
    assert_eq!(pushes_about(&push, "phone", "").len(), 1);
    advance(&server, 5 * 60).await;
    let second = push.wait_for("phone", 3, Duration::from_secs(20)).await.payload;
    assert_eq!(second["title"], "Time for Aspirin", "a reminder, not a follow-up");
    let new = second["token"].as_str().unwrap().to_owned();
    assert_ne!(new, old);
    let (_, details) = get_json(&server, &take, None).await;
    assert!(details["data"]["snoozed_until"].is_null(), "{details}");

    // The old link still logs the dose, once; both links then show it logged.
    let (status, body) = post(&server, &take, None, json!({ "status": "taken" })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, _) = post(
        &server,
        &format!("/api/notifications/take/{new}"),
        None,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (_, details) = get_json(&server, &format!("/api/notifications/take/{new}"), None).await;
    assert_eq!(details["data"]["logged"]["status"], "taken");
    let withdrawn = wait_withdrawal(&push, "phone", 2).await;
    assert_eq!(withdrawn["outcome"], "taken");
    // And nothing follows it up: the passes of the next half hour have sent nothing.
    advance(&server, 30 * 60).await;
    assert_eq!(pushes_about(&push, "phone", "").len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dose_logged_in_the_app_withdraws_the_reminder_from_every_device() {
    let (push, server) = start().await;
    let token = common::verified_account(&server, "two@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    register_device(&server, &token, &push, "laptop").await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Metformin", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    let id = remind_in(&server, &token, med, 1).await;
    advance(&server, 1).await;
    let phone = push.wait_for("phone", 1, Duration::from_secs(20)).await;
    let laptop = push.wait_for("laptop", 1, Duration::from_secs(20)).await;
    for got in [&phone, &laptop] {
        assert_eq!(got.payload["tag"], format!("reminder-{id}"));
        assert_eq!(got.payload["actions"], json!(["take", "snooze", "skip"]));
        assert!(got.payload["token"].is_string());
    }
    assert_eq!(
        phone.payload["token"], laptop.payload["token"],
        "one round, one link"
    );

    let (status, body) = post(
        &server,
        &format!("/api/medications/{med}/doses"),
        Some(&token),
        json!({ "status": "skipped", "dosage_id": id }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    for (device, shown) in [("phone", &phone), ("laptop", &laptop)] {
        let withdrawn = wait_withdrawal(&push, device, 1).await;
        assert_eq!(
            withdrawn,
            json!({ "kind": "withdraw", "tag": format!("reminder-{id}"), "outcome": "skipped" })
        );
        let sent = push
            .received(device)
            .into_iter()
            .find(|r| r.payload["kind"] == "withdraw")
            .unwrap();
        assert_eq!(
            sent.topic, shown.topic,
            "the same Topic replaces a queued reminder"
        );
    }
    // Withdrawn once: a later pass (over when the clock answers) sends nothing more.
    advance(&server, 60).await;
    assert_eq!(withdrawals(&push, "phone").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_names_keep_medications_off_lock_screens_and_mailboxes() {
    let push = PushService::start().await;
    let smtp = SmtpSink::start();
    let server = Server::start_with(|c| {
        engine_env(c, &push);
        smtp.configure(c);
    });
    let token = common::verified_account(&server, "private@example.test").await;
    common::save_settings(
        &server,
        &token,
        json!({ "timezone": "Europe/Berlin", "timeFormat": "24h" }),
    )
    .await;
    register_device(&server, &token, &push, "phone").await;
    let saved = put_prefs(
        &server,
        &token,
        json!({ "hide_medication_names": true, "email_notifications_enabled": true,
                "default_delivery_methods": ["push", "email"] }),
    )
    .await;
    assert_eq!(saved["hide_medication_names"], true);
    let (_, prefs) = get_json(&server, "/api/notifications/preferences", Some(&token)).await;
    assert_eq!(prefs["data"]["hide_medication_names"], true);
    let med = medication(
        &server,
        &token,
        json!({ "name": "Sertraline", "unit": "mg", "frequency": "as_needed", "default_quantity": 50 }),
    )
    .await;
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/notifications/medications/{med}/preferences"),
        Some(&token),
        Some(json!({ "custom_message": "with breakfast" })),
    )
    .await;
    assert!(status.is_success(), "{body}");
    let id = remind_in(&server, &token, med, 60).await;
    let due = common::instant(
        &reminders(&server, &token, "")
            .await
            .into_iter()
            .find(|r| r["id"] == id)
            .unwrap()["scheduled_time"],
    );
    let time = due
        .with_timezone(&chrono_tz::Europe::Berlin)
        .format("%H:%M")
        .to_string();
    advance(&server, 60).await;

    let pushed = push.wait_for("phone", 1, Duration::from_secs(20)).await.payload;
    assert_eq!(pushed["title"], format!("Time for your {time} medicines"));
    let mail = smtp.wait_for("private@example.test", 1);
    assert_eq!(mail.subject, format!("Time for your {time} medicines"));
    for text in [pushed.to_string(), mail.text.clone(), mail.raw.clone()] {
        for secret in ["Sertraline", "50 mg", "breakfast"] {
            assert!(!text.contains(secret), "{secret} shows in {text}");
        }
    }
    // Behind the link, the person sees what to take.
    let take = pushed["token"].as_str().unwrap();
    let (_, details) = get_json(&server, &format!("/api/notifications/take/{take}"), None).await;
    assert_eq!(details["data"]["medication_name"], "Sertraline");
}

/// The lines of an iCalendar text, unfolded (RFC 5545 §3.1).
fn unfold(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for physical in text.split("\r\n") {
        match physical.strip_prefix(' ') {
            Some(rest) => lines.last_mut().unwrap().push_str(rest),
            None if physical.is_empty() => {}
            None => lines.push(physical.to_owned()),
        }
    }
    lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_calendar_feed_serves_fourteen_days_of_doses_until_revoked() {
    let (_push, server) = start().await;
    let token = common::verified_account(&server, "cal@example.test").await;
    common::save_settings(&server, &token, json!({ "timezone": "America/New_York" })).await;
    let (_, none) = get_json(&server, "/api/calendar/feed", Some(&token)).await;
    assert_eq!(none["data"], json!({ "exists": false, "created_at": null }));
    medication(
        &server,
        &token,
        json!({ "name": "Ibuprofen, forte; long-acting formulation for the nights", "unit": "mg",
                "default_quantity": 500, "frequency": "twice_daily",
                "schedule": { "times": ["08:00", "20:00"] } }),
    )
    .await;
    medication(
        &server,
        &token,
        json!({ "name": "Rescue", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;

    let (status, created) = post(&server, "/api/calendar/feed", Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let url = created["data"]["url"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with("http://pillbox.test/api/calendar/") && url.ends_with(".ics"),
        "{url}"
    );
    let path = url.trim_start_matches("http://pillbox.test").to_owned();
    let (_, exists) = get_json(&server, "/api/calendar/feed", Some(&token)).await;
    assert_eq!(exists["data"]["exists"], true);
    assert_eq!(exists["data"]["created_at"], created["data"]["created_at"]);

    let response = common::client().get(server.url(&path)).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(response.headers()["content-type"], "text/calendar; charset=utf-8");
    let text = response.text().await.unwrap();
    for physical in text.split("\r\n") {
        assert!(physical.len() <= 75, "{physical:?} is {} octets", physical.len());
    }
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "every line ends in CRLF"
    );
    let lines = unfold(&text);
    assert_eq!(lines.first().map(String::as_str), Some("BEGIN:VCALENDAR"));
    assert_eq!(lines.last().map(String::as_str), Some("END:VCALENDAR"));
    assert!(lines.iter().any(|l| l == "VERSION:2.0"));
    assert!(lines.iter().any(|l| l.starts_with("PRODID:")));
    let begins = lines.iter().filter(|l| *l == "BEGIN:VEVENT").count();
    let ends = lines.iter().filter(|l| *l == "END:VEVENT").count();
    assert_eq!(begins, 28, "two doses a day for 14 days: {text}");
    assert_eq!(ends, begins);
    let mut uids: Vec<&String> = lines.iter().filter(|l| l.starts_with("UID:")).collect();
    uids.sort();
    uids.dedup();
    assert_eq!(uids.len(), 28, "a UID per dose");
    assert_eq!(lines.iter().filter(|l| l.starts_with("DTSTAMP:")).count(), 28);
    let starts: Vec<&String> = lines.iter().filter(|l| l.starts_with("DTSTART:")).collect();
    assert_eq!(starts.len(), 28);
    for start in &starts {
        let at = chrono::NaiveDateTime::parse_from_str(&start["DTSTART:".len()..], "%Y%m%dT%H%M%SZ")
            .unwrap_or_else(|_| panic!("{start} is not UTC"))
            .and_utc();
        let local = at
            .with_timezone(&chrono_tz::America::New_York)
            .format("%H:%M")
            .to_string();
        assert!(
            local == "08:00" || local == "20:00",
            "{start} is {local} in New York"
        );
    }
    let summary = "SUMMARY:Ibuprofen\\, forte\\; long-acting formulation for the nights 500 mg";
    assert_eq!(lines.iter().filter(|l| *l == summary).count(), 28, "{lines:?}");
    // The same feed a moment later has the same UIDs (calendar apps update, not duplicate).
    let again = common::client()
        .get(server.url(&path))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut uids_again: Vec<String> = unfold(&again)
        .into_iter()
        .filter(|l| l.starts_with("UID:"))
        .collect();
    uids_again.sort();
    assert_eq!(uids_again.iter().collect::<Vec<_>>(), uids);

    // A new feed replaces the old; revoking ends the new one.
    let (_, replaced) = post(&server, "/api/calendar/feed", Some(&token), json!({})).await;
    let new_path = replaced["data"]["url"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://pillbox.test")
        .to_owned();
    let (status, body) = get_json(&server, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "calendar_feed_not_found");
    let status = common::client()
        .get(server.url(&new_path))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, StatusCode::OK);
    let (status, _) = call(&server, Method::DELETE, "/api/calendar/feed", Some(&token), None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = get_json(&server, &new_path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(body["code"], "calendar_feed_not_found");
    let (status, _) = get_json(&server, "/api/calendar/nothing-here.ics", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
