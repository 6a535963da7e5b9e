//! The notification API's refusals against the real binary: every error answer keeps its
//! status and message and carries the stable `code` the web app translates (issue 12).

mod common;

use std::time::Duration;

use chrono::Utc;
use common::push::PushService;
use common::{Server, call, get_json, post, register};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// A server that may push to `push` and builds take links on a known base.
fn server_for(push: &PushService) -> Server {
    let prefix = push.prefix();
    Server::start_with(move |c| {
        c.env("PILLBOX_SIGNUPS", "open")
            .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", prefix)
            .env("PILLBOX_PUBLIC_URL", "http://pillbox.test");
    })
}

/// Asserts an error answer: its status, code and (unchanged) message.
#[track_caller]
fn refused(answer: (StatusCode, Value), status: StatusCode, code: &str, message: &str) {
    let (got, body) = answer;
    assert_eq!(got, status, "{body}");
    assert_eq!(body["success"], false, "{body}");
    assert_eq!(body["code"], code, "{body}");
    assert_eq!(body["message"], message, "{body}");
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

/// A one-off reminder for a dose `minutes` from now, with no lead.
async fn remind_in(server: &Server, token: &str, medication: i64, minutes: i64) -> (StatusCode, Value) {
    let due = Utc::now() + chrono::Duration::minutes(minutes);
    post(
        server,
        "/api/notifications",
        Some(token),
        json!({ "medication_id": medication, "scheduled_time": due.to_rfc3339(), "reminder_minutes_before": 0 }),
    )
    .await
}

#[tokio::test]
async fn reminder_refusals_carry_their_codes() {
    let push = PushService::start().await;
    let server = server_for(&push);
    let token = register(&server, "codes@example.com").await;
    let t = Some(token.as_str());
    let med = medication(&server, &token, "Aspirin").await;

    refused(
        post(&server, "/api/notifications", t, json!({})).await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "medication_id is required",
    );
    refused(
        post(
            &server,
            "/api/notifications",
            t,
            json!({ "medication_id": med, "scheduled_time": "2001-01-01T00:00:00Z" }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "Scheduled time must not be in the past",
    );
    refused(
        remind_in(&server, &token, 999_999, 60).await,
        StatusCode::NOT_FOUND,
        "medication_not_found",
        "Medication not found",
    );
    let (status, created) = remind_in(&server, &token, med, 60).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["message"], "Notification scheduled");
    assert_eq!(created["data"]["status"], "scheduled");
    assert_eq!(created["data"]["kind"], "one_off");
    let id = created["data"]["id"].as_i64().unwrap();
    let again = post(
        &server,
        "/api/notifications",
        t,
        json!({ "medication_id": med, "scheduled_time": created["data"]["scheduled_time"], "reminder_minutes_before": 0 }),
    )
    .await;
    refused(
        again,
        StatusCode::CONFLICT,
        "reminder_exists",
        "This medication already has a reminder at that time",
    );

    // The list's filters.
    refused(
        get_json(&server, "/api/notifications?status=bogus", t).await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "Status must be scheduled, sent, cancelled or failed",
    );
    refused(
        get_json(&server, "/api/notifications?limit=0", t).await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "limit must be between 1 and 200, offset 0 or more",
    );
    refused(
        get_json(&server, "/api/notifications?limit=ten", t).await,
        StatusCode::BAD_REQUEST,
        "invalid_request",
        "limit must be a whole number",
    );
    let (status, page) = get_json(&server, "/api/notifications?status=scheduled&limit=5", t).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["pagination"], json!({ "total": 1, "limit": 5, "offset": 0 }));

    // Someone else's or no reminder.
    let missing = "/api/notifications/999999";
    refused(
        call(&server, Method::PUT, missing, t, Some(json!({ "message": "x" }))).await,
        StatusCode::NOT_FOUND,
        "notification_not_found",
        "Notification not found",
    );
    refused(
        call(&server, Method::DELETE, missing, t, None).await,
        StatusCode::NOT_FOUND,
        "notification_not_found",
        "Notification not found",
    );
    refused(
        post(&server, "/api/notifications/999999/send", t, json!({})).await,
        StatusCode::NOT_FOUND,
        "notification_not_found",
        "Notification not found",
    );

    // A cancelled reminder can no longer be changed, cancelled or sent.
    let path = format!("/api/notifications/{id}");
    let (status, body) = call(&server, Method::DELETE, &path, t, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        body,
        json!({ "success": true, "message": "Notification cancelled" })
    );
    refused(
        call(&server, Method::DELETE, &path, t, None).await,
        StatusCode::CONFLICT,
        "notification_not_scheduled",
        "Only a scheduled notification can be cancelled",
    );
    refused(
        call(&server, Method::PUT, &path, t, Some(json!({ "message": "x" }))).await,
        StatusCode::CONFLICT,
        "notification_not_scheduled",
        "Only a scheduled notification can be changed",
    );
    refused(
        post(&server, &format!("{path}/send"), t, json!({})).await,
        StatusCode::CONFLICT,
        "notification_not_scheduled",
        "Only a scheduled notification can be sent",
    );

    // A reminder whose dose was logged is not sent.
    let (status, created) = remind_in(&server, &token, med, 30).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let answered = created["data"]["id"].as_i64().unwrap();
    let (status, logged) = post(
        &server,
        &format!("/api/medications/{med}/doses"),
        t,
        json!({ "status": "taken", "dosage_id": answered }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{logged}");
    refused(
        post(
            &server,
            &format!("/api/notifications/{answered}/send"),
            t,
            json!({}),
        )
        .await,
        StatusCode::CONFLICT,
        "notification_not_sent",
        "The notification was not sent: The dose was already logged",
    );

    // Planning ahead.
    refused(
        post(
            &server,
            "/api/notifications/schedule-medication",
            t,
            json!({ "medication_id": 999_999 }),
        )
        .await,
        StatusCode::NOT_FOUND,
        "medication_not_found",
        "Medication not found",
    );
    refused(
        post(
            &server,
            "/api/notifications/schedule-medication",
            t,
            json!({ "medication_id": med, "days_ahead": 99 }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "days_ahead must be between 1 and 31",
    );
    refused(
        get_json(
            &server,
            "/api/notifications/history?start_date=2026-02-02&end_date=2026-02-01",
            t,
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "start_date must not be after end_date",
    );
}

#[tokio::test]
async fn preference_and_subscription_refusals_carry_their_codes() {
    let push = PushService::start().await;
    let server = server_for(&push);
    let token = register(&server, "prefs@example.com").await;
    let t = Some(token.as_str());
    let med = medication(&server, &token, "Iron").await;

    refused(
        get_json(&server, "/api/notifications/medications/999999/preferences", t).await,
        StatusCode::NOT_FOUND,
        "medication_not_found",
        "Medication not found",
    );
    refused(
        call(
            &server,
            Method::PUT,
            &format!("/api/notifications/medications/{med}/preferences"),
            t,
            Some(json!({ "delivery_methods": ["fax"] })),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "delivery_method_unknown",
        "Delivery methods must be push, email or channel:<id> of one of your channels",
    );
    refused(
        call(
            &server,
            Method::PUT,
            "/api/notifications/preferences",
            t,
            Some(json!({ "repeat_max": 11 })),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "Repeats must be between 0 and 10",
    );
    refused(
        call(
            &server,
            Method::PUT,
            "/api/notifications/settings",
            t,
            Some(json!({ "daily_reminder_time": "9 o'clock" })),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "Daily reminder time must be written as HH:MM",
    );
    let (status, settings) = call(
        &server,
        Method::PUT,
        "/api/notifications/settings",
        t,
        Some(json!({ "daily_reminder_time": "08:30", "reminder_time_before": 5 })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{settings}");
    assert_eq!(
        settings["data"],
        json!({
            "medication_reminders": true,
            "reminder_time_before": 5,
            "daily_reminder_time": "08:30",
            "push_notifications": true,
            "email_notifications": false,
        })
    );

    // Push subscriptions.
    let register_path = "/api/notifications/push/register";
    refused(
        post(
            &server,
            register_path,
            t,
            json!({ "subscription": { "endpoint": "x" } }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "invalid_subscription",
        "Invalid push subscription",
    );
    let mut elsewhere = push.subscribe("phone").json;
    elsewhere["endpoint"] = json!("https://push.evil.example/abc");
    refused(
        post(&server, register_path, t, json!({ "subscription": elsewhere })).await,
        StatusCode::BAD_REQUEST,
        "push_service_not_allowed",
        "This push service is not allowed",
    );
    let phone = push.subscribe("phone");
    let (status, body) = post(&server, register_path, t, json!({ "subscription": phone.json })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(
        body,
        json!({ "success": true, "message": "Push subscription saved" })
    );
    let other = register(&server, "other@example.com").await;
    let mut copied = push.subscribe("other").json;
    copied["endpoint"] = json!(phone.endpoint);
    refused(
        post(
            &server,
            register_path,
            Some(&other),
            json!({ "subscription": copied }),
        )
        .await,
        StatusCode::CONFLICT,
        "subscription_taken",
        "This push subscription belongs to another account",
    );
    refused(
        post(&server, "/api/notifications/push/unregister", t, json!({})).await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "endpoint is required",
    );

    // A test no channel can deliver (no device subscribed): 409 with each channel's outcome.
    let (status, failed) = post(
        &server,
        "/api/notifications/test",
        Some(&other),
        json!({ "deliveryMethods": ["push"] }),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{failed}");
    assert_eq!(failed["code"], "delivery_failed");
    assert_eq!(failed["success"], false);
    assert!(
        failed["message"]
            .as_str()
            .unwrap()
            .starts_with("No notification could be sent: push: "),
        "{failed}"
    );
    assert_eq!(failed["data"]["results"][0]["channel"], "push");
    assert_eq!(failed["data"]["results"][0]["ok"], false);
    refused(
        post(
            &server,
            "/api/notifications/test",
            t,
            json!({ "deliveryMethods": [] }),
        )
        .await,
        StatusCode::BAD_REQUEST,
        "delivery_method_required",
        "Choose at least one delivery method",
    );
}

#[tokio::test]
async fn take_link_refusals_carry_their_codes() {
    let push = PushService::start().await;
    let server = server_for(&push);
    let token = register(&server, "take@example.com").await;
    let t = Some(token.as_str());
    let med = medication(&server, &token, "Zinc").await;

    for path in [
        "/api/notifications/take/not-a-real-token",
        "/api/notifications/take/dots.are.never.minted",
    ] {
        refused(
            get_json(&server, path, None).await,
            StatusCode::NOT_FOUND,
            "invalid_token",
            "Invalid or expired token",
        );
        refused(
            post(&server, path, None, json!({})).await,
            StatusCode::NOT_FOUND,
            "invalid_token",
            "Invalid or expired token",
        );
    }

    // A real link: a reminder sent now to a registered device.
    let phone = push.subscribe("phone");
    let (status, body) = post(
        &server,
        "/api/notifications/push/register",
        t,
        json!({ "subscription": phone.json }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, created) = remind_in(&server, &token, med, 30).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id = created["data"]["id"].as_i64().unwrap();
    let (status, sent) = post(&server, &format!("/api/notifications/{id}/send"), t, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{sent}");
    assert_eq!(sent["message"], "Notification sent");
    assert_eq!(sent["data"]["results"][0]["channel"], "push");
    assert_eq!(sent["data"]["results"][0]["ok"], true);
    let pushed = push.wait_for("phone", 1, Duration::from_secs(10)).await;
    let url = pushed.payload["takeUrl"].as_str().unwrap();
    let link = url.rsplit("/notifications/take/").next().unwrap();
    let path = format!("/api/notifications/take/{link}");

    let (status, details) = get_json(&server, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{details}");
    assert_eq!(details["data"]["medication_name"], "Zinc");
    assert_eq!(details["data"]["dosage"], Value::Null);
    assert_eq!(details["data"]["logged"], Value::Null);
    refused(
        post(&server, &path, None, json!({ "status": "eaten" })).await,
        StatusCode::BAD_REQUEST,
        "validation_failed",
        "Status must be taken, skipped or missed",
    );
    let (status, logged) = post(&server, &path, None, json!({ "status": "skipped" })).await;
    assert_eq!(status, StatusCode::CREATED, "{logged}");
    assert_eq!(logged["message"], "Medication skipped logged successfully");
    assert_eq!(logged["data"]["status"], "skipped");
    refused(
        post(&server, &path, None, json!({ "status": "taken" })).await,
        StatusCode::CONFLICT,
        "dose_already_logged",
        "This dose was already logged",
    );
    let (_, details) = get_json(&server, &path, None).await;
    assert_eq!(details["data"]["logged"]["status"], "skipped");
}
