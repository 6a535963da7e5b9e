//! Missed-dose escalation (issue 16), end to end against the real binary: an owner, a
//! dependent person and their carers (invited and accepted through the API), a medication
//! that escalates. The carers hear of a dose not logged in time on their own devices and by
//! e-mail, each with their own take link; the first to take it ends it for everyone. The local
//! push service checks VAPID and decrypts every message, a real SMTP server takes the mail, and
//! the clock is the test clock.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use chrono::{DateTime, Duration as Span, Utc};
use common::push::PushService;
use common::{Server, SmtpSink, advance, call, get_json, medication, post, register_device};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn engine_env(command: &mut Command, push: &PushService) {
    common::with_test_clock(command);
    command
        .env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
        .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix())
        .env("PILLBOX_PUBLIC_URL", "http://pillbox.test");
}

fn start_in(data_dir: &Path, push: &PushService, smtp: Option<&SmtpSink>) -> Server {
    Server::start_in(data_dir, |c| {
        engine_env(c, push);
        if let Some(smtp) = smtp {
            smtp.configure(c);
        }
    })
    .unwrap()
}

/// A verified account named `first` with a device of the local push service; returns its
/// token and user id.
async fn person(
    server: &Server,
    push: &PushService,
    email: &str,
    first: &str,
    device: &str,
) -> (String, i64) {
    let token = common::verified_account(server, email).await;
    common::save_settings(server, &token, json!({ "timezone": "UTC", "timeFormat": "24h" })).await;
    let (status, me) = call(
        server,
        Method::PUT,
        "/api/auth/me",
        Some(&token),
        Some(json!({ "firstName": first, "lastName": "Example" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{me}");
    register_device(server, &token, push, device).await;
    let (_, me) = get_json(server, "/api/auth/me", Some(&token)).await;
    (token, me["data"]["id"].as_i64().unwrap())
}

/// The owner's dependent person.
async fn dependent(server: &Server, owner: &str, name: &str) -> i64 {
    let (status, body) = post(server, "/api/people", Some(owner), json!({ "name": name })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"]["id"].as_i64().unwrap()
}

/// Invites `email` as a carer of `person` with `role`, and accepts as `carer`; returns the
/// carers row's id.
async fn add_carer(server: &Server, owner: &str, person: i64, email: &str, role: &str, carer: &str) -> i64 {
    let (status, invited) = post(
        server,
        &format!("/api/people/{person}/carers"),
        Some(owner),
        json!({ "email": email, "role": role }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{invited}");
    let url = invited["data"]["invite_url"].as_str().unwrap();
    let token = url.rsplit('/').next().unwrap();
    let (status, accepted) = post(
        server,
        &format!("/api/invitations/{token}/accept"),
        Some(carer),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{accepted}");
    invited["data"]["id"].as_i64().unwrap()
}

async fn revoke(server: &Server, owner: &str, person: i64, carer_row: i64) {
    let (status, body) = call(
        server,
        Method::DELETE,
        &format!("/api/people/{person}/carers/{carer_row}"),
        Some(owner),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// The non-withdrawal pushes a device has received whose title mentions `text`.
fn alerts(push: &PushService, device: &str, text: &str) -> Vec<Value> {
    push.received(device)
        .into_iter()
        .map(|r| r.payload)
        .filter(|p| p["kind"] != "withdraw" && p["title"].as_str().unwrap_or_default().contains(text))
        .collect()
}

async fn wait_alert(push: &PushService, device: &str, text: &str) -> Value {
    for _ in 0..200 {
        if let Some(found) = alerts(push, device, text).pop() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no alert about {text} on {device}");
}

async fn wait_withdrawal(push: &PushService, device: &str, tag: &str) -> Value {
    for _ in 0..200 {
        let found = push
            .received(device)
            .into_iter()
            .map(|r| r.payload)
            .find(|p| p["kind"] == "withdraw" && p["tag"] == tag);
        if let Some(found) = found {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no withdrawal of {tag} on {device}");
}

/// The path of a take link (`http://pillbox.test/notifications/take/TOKEN`) for the API.
fn take_path(link: &str) -> String {
    let token = link.rsplit('/').next().unwrap();
    format!("/api/notifications/take/{token}")
}

/// The alerts mailed to `to` (invitations left out).
fn alert_mails(smtp: &SmtpSink, to: &str) -> Vec<common::Mail> {
    smtp.messages()
        .into_iter()
        .filter(|m| m.to.contains(to) && m.text.contains("/notifications/take/"))
        .collect()
}

async fn wait_alert_mail(smtp: &SmtpSink, to: &str) -> common::Mail {
    for _ in 0..300 {
        if let Some(mail) = alert_mails(smtp, to).pop() {
            return mail;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no alert mailed to {to}");
}

/// The take link in a mail's text.
fn mail_link(mail: &common::Mail) -> String {
    mail.text
        .split_whitespace()
        .find(|w| w.contains("/notifications/take/"))
        .unwrap_or_else(|| panic!("no take link in {}", mail.text))
        .to_owned()
}

async fn history(server: &Server, token: &str, medication: i64) -> Vec<Value> {
    let (status, body) = get_json(server, "/api/medications/history?limit=100", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["medication_id"] == medication)
        .cloned()
        .collect()
}

/// The next whole minute at least `minutes` from `now`, as HH:MM.
fn dose_time(now: DateTime<Utc>, minutes: i64) -> (DateTime<Utc>, String) {
    let at = now + Span::minutes(minutes);
    (at, at.format("%H:%M").to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn carers_hear_of_a_dose_not_logged_and_the_first_to_take_it_ends_it_for_everyone() {
    let push = PushService::start().await;
    let smtp = SmtpSink::start();
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let server = start_in(&data_dir, &push, Some(&smtp));
    let (owner, _) = person(&server, &push, "olga@example.test", "Olga", "olga-phone").await;
    let (anna, anna_id) = person(&server, &push, "anna@example.test", "Anna", "anna-phone").await;
    let (ben, ben_id) = person(&server, &push, "ben@example.test", "Ben", "ben-phone").await;
    // Ben reads German.
    common::save_settings(&server, &ben, json!({ "language": "de" })).await;
    let tom = dependent(&server, &owner, "Tom").await;
    add_carer(&server, &owner, tom, "anna@example.test", "record", &anna).await;
    add_carer(&server, &owner, tom, "ben@example.test", "manage", &ben).await;

    let now = advance(&server, 0).await;
    let (due, time) = dose_time(now, 20);
    let escalation = json!({ "after_minutes": 30, "carers": [anna_id, ben_id] });
    let forgotten = medication(
        &server,
        &owner,
        json!({ "name": "Amoxicillin", "unit": "tablets", "frequency": "daily", "person_id": tom,
                "schedule": { "times": [time], "grace_minutes": 120 }, "escalation": escalation }),
    )
    .await;
    let on_time = medication(
        &server,
        &owner,
        json!({ "name": "Vitamin D", "unit": "tablets", "frequency": "daily", "person_id": tom,
                "schedule": { "times": [time], "grace_minutes": 120 }, "escalation": escalation }),
    )
    .await;

    // The dose comes: the owner's reminder says whose it is; Vitamin D is logged in time.
    advance(&server, 20 * 60).await;
    let reminder = wait_alert(&push, "olga-phone", "Amoxicillin").await;
    assert!(
        reminder["title"].as_str().unwrap().starts_with("Tom: "),
        "{reminder}"
    );
    let tag = reminder["tag"].as_str().unwrap().to_owned();
    let (status, body) = post(
        &server,
        &format!("/api/medications/{on_time}/doses"),
        Some(&owner),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Nothing reaches a carer before the 30 minutes are up (the clock answers once the
    // pass's pushes and e-mails have gone).
    advance(&server, 29 * 60).await;
    for device in ["anna-phone", "ben-phone"] {
        assert!(alerts(&push, device, "").is_empty(), "{device}");
    }
    assert!(alert_mails(&smtp, "anna@example.test").is_empty());

    // Then both carers hear of it, on their devices and by mail, each in their language,
    // each with their own link; Vitamin D, taken in time, alerts nobody.
    advance(&server, 60).await;
    let to_anna = wait_alert(&push, "anna-phone", "Tom").await;
    let to_ben = wait_alert(&push, "ben-phone", "Tom").await;
    assert_eq!(to_anna["title"], "Tom has not taken Amoxicillin");
    assert_eq!(
        to_anna["body"],
        format!(
            "1 tablet of Amoxicillin, due at {}, has not been logged for Tom.",
            due.format("%m/%d/%Y %H:%M")
        )
    );
    assert_eq!(to_ben["title"], "Tom hat Amoxicillin nicht genommen");
    assert_eq!(to_anna["tag"], tag, "the dose's tag, so its withdrawal closes it");
    assert_eq!(to_anna["actions"], json!(["take", "skip"]));
    for device in ["anna-phone", "ben-phone"] {
        assert_eq!(alerts(&push, device, "").len(), 1, "{device}");
    }
    let anna_mail = wait_alert_mail(&smtp, "anna@example.test").await;
    let ben_mail = wait_alert_mail(&smtp, "ben@example.test").await;
    assert!(
        anna_mail.subject.contains("Tom has not taken Amoxicillin"),
        "{}",
        anna_mail.subject
    );
    let links = [
        to_anna["takeUrl"].as_str().unwrap().to_owned(),
        to_ben["takeUrl"].as_str().unwrap().to_owned(),
        mail_link(&anna_mail),
        mail_link(&ben_mail),
    ];
    for link in &links {
        assert!(
            link.starts_with("http://pillbox.test/notifications/take/"),
            "{link}"
        );
    }
    // One alert, one link, its own: Anna's push and mail carry hers, Ben's his.
    assert_eq!(links[0], links[2]);
    assert_eq!(links[1], links[3]);
    assert_ne!(links[0], links[1]);
    let ben_link = take_path(&links[1]);
    let (status, before) = get_json(&server, &ben_link, None).await;
    assert_eq!(status, StatusCode::OK, "{before}");
    assert!(before["data"]["logged"].is_null(), "{before}");
    assert!(before["data"]["handled_by"].is_null(), "{before}");
    assert_eq!(before["data"]["person_name"], "Tom");
    // A carer's link gives or skips the dose; it cannot move the owner's reminder.
    let (status, refused) = post(
        &server,
        &ben_link,
        None,
        json!({"status": "snoozed", "minutes": 10}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(refused["code"], "not_permitted");

    // Anna takes it through her link: the history says she gave it.
    let (status, taken) = post(&server, &take_path(&links[0]), None, json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{taken}");
    let entries = history(&server, &owner, forgotten).await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["status"], "taken");
    assert_eq!(entries[0]["logged_by"]["user_id"], anna_id, "{}", entries[0]);
    assert_eq!(entries[0]["logged_by"]["name"], "Anna Example");

    // Ben's notification and the owner's are withdrawn; Ben's link says who took it and when,
    // and records nothing more.
    for device in ["ben-phone", "olga-phone"] {
        let withdrawn = wait_withdrawal(&push, device, &tag).await;
        assert_eq!(withdrawn["outcome"], "taken", "{device}");
    }
    let (status, after) = get_json(&server, &ben_link, None).await;
    assert_eq!(status, StatusCode::OK, "{after}");
    assert_eq!(after["data"]["handled_by"], "Anna Example", "{after}");
    assert_eq!(after["data"]["handled_at"], entries[0]["taken"], "{after}");
    assert_eq!(after["data"]["logged"]["status"], "taken");
    let (status, again) = post(&server, &ben_link, None, json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{again}");
    assert_eq!(again["code"], "dose_already_logged");
    assert_eq!(history(&server, &owner, forgotten).await.len(), 1);

    // Later passes, and a server started again, alert nobody a second time.
    advance(&server, 60 * 60).await;
    drop(server);
    let server = start_in(&data_dir, &push, Some(&smtp));
    advance(&server, 2 * 60 * 60).await;
    for device in ["anna-phone", "ben-phone"] {
        assert_eq!(alerts(&push, device, "").len(), 1, "{device}");
    }
    assert_eq!(alert_mails(&smtp, "anna@example.test").len(), 1);
    assert_eq!(alert_mails(&smtp, "ben@example.test").len(), 1);
    assert!(alerts(&push, "anna-phone", "Vitamin").is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missed_dose_reaches_carers_who_still_may_record_and_a_revoked_link_stops_working() {
    let push = PushService::start().await;
    let dir = tempfile::tempdir().unwrap();
    let server = start_in(&dir.path().join("data"), &push, None);
    let (owner, _) = person(&server, &push, "olga@example.test", "Olga", "olga-phone").await;
    let (anna, anna_id) = person(&server, &push, "anna@example.test", "Anna", "anna-phone").await;
    let (ben, ben_id) = person(&server, &push, "ben@example.test", "Ben", "ben-phone").await;
    let (cleo, cleo_id) = person(&server, &push, "cleo@example.test", "Cleo", "cleo-phone").await;
    let tom = dependent(&server, &owner, "Tom").await;
    add_carer(&server, &owner, tom, "anna@example.test", "record", &anna).await;
    let ben_row = add_carer(&server, &owner, tom, "ben@example.test", "record", &ben).await;
    let cleo_row = add_carer(&server, &owner, tom, "cleo@example.test", "manage", &cleo).await;

    let now = advance(&server, 0).await;
    let (_, time) = dose_time(now, 20);
    let med = medication(
        &server,
        &owner,
        json!({ "name": "Insulin", "unit": "units", "frequency": "daily", "person_id": tom,
                "default_quantity": 4,
                "schedule": { "times": [time], "grace_minutes": 5 },
                "escalation": { "after_minutes": 10, "carers": [anna_id, ben_id, cleo_id] } }),
    )
    .await;
    // Cleo is no longer a carer when the dose comes: she hears nothing.
    revoke(&server, &owner, tom, cleo_row).await;

    // Past the grace the dose is recorded missed; past the wait, the carers hear of it.
    advance(&server, 26 * 60).await;
    let entries = history(&server, &owner, med).await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["status"], "missed");
    advance(&server, 5 * 60).await;
    let to_anna = wait_alert(&push, "anna-phone", "Tom").await;
    let to_ben = wait_alert(&push, "ben-phone", "Tom").await;
    // The pass that alerted them is over: it sent Cleo nothing.
    assert!(alerts(&push, "cleo-phone", "").is_empty());

    // Ben's access ends: his link is an unknown token from then on.
    revoke(&server, &owner, tom, ben_row).await;
    let ben_link = take_path(to_ben["takeUrl"].as_str().unwrap());
    let (status, gone) = get_json(&server, &ben_link, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{gone}");
    assert_eq!(gone["code"], "invalid_token");
    let (status, _) = post(&server, &ben_link, None, json!({})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Anna takes the missed dose: it becomes taken, by her, still one entry.
    let (status, taken) = post(
        &server,
        &take_path(to_anna["takeUrl"].as_str().unwrap()),
        None,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{taken}");
    let entries = history(&server, &owner, med).await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["status"], "taken");
    assert_eq!(entries[0]["quantity"].as_f64(), Some(4.0));
    assert_eq!(entries[0]["logged_by"]["user_id"], anna_id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_cut_off_by_a_crash_goes_out_after_the_restart_once() {
    let push = PushService::start().await;
    let smtp = SmtpSink::start();
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let server = start_in(&data_dir, &push, Some(&smtp));
    let (owner, _) = person(&server, &push, "olga@example.test", "Olga", "olga-phone").await;
    let (anna, anna_id) = person(&server, &push, "anna@example.test", "Anna", "anna-phone").await;
    let tom = dependent(&server, &owner, "Tom").await;
    add_carer(&server, &owner, tom, "anna@example.test", "record", &anna).await;
    let now = advance(&server, 0).await;
    let (_, time) = dose_time(now, 20);
    medication(
        &server,
        &owner,
        json!({ "name": "Amoxicillin", "unit": "tablets", "frequency": "daily", "person_id": tom,
                "schedule": { "times": [time], "grace_minutes": 120 },
                "escalation": { "after_minutes": 15, "carers": [anna_id] } }),
    )
    .await;
    advance(&server, 20 * 60).await;

    // Anna's push service stalls: the server is killed while her alert is in flight (its
    // e-mail, written with it, has gone out).
    push.delay("anna-phone", Duration::from_secs(60));
    let clock = server.url("/api/test/clock");
    let _pass = tokio::spawn(async move {
        let _ = common::client()
            .post(clock)
            .json(&json!({ "advance_seconds": 16 * 60 }))
            .send()
            .await;
    });
    wait_alert_mail(&smtp, "anna@example.test").await;
    for _ in 0..200 {
        if push.hits("anna-phone") > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(push.hits("anna-phone"), 1);
    assert_eq!(push.answered("anna-phone"), 0, "the alert is in flight");
    Command::new("kill")
        .args(["-KILL", &server.pid().to_string()])
        .status()
        .unwrap();
    drop(server);

    // Started again, the next pass pushes it once more with the same Topic (a push service
    // that did take the first replaces it); the e-mail is not sent again.
    push.delay("anna-phone", Duration::ZERO);
    let server = start_in(&data_dir, &push, Some(&smtp));
    advance(&server, 60).await;
    let got = wait_alert(&push, "anna-phone", "Tom").await;
    assert_eq!(got["title"], "Tom has not taken Amoxicillin");
    let topics: Vec<Option<String>> = push.received("anna-phone").into_iter().map(|r| r.topic).collect();
    assert!(
        !topics.is_empty() && topics.iter().all(|t| t == &topics[0]),
        "{topics:?}"
    );
    assert!(
        topics[0].as_deref().is_some_and(|t| t.starts_with('e')),
        "{topics:?}"
    );
    advance(&server, 60 * 60).await;
    assert_eq!(alert_mails(&smtp, "anna@example.test").len(), 1);
    let topics_after: Vec<Option<String>> =
        push.received("anna-phone").into_iter().map(|r| r.topic).collect();
    assert_eq!(topics_after.len(), topics.len(), "no alert after the one resent");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_mail_still_queued_when_the_dose_is_taken_is_never_sent() {
    let push = PushService::start().await;
    // The mail server is down when the alerts go out: their e-mails wait in the queue.
    let port = common::free_port();
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start_in(&dir.path().join("data"), |c| {
        engine_env(c, &push);
        c.env("PILLBOX_SMTP_HOST", "127.0.0.1")
            .env("PILLBOX_SMTP_PORT", port.to_string())
            .env("PILLBOX_SMTP_TLS", "none")
            .env("PILLBOX_SMTP_FROM", "Pillbox <pillbox@example.test>")
            .env("PILLBOX_REMINDERS_RETRY_BACKOFF_SECONDS", "60");
    })
    .unwrap();
    let (owner, _) = person(&server, &push, "olga@example.test", "Olga", "olga-phone").await;
    let (anna, anna_id) = person(&server, &push, "anna@example.test", "Anna", "anna-phone").await;
    let (ben, ben_id) = person(&server, &push, "ben@example.test", "Ben", "ben-phone").await;
    let tom = dependent(&server, &owner, "Tom").await;
    add_carer(&server, &owner, tom, "anna@example.test", "record", &anna).await;
    add_carer(&server, &owner, tom, "ben@example.test", "record", &ben).await;
    let now = advance(&server, 0).await;
    let (_, time) = dose_time(now, 20);
    medication(
        &server,
        &owner,
        json!({ "name": "Amoxicillin", "unit": "tablets", "frequency": "daily", "person_id": tom,
                "schedule": { "times": [time], "grace_minutes": 120 },
                "escalation": { "after_minutes": 10, "carers": [anna_id, ben_id] } }),
    )
    .await;
    advance(&server, 20 * 60).await;
    advance(&server, 10 * 60).await;
    let to_anna = wait_alert(&push, "anna-phone", "Tom").await;
    wait_alert(&push, "ben-phone", "Tom").await;

    // Anna takes it; then the mail server is back and the queue's retries come due.
    let (status, taken) = post(
        &server,
        &take_path(to_anna["takeUrl"].as_str().unwrap()),
        None,
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{taken}");
    let smtp = SmtpSink::start_on(port);
    for _ in 0..4 {
        advance(&server, 30 * 60).await;
    }
    // The invitations went out meanwhile; the alerts did not.
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while smtp.count_for("anna@example.test") == 0 {
        assert!(std::time::Instant::now() < deadline, "the invitation never came");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(alert_mails(&smtp, "anna@example.test").is_empty());
    assert!(alert_mails(&smtp, "ben@example.test").is_empty());
}

/// The instant `text` (RFC 3339), for moving the test clock to a time of day.
fn instant(text: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(text).unwrap().with_timezone(&Utc)
}

/// Moves the test clock forward to `at` (time passing) and answers once its pass is over.
async fn advance_to(server: &Server, at: &str) {
    let now = advance(server, 0).await;
    let seconds = (instant(at) - now).num_seconds();
    assert!(seconds >= 0, "the clock is already past {at} ({now})");
    advance(server, seconds).await;
}

async fn wait_mail(smtp: &SmtpSink, to: &str, subject: &str) -> common::Mail {
    for _ in 0..300 {
        if let Some(mail) = smtp
            .messages()
            .into_iter()
            .find(|m| m.to.contains(to) && m.subject.contains(subject))
        {
            return mail;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no mail about {subject} to {to}");
}

/// The carers' alerts about `reminder` as the database holds them: (status, retracted).
fn escalation_rows(data_dir: &Path, reminder: i64) -> Vec<(String, bool)> {
    let conn = rusqlite::Connection::open(data_dir.join("pillbox.sqlite3")).unwrap();
    conn.prepare(
        "SELECT status, retracted_at IS NOT NULL FROM escalations WHERE reminder_id = ?1 ORDER BY id",
    )
    .unwrap()
    .query_map([reminder], |row| Ok((row.get(0)?, row.get(1)?)))
    .unwrap()
    .collect::<rusqlite::Result<_>>()
    .unwrap()
}

/// A Pi whose clock ran ahead alerts a carer (push and e-mail) about a dose "missed" hours
/// early; when NTP sets the clock back, the carer's device closes the alert, a mail in her
/// language says it no longer holds, and the dose missed for real later alerts her again,
/// once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alert_sent_while_the_clock_was_ahead_is_withdrawn_when_it_goes_back_and_sent_again_when_missed_for_real()
 {
    let push = PushService::start().await;
    let smtp = SmtpSink::start();
    let dir = tempfile::tempdir().unwrap();
    let data_dir = dir.path().join("data");
    let server = Server::start_in(&data_dir, |c| {
        engine_env(c, &push);
        common::with_clock_start(c, "2026-03-02T06:00:00Z");
        smtp.configure(c);
    })
    .unwrap();
    let (owner, _) = person(&server, &push, "olga@example.test", "Olga", "olga-phone").await;
    let (anna, anna_id) = person(&server, &push, "anna@example.test", "Anna", "anna-phone").await;
    // Anna reads French.
    common::save_settings(&server, &anna, json!({ "language": "fr" })).await;
    let tom = dependent(&server, &owner, "Tom").await;
    add_carer(&server, &owner, tom, "anna@example.test", "record", &anna).await;
    medication(
        &server,
        &owner,
        json!({ "name": "Insulin", "unit": "units", "frequency": "daily", "person_id": tom,
                "default_quantity": 4,
                "schedule": { "times": ["08:00"], "grace_minutes": 30 },
                "escalation": { "after_minutes": 45, "carers": [anna_id] } }),
    )
    .await;

    // At 06:00 the clock is set to 09:00: the 08:00 dose looks missed and Anna is alerted.
    common::jump_clock(&server, 3 * 3600).await;
    let alert = wait_alert(&push, "anna-phone", "Tom").await;
    let tag = alert["tag"].as_str().unwrap().to_owned();
    let reminder: i64 = tag.trim_start_matches("reminder-").parse().unwrap();
    wait_alert_mail(&smtp, "anna@example.test").await;

    // NTP sets it back to 06:30: the dose is not late, and Anna is told so, on her phone
    // and by mail, in French.
    common::jump_clock(&server, -(2 * 3600 + 1800)).await;
    let withdrawal = wait_withdrawal(&push, "anna-phone", &tag).await;
    assert_eq!(withdrawal["outcome"], "corrected");
    // (The sink keeps the subject as sent: its accented word encoded.)
    let correction = wait_mail(&smtp, "anna@example.test", "n'est plus valable").await;
    assert!(
        correction.subject.starts_with("Tom : l'alerte "),
        "{}",
        correction.subject
    );
    assert!(
        correction.text.contains(
            "L'alerte sur la prise de Tom prévue le 02/03/2026 08:00 a été envoyée parce que \
             l'horloge du serveur était fausse. L'horloge a été corrigée et la prise n'est pas \
             encore en retard."
        ),
        "{}",
        correction.text
    );
    assert!(
        !correction.text.contains("/notifications/take/"),
        "nothing to take: {}",
        correction.text
    );
    assert_eq!(
        escalation_rows(&data_dir, reminder),
        [("withdrawn".to_owned(), true)]
    );
    // The history says nothing was missed.
    let (_, entries) = get_json(&server, "/api/medications/history?limit=100", Some(&owner)).await;
    assert_eq!(entries["data"], json!([]), "{entries}");

    // Not alerted again before the dose is late at the right time...
    advance_to(&server, "2026-03-02T08:44:00Z").await;
    assert_eq!(alerts(&push, "anna-phone", "Tom").len(), 1);
    assert_eq!(alert_mails(&smtp, "anna@example.test").len(), 1);
    // ...then once, on her phone and by mail.
    advance_to(&server, "2026-03-02T08:46:00Z").await;
    let again = wait_alert(&push, "anna-phone", "Tom").await;
    assert_ne!(
        again["takeUrl"], alert["takeUrl"],
        "a new alert with its own link"
    );
    assert_eq!(alerts(&push, "anna-phone", "Tom").len(), 2);
    for _ in 0..300 {
        if alert_mails(&smtp, "anna@example.test").len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(alert_mails(&smtp, "anna@example.test").len(), 2);
    advance(&server, 3600).await;
    assert_eq!(
        alerts(&push, "anna-phone", "Tom").len(),
        2,
        "alerted once more, not twice"
    );
    assert_eq!(alert_mails(&smtp, "anna@example.test").len(), 2);
    assert_eq!(
        escalation_rows(&data_dir, reminder),
        [("withdrawn".to_owned(), true), ("sent".to_owned(), false)]
    );
}
