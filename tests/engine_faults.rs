//! The reminder engine when things go wrong, against the real binary: a mail server that
//! accepts connections and never answers must hold up no request, no push and no shutdown;
//! a server killed with SIGKILL in the middle of sending must, once restarted, deliver every
//! reminder it had claimed, and each device must see each reminder once.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::{TcpListener, TcpStream};
use std::process::Command;
use std::time::{Duration, Instant};

use common::push::PushService;
use common::{Server, SmtpSink, advance_clock, call, deliveries, get_json, post, register_device, remind_in};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Accepts SMTP connections and never says a word (not even the greeting); the
/// connections stay open for the test's life.
fn silent_smtp_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held: Vec<TcpStream> = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

fn smtp_on(command: &mut Command, port: u16) {
    command
        .env("PILLBOX_SMTP_HOST", "127.0.0.1")
        .env("PILLBOX_SMTP_PORT", port.to_string())
        .env("PILLBOX_SMTP_TLS", "none")
        .env("PILLBOX_SMTP_FROM", "Pillbox <pillbox@example.test>");
}

/// A server that may push to `push`, with a test clock and an hourly timer.
fn engine_env(command: &mut Command, push: &PushService) {
    common::with_test_clock(command);
    command
        .env("PILLBOX_SIGNUPS", "open")
        .env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
        .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix())
        .env("PILLBOX_PUBLIC_URL", "http://pillbox.test");
}

async fn account(server: &Server, email: &str) -> String {
    common::verified_account(server, email).await
}

