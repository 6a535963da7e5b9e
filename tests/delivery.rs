//! Reminder delivery end to end against the real binary: a real SMTP server (aiosmtpd), a
//! local Web Push service that verifies VAPID and decrypts the payload, take links,
//! restarts, outages, retries, repeats, gone subscriptions and low-stock alerts. Tests move
//! the server's clock (`advance_clock`) instead of waiting for reminders to fall due.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use base64::Engine as _;
use chrono::Utc;
use common::push::PushService;
use common::{
    Server, SmtpSink, advance_clock, assert_lead, call, deliveries, get_json, medication, post,
    register_device, remind_in,
};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Environment for a server that may push to `push` and whose clock the test moves. Its
/// dispatcher's timer is an hour, so only the start and `advance_clock` run a pass and
/// nothing happens behind the test's back.
fn engine_env(command: &mut Command, push: &PushService) {
    common::with_test_clock(command);
    command
        .env("PILLBOX_SIGNUPS", "open")
        .env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
        .env("PILLBOX_REMINDERS_RETRY_BACKOFF_SECONDS", "1")
        .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix())
        .env("PILLBOX_PUBLIC_URL", "http://pillbox.test");
}

async fn account(server: &Server, email: &str) -> String {
    common::verified_account(server, email).await
}

/// A local push endpoint, an SMTP server, and a Pillbox that delivers to both.
async fn push_and_mail() -> (PushService, SmtpSink, Server) {
    let push = PushService::start().await;
    let smtp = SmtpSink::start();
    let server = Server::start_with(|c| {
        engine_env(c, &push);
        smtp.configure(c);
    });
    (push, smtp, server)
}

async fn put(server: &Server, path: &str, token: &str, body: Value) -> (StatusCode, Value) {
    call(server, Method::PUT, path, Some(token), Some(body)).await
}

async fn reminder(server: &Server, token: &str, id: i64) -> Value {
    let (_, body) = get_json(server, "/api/notifications?limit=200", Some(token)).await;
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .cloned()
        .unwrap_or_else(|| panic!("reminder {id} not listed: {body}"))
}

