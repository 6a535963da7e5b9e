//! The stock notices (issue 29) end to end against the real binary, on a test clock: the
//! "order a refill" reminder by push (the local push service, which verifies VAPID and
//! decrypts), e-mail (aiosmtpd), ntfy and webhooks (the local doubles), with the pharmacy's
//! phone in it, once per need, silenced by "ordered" until stock is added, raised again for
//! the next need, "ask for a new prescription" with no refills left, no medication named
//! with "hide medication names"; and a stock batch announced 30 days before its expiry and
//! once more when it has expired. Each account hears only of its own medications.

mod common;

use std::process::Command;
use std::time::Duration;

use common::channels::Doubles;
use common::push::PushService;
use common::{
    Server, SmtpSink, advance_clock, call, deliveries, get_json, medication, post, register_device,
};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// A server whose clock starts at 2026-12-01 09:00 UTC and moves only when the test moves it
/// (its own timer is an hour), that pushes to `push`, mails through `smtp` and reaches the
/// channel doubles on 127.0.0.1.
fn server(push: &PushService, smtp: &SmtpSink) -> Server {
    Server::start_with(|c: &mut Command| {
        common::with_clock_start(c, "2026-12-01T09:00:00Z");
        c.env("PILLBOX_SIGNUPS", "open")
            .env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
            .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix())
            .env("PILLBOX_PUBLIC_URL", "http://pillbox.test")
            .env("PILLBOX_CHANNELS_ALLOW_NETWORKS", "127.0.0.1")
            .env("PILLBOX_CHANNELS_TIMEOUT_SECONDS", "2");
        smtp.configure(c);
    })
}

