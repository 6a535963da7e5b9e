//! Schedules people actually have (issue 15) over HTTP against the real binary: every few
//! hours, every N days, cycles, courses that end, tapering steps, the clock a schedule keeps,
//! and what they plan; bad combinations are refused and change nothing; export and import
//! carry them.

mod common;

use common::{Server, call, get_json, post, register, save_settings};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn open_signups(c: &mut std::process::Command) {
    c.env("PILLBOX_SIGNUPS", "open");
}

async fn create(server: &Server, token: &str, body: Value) -> Value {
    let (status, answer) = post(server, "/api/medications", Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["data"].clone()
}

async fn update(server: &Server, token: &str, id: i64, body: Value) -> (StatusCode, Value) {
    call(
        server,
        Method::PUT,
        &format!("/api/medications/{id}"),
        Some(token),
        Some(body),
    )
    .await
}

async fn schedule_of(server: &Server, token: &str, id: i64) -> Value {
    let (status, body) = get_json(server, &format!("/api/medications/{id}"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]["schedule"].clone()
}

/// The planned reminders' dose times of one medication, RFC 3339.
async fn planned(server: &Server, token: &str, id: i64) -> Vec<String> {
    let (status, body) = get_json(
        server,
        "/api/notifications?status=scheduled&limit=200",
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut times: Vec<String> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["medication_id"] == id)
        .map(|n| n["scheduled_time"].as_str().unwrap().to_owned())
        .collect();
    times.sort();
    times
}

#[tokio::test]
async fn interval_cycle_course_and_taper_are_stored_shown_planned_and_checked() {
    // On a test clock at noon in Berlin (2026-02-04, no daylight-saving change near it), hours
    // from every dose planned here. On the real clock the test failed in the minutes before
    // 06:00, 14:00 and 22:00 in Berlin: a reminder that close to its time is kept when the
    // schedule changes, so the course's planned doses had the old schedule's next one too.
    let server = Server::start_with(|c| {
        open_signups(c);
        common::with_clock_start(c, "2026-02-04T11:00:00Z");
    });
    let token = register(&server, "ann@example.org").await;
    save_settings(&server, &token, json!({ "timezone": "Europe/Berlin" })).await;

    // "Every 8 hours from 06:00": elapsed by default, three doses a day.
    let med = create(
        &server,
        &token,
        json!({ "name": "Amoxicillin", "unit": "mg", "default_quantity": 500,
                "schedule": { "times": ["06:00"], "interval_hours": 8 } }),
    )
    .await;
    let id = med["id"].as_i64().unwrap();
    let s = &med["schedule"];
    assert_eq!(s["interval_hours"], 8);
    assert_eq!(s["clock"], "elapsed");
    assert_eq!(s["effective_times"], json!(["06:00", "14:00", "22:00"]));
    assert_eq!(s["grace_minutes"], 60);
    assert_eq!(s["end_date"], Value::Null);
    let times = planned(&server, &token, id).await;
    assert!(times.len() >= 3 * 6, "{times:?}");
    for pair in times.windows(2) {
        let (a, b) = (common::instant(&json!(pair[0])), common::instant(&json!(pair[1])));
        assert_eq!((b - a).num_hours(), 8, "{pair:?}");
    }

    // Refused, and nothing changes: each says what to do.
    for (schedule, expected) in [
        (
            json!({ "interval_hours": 5, "clock": "wall" }),
            "choose an interval that divides 24",
        ),
        (
            json!({ "interval_hours": 25 }),
            "interval_hours must be from 1 to 24",
        ),
        (
            json!({ "interval_hours": null, "cycle_on_days": 21 }),
            "A cycle needs both cycle_on_days and cycle_off_days",
        ),
        (
            json!({ "end_date": "2000-01-01" }),
            "end_date must be on or after start_date",
        ),
        (
            json!({ "end_date": "tomorrow" }),
            "End date must be written as YYYY-MM-DD",
        ),
        (
            json!({ "grace_minutes": 0 }),
            "grace_minutes must be from 1 to 720",
        ),
        (
            json!({ "steps": [{ "days": 0, "quantity": 10 }] }),
            "Each step lasts from 1 to 366 days",
        ),
        (
            json!({ "every_days": 2, "cycle_on_days": 5, "cycle_off_days": 2, "interval_hours": null }),
            "Choose either every_days or a cycle, not both",
        ),
    ] {
        let (status, body) = update(&server, &token, id, json!({ "schedule": schedule })).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{schedule}: {body}");
        assert!(
            body["message"].as_str().unwrap().contains(expected),
            "{schedule}: {body}"
        );
    }
    assert_eq!(schedule_of(&server, &token, id).await, *s);
    let (status, body) = update(&server, &token, id, json!({ "frequency": "weekly" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");

    // A tapering course every other day that ends by itself, with its own grace and follow-ups.
    // The test clock moves only when told: this is "now" for the rest of the test.
    let now = common::advance(&server, 0)
        .await
        .with_timezone(&chrono_tz::Europe::Berlin);
    let today = now.date_naive();
    let (status, body) = update(
        &server,
        &token,
        id,
        json!({ "schedule": {
            "times": ["08:00"], "interval_hours": null, "clock": null, "start_date": today.to_string(),
            "every_days": 2, "end_date": (today + chrono::Duration::days(6)).to_string(),
            "steps": [{ "days": 2, "quantity": 40 }, { "days": 10, "quantity": 20 }],
            "grace_minutes": 30, "repeat_every_minutes": 5, "repeat_times": 2 } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let s = &body["data"]["schedule"];
    assert_eq!(s["clock"], "wall");
    assert_eq!(s["interval_hours"], Value::Null);
    assert_eq!(s["every_days"], 2);
    assert_eq!(
        s["steps"],
        json!([{ "days": 2, "quantity": 40 }, { "days": 10, "quantity": 20 }])
    );
    assert_eq!(s["grace_minutes"], 30);
    assert_eq!(
        (s["repeat_every_minutes"].clone(), s["repeat_times"].clone()),
        (json!(5), json!(2))
    );
    // Days 0, 2, 4 and 6 of the course, at 08:00 Berlin; nothing after its end.
    let days: Vec<String> = planned(&server, &token, id)
        .await
        .iter()
        .map(|t| {
            common::instant(&json!(t))
                .with_timezone(&chrono_tz::Europe::Berlin)
                .format("%Y-%m-%d %H:%M")
                .to_string()
        })
        .collect();
    let now = now.format("%Y-%m-%d %H:%M").to_string();
    let expected: Vec<String> = [0, 2, 4, 6]
        .iter()
        .map(|d| format!("{} 08:00", today + chrono::Duration::days(*d)))
        .filter(|d| *d > now)
        .collect();
    assert_eq!(days, expected);
    // Today's dose is the first step's quantity, and so is a dose logged without one.
    let (_, today_view) = get_json(&server, "/api/medications/today", Some(&token)).await;
    for dose in today_view["data"]["doses"].as_array().unwrap() {
        assert_eq!(dose["quantity"], 40.0, "{dose}");
    }
    let (status, logged) = post(
        &server,
        &format!("/api/medications/{id}/doses"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{logged}");
    assert_eq!(logged["data"]["entry"]["quantity"], 40.0);

    // A 21-on, 7-off cycle on another medication.
    let pill = create(
        &server,
        &token,
        json!({ "name": "Pill", "unit": "tablets",
                "schedule": { "times": ["21:00"], "cycle_on_days": 21, "cycle_off_days": 7 } }),
    )
    .await;
    assert_eq!(pill["schedule"]["cycle_on_days"], 21);

    // Export and import into another account carry every rule.
    let (status, export) = get_json(&server, "/api/export", Some(&token)).await;
    assert_eq!(status, StatusCode::OK);
    let other = register(&server, "bob@example.org").await;
    let response = common::client()
        .post(server.url("/api/import?dry_run=false"))
        .bearer_auth(&other)
        .header("content-type", "application/json")
        .body(export.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "{}",
        response.text().await.unwrap()
    );
    let (_, list) = get_json(&server, "/api/medications", Some(&other)).await;
    let imported = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "Amoxicillin")
        .unwrap()
        .clone();
    for field in [
        "every_days",
        "end_date",
        "steps",
        "grace_minutes",
        "repeat_every_minutes",
        "repeat_times",
        "clock",
    ] {
        assert_eq!(imported["schedule"][field], s[field], "{field}");
    }
    let cycled = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "Pill")
        .unwrap()
        .clone();
    assert_eq!(cycled["schedule"]["cycle_off_days"], 7);
}

/// How many history entries a medication has.
async fn entries(server: &Server, token: &str, id: i64) -> usize {
    let (status, body) = get_json(
        server,
        &format!("/api/medications/{id}/history?limit=100"),
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().len()
}

#[tokio::test]
async fn as_needed_limits_ask_before_a_dose_too_soon_or_over_the_days_maximum() {
    let server = Server::start_with(open_signups);
    let token = register(&server, "ann@example.org").await;
    let med = create(
        &server,
        &token,
        json!({ "name": "Ibuprofen", "unit": "mg", "frequency": "as_needed", "default_quantity": 400,
                "schedule": { "max_per_day": 2, "min_gap_minutes": 240 },
                "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "pill_bottle",
                               "item_quantity": 20, "item_strength": 400, "item_unit": "tablets" } }),
    )
    .await;
    let id = med["id"].as_i64().unwrap();
    assert_eq!(med["next_dose_allowed_at"], Value::Null);
    let doses = format!("/api/medications/{id}/doses");

    let (status, first) = post(&server, &doses, Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    let first_at = common::instant(&first["data"]["entry"]["taken"]);
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    let next = common::instant(&list["data"][0]["next_dose_allowed_at"]);
    assert_eq!(next, first_at + chrono::Duration::minutes(240));

    // Too soon: refused with when, and nothing is recorded or taken from the stock.
    let (status, refused) = post(&server, &doses, Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["code"], "dose_too_soon");
    assert_eq!(common::instant(&refused["params"]["next_allowed_at"]), next);
    assert_eq!(refused["params"]["time"], next.format("%H:%M").to_string());
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("Too soon for another dose of Ibuprofen"),
        "{refused}"
    );
    assert_eq!(entries(&server, &token, id).await, 1);
    let (_, inventory) = get_json(&server, &format!("/api/medications/{id}/inventory"), Some(&token)).await;
    assert_eq!(inventory["data"]["current_quantity"], 19.0);

    // A skipped dose is no dose taken; a confirmed one is recorded.
    let (status, _) = post(&server, &doses, Some(&token), json!({ "status": "skipped" })).await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, body) = post(&server, &doses, Some(&token), json!({ "confirm": true })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let second_at = common::instant(&body["data"]["entry"]["taken"]);

    // Two taken within 24 hours: the maximum, whatever the gap; allowed again once the first
    // is 24 hours old (or once the gap after the second is over, if that is later).
    let (status, refused) = post(&server, &doses, Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["code"], "daily_maximum_reached");
    assert_eq!(refused["params"]["max"], 2);
    assert_eq!(
        common::instant(&refused["params"]["next_allowed_at"]),
        (first_at + chrono::Duration::hours(24)).max(second_at + chrono::Duration::minutes(240))
    );
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(
        list["data"][0]["next_dose_allowed_at"],
        refused["params"]["next_allowed_at"]
    );
    assert_eq!(entries(&server, &token, id).await, 3);
}

#[tokio::test]
async fn the_as_needed_maximum_counts_the_last_24_hours_across_midnight() {
    let server = Server::start_with(|c| {
        open_signups(c);
        common::with_test_clock(c);
    });
    let token = register(&server, "ann@example.org").await;
    save_settings(&server, &token, json!({ "timezone": "UTC" })).await;
    let id = common::medication(
        &server,
        &token,
        json!({ "name": "Paracetamol", "unit": "mg", "frequency": "as_needed", "default_quantity": 500,
                "schedule": { "max_per_day": 2 } }),
    )
    .await;
    let doses = format!("/api/medications/{id}/doses");
    // The first dose at 20:00 UTC, the second at 22:00.
    let now = common::advance(&server, 0).await;
    let evening = now.date_naive().and_hms_opt(20, 0, 0).unwrap().and_utc();
    let evening = if evening > now {
        evening
    } else {
        evening + chrono::Duration::days(1)
    };
    common::advance(&server, (evening - now).num_seconds()).await;
    let (status, body) = post(&server, &doses, Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let first_at = common::instant(&body["data"]["entry"]["taken"]);
    common::advance(&server, 2 * 3600).await;
    let (status, body) = post(&server, &doses, Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Past midnight, a new calendar day: still two within 24 hours, so refused until the
    // first is 24 hours old.
    let after_midnight = common::advance(&server, 3 * 3600).await;
    assert_ne!(after_midnight.date_naive(), first_at.date_naive());
    let (status, refused) = post(&server, &doses, Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["code"], "daily_maximum_reached");
    let next = first_at + chrono::Duration::hours(24);
    assert_eq!(common::instant(&refused["params"]["next_allowed_at"]), next);
    assert_eq!(refused["params"]["time"], next.format("%H:%M").to_string());
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(common::instant(&list["data"][0]["next_dose_allowed_at"]), next);
    assert_eq!(entries(&server, &token, id).await, 2);

    // A minute before the first leaves the 24 hours: still refused; then allowed (a second
    // more, as the clock runs to the millisecond and the advance counts whole seconds).
    common::advance(&server, (next - after_midnight).num_seconds() - 60).await;
    let (status, refused) = post(&server, &doses, Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    common::advance(&server, 61).await;
    let (status, body) = post(&server, &doses, Some(&token), json!({})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(entries(&server, &token, id).await, 3);
}