/// Polls the reminder until `done` says yes.
async fn wait_reminder(
    server: &Server,
    token: &str,
    id: i64,
    within: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let r = reminder(server, token, id).await;
        if done(&r) {
            return r;
        }
        assert!(Instant::now() < deadline, "reminder never reached the state: {r}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Moves the server's clock `step` seconds at a time until the reminder reaches the state
/// `done` says yes to (a few steps: retries back off).
async fn advance_until(
    server: &Server,
    token: &str,
    id: i64,
    step: i64,
    done: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..10 {
        let r = reminder(server, token, id).await;
        if done(&r) {
            return r;
        }
        advance_clock(server, step).await;
    }
    panic!(
        "reminder never reached the state: {}",
        reminder(server, token, id).await
    );
}

/// `POST /api/notifications/test` over `methods`.
async fn send_test(server: &Server, token: &str, methods: Value) -> (StatusCode, Value) {
    post(
        server,
        "/api/notifications/test",
        Some(token),
        json!({ "deliveryMethods": methods }),
    )
    .await
}

/// Stops the server cleanly and starts another on the same data directory.
fn restart(server: Server, data: &Path, configure: impl FnOnce(&mut Command)) -> Server {
    let (status, _) = server.terminate();
    assert!(status.success());
    Server::start_in(data, configure).unwrap()
}

fn take_token(url: &str) -> String {
    url.rsplit("/notifications/take/")
        .next()
        .unwrap()
        .trim()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_due_reminder_arrives_by_push_and_email_and_its_link_logs_the_dose_once() {
    let (push, smtp, server) = push_and_mail().await;
    let token = account(&server, "ada@example.test").await;
    let (status, prefs) = put(
        &server,
        "/api/notifications/preferences",
        &token,
        json!({ "email_notifications_enabled": true, "default_delivery_methods": ["push", "email"] }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{prefs}");
    assert_eq!(prefs["data"]["email_available"], true);
    register_device(&server, &token, &push, "phone").await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Aspirin", "unit": "tablets", "frequency": "as_needed", "default_quantity": 2 }),
    )
    .await;
    let id = remind_in(&server, &token, med, 2).await;
    assert_eq!(reminder(&server, &token, id).await["status"], "scheduled");

    advance_clock(&server, 2).await;
    let pushed = push.wait_for("phone", 1, Duration::from_secs(20)).await;
    let (_, key) = get_json(&server, "/api/notifications/push/public-key", None).await;
    assert_eq!(
        pushed.vapid_key,
        key["data"]["publicKey"].as_str().unwrap(),
        "signed with the instance key"
    );
    assert!(pushed.ttl > 0);
    assert_eq!(pushed.payload["title"], "Time for Aspirin");
    assert!(
        pushed.payload["body"]
            .as_str()
            .unwrap()
            .contains("2 tablets of Aspirin"),
        "{}",
        pushed.payload
    );
    assert_eq!(pushed.payload["url"], "/today");
    assert_eq!(pushed.payload["takeLabel"], "Take");
    let take_url = pushed.payload["takeUrl"].as_str().unwrap().to_owned();
    assert!(
        take_url.starts_with("http://pillbox.test/notifications/take/"),
        "{take_url}"
    );

    let mail = smtp.wait_for("ada@example.test", 1);
    assert_eq!(mail.subject, "Time for Aspirin");
    assert!(
        mail.text.contains(&take_url),
        "the e-mail carries the same take link: {}",
        mail.text
    );
    assert!(mail.raw.contains("text/html"), "an HTML part with the button");

    let sent = wait_reminder(&server, &token, id, Duration::from_secs(10), |r| {
        r["status"] == "sent"
    })
    .await;
    assert!(sent["answered_at"].is_null());

    // Opening the link changes nothing; only the POST logs.
    let path = format!("/api/notifications/take/{}", take_token(&take_url));
    let (status, details) = get_json(&server, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{details}");
    assert_eq!(details["data"]["medication_name"], "Aspirin");
    assert_eq!(details["data"]["quantity"], 2.0);
    assert_eq!(details["data"]["dosage_unit"], "tablets");
    assert!(details["data"]["logged"].is_null());
    let (_, history) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(
        history["data"].as_array().map_or(0, Vec::len),
        0,
        "a GET logs nothing: {history}"
    );

    let (status, logged) = post(&server, &path, None, json!({ "status": "taken" })).await;
    assert_eq!(status, StatusCode::CREATED, "{logged}");
    assert_eq!(logged["message"], "Medication taken logged successfully");
    assert_eq!(logged["data"]["dosage_id"], id);
    let (status, again) = post(&server, &path, None, json!({ "status": "taken" })).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(again["message"], "This dose was already logged");
    let (_, history) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(
        history["data"].as_array().unwrap().len(),
        1,
        "logged exactly once: {history}"
    );
    let (_, details) = get_json(&server, &path, None).await;
    assert_eq!(details["data"]["logged"]["status"], "taken");
    assert!(!reminder(&server, &token, id).await["answered_at"].is_null());

    let (status, bad) = get_json(&server, "/api/notifications/take/not-a-real-token", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(bad["message"], "Invalid or expired token");

    // The delivery history names both channels, and a reminder for another user's
    // medication, or another user's delivery history, is out of reach.
    let rows = deliveries(&server, &token).await;
    let mut channels: Vec<&str> = rows.iter().map(|r| r["channel"].as_str().unwrap()).collect();
    channels.sort_unstable();
    assert_eq!(channels, ["email", "push"]);
    assert!(
        rows.iter()
            .all(|r| r["result"] == "sent" && r["kind"] == "reminder" && r["notification_id"] == id)
    );
    let other = account(&server, "eve@example.test").await;
    assert!(deliveries(&server, &other).await.is_empty());
    let (status, _) = post(
        &server,
        "/api/notifications",
        Some(&other),
        json!({ "medication_id": med, "scheduled_time": Utc::now().to_rfc3339() }),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = post(
        &server,
        &format!("/api/notifications/{id}/send"),
        Some(&other),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(push.rejected().is_empty(), "{:?}", push.rejected());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dispatchers_timer_sends_what_falls_due_on_its_own() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| {
        engine_env(c, &push);
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "1");
    });
    let token = account(&server, "jo@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Folic acid", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    let id = remind_in(&server, &token, med, 1).await;
    let pushed = push.wait_for("phone", 1, Duration::from_secs(15)).await;
    assert_eq!(pushed.payload["title"], "Time for Folic acid");
    wait_reminder(&server, &token, id, Duration::from_secs(10), |r| {
        r["status"] == "sent"
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_due_while_the_server_was_down_arrives_once_after_the_restart() {
    let push = PushService::start().await;
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("data");
    let server = Server::start_in(&data, |c| engine_env(c, &push)).unwrap();
    let token = account(&server, "bo@example.test").await;
    register_device(&server, &token, &push, "laptop").await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Iron", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    // Due well after the stop: the dispatcher sends a reminder at its time by itself.
    let on_time = remind_in(&server, &token, med, 20).await;
    let too_late = remind_in(&server, &token, med, 21).await;
    let (status, _) = server.terminate();
    assert!(status.success());
    assert_eq!(push.hits("laptop"), 0, "nothing was due before the stop");

    // Back within catch_up_minutes (the restarted server's clock is 23 s on): the missed
    // reminders go out, once.
    let server = Server::start_in(&data, |c| engine_env(c, &push)).unwrap();
    advance_clock(&server, 23).await;
    let got = push.wait_for("laptop", 1, Duration::from_secs(15)).await;
    assert_eq!(got.payload["title"], "Time for Iron");
    wait_reminder(&server, &token, on_time, Duration::from_secs(10), |r| {
        r["status"] == "sent"
    })
    .await;
    wait_reminder(&server, &token, too_late, Duration::from_secs(10), |r| {
        r["status"] == "sent"
    })
    .await;
    advance_clock(&server, 3).await;
    assert_eq!(
        push.received("laptop").len(),
        2,
        "one push per reminder, none twice"
    );
    let (status, _) = server.terminate();
    assert!(status.success());

    // A reminder that came due longer ago than catch_up_minutes is marked failed: expired.
    let server = Server::start_in(&data, |c| engine_env(c, &push)).unwrap();
    let stale = remind_in(&server, &token, med, 20).await;
    let (status, _) = server.terminate();
    assert!(status.success());
    let server = Server::start_in(&data, |c| {
        engine_env(c, &push);
        c.env("PILLBOX_REMINDERS_CATCH_UP_MINUTES", "0");
    })
    .unwrap();
    advance_clock(&server, 23).await;
    let failed = wait_reminder(&server, &token, stale, Duration::from_secs(10), |r| {
        r["status"] != "scheduled"
    })
    .await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["failure_reason"], "expired");
    assert_eq!(push.received("laptop").len(), 2);
}

/// A person whose reminders go by e-mail only, on a server whose mail server is down
/// (nobody listens on `smtp_port` until a test starts one there).
struct EmailWithSmtpDown {
    _push: PushService,
    smtp_port: u16,
    server: Server,
    token: String,
    med: i64,
}

impl EmailWithSmtpDown {
    /// An as-needed medication (its reminders are one-offs), the clock starting now.
    async fn start(retry_attempts: u32, email: &str, medication_name: &str) -> EmailWithSmtpDown {
        let as_needed = json!({ "name": medication_name, "unit": "tablets", "frequency": "as_needed" });
        Self::start_at(None, retry_attempts, email, as_needed).await
    }

    /// The clock starting at `clock_start` (else now), the account's zone UTC, and the
    /// medication `med`.
    async fn start_at(
        clock_start: Option<&str>,
        retry_attempts: u32,
        email: &str,
        med: Value,
    ) -> EmailWithSmtpDown {
        let push = PushService::start().await;
        let smtp_port = common::free_port();
        let server = Server::start_with(|c| {
            engine_env(c, &push);
            if let Some(start) = clock_start {
                common::with_clock_start(c, start);
            }
            c.env("PILLBOX_SMTP_HOST", "127.0.0.1")
                .env("PILLBOX_SMTP_PORT", smtp_port.to_string())
                .env("PILLBOX_SMTP_TLS", "none")
                .env("PILLBOX_SMTP_FROM", "Pillbox <pillbox@example.test>")
                .env("PILLBOX_REMINDERS_RETRY_ATTEMPTS", retry_attempts.to_string());
        });
        let token = account(&server, email).await;
        common::save_settings(&server, &token, json!({ "timezone": "UTC" })).await;
        put(
            &server,
            "/api/notifications/preferences",
            &token,
            json!({ "email_notifications_enabled": true, "default_delivery_methods": ["email"] }),
        )
        .await;
        let med = medication(&server, &token, med).await;
        EmailWithSmtpDown {
            _push: push,
            smtp_port,
            server,
            token,
            med,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_smtp_outage_is_retried_then_failed_with_the_reason_and_a_returning_server_gets_the_reminder() {
    let EmailWithSmtpDown {
        _push: _push_service,
        smtp_port,
        server,
        token,
        med,
    } = EmailWithSmtpDown::start(3, "cy@example.test", "Zinc").await;

    // Nobody listens on the SMTP port: 3 rounds (waits 1 s, 2 s), then failed with the reason.
    let lost = remind_in(&server, &token, med, 1).await;
    let failed = advance_until(&server, &token, lost, 1, |r| r["status"] == "failed").await;
    let reason = failed["failure_reason"].as_str().unwrap();
    assert!(reason.starts_with("email: "), "{reason}");
    let rows = deliveries(&server, &token).await;
    assert_eq!(rows.len(), 3, "every attempt is recorded: {rows:?}");
    assert!(
        rows.iter()
            .all(|r| r["result"] == "failed" && r["channel"] == "email" && r["error"].is_string())
    );

    // Another outage, but SMTP comes back within the retry window: delivered, not lost.
    let saved = remind_in(&server, &token, med, 1).await;
    advance_until(&server, &token, saved, 1, |r| !r["failure_reason"].is_null()).await;
    let smtp = SmtpSink::start_on(smtp_port);
    let sent = advance_until(&server, &token, saved, 1, |r| r["status"] == "sent").await;
    let mail = smtp.wait_for("cy@example.test", 1);
    assert_eq!(mail.subject, "Time for Zinc");
    assert!(sent["failure_reason"].is_null());
    assert_eq!(smtp.count_for("cy@example.test"), 1);
}

/// Moves the clock 5 minutes `times` times, a dispatcher pass at each step.
async fn every_five_minutes(server: &Server, times: usize) {
    for _ in 0..times {
        advance_clock(server, 5 * 60).await;
    }
}

/// The reminder of a planned dose, and what the day's history says of the dose.
async fn dose_state(server: &Server, token: &str, med: i64) -> (Value, Vec<Value>) {
    let (_, body) = get_json(server, "/api/notifications?limit=200", Some(token)).await;
    let reminder = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["medication_id"] == med)
        .cloned()
        .unwrap_or_else(|| panic!("no reminder of {med}: {body}"));
    let (_, body) = get_json(server, "/api/medications/history?limit=100", Some(token)).await;
    (reminder, body["data"].as_array().unwrap().clone())
}

/// A mail server that is down from a planned dose's reminder on for 40 minutes: the
/// reminder is not given up after its 5 tries while the dose can still be taken (its grace),
/// and arrives, once, when the server is back. An outage longer than the grace gives it up
/// with the mail server's error before the dose is recorded missed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planned_dose_is_reminded_after_an_outage_longer_than_its_tries_while_its_grace_lasts() {
    let daily_at = |time: &str| {
        json!({ "name": "Zinc", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                "schedule": { "times": [time] } })
    };
    let EmailWithSmtpDown {
        _push: _push_service,
        smtp_port,
        server,
        token,
        med,
    } = EmailWithSmtpDown::start_at(
        Some("2026-03-02T07:00:00Z"),
        5,
        "fay@example.test",
        daily_at("07:30"),
    )
    .await;
    // 07:15 the reminder's first try, then every 5 minutes to 07:55: eight failed tries.
    advance_clock(&server, 15 * 60).await;
    every_five_minutes(&server, 8).await;
    let (waiting, history) = dose_state(&server, &token, med).await;
    assert_eq!(waiting["status"], "scheduled", "still being tried: {waiting}");
    let reason = waiting["failure_reason"].as_str().unwrap_or_default();
    assert!(reason.contains("email"), "the outage is shown: {waiting}");
    assert_eq!(history, Vec::<Value>::new());
    let tries = deliveries(&server, &token).await;
    assert!(tries.len() > 5, "tried past its 5 tries: {tries:?}");

    // 07:55: the mail server is back; within the next 15 minutes the reminder arrives.
    let smtp = SmtpSink::start_on(smtp_port);
    every_five_minutes(&server, 3).await;
    let mail = smtp.wait_for("fay@example.test", 1);
    assert_eq!(mail.subject, "Time for Zinc");
    let (sent, history) = dose_state(&server, &token, med).await;
    assert_eq!(sent["status"], "sent", "{sent}");
    assert_eq!(
        history,
        Vec::<Value>::new(),
        "not missed: its grace runs to 08:30"
    );
    // Once (its follow-ups, "Reminder: Zinc is due", go on from there).
    let subjects: Vec<_> = smtp.messages().into_iter().map(|m| m.subject).collect();
    assert_eq!(
        subjects.iter().filter(|s| *s == "Time for Zinc").count(),
        1,
        "{subjects:?}"
    );

    // The next morning the mail server is down past the dose's grace (08:30): the reminder
    // is given up with the reason before the dose is recorded missed, and nothing is sent.
    drop(smtp);
    advance_clock(&server, 23 * 3600).await;
    every_five_minutes(&server, 16).await;
    let (_, body) = get_json(
        &server,
        "/api/notifications?limit=200&status=failed",
        Some(&token),
    )
    .await;
    let failed = body["data"].as_array().unwrap().clone();
    assert_eq!(failed.len(), 1, "{body}");
    let reason = failed[0]["failure_reason"].as_str().unwrap_or_default();
    assert!(reason.starts_with("email: "), "{reason}");
    let (_, history) = get_json(&server, "/api/medications/history?limit=100", Some(&token)).await;
    let second = history["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["taken"] == "2026-03-03T07:30:00.000Z");
    assert_eq!(second.map(|e| &e["status"]), Some(&json!("missed")), "{history}");
}

/// A push service answering 500 for an hour from a planned dose's reminder on: the
/// reminder is tried past its 5 tries while the dose's grace lasts and reaches the phone,
/// once, within 15 minutes of the service's recovery.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planned_dose_is_pushed_after_a_push_service_outage_longer_than_its_tries() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| {
        engine_env(c, &push);
        common::with_clock_start(c, "2026-03-02T07:00:00Z");
    });
    let token = account(&server, "gus@example.test").await;
    common::save_settings(&server, &token, json!({ "timezone": "UTC" })).await;
    register_device(&server, &token, &push, "phone").await;
    push.answer("phone", StatusCode::INTERNAL_SERVER_ERROR);
    let med = medication(
        &server,
        &token,
        json!({ "name": "Ramipril", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                "schedule": { "times": ["08:00"] } }),
    )
    .await;
    // 07:45 the first try, then every 5 minutes to 08:45: thirteen answered 500.
    advance_clock(&server, 45 * 60).await;
    every_five_minutes(&server, 12).await;
    let (waiting, history) = dose_state(&server, &token, med).await;
    assert_eq!(waiting["status"], "scheduled", "still being tried: {waiting}");
    assert_eq!(history, Vec::<Value>::new());
    assert!(push.answered("phone") > 5, "tried past its 5 tries");
    assert!(push.received("phone").is_empty());

    // 08:45: the service is back; the reminder arrives within 15 minutes, before 09:00's
    // end of the dose's grace.
    push.answer("phone", StatusCode::CREATED);
    for _ in 0..2 {
        advance_clock(&server, 5 * 60).await;
        if !push.received("phone").is_empty() {
            break;
        }
    }
    let got = push.wait_for("phone", 1, Duration::from_secs(10)).await;
    assert_eq!(got.payload["title"], "Time for Ramipril");
    let (sent, history) = dose_state(&server, &token, med).await;
    assert_eq!(sent["status"], "sent", "{sent}");
    assert_eq!(history, Vec::<Value>::new(), "not missed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reminder_email_waiting_for_a_retry_is_not_sent_once_the_dose_is_logged() {
    let EmailWithSmtpDown {
        _push: _push_service,
        smtp_port,
        server,
        token,
        med,
    } = EmailWithSmtpDown::start(5, "eve@example.test", "Iron").await;

    // The mail server is down: the reminder's e-mail waits for its retry.
    let id = remind_in(&server, &token, med, 1).await;
    advance_until(&server, &token, id, 1, |r| !r["failure_reason"].is_null()).await;
    let (status, body) = post(
        &server,
        &format!("/api/medications/{med}/doses"),
        Some(&token),
        json!({ "dosage_id": id }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // The mail server comes back: the reminder ends without the stale e-mail.
    let smtp = SmtpSink::start_on(smtp_port);
    let done = advance_until(&server, &token, id, 2, |r| r["status"] == "cancelled").await;
    assert_eq!(done["failure_reason"], "The dose was already logged");
    advance_clock(&server, 60).await;
    assert_eq!(
        smtp.count_for("eve@example.test"),
        0,
        "no reminder for a dose already taken"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gone_subscription_is_dropped_and_failed_push_falls_back_to_email() {
    let (push, smtp, server) = push_and_mail().await;
    let token = account(&server, "di@example.test").await;
    // E-mail notifications on (push stays the method): the fallback is on with them.
    let (status, body) = put(
        &server,
        "/api/notifications/preferences",
        &token,
        json!({ "email_notifications_enabled": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    register_device(&server, &token, &push, "old-phone").await;
    register_device(&server, &token, &push, "tablet").await;
    push.answer("old-phone", StatusCode::GONE);
    let med = medication(
        &server,
        &token,
        json!({ "name": "Vitamin D", "unit": "drops", "frequency": "as_needed" }),
    )
    .await;

    let first = remind_in(&server, &token, med, 1).await;
    advance_clock(&server, 1).await;
    push.wait_for("tablet", 1, Duration::from_secs(15)).await;
    wait_reminder(&server, &token, first, Duration::from_secs(10), |r| {
        r["status"] == "sent"
    })
    .await;
    assert_eq!(push.hits("old-phone"), 1);
    assert_eq!(smtp.count_for("di@example.test"), 0, "push worked: no e-mail");

    // The 410 subscription is gone: the next reminder does not call it again. When every
    // remaining push fails, the reminder falls back to e-mail and the history says so.
    push.answer("tablet", StatusCode::INTERNAL_SERVER_ERROR);
    let second = remind_in(&server, &token, med, 1).await;
    advance_clock(&server, 1).await;
    let mail = smtp.wait_for("di@example.test", 1);
    assert_eq!(mail.subject, "Time for Vitamin D");
    wait_reminder(&server, &token, second, Duration::from_secs(10), |r| {
        r["status"] == "sent"
    })
    .await;
    assert_eq!(push.hits("old-phone"), 1, "the gone subscription was deleted");
    let rows = deliveries(&server, &token).await;
    let fallback = rows
        .iter()
        .find(|r| r["notification_id"] == second && r["channel"] == "email")
        .unwrap_or_else(|| panic!("{rows:?}"));
    assert_eq!(fallback["fallback"], true);
    assert_eq!(fallback["result"], "sent");
    let failed_push = rows
        .iter()
        .find(|r| r["notification_id"] == second && r["channel"] == "push")
        .unwrap();
    assert_eq!(failed_push["result"], "failed");
    assert!(
        failed_push["error"].as_str().unwrap().contains("500"),
        "{failed_push}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_reminder_repeats_and_a_logged_dose_stops_it() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| engine_env(c, &push));
    let token = account(&server, "ed@example.test").await;
    put(
        &server,
        "/api/notifications/preferences",
        &token,
        json!({ "repeat_interval_minutes": 1, "repeat_max": 1 }),
    )
    .await;
    register_device(&server, &token, &push, "phone").await;
    let ignored = medication(
        &server,
        &token,
        json!({ "name": "Ignored", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    let answered = medication(
        &server,
        &token,
        json!({ "name": "Answered", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    remind_in(&server, &token, ignored, 1).await;
    let answered_id = remind_in(&server, &token, answered, 1).await;
    advance_clock(&server, 1).await;
    push.wait_for("phone", 2, Duration::from_secs(15)).await;
    // Logging the dose on the Today screen (no dosage_id) answers the nearest reminder.
    let (status, body) = post(
        &server,
        &format!("/api/medications/{answered}/doses"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert!(!reminder(&server, &token, answered_id).await["answered_at"].is_null());
    // The phone's notification of the answered one is withdrawn.
    let withdrawn = push.wait_for("phone", 3, Duration::from_secs(15)).await;
    assert_eq!(
        withdrawn.payload,
        json!({ "kind": "withdraw", "tag": format!("reminder-{answered_id}"), "outcome": "taken" })
    );

    // A minute on (repeat_interval_minutes), the ignored one repeats; a minute later
    // nothing more comes (repeat_max is 1, and the answered one never repeats).
    advance_clock(&server, 60).await;
    let repeat = push.wait_for("phone", 4, Duration::from_secs(15)).await;
    assert_eq!(repeat.payload["title"], "Reminder: Ignored is due");
    advance_clock(&server, 60).await;
    let titles: Vec<String> = push
        .received("phone")
        .iter()
        .filter(|r| r.payload["kind"] != "withdraw")
        .map(|r| r.payload["title"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        titles.len(),
        3,
        "one repeat of the ignored reminder, none of the answered: {titles:?}"
    );
    assert!(
        !titles
            .iter()
            .any(|t| t.contains("Answered") && t.starts_with("Reminder:"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn low_stock_is_announced_once_per_crossing() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| engine_env(c, &push));
    let token = account(&server, "fa@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Statin", "unit": "tablets", "frequency": "as_needed",
                "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "pill_bottle",
                               "container_quantity": 1, "item_quantity": 12, "item_unit": "tablets", "current_quantity": 12,
                               "reminder_threshold": 10 } }),
    )
    .await;
    let dose = |n: i64| {
        let server = &server;
        let token = token.clone();
        async move {
            let (status, body) = post(
                server,
                &format!("/api/medications/{med}/doses"),
                Some(&token),
                json!({ "quantity": n }),
            )
            .await;
            assert_eq!(status, StatusCode::CREATED, "{body}");
        }
    };
    dose(1).await; // 11: above the threshold
    dose(1).await; // 10: crossing
    advance_clock(&server, 0).await;
    let alert = push.wait_for("phone", 1, Duration::from_secs(15)).await;
    assert_eq!(alert.payload["title"], "Running low on Statin");
    dose(1).await; // 9: still low, no second alert
    advance_clock(&server, 0).await;
    assert_eq!(push.received("phone").len(), 1);
    let (status, body) = post(
        &server,
        &format!("/api/medications/{med}/inventory/adjust"),
        Some(&token),
        json!({ "adjustment": 20, "reason": "refill" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    dose(19).await; // 29 → 10: a new crossing after the refill
    advance_clock(&server, 0).await;
    let again = push.wait_for("phone", 2, Duration::from_secs(15)).await;
    assert_eq!(again.payload["title"], "Running low on Statin");

    // A dose larger than what is left empties the stock; the alert never counts below zero.
    let (status, body) = post(
        &server,
        &format!("/api/medications/{med}/inventory/adjust"),
        Some(&token),
        json!({ "adjustment": 5 }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    dose(20).await; // 15 → 0, 5 beyond the stock
    advance_clock(&server, 0).await;
    let out = push.wait_for("phone", 3, Duration::from_secs(15)).await;
    assert_eq!(out.payload["body"], "Statin is out of stock. Time to refill.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tests_preferences_and_subscriptions_check_their_input() {
    let (push, smtp, server) = push_and_mail().await;
    let token = account(&server, "gi@example.test").await;

    // Test notifications: none delivered is an error naming each channel; with no device
    // subscribed nothing could be tried, which the person can change (409, not 502).
    let (status, body) = send_test(&server, &token, json!(["push"])).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(body["code"], "delivery_failed");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("no device is subscribed"),
        "{body}"
    );
    register_device(&server, &token, &push, "phone").await;
    // A test goes the way a reminder goes: e-mail only with e-mail notifications on.
    let (status, body) = put(
        &server,
        "/api/notifications/preferences",
        &token,
        json!({ "email_notifications_enabled": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = send_test(&server, &token, json!(["push", "email"])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["message"], "Test notification sent!");
    assert_eq!(
        push.wait_for("phone", 1, Duration::from_secs(10)).await.payload["title"],
        "Pillbox test notification"
    );
    assert_eq!(
        smtp.wait_for("gi@example.test", 1).subject,
        "Pillbox test notification"
    );
    let rows = deliveries(&server, &token).await;
    assert!(
        rows.iter()
            .any(|r| r["kind"] == "test" && r["result"] == "failed")
    );
    assert_eq!(
        rows.iter()
            .filter(|r| r["kind"] == "test" && r["result"] == "sent")
            .count(),
        2
    );

    // Notifications speak the language and formats the person chose in the app.
    let (status, body) = put(
        &server,
        "/api/settings",
        &token,
        json!({ "language": "de", "dateFormat": "yyyy-MM-dd", "timeFormat": "24h" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = send_test(&server, &token, json!(["push", "email"])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let pushed = push.wait_for("phone", 2, Duration::from_secs(10)).await;
    assert_eq!(pushed.payload["title"], "Pillbox-Testbenachrichtigung");
    let body = pushed.payload["body"].as_str().unwrap();
    assert!(
        body.starts_with("Erinnerungen erreichen Sie hier. Gesendet am 20"),
        "{body}"
    );
    assert!(
        !body.contains("AM") && !body.contains("PM"),
        "24-hour clock: {body}"
    );
    let mail = smtp.wait_for("gi@example.test", 2);
    assert_eq!(mail.subject, "Pillbox-Testbenachrichtigung");
    assert!(mail.text.contains("Pillbox öffnen"), "{}", mail.text);
    let (status, _) = send_test(&server, &token, json!([])).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);

    // Subscriptions must point at a push service (or an allowed prefix) and carry real keys.
    let mut sub = push.subscribe("x").json;
    sub["endpoint"] = json!("http://169.254.169.254/latest/meta-data");
    let (status, body) = register_push(&server, &token, sub).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["message"], "This push service is not allowed");
    // A key too short, and one of the right length (65 bytes, uncompressed) that is not a
    // point on P-256: nothing could ever be encrypted to either.
    let off_the_curve = {
        let mut bytes = vec![7u8; 65];
        bytes[0] = 4;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    };
    for key in ["short".to_owned(), off_the_curve] {
        let mut sub = push.subscribe("y").json;
        sub["keys"]["p256dh"] = json!(key);
        let (status, body) = register_push(&server, &token, sub).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{key}");
        assert_eq!(body["message"], "Invalid push subscription");
        assert_eq!(body["code"], "invalid_subscription");
    }

    // Preferences: defaults, validation that changes nothing, the Settings view of them.
    let (_, prefs) = get_json(&server, "/api/notifications/preferences", Some(&token)).await;
    assert_eq!(prefs["data"]["default_reminder_minutes_before"], 15);
    assert_eq!(prefs["data"]["default_delivery_methods"], json!(["push"]));
    let (status, body) = put(
        &server,
        "/api/notifications/preferences",
        &token,
        json!({ "default_delivery_methods": [] }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["message"], "Choose at least one delivery method");
    let (status, _) = put(
        &server,
        "/api/notifications/preferences",
        &token,
        json!({ "default_reminder_minutes_before": 30, "default_delivery_methods": ["fax"] }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (_, prefs) = get_json(&server, "/api/notifications/preferences", Some(&token)).await;
    assert_eq!(
        prefs["data"]["default_reminder_minutes_before"], 15,
        "a refused change changes nothing"
    );
    let (status, body) = put(
        &server,
        "/api/notifications/settings",
        &token,
        json!({ "medication_reminders": true, "reminder_time_before": 30, "daily_reminder_time": "08:15",
                "push_notifications": true, "email_notifications": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["message"], "Notification settings updated successfully");
    let (_, prefs) = get_json(&server, "/api/notifications/preferences", Some(&token)).await;
    assert_eq!(prefs["data"]["default_reminder_minutes_before"], 30);
    assert_eq!(prefs["data"]["email_notifications_enabled"], true);
    let (_, settings) = get_json(&server, "/api/notifications/settings", Some(&token)).await;
    assert_eq!(settings["data"]["daily_reminder_time"], "08:15");

    // Per-medication preferences: the lead moves the planned reminders; others get 404.
    let before = common::advance(&server, 0).await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Daily", "unit": "tablets", "frequency": "daily" }),
    )
    .await;
    let (status, body) = put(
        &server,
        &format!("/api/notifications/medications/{med}/preferences"),
        &token,
        json!({ "reminder_minutes_before": 60, "delivery_methods": ["email"], "custom_message": "with food" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["uses_defaults"], false);
    let (_, list) = get_json(
        &server,
        "/api/notifications?status=scheduled&limit=50",
        Some(&token),
    )
    .await;
    let planned = list["data"].as_array().unwrap();
    assert!(!planned.is_empty());
    for r in planned {
        assert_lead(r, 60, before);
    }
    let other = account(&server, "hu@example.test").await;
    let (status, _) = get_json(
        &server,
        &format!("/api/notifications/medications/{med}/preferences"),
        Some(&other),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = put(
        &server,
        &format!("/api/notifications/medications/{med}/preferences"),
        &other,
        json!({ "reminder_minutes_before": 5 }),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = put(
        &server,
        &format!("/api/notifications/medications/{med}/preferences"),
        &token,
        json!({ "use_defaults": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["data"]["reminder_minutes_before"], 30);
    assert_eq!(body["data"]["uses_defaults"], true);

    // Turning reminders off removes the planned ones.
    put(
        &server,
        "/api/notifications/settings",
        &token,
        json!({ "medication_reminders": false }),
    )
    .await;
    let (_, list) = get_json(&server, "/api/notifications?status=scheduled", Some(&token)).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 0, "{list}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_test_reports_each_channel_and_fails_when_none_delivered() {
    let (_push, smtp, server) = push_and_mail().await;
    let token = account(&server, "io@example.test").await;
    let (status, body) = put(
        &server,
        "/api/notifications/preferences",
        &token,
        json!({ "email_notifications_enabled": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let data = server.data_dir.clone();
    let run = move |args: &'static [&'static str], with_smtp: Option<u16>| {
        let data = data.clone();
        let mut command = common::pillbox(&data);
        command.args(args);
        if let Some(port) = with_smtp {
            command
                .env("PILLBOX_SMTP_HOST", "127.0.0.1")
                .env("PILLBOX_SMTP_PORT", port.to_string())
                .env("PILLBOX_SMTP_TLS", "none")
                .env("PILLBOX_SMTP_FROM", "Pillbox <pillbox@example.test>");
        }
        command.output().unwrap()
    };
    let smtp_port = smtp.port;
    let sent = tokio::task::spawn_blocking({
        let run = run.clone();
        move || {
            run(
                &["send-test", "--email", "io@example.test", "--method", "email"],
                Some(smtp_port),
            )
        }
    })
    .await
    .unwrap();
    assert!(sent.status.success(), "{}", String::from_utf8_lossy(&sent.stderr));
    assert!(String::from_utf8_lossy(&sent.stdout).contains("email: sent"));
    assert_eq!(
        smtp.wait_for("io@example.test", 1).subject,
        "Pillbox test notification"
    );

    let failed = tokio::task::spawn_blocking(move || run(&["send-test", "--email", "io@example.test"], None))
        .await
        .unwrap();
    assert!(!failed.status.success());
    let out = String::from_utf8_lossy(&failed.stdout);
    assert!(out.contains("push: failed: no device is subscribed"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_medication_whose_only_method_is_off_warns_and_its_reminder_fails_in_the_history() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| engine_env(c, &push));
    let token = account(&server, "gu@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    let by_mail = medication(
        &server,
        &token,
        json!({ "name": "Thyroxine", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    let by_push = medication(
        &server,
        &token,
        json!({ "name": "Iron", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    let prefs = format!("/api/notifications/medications/{by_mail}/preferences");
    let (status, body) = put(&server, &prefs, &token, json!({ "delivery_methods": ["email"] })).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // Its own method is e-mail while e-mail is off: the medication says so.
    let warnings = |list: &Value| -> Vec<(String, Value)> {
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["name"].as_str().unwrap().to_owned(),
                    m["delivery_warning"].clone(),
                )
            })
            .collect()
    };
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(
        warnings(&list),
        [
            ("Iron".to_owned(), Value::Null),
            ("Thyroxine".to_owned(), json!("no_method"))
        ]
    );
    let (_, one) = get_json(&server, &format!("/api/medications/{by_mail}"), Some(&token)).await;
    assert_eq!(one["data"]["delivery_warning"], "no_method");
    let (_, one) = get_json(&server, &format!("/api/medications/{by_push}"), Some(&token)).await;
    assert_eq!(one["data"]["delivery_warning"], Value::Null);

    // Its reminder goes out by no method: failed, with the reason, in the delivery history.
    let id = remind_in(&server, &token, by_mail, 2).await;
    advance_clock(&server, 2).await;
    let failed = wait_reminder(&server, &token, id, Duration::from_secs(20), |r| {
        r["status"] != "scheduled"
    })
    .await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(
        failed["failure_reason"],
        "No delivery method is turned on: E-mail notifications are turned off in your notification settings"
    );
    let rows = deliveries(&server, &token).await;
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        (
            &rows[0]["kind"],
            &rows[0]["channel"],
            &rows[0]["result"],
            &rows[0]["notification_id"],
            &rows[0]["medication_name"]
        ),
        (
            &json!("reminder"),
            &json!("email"),
            &json!("failed"),
            &json!(id),
            &json!("Thyroxine")
        )
    );
    assert_eq!(
        rows[0]["error"],
        "E-mail notifications are turned off in your notification settings"
    );
    assert_eq!(push.hits("phone"), 0, "not quietly sent some other way");
    // "Send now" says the same.
    let later = remind_in(&server, &token, by_mail, 3600).await;
    let (status, body) = post(
        &server,
        &format!("/api/notifications/{later}/send"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::CONFLICT,
            Some(
                "The notification was not sent: No delivery method is turned on: E-mail notifications are turned off in your notification settings"
            )
        )
    );
    assert_eq!(deliveries(&server, &token).await.len(), 2);

    // E-mail switched on, on a server that cannot send e-mail: still no way to reach them.
    let (status, body) = put(
        &server,
        "/api/notifications/preferences",
        &token,
        json!({ "email_notifications_enabled": true }),
    )
    .await;
    assert_eq!(
        (status, &body["data"]["email_available"]),
        (StatusCode::OK, &json!(false))
    );
    let (_, one) = get_json(&server, &format!("/api/medications/{by_mail}"), Some(&token)).await;
    assert_eq!(one["data"]["delivery_warning"], "email_unavailable");
    // Back to the defaults (push): the warning goes.
    let (status, _) = put(&server, &prefs, &token, json!({ "use_defaults": true })).await;
    assert_eq!(status, StatusCode::OK);
    let (_, one) = get_json(&server, &format!("/api/medications/{by_mail}"), Some(&token)).await;
    assert_eq!(one["data"]["delivery_warning"], Value::Null);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_take_link_on_stock_stored_in_units_it_cannot_count_records_the_dose() {
    let push = PushService::start().await;
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("data");
    let server = Server::start_in(&data, |c| engine_env(c, &push)).unwrap();
    let token = account(&server, "hu@example.test").await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Lisinopril", "unit": "mg", "frequency": "as_needed", "default_quantity": 10,
                "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "pill_bottle",
                               "container_quantity": 1, "item_quantity": 30, "item_strength": 10,
                               "item_unit": "tablets" } }),
    )
    .await;
    let (status, _) = server.terminate();
    assert!(status.success());
    // As an older version stored it: tablets with no strength for a medication in mg.
    rusqlite::Connection::open(data.join("pillbox.sqlite3"))
        .unwrap()
        .execute(
            "UPDATE inventories SET item_strength = NULL WHERE medication_id = ?1",
            [med],
        )
        .unwrap();
    let server = Server::start_in(&data, |c| engine_env(c, &push)).unwrap();
    register_device(&server, &token, &push, "phone").await;
    let id = remind_in(&server, &token, med, 2).await;
    advance_clock(&server, 2).await;
    let pushed = push.wait_for("phone", 1, Duration::from_secs(20)).await;
    let take_url = pushed.payload["takeUrl"].as_str().unwrap().to_owned();
    let path = format!("/api/notifications/take/{}", take_token(&take_url));

    let (status, logged) = post(&server, &path, None, json!({ "status": "taken" })).await;
    assert_eq!(status, StatusCode::CREATED, "the dose is recorded: {logged}");
    assert_eq!(logged["data"]["dosage_id"], id);
    assert_eq!(logged["data"]["status"], "taken");
    assert_eq!(logged["data"]["warning_code"], "stock_unit_mismatch");
    assert!(
        logged["data"]["warning"]
            .as_str()
            .unwrap()
            .contains("enter how many mg one tablet holds (item strength)"),
        "{logged}"
    );
    let (_, inventory) = get_json(
        &server,
        &format!("/api/medications/{med}/inventory"),
        Some(&token),
    )
    .await;
    assert_eq!(inventory["data"]["current_quantity"], 30, "stock left alone");
    let (_, ledger) = get_json(
        &server,
        &format!("/api/medications/{med}/inventory/ledger"),
        Some(&token),
    )
    .await;
    assert_eq!(ledger["data"].as_array().unwrap().len(), 1, "{ledger}");
    let (_, history) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(history["pagination"]["total"], 1);
    let (status, _) = post(&server, &path, None, json!({ "status": "taken" })).await;
    assert_eq!(status, StatusCode::CONFLICT, "still logged once");
}

/// The `delivery_warning` of a medication in the list, on its own and on Today.
async fn warnings_of(server: &Server, token: &str, id: i64) -> [Value; 3] {
    let (_, list) = get_json(server, "/api/medications", Some(token)).await;
    let listed = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("{list}"))["delivery_warning"]
        .clone();
    let (_, one) = get_json(server, &format!("/api/medications/{id}"), Some(token)).await;
    let (_, today) = get_json(server, "/api/medications/today", Some(token)).await;
    let on_today = today["data"]["doses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["medication_id"] == id)
        .unwrap_or_else(|| panic!("{today}"))["delivery_warning"]
        .clone();
    [listed, one["data"]["delivery_warning"].clone(), on_today]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delivery_warning_says_why_reminders_reach_nobody_and_goes_once_fixed() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| engine_env(c, &push));
    let token = account(&server, "ka@example.test").await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Ramipril", "unit": "tablets", "frequency": "daily",
                "schedule": { "times": ["00:00", "12:00", "23:59"] } }),
    )
    .await;
    let same = |code: Value| [code.clone(), code.clone(), code];

    // Push is its only way and no device is subscribed.
    assert_eq!(
        warnings_of(&server, &token, med).await,
        same(json!("no_push_device"))
    );
    // A device subscribes: the (kept) list answer says so at once.
    register_device(&server, &token, &push, "phone").await;
    assert_eq!(warnings_of(&server, &token, med).await, same(Value::Null));

    // Its own method is e-mail: off, then on while this server cannot send e-mail.
    let prefs = format!("/api/notifications/medications/{med}/preferences");
    let (status, body) = put(&server, &prefs, &token, json!({ "delivery_methods": ["email"] })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(warnings_of(&server, &token, med).await, same(json!("no_method")));
    let global = "/api/notifications/preferences";
    let (status, _) = put(
        &server,
        global,
        &token,
        json!({ "email_notifications_enabled": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        warnings_of(&server, &token, med).await,
        same(json!("email_unavailable"))
    );

    // Back to push, with push switched off everywhere: every method is off.
    let (status, _) = put(&server, &prefs, &token, json!({ "use_defaults": true })).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = put(
        &server,
        global,
        &token,
        json!({ "push_notifications_enabled": false }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(warnings_of(&server, &token, med).await, same(json!("no_method")));
    // Reminders off entirely is a choice, not a warning.
    let (status, _) = put(&server, global, &token, json!({ "reminders_enabled": false })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(warnings_of(&server, &token, med).await, same(Value::Null));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_less_medication_with_the_email_fallback_reaches_the_person_by_email() {
    let (_push, _smtp, server) = push_and_mail().await;
    let token = account(&server, "le@example.test").await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Sertraline", "unit": "tablets", "frequency": "daily",
                "schedule": { "times": ["00:00", "12:00", "23:59"] } }),
    )
    .await;
    let same = |code: Value| [code.clone(), code.clone(), code];
    assert_eq!(
        warnings_of(&server, &token, med).await,
        same(json!("no_push_device"))
    );
    let global = "/api/notifications/preferences";
    let (status, body) = put(
        &server,
        global,
        &token,
        json!({ "email_notifications_enabled": true }),
    )
    .await;
    assert_eq!(
        (status, &body["data"]["email_fallback_enabled"]),
        (StatusCode::OK, &json!(true)),
        "on by default once e-mail is on"
    );
    assert_eq!(warnings_of(&server, &token, med).await, same(Value::Null));
    let (status, body) = put(
        &server,
        global,
        &token,
        json!({ "email_fallback_enabled": false }),
    )
    .await;
    assert_eq!(
        (status, &body["data"]["email_fallback_enabled"]),
        (StatusCode::OK, &json!(false))
    );
    assert_eq!(
        warnings_of(&server, &token, med).await,
        same(json!("no_push_device"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_email_notifications_off_no_reminder_email_is_sent_and_the_fallback_is_a_choice() {
    let (push, smtp, server) = push_and_mail().await;
    let token = account(&server, "mo@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    push.answer("phone", StatusCode::INTERNAL_SERVER_ERROR);
    let med = medication(
        &server,
        &token,
        json!({ "name": "Lisinopril", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    let global = "/api/notifications/preferences";
    let (_, prefs) = get_json(&server, global, Some(&token)).await;
    assert_eq!(
        (
            &prefs["data"]["email_notifications_enabled"],
            &prefs["data"]["email_fallback_enabled"]
        ),
        (&json!(false), &json!(false)),
        "no fallback while e-mail notifications are off"
    );

    // Every push fails and e-mail notifications are off: no e-mail, whatever happens.
    let first = remind_in(&server, &token, med, 1).await;
    advance_clock(&server, 1).await;
    advance_until(&server, &token, first, 5, |r| r["status"] == "failed").await;
    assert!(push.hits("phone") > 0, "the push was tried");
    let rows = deliveries(&server, &token).await;
    assert!(
        rows.iter().all(|r| r["channel"] == "push"),
        "no e-mail attempt at all: {rows:?}"
    );
    assert_eq!(rows[0]["result_code"], "push_failed");

    // E-mail notifications on: the fallback is on with them, and the e-mail goes out.
    let (status, _) = put(
        &server,
        global,
        &token,
        json!({ "email_notifications_enabled": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let second = remind_in(&server, &token, med, 1).await;
    advance_clock(&server, 1).await;
    assert_eq!(smtp.wait_for("mo@example.test", 1).subject, "Time for Lisinopril");
    wait_reminder(&server, &token, second, Duration::from_secs(10), |r| {
        r["status"] == "sent"
    })
    .await;
    let rows = deliveries(&server, &token).await;
    let by_mail = rows
        .iter()
        .find(|r| r["notification_id"] == second && r["channel"] == "email")
        .unwrap_or_else(|| panic!("{rows:?}"));
    assert_eq!(
        (
            &by_mail["fallback"],
            &by_mail["result_code"],
            &by_mail["result_params"]["address"]
        ),
        (&json!(true), &json!("email_sent"), &json!("mo@example.test"))
    );
    assert_eq!(
        (&by_mail["title_code"], &by_mail["title_params"]["name"]),
        (&json!("dose"), &json!("Lisinopril"))
    );

    // The person turns the fallback off: e-mail stays on for what chooses it, no fallback.
    let (status, _) = put(
        &server,
        global,
        &token,
        json!({ "email_fallback_enabled": false }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let third = remind_in(&server, &token, med, 1).await;
    advance_clock(&server, 1).await;
    advance_until(&server, &token, third, 5, |r| r["status"] == "failed").await;
    assert_eq!(smtp.count_for("mo@example.test"), 1, "no fallback e-mail");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_notification_goes_the_way_a_reminder_goes_and_reports_each_step() {
    let (push, smtp, server) = push_and_mail().await;
    let token = account(&server, "ny@example.test").await;
    let steps = |body: &Value| -> Vec<(String, bool, Value)> {
        body["data"]["results"]
            .as_array()
            .unwrap_or_else(|| panic!("{body}"))
            .iter()
            .map(|r| {
                (
                    r["code"].as_str().unwrap().to_owned(),
                    r["ok"].as_bool().unwrap(),
                    r["params"].clone(),
                )
            })
            .collect()
    };

    // No device, e-mail notifications off: the push reaches nobody and no e-mail stands in.
    let (status, body) = send_test(&server, &token, json!(["push"])).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(
        steps(&body),
        [
            (
                "push_no_device".to_owned(),
                false,
                json!({ "detail": "no device is subscribed to push notifications" })
            ),
            (
                "fallback_skipped".to_owned(),
                false,
                json!({ "reason": "email_off" })
            ),
        ]
    );
    assert_eq!(smtp.count_for("ny@example.test"), 0);

    // E-mail on: the fallback sends the test by e-mail, as it would a reminder.
    let global = "/api/notifications/preferences";
    let (status, _) = put(
        &server,
        global,
        &token,
        json!({ "email_notifications_enabled": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = send_test(&server, &token, json!(["push"])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let taken = steps(&body);
    assert_eq!(
        (taken[0].0.as_str(), taken[1].0.as_str(), &taken[1].2),
        (
            "push_no_device",
            "email_sent",
            &json!({ "address": "ny@example.test" })
        )
    );
    assert_eq!(body["data"]["results"][1]["fallback"], true);
    assert_eq!(
        smtp.wait_for("ny@example.test", 1).subject,
        "Pillbox test notification"
    );

    // Two devices, one of them failing: the push reached one, so no e-mail.
    register_device(&server, &token, &push, "phone").await;
    register_device(&server, &token, &push, "laptop").await;
    push.answer("laptop", StatusCode::INTERNAL_SERVER_ERROR);
    let (status, body) = send_test(&server, &token, json!(["push"])).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        steps(&body),
        [(
            "push_sent".to_owned(),
            true,
            json!({ "delivered": 1, "devices": 2 })
        )]
    );
    assert_eq!(smtp.count_for("ny@example.test"), 1);

    // Push switched off in the settings: the test skips it, as a reminder would.
    let (status, _) = put(
        &server,
        global,
        &token,
        json!({ "push_notifications_enabled": false }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = send_test(&server, &token, json!(["push"])).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert_eq!(steps(&body)[0].0, "push_off");
    assert_eq!(push.hits("phone"), 1);

    // The delivery history keeps the codes.
    let rows = deliveries(&server, &token).await;
    assert_eq!(
        (&rows[0]["result_code"], &rows[0]["title_code"]),
        (&json!("push_off"), &json!("test"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_status_says_whether_the_server_knows_this_browser() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| engine_env(c, &push));
    let token = account(&server, "ol@example.test").await;
    let sub = push.subscribe("phone");
    let endpoint = sub.json["endpoint"].clone();
    let status_of = |endpoint: Value| {
        let (server, token) = (&server, &token);
        async move {
            let (status, body) = post(
                server,
                "/api/notifications/push/status",
                Some(token),
                json!({ "endpoint": endpoint }),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{body}");
            (
                body["data"]["registered"].clone(),
                body["data"]["devices"].clone(),
            )
        }
    };
    assert_eq!(status_of(endpoint.clone()).await, (json!(false), json!(0)));
    let (status, body) = post(
        &server,
        "/api/notifications/push/register",
        Some(&token),
        json!({ "subscription": sub.json, "userAgent": "test browser" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(status_of(endpoint).await, (json!(true), json!(1)));
    assert_eq!(
        status_of(json!("https://elsewhere.test/x")).await,
        (json!(false), json!(1))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_history_title_of_someone_elses_dose_says_whose_it_is() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| engine_env(c, &push));
    let token = account(&server, "rosa@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    let (status, tom) = post(&server, "/api/people", Some(&token), json!({ "name": "Tom" })).await;
    assert_eq!(status, StatusCode::CREATED, "{tom}");
    let toms = medication(
        &server,
        &token,
        json!({ "name": "Amoxicillin", "unit": "tablets", "frequency": "as_needed",
                "person_id": tom["data"]["id"] }),
    )
    .await;
    let own = medication(
        &server,
        &token,
        json!({ "name": "Iron", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    let for_tom = remind_in(&server, &token, toms, 1).await;
    let for_me = remind_in(&server, &token, own, 1).await;
    advance_clock(&server, 1).await;
    for id in [for_tom, for_me] {
        wait_reminder(&server, &token, id, Duration::from_secs(10), |r| {
            r["status"] == "sent"
        })
        .await;
    }
    // The row of the history whose `field` is `value`.
    let row = |rows: Vec<Value>, field: &str, value: &Value| {
        rows.iter()
            .find(|r| &r[field] == value)
            .cloned()
            .unwrap_or_else(|| panic!("no {field} {value} in {rows:?}"))
    };
    let rows = deliveries(&server, &token).await;
    let toms_row = row(rows.clone(), "notification_id", &json!(for_tom));
    let own_row = row(rows, "notification_id", &json!(for_me));
    // The words it went out with name Tom, and so do the values the app translates.
    assert_eq!(
        (
            &toms_row["title"],
            &toms_row["title_code"],
            &toms_row["title_params"]
        ),
        (
            &json!("Tom: Time for Amoxicillin"),
            &json!("dose"),
            &json!({ "name": "Amoxicillin", "person": "Tom" })
        )
    );
    // The account holder's own dose names nobody.
    assert_eq!(
        (&own_row["title"], &own_row["title_params"]),
        (&json!("Time for Iron"), &json!({ "name": "Iron" }))
    );

    // Tom's medication is deleted: the history keeps its row and its name, and no longer
    // claims to know whose it was.
    let (status, body) = call(
        &server,
        Method::DELETE,
        &format!("/api/medications/{toms}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let kept = row(deliveries(&server, &token).await, "id", &toms_row["id"]);
    assert_eq!(
        (&kept["title"], &kept["title_params"]),
        (
            &json!("Tom: Time for Amoxicillin"),
            &json!({ "name": "Amoxicillin" })
        )
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_email_only_medication_warns_while_the_address_is_unverified_and_not_once_it_is() {
    let push = PushService::start().await;
    let smtp = SmtpSink::start();
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("data");
    let with_mail = |c: &mut Command| {
        engine_env(c, &push);
        smtp.configure(c);
    };
    // Signed up while the server sent e-mail: the address waits for its link.
    let server = Server::start_in(&data, with_mail).unwrap();
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "uma@example.test", "password": "secret123" }),
    )
    .await;
    assert_eq!(
        (status, &body["data"]["requiresEmailVerification"]),
        (StatusCode::CREATED, &json!(true)),
        "{body}"
    );
    let link = smtp.wait_for("uma@example.test", 1).text;
    let verification = link
        .split("/verify-email/")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no verification link in {link}"))
        .to_owned();

    // For a while the server has no mail server (so Uma could sign in), and Uma chooses
    // e-mail for a medication's reminders.
    let server = restart(server, &data, |c| engine_env(c, &push));
    let token = common::login(&server, "uma@example.test").await;
    let med = medication(
        &server,
        &token,
        json!({ "name": "Levothyroxine", "unit": "tablets", "frequency": "daily",
                "schedule": { "times": ["00:00", "12:00", "23:59"] } }),
    )
    .await;
    let prefs = format!("/api/notifications/medications/{med}/preferences");
    let (status, body) = put(&server, &prefs, &token, json!({ "delivery_methods": ["email"] })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = put(
        &server,
        "/api/notifications/preferences",
        &token,
        json!({ "email_notifications_enabled": true }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let same = |code: Value| [code.clone(), code.clone(), code];
    assert_eq!(
        warnings_of(&server, &token, med).await,
        same(json!("email_unavailable"))
    );

    // E-mail is back, the address is still unverified: nothing can reach Uma, and the list,
    // the medication and Today say why.
    let server = restart(server, &data, with_mail);
    assert_eq!(
        warnings_of(&server, &token, med).await,
        same(json!("email_unverified"))
    );

    // Uma follows the link: the warning goes, from the (kept) list answer too.
    let (status, body) = get_json(&server, &format!("/api/auth/verify-email/{verification}"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(warnings_of(&server, &token, med).await, same(Value::Null));
}

/// Offers a push subscription for the account, as a browser's app does.
async fn register_push(server: &Server, token: &str, subscription: Value) -> (StatusCode, Value) {
    post(
        server,
        "/api/notifications/push/register",
        Some(token),
        json!({ "subscription": subscription }),
    )
    .await
}