/// A verified account with a push device `device`, e-mail on, and its default methods.
async fn account(server: &Server, push: &PushService, email: &str, device: &str, prefs: Value) -> String {
    let token = common::verified_account(server, email).await;
    register_device(server, &token, push, device).await;
    let mut body =
        json!({ "email_notifications_enabled": true, "default_delivery_methods": ["push", "email"] });
    body.as_object_mut()
        .unwrap()
        .extend(prefs.as_object().unwrap().clone());
    let (status, saved) = call(
        server,
        Method::PUT,
        "/api/notifications/preferences",
        Some(&token),
        Some(body),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    token
}

async fn add_channel(server: &Server, token: &str, body: Value) -> Value {
    let (status, created) = post(server, "/api/channels", Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created["data"].clone()
}

/// Two tablets a day (08:00 and 20:00) from `left` tablets, with a prescription.
async fn daily_with_prescription(
    server: &Server,
    token: &str,
    name: &str,
    left: i64,
    prescription: Value,
) -> i64 {
    medication(
        server,
        token,
        json!({
            "name": name, "unit": "tablets", "frequency": "daily", "default_quantity": 1,
            "schedule": { "times": ["08:00", "20:00"], "start_date": "2026-11-01" },
            "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "box",
                           "container_quantity": 1, "item_quantity": left, "item_unit": "tablets" },
            "prescription": prescription,
        }),
    )
    .await
}

/// What the medication's screen says needs ordering.
async fn refill(server: &Server, token: &str, id: i64) -> Value {
    let (status, body) = get_json(server, &format!("/api/medications/{id}"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]["prescription"]["refill"].clone()
}

async fn adjust(server: &Server, token: &str, id: i64, by: i64) {
    let (status, body) = post(
        server,
        &format!("/api/medications/{id}/inventory/adjust"),
        Some(token),
        json!({ "adjustment": by, "reason": "test" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn mark_ordered(server: &Server, token: &str, id: i64) {
    let (status, body) = post(
        server,
        &format!("/api/medications/{id}/refill-ordered"),
        Some(token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

/// A dispatcher pass, then a moment for anything it sent to arrive.
async fn pass(server: &Server) {
    advance_clock(server, 60).await;
    tokio::time::sleep(Duration::from_millis(700)).await;
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or_default()
}

/// The "order a refill" pushes a device received (the medication's dose reminders aside).
fn refill_pushes(push: &PushService, device: &str) -> usize {
    push.received(device)
        .iter()
        .filter(|r| {
            let title = text(&r.payload["title"]);
            title.starts_with("Order a refill") || title.starts_with("Time to order")
        })
        .count()
}

/// The batch notices a device received (an expired batch leaves the stock low, and the
/// low-stock alert comes too).
fn batch_pushes(push: &PushService, device: &str) -> Vec<Value> {
    push.received(device)
        .into_iter()
        .map(|r| r.payload)
        .filter(|p| !text(&p["title"]).starts_with("Running low"))
        .collect()
}

/// The "order a refill" e-mails an address received.
fn refill_mails(smtp: &SmtpSink, to: &str) -> usize {
    smtp.messages()
        .iter()
        .filter(|m| m.to.contains(to) && m.subject.contains("Order a refill"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refill_reminder_arrives_once_per_need_with_the_pharmacy_phone_on_every_method() {
    let push = PushService::start().await;
    let smtp = SmtpSink::start();
    let doubles = Doubles::start().await;
    let server = server(&push, &smtp);
    let ann = common::verified_account(&server, "ann@example.test").await;
    register_device(&server, &ann, &push, "ann-phone").await;
    let ntfy = add_channel(
        &server,
        &ann,
        json!({ "kind": "ntfy", "name": "Ann's ntfy", "config": {
            "server_url": format!("{}/ntfy", doubles.base), "topic": "ann-pills" } }),
    )
    .await;
    let hook = add_channel(
        &server,
        &ann,
        json!({ "kind": "webhook", "name": "Home", "config": {
            "url": format!("{}/hook", doubles.base), "events": ["refill.due"] } }),
    )
    .await;
    assert_eq!(hook["config"]["events"], json!(["refill.due"]));
    let (status, saved) = call(
        &server,
        Method::PUT,
        "/api/notifications/preferences",
        Some(&ann),
        Some(json!({ "email_notifications_enabled": true,
                     "default_delivery_methods": ["push", "email", ntfy["method"]] })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    // Another account: names hidden, no refills left on its prescription.
    let bo = account(
        &server,
        &push,
        "bo@example.test",
        "bo-phone",
        json!({ "hide_medication_names": true }),
    )
    .await;

    // Ten tablets, two a day: it runs out within the week, so a refill is due now.
    let metformin = daily_with_prescription(
        &server,
        &ann,
        "Metformin",
        10,
        json!({ "pharmacy_name": "Apotheke am Markt", "pharmacy_phone": "+49 30 1234567",
                "pharmacy_url": "https://apotheke.example/order", "refills_authorised": 3, "refills_left": 2 }),
    )
    .await;
    let warfarin = daily_with_prescription(
        &server,
        &bo,
        "Warfarin",
        6,
        json!({ "pharmacy_phone": "+1 555 0100", "refills_authorised": 1, "refills_left": 0 }),
    )
    .await;
    let need = refill(&server, &ann, metformin).await;
    assert_eq!(need["reason"], "stock", "{need}");
    let due = chrono::NaiveDate::parse_from_str(text(&need["due_on"]), "%Y-%m-%d").unwrap();

    pass(&server).await;
    let alert = push.wait_for("ann-phone", 1, Duration::from_secs(15)).await;
    assert_eq!(alert.payload["title"], "Order a refill of Metformin");
    let body = text(&alert.payload["body"]).to_owned();
    assert!(
        body.contains(&format!("Metformin runs out around {}.", due.format("%m/%d/%Y"))),
        "{body}"
    );
    assert!(body.contains("Order a refill now."), "{body}");
    assert!(
        body.contains("Pharmacy: Apotheke am Markt · +49 30 1234567 · https://apotheke.example/order"),
        "{body}"
    );
    // Nothing to take or snooze; a tap opens the medications.
    assert_eq!(alert.payload["url"], "/medications");
    assert!(alert.payload.get("actions").is_none(), "{}", alert.payload);
    assert!(alert.payload.get("token").is_none(), "{}", alert.payload);

    let mail = smtp.wait_for("ann@example.test", 1);
    assert!(
        mail.subject.contains("Order a refill of Metformin"),
        "{}",
        mail.subject
    );
    assert!(mail.text.contains("+49 30 1234567"), "{}", mail.text);
    assert!(!mail.text.contains("Log this dose"), "{}", mail.text);

    let published = doubles.wait_for("/ntfy/", 1).await[0].json();
    assert_eq!(published["title"], "Order a refill of Metformin");
    assert!(
        text(&published["message"]).contains("+49 30 1234567"),
        "{published}"
    );
    let labels = published["actions"].to_string();
    assert!(
        !labels.contains("Snooze") && !labels.contains("Taken"),
        "{labels}"
    );

    let event = doubles.wait_for("/hook", 1).await[0].json();
    assert_eq!(event["type"], "refill.due");
    assert_eq!(event["data"]["medication"], "Metformin");
    assert_eq!(event["data"]["notice"]["pharmacy_phone"], "+49 30 1234567");
    assert_eq!(event["data"]["notice"]["due_on"], need["due_on"]);

    // A dose logged now answers no refill: the notice is not a dose's reminder.
    let (status, logged) = post(
        &server,
        &format!("/api/medications/{metformin}/doses"),
        Some(&ann),
        json!({ "quantity": 1 }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{logged}");
    let (_, listed) = get_json(&server, "/api/notifications?limit=200", Some(&ann)).await;
    let notice = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "refill")
        .cloned()
        .unwrap();
    assert_eq!(notice["answered_at"], Value::Null, "{notice}");
    assert_eq!(notice["title"], "Order a refill of Metformin");

    // The other account's reminder: no name, its pharmacy's phone, a new prescription.
    let hidden = push.wait_for("bo-phone", 1, Duration::from_secs(15)).await;
    assert_eq!(hidden.payload["title"], "Time to order a medicine");
    let words = hidden.payload["body"].to_string();
    assert!(!words.contains("Warfarin"), "{words}");
    assert!(words.contains("+1 555 0100"), "{words}");
    assert!(
        words.contains("No refills are left: ask your prescriber for a new prescription."),
        "{words}"
    );
    let bo_mail = smtp.wait_for("bo@example.test", 1);
    assert!(!bo_mail.raw.contains("Warfarin"), "{}", bo_mail.raw);
    assert!(!bo_mail.raw.contains("Metformin"));
    assert_eq!(
        refill(&server, &bo, warfarin).await["new_prescription_needed"],
        true
    );

    // Another pass, a day later (with the day's dose reminders): no refill again.
    advance_clock(&server, 86_400).await;
    pass(&server).await;
    assert_eq!(refill_pushes(&push, "ann-phone"), 1);
    assert_eq!(refill_pushes(&push, "bo-phone"), 1);
    assert_eq!(refill_mails(&smtp, "ann@example.test"), 1);
    let ntfy_refills = || {
        doubles
            .arrived("/ntfy/")
            .iter()
            .filter(|a| text(&a.json()["title"]).starts_with("Order a refill"))
            .count()
    };
    assert_eq!(ntfy_refills(), 1);
    assert_eq!(doubles.arrived("/hook").len(), 1);
    assert!(
        push.received("ann-phone")
            .iter()
            .all(|r| !r.payload.to_string().contains("Warfarin"))
    );

    // The delivery history names it, once per method.
    let history = deliveries(&server, &ann).await;
    let refills: Vec<&Value> = history.iter().filter(|d| d["kind"] == "refill").collect();
    assert_eq!(refills.len(), 3, "push, e-mail and ntfy: {history:?}");
    for row in &refills {
        assert_eq!(row["title_code"], "refill");
        assert_eq!(row["title_params"]["name"], "Metformin");
        assert_eq!(row["result"], "sent", "{row}");
    }
    // It is no dose: the reminders list shows it sent, not waiting for a dose to be logged.
    let (_, listed) = get_json(&server, "/api/notifications?limit=200", Some(&ann)).await;
    let notice = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["kind"] == "refill")
        .cloned()
        .unwrap();
    assert_eq!(notice["status"], "sent");
    assert_eq!(notice["answered_at"], Value::Null, "{notice}");

    // Ordered, and the refill comes in (one refill fewer left): nothing to order.
    mark_ordered(&server, &ann, metformin).await;
    adjust(&server, &ann, metformin, 30).await;
    assert_eq!(refill(&server, &ann, metformin).await, Value::Null);
    pass(&server).await;
    assert_eq!(refill_pushes(&push, "ann-phone"), 1);

    // Tablets lost: a refill is needed again, but it is marked ordered: silence. (Marked
    // first: the engine may run a pass of its own as soon as the stock changes, and a need
    // it found before the mark is rightly reminded.)
    mark_ordered(&server, &ann, metformin).await;
    adjust(&server, &ann, metformin, -29).await;
    let need = refill(&server, &ann, metformin).await;
    assert_eq!(need["ordered"], true, "{need}");
    pass(&server).await;
    assert_eq!(refill_pushes(&push, "ann-phone"), 1, "ordered silences it");

    // Stock is added (the last refill): the need that remains is a new one, and no refills
    // are left.
    adjust(&server, &ann, metformin, 1).await;
    let need = refill(&server, &ann, metformin).await;
    assert_eq!(need["ordered"], false, "{need}");
    assert_eq!(need["new_prescription_needed"], true, "{need}");
    pass(&server).await;
    let refills: Vec<_> = push
        .received("ann-phone")
        .into_iter()
        .filter(|r| text(&r.payload["title"]) == "Order a refill of Metformin")
        .collect();
    assert_eq!(refills.len(), 2, "raised again for the new need");
    assert!(
        text(&refills[1].payload["body"])
            .contains("No refills are left: ask your prescriber for a new prescription."),
        "{}",
        refills[1].payload
    );
    assert_eq!(refill_mails(&smtp, "ann@example.test"), 2);
    assert_eq!(ntfy_refills(), 2);
    pass(&server).await;
    assert_eq!(refill_pushes(&push, "ann-phone"), 2);
    assert_eq!(refill_pushes(&push, "bo-phone"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_announced_thirty_days_before_it_expires_and_once_it_has_expired() {
    let push = PushService::start().await;
    let smtp = SmtpSink::start();
    let doubles = Doubles::start().await;
    let server = server(&push, &smtp);
    let cy = account(&server, &push, "cy@example.test", "cy-phone", json!({})).await;
    add_channel(
        &server,
        &cy,
        json!({ "kind": "webhook", "name": "Home", "config": {
            "url": format!("{}/hook", doubles.base), "events": ["batch.expiring", "batch.expired"] } }),
    )
    .await;
    let hidden = account(
        &server,
        &push,
        "di@example.test",
        "di-phone",
        json!({ "hide_medication_names": true }),
    )
    .await;
    let batch = |token: String, id: i64, body: Value| {
        let server = &server;
        async move {
            let (status, answer) = post(
                server,
                &format!("/api/medications/{id}/inventory/batches"),
                Some(&token),
                body,
            )
            .await;
            assert_eq!(status, StatusCode::CREATED, "{answer}");
        }
    };
    let ibuprofen = medication(
        &server,
        &cy,
        json!({ "name": "Ibuprofen", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    // 30 days ahead: announced now; half a year ahead: not yet.
    batch(
        cy.clone(),
        ibuprofen,
        json!({ "quantity": 20, "expires_on": "2026-12-31", "lot": "L-31" }),
    )
    .await;
    batch(
        cy.clone(),
        ibuprofen,
        json!({ "quantity": 10, "expires_on": "2027-06-30", "lot": "L-JUN" }),
    )
    .await;
    let pills = medication(
        &server,
        &hidden,
        json!({ "name": "Sertraline", "unit": "tablets", "frequency": "as_needed" }),
    )
    .await;
    batch(
        hidden.clone(),
        pills,
        json!({ "quantity": 5, "expires_on": "2026-12-20" }),
    )
    .await;

    pass(&server).await;
    let soon = push.wait_for("cy-phone", 1, Duration::from_secs(15)).await;
    assert_eq!(soon.payload["title"], "A batch of Ibuprofen expires soon");
    assert_eq!(
        soon.payload["body"],
        "The batch of Ibuprofen (lot L-31) expires on 12/31/2026; 20 tablets left in it. Use it first."
    );
    assert_eq!(soon.payload["url"], "/medications");
    assert!(soon.payload.get("actions").is_none());
    let mail = smtp.wait_for("cy@example.test", 1);
    assert!(
        mail.subject.contains("A batch of Ibuprofen expires soon"),
        "{}",
        mail.subject
    );
    let event = doubles.wait_for("/hook", 1).await[0].json();
    assert_eq!(event["type"], "batch.expiring");
    assert_eq!(event["data"]["notice"]["expires_on"], "2026-12-31");
    let quiet = push.wait_for("di-phone", 1, Duration::from_secs(15)).await;
    assert_eq!(quiet.payload["title"], "A medicine expires soon");
    assert!(!quiet.payload.to_string().contains("Sertraline"));

    // The next passes, days later, say nothing new.
    advance_clock(&server, 5 * 86_400).await;
    pass(&server).await;
    assert_eq!(push.received("cy-phone").len(), 1);
    assert_eq!(push.received("di-phone").len(), 1);
    assert_eq!(doubles.arrived("/hook").len(), 1);

    // 2027-01-01: the batch has expired (and no longer counts); said once.
    advance_clock(&server, 26 * 86_400).await;
    pass(&server).await;
    let said = batch_pushes(&push, "cy-phone");
    assert_eq!(said.len(), 2, "{said:?}");
    let expired = &said[1];
    assert_eq!(expired["title"], "A batch of Ibuprofen has expired");
    assert!(
        text(&expired["body"])
            .starts_with("The batch of Ibuprofen (lot L-31) expired on 12/31/2026 with 20 tablets left"),
        "{expired}"
    );
    assert_eq!(
        doubles.wait_for("/hook", 2).await[1].json()["type"],
        "batch.expired"
    );
    // A month later the session has run out: signed in again.
    let cy = common::login(&server, "cy@example.test").await;
    let (_, stock) = get_json(
        &server,
        &format!("/api/medications/{ibuprofen}/inventory"),
        Some(&cy),
    )
    .await;
    assert_eq!(stock["data"]["current_quantity"].as_f64(), Some(10.0), "{stock}");
    let di_said = batch_pushes(&push, "di-phone");
    assert_eq!(di_said.len(), 2, "{di_said:?}");
    assert_eq!(di_said[1]["title"], "A medicine has expired");
    assert!(!di_said[1].to_string().contains("Sertraline"));
    pass(&server).await;
    advance_clock(&server, 86_400).await;
    pass(&server).await;
    assert_eq!(batch_pushes(&push, "cy-phone").len(), 2, "each said once");
    assert_eq!(batch_pushes(&push, "di-phone").len(), 2);
    assert!(
        push.received("cy-phone").iter().all(
            |r| !r.payload.to_string().contains("L-JUN") && !r.payload.to_string().contains("Sertraline")
        )
    );

    let history = deliveries(&server, &cy).await;
    let codes: Vec<&str> = history
        .iter()
        .filter(|d| d["channel"] == "push" && d["kind"] != "low_stock")
        .map(|d| text(&d["title_code"]))
        .collect();
    assert_eq!(codes, ["batch_expired", "batch_expiring"], "newest first");
}