async fn medication(server: &Server, token: &str, name: &str) -> i64 {
    let (status, created) = post(
        server,
        "/api/medications",
        Some(token),
        json!({ "name": name, "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["data"]["id"].as_i64().unwrap()
}

async fn reminders(server: &Server, token: &str) -> Vec<Value> {
    let (_, body) = get_json(server, "/api/notifications?limit=200", Some(token)).await;
    body["data"].as_array().unwrap().clone()
}

/// Sends SIGTERM and answers how long the server took to exit, and its log.
fn stop(server: Server) -> (Duration, String) {
    let started = Instant::now();
    let (status, log) = server.terminate();
    assert!(status.success(), "{log}");
    (started.elapsed(), log)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mail_server_that_never_answers_holds_up_no_request_no_push_and_no_shutdown() {
    let silent = silent_smtp_server();
    let push = PushService::start().await;
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("data");
    // smtp.timeout_seconds keeps its default (30 s): every wait below is shorter.
    let server = Server::start_in(&data, |c| {
        engine_env(c, &push);
        smtp_on(c, silent);
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "1");
    })
    .unwrap();

    // Registration and a new link answer at once; their e-mails wait in the queue.
    let started = Instant::now();
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "new@example.test", "password": "secret123" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["data"]["verificationEmailSent"], true);
    let (status, _) = post(
        &server,
        "/api/auth/resend-verification",
        None,
        json!({ "email": "new@example.test" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "registration waited for the mail server: {:?}",
        started.elapsed()
    );

    // A reminder by push and e-mail: the push arrives while the mail server says nothing.
    let token = account(&server, "ada@example.test").await;
    let (status, body) = call(
        &server,
        Method::PUT,
        "/api/notifications/preferences",
        Some(&token),
        Some(json!({ "email_notifications_enabled": true, "default_delivery_methods": ["push", "email"] })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    register_device(&server, &token, &push, "phone").await;
    let med = medication(&server, &token, "Aspirin").await;
    let id = remind_in(&server, &token, med, 1).await;
    let pushed = push.wait_for("phone", 1, Duration::from_secs(10)).await;
    assert_eq!(pushed.payload["title"], "Time for Aspirin");

    // Three SMTP conversations hang; SIGTERM still ends the server promptly.
    let (took, log) = stop(server);
    assert!(took < Duration::from_secs(10), "SIGTERM took {took:?}:\n{log}");

    // A mail server that works: what was queued goes out after the restart, once each.
    let smtp = SmtpSink::start();
    let server = Server::start_in(&data, |c| {
        engine_env(c, &push);
        smtp.configure(c);
    })
    .unwrap();
    let links: Vec<_> = (1..=2).map(|n| smtp.wait_for("new@example.test", n)).collect();
    assert!(links.iter().all(|m| m.text.contains("/verify-email/")));
    let reminder_mail = smtp.wait_for("ada@example.test", 1);
    assert_eq!(reminder_mail.subject, "Time for Aspirin");
    assert!(
        reminder_mail
            .raw
            .lines()
            .any(|l| l.to_ascii_lowercase().starts_with("message-id: <reminder.")),
        "the reminder's own Message-ID:\n{}",
        reminder_mail.raw
    );
    let rows = deliveries(&server, &token).await;
    let mut channels: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| r["notification_id"] == id)
        .map(|r| (r["channel"].as_str().unwrap(), r["result"].as_str().unwrap()))
        .collect();
    channels.sort_unstable();
    assert_eq!(channels, [("email", "sent"), ("push", "sent")], "{rows:?}");
    assert_eq!(push.received("phone").len(), 1, "the push is not sent again");

    // Accepted mail is never sent again, restart or not.
    stop(server);
    let server = Server::start_in(&data, |c| {
        engine_env(c, &push);
        smtp.configure(c);
    })
    .unwrap();
    advance_clock(&server, 3600).await;
    assert_eq!(smtp.count_for("new@example.test"), 2);
    let firsts = smtp
        .messages()
        .into_iter()
        .filter(|m| m.to.contains("ada@example.test") && m.subject == "Time for Aspirin")
        .count();
    assert_eq!(firsts, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_mid_send_delivers_every_reminder_once_per_device_after_the_restart() {
    const REMINDERS: usize = 30;
    let push = PushService::start().await;
    let temp = tempfile::tempdir().unwrap();
    let data = temp.path().join("data");
    let server = Server::start_in(&data, |c| engine_env(c, &push)).unwrap();
    let token = common::register(&server, "kim@example.test").await;
    register_device(&server, &token, &push, "phone").await;
    register_device(&server, &token, &push, "tablet").await;
    let med = medication(&server, &token, "Levothyroxine").await;
    let mut ids = BTreeSet::new();
    for _ in 0..REMINDERS {
        ids.insert(remind_in(&server, &token, med, 1).await);
    }

    // The tablet's push service stalls, so the kill lands while its pushes are in flight
    // and after every push to the phone has been answered.
    push.delay("tablet", Duration::from_secs(60));
    let clock = server.url("/api/test/clock");
    // It answers only after the pass, which the kill cuts short.
    let _pass = tokio::spawn(async move {
        let _ = common::client()
            .post(clock)
            .json(&json!({ "advance_seconds": 5 }))
            .send()
            .await;
    });
    push.wait_for("phone", REMINDERS, Duration::from_secs(30)).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while push.hits("tablet") < REMINDERS {
        assert!(
            Instant::now() < deadline,
            "the tablet got {} pushes",
            push.hits("tablet")
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The phone's answers are noted (each accepted push has its sent_at); then SIGKILL.
    let database = data.join("pillbox.sqlite3");
    let noted = move || -> i64 {
        let conn = rusqlite::Connection::open(&database).unwrap();
        conn.busy_timeout(Duration::from_secs(5)).unwrap();
        conn.query_row(
            "SELECT count(*) FROM push_sends s JOIN push_subscriptions p ON p.id = s.subscription_id
             WHERE p.endpoint LIKE '%/push/phone' AND s.sent_at IS NOT NULL",
            [],
            |row| row.get(0),
        )
        .unwrap()
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while noted() < REMINDERS as i64 {
        assert!(
            Instant::now() < deadline,
            "{} of the phone's pushes noted",
            noted()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(push.answered("tablet"), 0, "the tablet's pushes are in flight");
    Command::new("kill")
        .args(["-KILL", &server.pid().to_string()])
        .status()
        .unwrap();
    drop(server);

    push.delay("tablet", Duration::ZERO);
    let restarted = Instant::now();
    // The usual timer now (its default is 30 s): the claims the killed server held must
    // not keep the reminders back until they lapse.
    let server = Server::start_in(&data, |c| {
        engine_env(c, &push);
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "5");
    })
    .unwrap();
    let topics = |device: &str| -> BTreeMap<String, usize> {
        let mut count = BTreeMap::new();
        for got in push.received(device) {
            let topic = got
                .topic
                .unwrap_or_else(|| panic!("a push without a Topic: {}", got.payload));
            *count.entry(topic).or_insert(0) += 1;
        }
        count
    };
    loop {
        if topics("tablet").len() == REMINDERS {
            break;
        }
        assert!(
            restarted.elapsed() < Duration::from_secs(120),
            "2 minutes after the restart the tablet has {} of {REMINDERS} reminders:\n{}",
            topics("tablet").len(),
            server.log()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Whatever is due now has been handled.
    advance_clock(&server, 0).await;

    // Each reminder once per device: the phone's pushes were answered before the kill and
    // are not sent again; the tablet's, cut off, are sent again under the same topic,
    // which a push service uses to replace the first copy if it ever arrived.
    let expected: BTreeSet<String> = ids.iter().map(|id| format!("r{id}n0")).collect();
    let phone = topics("phone");
    assert_eq!(phone.keys().cloned().collect::<BTreeSet<_>>(), expected);
    assert!(
        phone.values().all(|n| *n == 1),
        "the phone got repeats: {phone:?}"
    );
    let tablet = topics("tablet");
    assert_eq!(tablet.keys().cloned().collect::<BTreeSet<_>>(), expected);
    assert!(tablet.values().all(|n| *n <= 2), "{tablet:?}");
    for got in push
        .received("tablet")
        .iter()
        .chain(push.received("phone").iter())
    {
        let tag = got.payload["tag"].as_str().unwrap();
        assert_eq!(
            got.topic.as_deref().map(|t| t.trim_end_matches("n0")),
            Some(format!("r{}", tag.trim_start_matches("reminder-")).as_str()),
            "the topic names the reminder the payload is about"
        );
    }
    assert!(push.rejected().is_empty(), "{:?}", push.rejected());

    // Every reminder is sent, with one push row in its history.
    let listed = reminders(&server, &token).await;
    assert_eq!(listed.len(), REMINDERS);
    assert!(listed.iter().all(|r| r["status"] == "sent"), "{listed:?}");
    let rows = deliveries(&server, &token).await;
    assert_eq!(rows.len(), REMINDERS, "{rows:?}");
    assert!(
        rows.iter()
            .all(|r| r["channel"] == "push" && r["result"] == "sent")
    );
    let (status, log) = server.terminate();
    assert!(status.success(), "{log}");
    assert!(log.contains("the last run stopped while sending"), "{log}");
}

async fn day_history(server: &Server, token: &str) -> Vec<Value> {
    let (status, body) = get_json(server, "/api/medications/history?limit=100", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

/// A Pi whose clock runs ahead until NTP sets it back: the dose recorded "missed" while the
/// clock was ahead is withdrawn, its reminder arrives at its real time once, the dose is
/// missed only after its real grace, and `/health` says the clock jumped.
#[tokio::test]
async fn a_clock_that_jumps_ahead_and_back_leaves_no_missed_dose_in_the_future_and_loses_no_reminder() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| {
        common::with_clock_start(c, "2026-03-02T06:00:00Z");
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
            .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix());
    });
    let token = common::register(&server, "pi@example.org").await;
    common::save_settings(&server, &token, json!({ "timezone": "UTC" })).await;
    register_device(&server, &token, &push, "phone").await;
    common::medication(
        &server,
        &token,
        json!({ "name": "Aspirin", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                "schedule": { "times": ["08:00"] } }),
    )
    .await;
    let health = || async {
        let (status, body) = get_json(&server, "/health", None).await;
        assert_eq!(
            status,
            StatusCode::OK,
            "a jump degrades, it fails nothing: {body}"
        );
        body["data"].clone()
    };
    assert_eq!(health().await["checks"]["clock"], "ok");

    // At 06:00 the clock is set to 10:30: the 08:00 dose's grace (60 min) looks over.
    common::jump_clock(&server, 4 * 3600 + 1800).await;
    let entries = day_history(&server, &token).await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["status"], "missed");
    let seen = health().await;
    assert_eq!(seen["status"], "degraded");
    // "now" is when the watch looked, a moment after the jump on a busy machine.
    let said = seen["checks"]["clock"].as_str().unwrap_or_default();
    assert!(
        said.starts_with("the system clock jumped forward 4 h 30 min (now 2026-03-02T10:3"),
        "{said}"
    );
    assert!(push.received("phone").is_empty(), "nothing was sent hours late");

    // NTP sets it back to 06:30: the dose is not missed yet.
    common::jump_clock(&server, -4 * 3600).await;
    assert_eq!(day_history(&server, &token).await, Vec::<Value>::new());
    assert!(
        health().await["checks"]["clock"]
            .as_str()
            .unwrap()
            .starts_with("the system clock jumped back 4 h"),
    );
    assert!(
        server.logged("the system clock jumped forward 4 h 30 min").await,
        "{}",
        server.log()
    );
    assert!(
        server.logged("the system clock jumped back 4 h").await,
        "{}",
        server.log()
    );

    // Its reminder arrives at its time, once; the dose is missed after its real grace.
    advance_clock(&server, 3600 + 14 * 60).await;
    assert!(push.received("phone").is_empty(), "not before its time");
    advance_clock(&server, 16 * 60).await;
    push.wait_for("phone", 1, Duration::from_secs(10)).await;
    advance_clock(&server, 3600).await;
    let entries = day_history(&server, &token).await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["status"], "missed");
    assert!(
        entries[0]["taken"]
            .as_str()
            .unwrap()
            .starts_with("2026-03-02T08:00"),
        "{entries:?}"
    );
    let got: Vec<_> = push.received("phone").into_iter().map(|r| r.payload).collect();
    let reminders = got.iter().filter(|p| p["title"] == "Time for Aspirin").count();
    assert_eq!(reminders, 1, "reminded once: {got:?}");
    // And the phone is told it was missed (the one withdrawal of the run).
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1]["outcome"], "missed");
}

/// The dispatcher sleeps until the next reminder is due, not until its next tick: with a
/// tick of an hour, a reminder set for a few seconds from now still arrives, and it is not
/// sent before its time. (How late it leaves, to the millisecond, is measured by
/// `benchmarks/reminders.py --lateness`.)
#[tokio::test]
async fn a_reminder_planned_between_ticks_leaves_at_its_time_not_at_the_next_tick() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| {
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
            .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix());
    });
    let token = common::register(&server, "prompt@example.org").await;
    register_device(&server, &token, &push, "phone").await;
    let med = common::medication(
        &server,
        &token,
        json!({ "name": "Aspirin", "unit": "tablets", "frequency": "as_needed", "default_quantity": 1 }),
    )
    .await;
    let asked = Instant::now();
    remind_in(&server, &token, med, 3).await;
    let pushed = push.wait_for("phone", 1, Duration::from_secs(20)).await;
    let waited = asked.elapsed();
    assert_eq!(
        pushed.payload["title"], "Time for Aspirin",
        "{:?}",
        pushed.payload
    );
    assert!(
        waited >= Duration::from_secs(2),
        "sent {waited:?} after it was set, before its time"
    );
}
