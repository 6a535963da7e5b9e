//! Planned reminders over HTTP against the real binary: planned from schedules in the
//! user's zone, replaced (never duplicated) when schedules or zones change, listed,
//! cancelled, and scoped to their owner.

mod common;

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, TimeZone, Utc};
use common::{Server, assert_lead, call, get_json, instant, post};
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

/// The doses at `times` (local, in `tz`) over the 7 days from today that are still ahead
/// and not before the medication's first day (today where it was created, which another
/// zone may not have reached yet).
fn expected(tz: chrono_tz::Tz, start: NaiveDate, times: &[&str]) -> Vec<DateTime<Utc>> {
    let now = Utc::now();
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
    // No sending here: a dose minutes away must not be attempted while the plans change.
    let server = Server::start_with(|c| {
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "3600");
    });
    let token = account(&server, "ann@example.org").await;
    let (status, _) = call(
        &server,
        Method::PUT,
        "/api/settings",
        Some(&token),
        Some(json!({ "timezone": "Europe/Berlin" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let before = Utc::now();
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
        expected(chrono_tz::Europe::Berlin, start, &["09:00"]),
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
        expected(chrono_tz::Europe::Berlin, start, &["08:00", "20:00"])
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
    let (status, _) = call(
        &server,
        Method::PUT,
        "/api/settings",
        Some(&token),
        Some(json!({ "timezone": "America/New_York" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let times: Vec<DateTime<Utc>> = scheduled(&server, &token)
        .await
        .iter()
        .map(|r| instant(&r["scheduled_time"]))
        .collect();
    assert_eq!(
        times,
        expected(chrono_tz::America::New_York, start, &["08:00", "20:00"])
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
