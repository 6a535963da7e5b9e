//! Prescriptions and refills (issue 29) over HTTP against the real binary, on a fixed clock:
//! a medication's prescription is saved, read and removed with it; a refill is needed a week
//! (or `order_days_before`) before the stock runs out at the planned rate or the prescription
//! expires; marking it ordered holds until stock comes in, which counts a refill down; bad
//! fields change nothing; another account's medication is 404.

mod common;

use common::{Server, call, get_json, post, register, save_settings, with_clock_start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// Ten tablets left, two a day: the stock runs out on 2026-12-06 (the clock's today is
/// 2026-12-01 in Berlin).
async fn metformin(server: &Server, token: &str, prescription: Value) -> (StatusCode, Value) {
    post(
        server,
        "/api/medications",
        Some(token),
        json!({
            "name": "Metformin", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
            "schedule": { "times": ["08:00", "20:00"], "start_date": "2026-11-01" },
            "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "box",
                           "container_quantity": 1, "item_quantity": 10, "item_unit": "tablets" },
            "prescription": prescription,
        }),
    )
    .await
}

fn server() -> Server {
    Server::start_with(|c| with_clock_start(c, "2026-12-01T09:00:00Z"))
}

#[tokio::test]
async fn a_refill_is_due_before_the_stock_runs_out_and_ordering_holds_until_stock_comes_in() {
    let server = server();
    let token = register(&server, "ann@example.com").await;
    save_settings(&server, &token, json!({ "timezone": "Europe/Berlin" })).await;
    let (status, created) = metformin(
        &server,
        &token,
        json!({
            "prescriber": "Dr. Weber", "pharmacy_name": "Apotheke am Markt", "pharmacy_phone": "+49 30 1234567",
            "pharmacy_url": "https://apotheke.example/order", "prescribed_on": "2026-10-01", "expires_on": "2027-04-01",
            "refills_authorised": 3, "refills_left": 2,
        }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let medication = &created["data"];
    let id = medication["id"].as_i64().unwrap();
    let p = &medication["prescription"];
    assert_eq!(p["prescriber"], "Dr. Weber");
    assert_eq!(p["pharmacy_phone"], "+49 30 1234567");
    assert_eq!(p["order_days_before"], 7, "the default");
    assert_eq!(medication["inventory"]["runs_out_on"], "2026-12-06");
    assert_eq!(
        p["refill"],
        json!({ "reason": "stock", "due_on": "2026-12-06", "order_by": "2026-11-29", "late": true,
                "ordered": false, "new_prescription_needed": false }),
        "within a week of running out"
    );

    // The doctor report lists the prescription and what to order.
    let (status, report) = get_json(&server, "/api/report", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{report}");
    let line = &report["data"]["medications"][0];
    assert_eq!(line["prescription"]["pharmacy_name"], "Apotheke am Markt");
    assert_eq!(line["prescription"]["refill"]["order_by"], "2026-11-29");

    // Ordered: the list says so until stock comes in.
    let (status, ordered) = post(
        &server,
        &format!("/api/medications/{id}/refill-ordered"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{ordered}");
    assert_eq!(ordered["data"]["prescription"]["refill"]["ordered"], true);
    assert!(ordered["data"]["prescription"]["ordered_at"].is_string());
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(list["data"][0]["prescription"]["refill"]["ordered"], true);

    // The refill comes in: 60 tablets; one refill fewer left, nothing to order.
    let (status, adjusted) = post(
        &server,
        &format!("/api/medications/{id}/inventory/adjust"),
        Some(&token),
        json!({ "adjustment": 60, "reason": "refill" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{adjusted}");
    let (_, after) = get_json(&server, &format!("/api/medications/{id}"), Some(&token)).await;
    let p = &after["data"]["prescription"];
    assert_eq!(p["refills_left"], 1);
    assert_eq!(p["ordered_at"], Value::Null);
    assert_eq!(p["refill"], Value::Null, "35 days of stock: nothing to order");

    // Taking some away (a lost tablet) is no refill.
    post(
        &server,
        &format!("/api/medications/{id}/inventory/adjust"),
        Some(&token),
        json!({ "adjustment": -1 }),
    )
    .await;
    let (_, after) = get_json(&server, &format!("/api/medications/{id}"), Some(&token)).await;
    assert_eq!(after["data"]["prescription"]["refills_left"], 1);

    // Null removes the prescription; absent leaves it.
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{id}"),
        Some(&token),
        Some(json!({ "notes": "x" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["prescription"]["prescriber"], "Dr. Weber");
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{id}"),
        Some(&token),
        Some(json!({ "prescription": null })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["prescription"], Value::Null);
    let (status, body) = post(
        &server,
        &format!("/api/medications/{id}/refill-ordered"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "prescription_not_found");
}

#[tokio::test]
async fn an_expiring_prescription_or_no_refills_left_asks_for_a_new_one() {
    let server = server();
    let token = register(&server, "ann@example.com").await;
    let (status, created) = post(
        &server,
        "/api/medications",
        Some(&token),
        json!({ "name": "Ramipril", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                "prescription": { "expires_on": "2026-12-20", "order_days_before": 21, "refills_left": 1 } }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let refill = &created["data"]["prescription"]["refill"];
    assert_eq!(refill["reason"], "expiry");
    assert_eq!(refill["due_on"], "2026-12-20");
    assert_eq!(refill["new_prescription_needed"], true);

    let (status, created) = metformin(
        &server,
        &token,
        json!({ "refills_authorised": 2, "refills_left": 0 }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(
        created["data"]["prescription"]["refill"]["new_prescription_needed"],
        true
    );
}

#[tokio::test]
async fn bad_prescription_fields_are_refused_and_nothing_is_made_and_another_account_gets_404() {
    let server = Server::start_with(|c| {
        with_clock_start(c, "2026-12-01T09:00:00Z");
        c.env("PILLBOX_SIGNUPS", "open");
    });
    let token = register(&server, "ann@example.com").await;
    // Each refusal has its own code (the web app translates it) and names its field.
    for (prescription, says, code, field) in [
        (
            json!({ "pharmacy_phone": "call me" }),
            "digits",
            "pharmacy_phone_invalid",
            "pharmacy_phone",
        ),
        (
            json!({ "pharmacy_url": "javascript:alert(1)" }),
            "https://",
            "pharmacy_url_invalid",
            "pharmacy_url",
        ),
        (
            json!({ "prescribed_on": "2026-12-01", "expires_on": "2026-11-01" }),
            "expire before",
            "prescription_expires_before_written",
            "expires_on",
        ),
        (
            json!({ "refills_authorised": 1, "refills_left": 2 }),
            "more than",
            "refills_left_above_authorised",
            "refills_left",
        ),
        (
            json!({ "refills_authorised": 100 }),
            "from 0 to 99",
            "refills_out_of_range",
            "refills_authorised",
        ),
        (
            json!({ "order_days_before": 0 }),
            "from 1 to 90",
            "order_days_out_of_range",
            "order_days_before",
        ),
        (
            json!({ "expires_on": "next year" }),
            "YYYY-MM-DD",
            "prescription_date_invalid",
            "expires_on",
        ),
        (
            json!({ "prescriber": "D".repeat(201) }),
            "at most 200",
            "prescription_text_too_long",
            "prescriber",
        ),
        (
            json!({ "pharmacy_name": "Apotheke\u{7}" }),
            "control characters",
            "prescription_text_invalid",
            "pharmacy_name",
        ),
    ] {
        let (status, body) = metformin(&server, &token, prescription.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{prescription}: {body}");
        assert!(
            body["message"].as_str().unwrap().contains(says),
            "{prescription}: {body}"
        );
        assert_eq!(
            (body["code"].as_str(), body["params"]["field"].as_str()),
            (Some(code), Some(field)),
            "{prescription}: {body}"
        );
    }
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(list["data"], json!([]), "a refused medication is not made");

    let (_, created) = metformin(&server, &token, json!({ "prescriber": "Dr. Weber" })).await;
    let id = created["data"]["id"].as_i64().unwrap();
    let bob = register(&server, "bob@example.com").await;
    let (status, body) = post(
        &server,
        &format!("/api/medications/{id}/refill-ordered"),
        Some(&bob),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "medication_not_found");
}
