//! Stock batches with expiry dates over HTTP against the real binary: a first batch turns
//! stock on, doses draw from the batch that expires first and give back to it when undone,
//! an expired batch stops counting, the ledger names the batch, and bad input or another
//! account's ids change nothing.

mod common;

use std::time::Duration;

use common::push::PushService;
use common::{Server, advance, call, get_json, post, register_device, with_clock_start};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const DAY: i64 = 86_400;

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

fn started_on_first_of_march(c: &mut std::process::Command) {
    c.env("PILLBOX_SIGNUPS", "open");
    with_clock_start(c, "2026-03-01T09:00:00Z");
}

/// A medication counted in tablets that keeps no stock yet.
async fn amoxicillin(server: &Server, token: &str) -> i64 {
    let (status, body) = post(
        server,
        "/api/medications",
        Some(token),
        json!({ "name": "Amoxicillin", "unit": "tablets", "frequency": "twice_daily", "default_quantity": 1,
                "schedule": { "times": ["08:00", "20:00"] } }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["data"]["inventory"], Value::Null, "no stock yet: {body}");
    body["data"]["id"].as_i64().unwrap()
}

async fn add_batch(server: &Server, token: &str, id: i64, body: Value) -> Value {
    let (status, answer) = post(
        server,
        &format!("/api/medications/{id}/inventory/batches"),
        Some(token),
        body,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["data"].clone()
}

async fn batches(server: &Server, token: &str, id: i64) -> Value {
    let (status, body) = get_json(
        server,
        &format!("/api/medications/{id}/inventory/batches"),
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].clone()
}

/// Each batch's remaining, by lot.
async fn remaining(server: &Server, token: &str, id: i64) -> Vec<(String, f64)> {
    batches(server, token, id).await["batches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["lot"].as_str().unwrap_or("").to_owned(),
                b["remaining"].as_f64().unwrap(),
            )
        })
        .collect()
}

async fn inventory(server: &Server, token: &str, id: i64) -> Value {
    let (status, body) = get_json(server, &format!("/api/medications/{id}/inventory"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].clone()
}

async fn stock(server: &Server, token: &str, id: i64) -> f64 {
    inventory(server, token, id).await["current_quantity"]
        .as_f64()
        .unwrap()
}

async fn dose(server: &Server, token: &str, id: i64, quantity: f64) -> Value {
    let (status, answer) = post(
        server,
        &format!("/api/medications/{id}/doses"),
        Some(token),
        json!({ "quantity": quantity, "dosage_unit": "tablets" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["data"].clone()
}

async fn ledger(server: &Server, token: &str, id: i64) -> Vec<Value> {
    let (status, body) = get_json(
        server,
        &format!("/api/medications/{id}/inventory/ledger?limit=100"),
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

/// The ledger's changes add up to the stock, and the stock is what unexpired batches hold.
async fn assert_consistent(server: &Server, token: &str, id: i64) {
    let rows = ledger(server, token, id).await;
    let sum: i64 = rows
        .iter()
        .map(|r| (r["change"].as_f64().unwrap() * 1000.0).round() as i64)
        .sum();
    let current = stock(server, token, id).await;
    assert_eq!(sum, (current * 1000.0).round() as i64, "ledger: {rows:#?}");
    let listed = batches(server, token, id).await;
    let unexpired: f64 = listed["batches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["expired"] == false)
        .map(|b| b["remaining"].as_f64().unwrap())
        .sum();
    assert_eq!(unexpired, current, "{listed}");
    assert_eq!(listed["available"].as_f64().unwrap(), current);
}

#[tokio::test]
async fn doses_draw_from_the_batch_that_expires_first_and_undoing_gives_back_to_it() {
    let server = Server::start_with(started_on_first_of_march);
    let token = account(&server, "ann@example.org").await;
    let id = amoxicillin(&server, &token).await;

    // The first batch turns stock on, counted in the medication's unit.
    let late = add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 20, "expires_on": "2026-12-31", "lot": "LATE-2" }),
    )
    .await;
    assert_eq!(
        (
            late["remaining"].as_f64(),
            late["expired"].as_bool(),
            late["expiring_soon"].as_bool()
        ),
        (Some(20.0), Some(false), Some(false))
    );
    let inv = inventory(&server, &token, id).await;
    assert_eq!(
        (
            inv["enabled"].as_bool(),
            inv["current_quantity"].as_f64(),
            inv["total_unit"].as_str()
        ),
        (Some(true), Some(20.0), Some("tablets")),
        "{inv}"
    );
    // Entered after it, but expiring first (within 30 days: the person is told).
    let early = add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 3, "expires_on": "2026-03-20", "lot": "EARLY-1" }),
    )
    .await;
    assert_eq!(early["expiring_soon"], true, "{early}");
    assert_eq!(stock(&server, &token, id).await, 23.0);
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    let summary = &list["data"][0]["inventory"]["batches"];
    assert_eq!(summary["count"], 2, "{list}");
    assert_eq!(summary["expiring_soon"][0]["lot"], "EARLY-1", "{summary}");
    assert_eq!(summary["expiring_soon"].as_array().unwrap().len(), 1);

    // First expiry, first out: 2 tablets from EARLY-1, then 2 more take its last and one of LATE-2.
    let first = dose(&server, &token, id, 2.0).await;
    assert_eq!(first["inventory"]["current_quantity"], 21, "{first}");
    assert_eq!(
        remaining(&server, &token, id).await,
        [("EARLY-1".to_owned(), 1.0), ("LATE-2".to_owned(), 20.0)]
    );
    let second = dose(&server, &token, id, 2.0).await;
    assert_eq!(second["warning"], Value::Null, "{second}");
    assert_eq!(
        remaining(&server, &token, id).await,
        [("EARLY-1".to_owned(), 0.0), ("LATE-2".to_owned(), 19.0)]
    );
    assert_eq!(stock(&server, &token, id).await, 19.0);

    // The ledger names the batch of every dose's draw.
    let second_entry = second["entry"]["id"].as_i64().unwrap();
    let rows = ledger(&server, &token, id).await;
    let draws: Vec<(Option<&str>, f64)> = rows
        .iter()
        .filter(|r| r["history_id"] == second_entry)
        .map(|r| (r["lot"].as_str(), r["change"].as_f64().unwrap()))
        .collect();
    assert_eq!(
        draws,
        [(Some("LATE-2"), -1.0), (Some("EARLY-1"), -1.0)],
        "{rows:#?}"
    );
    assert!(rows.iter().all(|r| r["batch_id"].is_i64()), "{rows:#?}");
    assert_consistent(&server, &token, id).await;

    // Undoing the second dose gives each tablet back to the batch it came from.
    let (status, body) = call(
        &server,
        Method::DELETE,
        &format!("/api/medications/history/{second_entry}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        remaining(&server, &token, id).await,
        [("EARLY-1".to_owned(), 1.0), ("LATE-2".to_owned(), 20.0)]
    );
    assert_eq!(stock(&server, &token, id).await, 21.0);
    let rows = ledger(&server, &token, id).await;
    assert!(
        rows.iter()
            .any(|r| r["kind"] == "dose_reverted" && r["lot"] == "EARLY-1" && r["change"] == 1),
        "{rows:#?}"
    );
    assert_consistent(&server, &token, id).await;

    // A single-count change is refused while the stock is kept in batches, and changes nothing.
    let (status, body) = post(
        &server,
        &format!("/api/medications/{id}/inventory/adjust"),
        Some(&token),
        json!({ "adjustment": 5 }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("stock_in_batches"))
    );
    assert_eq!(stock(&server, &token, id).await, 21.0);

    // Editing a batch moves the stock by what it now counts more; deleting takes it out.
    let late_id = late["id"].as_i64().unwrap();
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{id}/inventory/batches/{late_id}"),
        Some(&token),
        Some(json!({ "quantity": 30, "lot": "LATE-3" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (body["data"]["remaining"].as_f64(), body["data"]["lot"].as_str()),
        (Some(30.0), Some("LATE-3"))
    );
    assert_eq!(stock(&server, &token, id).await, 31.0);
    let early_id = early["id"].as_i64().unwrap();
    let (status, body) = call(
        &server,
        Method::DELETE,
        &format!("/api/medications/{id}/inventory/batches/{early_id}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(stock(&server, &token, id).await, 30.0);
    assert_consistent(&server, &token, id).await;
}

#[tokio::test]
async fn an_expired_batch_is_not_counted_and_doses_are_told_when_only_expired_stock_is_left() {
    let server = Server::start_with(started_on_first_of_march);
    let token = account(&server, "ann@example.org").await;
    let id = amoxicillin(&server, &token).await;
    add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 5, "expires_on": "2026-03-02", "lot": "OLD" }),
    )
    .await;
    add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 2, "expires_on": "2026-03-10", "lot": "NEXT" }),
    )
    .await;
    let taken = dose(&server, &token, id, 1.0).await;
    let taken_entry = taken["entry"]["id"].as_i64().unwrap();
    assert_eq!(stock(&server, &token, id).await, 6.0);

    // On its expiry day a batch may still be used; the day after it stops counting.
    advance(&server, DAY).await;
    assert_eq!(stock(&server, &token, id).await, 6.0);
    advance(&server, DAY).await;
    assert_eq!(stock(&server, &token, id).await, 2.0, "OLD expired on 2 March");
    let listed = batches(&server, &token, id).await;
    assert_eq!(listed["expired_remaining"], 4, "{listed}");
    assert_eq!(listed["batches"][0]["expired"], true, "{listed}");
    let inv = inventory(&server, &token, id).await;
    assert_eq!(inv["batches"]["expired_remaining"], 4, "{inv}");
    let rows = ledger(&server, &token, id).await;
    assert!(
        rows.iter().any(|r| r["lot"] == "OLD"
            && r["change"] == -4
            && r["reason"]
                .as_str()
                .unwrap_or("")
                .contains("expired on 2026-03-02")),
        "{rows:#?}"
    );
    assert_consistent(&server, &token, id).await;

    // Doses draw only from stock that has not expired; beyond it, the person is told why.
    dose(&server, &token, id, 2.0).await;
    let short = dose(&server, &token, id, 1.0).await;
    assert_eq!(short["warning_code"], "stock_short", "{short}");
    let warning = short["warning"].as_str().unwrap();
    assert!(
        warning.contains("4 tablets is left only in expired batches"),
        "{warning}"
    );
    assert_eq!(short["inventory"]["current_quantity"], 0);
    assert_eq!(short["inventory"]["stock_status"], "out_of_stock");
    assert_eq!(
        remaining(&server, &token, id).await,
        [("OLD".to_owned(), 4.0), ("NEXT".to_owned(), 0.0)]
    );

    // Undoing the dose from before the expiry gives back to the expired batch, uncounted.
    let (status, body) = call(
        &server,
        Method::DELETE,
        &format!("/api/medications/history/{taken_entry}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        remaining(&server, &token, id).await,
        [("OLD".to_owned(), 5.0), ("NEXT".to_owned(), 0.0)]
    );
    assert_eq!(stock(&server, &token, id).await, 0.0);
    assert_consistent(&server, &token, id).await;

    // A batch entered already past its date is listed as expired and adds nothing.
    let stale = add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 9, "expires_on": "2026-01-31" }),
    )
    .await;
    assert_eq!(stale["expired"], true, "{stale}");
    assert_eq!(stock(&server, &token, id).await, 0.0);
    assert_consistent(&server, &token, id).await;
}

#[tokio::test]
async fn the_first_batch_replaces_a_single_count_and_a_medication_without_batches_keeps_it() {
    let server = Server::start_with(started_on_first_of_march);
    let token = account(&server, "ann@example.org").await;
    let counted = amoxicillin(&server, &token).await;
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{counted}/inventory"),
        Some(&token),
        Some(
            json!({ "enabled": true, "inventory_type": "discrete", "container_type": "box",
                     "container_quantity": 1, "item_quantity": 30, "item_unit": "tablets" }),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let before = dose(&server, &token, counted, 1.0).await;
    assert_eq!(before["inventory"]["current_quantity"], 29);
    assert_eq!(inventory(&server, &token, counted).await["batches"], Value::Null);

    add_batch(
        &server,
        &token,
        counted,
        json!({ "quantity": 12, "expires_on": "2026-09-30" }),
    )
    .await;
    assert_eq!(stock(&server, &token, counted).await, 12.0);
    let rows = ledger(&server, &token, counted).await;
    assert_eq!(rows[0]["change"], -17, "{rows:#?}");
    assert!(rows[0]["reason"].as_str().unwrap().contains("counted in batches"));
    // A dose from before the batches gives nothing back to them when deleted.
    let entry = before["entry"]["id"].as_i64().unwrap();
    call(
        &server,
        Method::DELETE,
        &format!("/api/medications/history/{entry}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(stock(&server, &token, counted).await, 12.0);
    // Nor can a count be set by hand.
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{counted}/inventory"),
        Some(&token),
        Some(json!({ "current_quantity": 50 })),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::CONFLICT, Some("stock_in_batches"))
    );
    assert_consistent(&server, &token, counted).await;

    // Stock turned off keeps its batches; a batch added turns it on again with all of them.
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{counted}/inventory"),
        Some(&token),
        Some(json!({ "enabled": false })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    add_batch(
        &server,
        &token,
        counted,
        json!({ "quantity": 5, "expires_on": "2026-10-31" }),
    )
    .await;
    let inv = inventory(&server, &token, counted).await;
    assert_eq!(
        (inv["enabled"].as_bool(), inv["current_quantity"].as_f64()),
        (Some(true), Some(17.0)),
        "{inv}"
    );
    assert_consistent(&server, &token, counted).await;
}

#[tokio::test]
async fn bad_batches_and_another_accounts_ids_change_nothing() {
    let server = Server::start_with(started_on_first_of_march);
    let ann = account(&server, "ann@example.org").await;
    let bob = account(&server, "bob@example.org").await;
    let id = amoxicillin(&server, &ann).await;
    let batch = add_batch(
        &server,
        &ann,
        id,
        json!({ "quantity": 10, "expires_on": "2026-06-30" }),
    )
    .await;
    let batch_id = batch["id"].as_i64().unwrap();
    let path = format!("/api/medications/{id}/inventory/batches");

    // Each refusal has its own code, which the web app translates.
    for (body, message, code) in [
        (
            json!({ "quantity": -1, "expires_on": "2026-06-30" }),
            "Quantity must be more than 0",
            "batch_quantity_out_of_range",
        ),
        (
            json!({ "quantity": 0, "expires_on": "2026-06-30" }),
            "Quantity must be more than 0",
            "batch_quantity_out_of_range",
        ),
        (
            json!({ "quantity": 5, "expires_on": "30/06/2026" }),
            "Expiry date must be a date (YYYY-MM-DD)",
            "batch_expiry_invalid",
        ),
        (
            json!({ "quantity": 5, "expires_on": "2026-02-30" }),
            "Expiry date must be a date (YYYY-MM-DD)",
            "batch_expiry_invalid",
        ),
        (
            json!({ "expires_on": "2026-06-30" }),
            "Quantity is required",
            "batch_quantity_required",
        ),
        (
            json!({ "quantity": 5 }),
            "Expiry date is required",
            "batch_expiry_required",
        ),
        (
            json!({ "quantity": 5, "expires_on": "2026-06-30", "lot": "x".repeat(101) }),
            "Lot must be at most 100 characters",
            "batch_lot_too_long",
        ),
    ] {
        let (status, answer) = post(&server, &path, Some(&ann), body.clone()).await;
        assert_eq!(
            (status, answer["message"].as_str(), answer["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some(message), Some(code)),
            "{body}"
        );
    }
    let (status, answer) = post(
        &server,
        &path,
        Some(&ann),
        json!({ "quantity": "many", "expires_on": "2026-06-30" }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    let batch_path = format!("{path}/{batch_id}");
    for (body, code) in [
        (json!({ "quantity": -3 }), "batch_quantity_out_of_range"),
        (json!({ "expires_on": "soon" }), "batch_expiry_invalid"),
        (json!({ "remaining": 11 }), "batch_remaining_out_of_range"),
    ] {
        let (status, answer) = call(&server, Method::PUT, &batch_path, Some(&ann), Some(body.clone())).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some(code)),
            "{body}: {answer}"
        );
    }

    // Another account sees neither the medication nor its batch.
    let (status, answer) = get_json(&server, &path, Some(&bob)).await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("medication_not_found"))
    );
    let (status, _) = post(
        &server,
        &path,
        Some(&bob),
        json!({ "quantity": 5, "expires_on": "2026-06-30" }),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = call(
        &server,
        Method::PUT,
        &batch_path,
        Some(&bob),
        Some(json!({ "quantity": 1 })),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = call(&server, Method::DELETE, &batch_path, Some(&bob), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    // Bob's own medication with Ann's batch id: no such batch of his.
    let bobs = amoxicillin(&server, &bob).await;
    let (status, answer) = call(
        &server,
        Method::DELETE,
        &format!("/api/medications/{bobs}/inventory/batches/{batch_id}"),
        Some(&bob),
        None,
    )
    .await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("batch_not_found"))
    );

    let listed = batches(&server, &ann, id).await;
    assert_eq!(listed["batches"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(
        (
            listed["batches"][0]["remaining"].as_f64(),
            listed["available"].as_f64()
        ),
        (Some(10.0), Some(10.0))
    );
    assert_eq!(ledger(&server, &ann, id).await.len(), 1);
    assert_consistent(&server, &ann, id).await;

    // Doses took 4: the batch cannot shrink below what they took.
    dose(&server, &ann, id, 4.0).await;
    let (status, answer) = call(
        &server,
        Method::PUT,
        &batch_path,
        Some(&ann),
        Some(json!({ "quantity": 3 })),
    )
    .await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("batch_quantity_below_drawn")),
        "{answer}"
    );
    assert_eq!(remaining(&server, &ann, id).await, [(String::new(), 6.0)]);
}

#[tokio::test]
async fn a_batch_added_is_a_refill_come_in() {
    let server = Server::start_with(started_on_first_of_march);
    let token = account(&server, "ann@example.org").await;
    let (status, body) = post(
        &server,
        "/api/medications",
        Some(&token),
        json!({ "name": "Metformin", "unit": "tablets", "frequency": "twice_daily", "default_quantity": 1,
                "schedule": { "times": ["08:00", "20:00"] },
                "prescription": { "refills_authorised": 3, "refills_left": 2 } }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["data"]["id"].as_i64().unwrap();
    add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 60, "expires_on": "2027-01-31" }),
    )
    .await;
    let (_, after) = get_json(&server, &format!("/api/medications/{id}"), Some(&token)).await;
    assert_eq!(after["data"]["prescription"]["refills_left"], 1, "{after}");
}

#[tokio::test]
async fn switches_and_corrections_move_batches_first_expiry_first_out() {
    let server = Server::start_with(started_on_first_of_march);
    let token = account(&server, "ann@example.org").await;
    let id = amoxicillin(&server, &token).await;
    add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 2, "expires_on": "2026-04-30", "lot": "A" }),
    )
    .await;
    add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 10, "expires_on": "2026-08-31", "lot": "B" }),
    )
    .await;
    let entry = dose(&server, &token, id, 3.0).await["entry"]["id"]
        .as_i64()
        .unwrap();
    let lots = |a: f64, b: f64| vec![("A".to_owned(), a), ("B".to_owned(), b)];
    assert_eq!(remaining(&server, &token, id).await, lots(0.0, 9.0));
    let path = format!("/api/medications/history/{entry}");
    let change = |body: Value| {
        let (server, token, path) = (&server, &token, &path);
        async move {
            let (status, answer) = call(server, Method::PUT, path, Some(token), Some(body)).await;
            assert_eq!(status, StatusCode::OK, "{answer}");
        }
    };

    // Skipped gives all three back where they came from; taken again takes them again.
    change(json!({ "status": "skipped" })).await;
    assert_eq!(remaining(&server, &token, id).await, lots(2.0, 10.0));
    change(json!({ "status": "taken" })).await;
    assert_eq!(remaining(&server, &token, id).await, lots(0.0, 9.0));

    // Corrected to 1 tablet: two go back, the batch that expires last first.
    change(json!({ "quantity": 1 })).await;
    assert_eq!(remaining(&server, &token, id).await, lots(1.0, 10.0));
    // Corrected to 4: three more, the first to expire first.
    change(json!({ "quantity": 4 })).await;
    assert_eq!(remaining(&server, &token, id).await, lots(0.0, 8.0));
    let rows = ledger(&server, &token, id).await;
    assert!(
        rows.iter()
            .any(|r| r["kind"] == "correction" && r["lot"] == "A" && r["change"] == -1),
        "{rows:#?}"
    );
    assert_consistent(&server, &token, id).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_expiring_under_the_threshold_sends_the_low_stock_alert() {
    let push = PushService::start().await;
    let server = Server::start_with(|c| {
        started_on_first_of_march(c);
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
            .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix())
            .env("PILLBOX_PUBLIC_URL", "http://pillbox.test");
    });
    let token = account(&server, "ann@example.org").await;
    register_device(&server, &token, &push, "phone").await;
    let id = amoxicillin(&server, &token).await;
    add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 20, "expires_on": "2026-03-01", "lot": "OLD" }),
    )
    .await;
    add_batch(
        &server,
        &token,
        id,
        json!({ "quantity": 5, "expires_on": "2026-09-30", "lot": "NEW" }),
    )
    .await;
    assert_eq!(stock(&server, &token, id).await, 25.0);
    advance(&server, 0).await;
    // OLD's last day is today: it is announced, and no low-stock alert goes out.
    let soon = push.wait_for("phone", 1, Duration::from_secs(15)).await;
    assert_eq!(soon.payload["title"], "A batch of Amoxicillin expires soon");
    let titles = |push: &PushService| -> Vec<String> {
        push.received("phone")
            .iter()
            .map(|r| r.payload["title"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    assert!(
        !titles(&push).contains(&"Running low on Amoxicillin".to_owned()),
        "25 is above the threshold of 10"
    );

    // The next day OLD has expired: 5 are left, under the threshold.
    advance(&server, DAY).await;
    assert_eq!(stock(&server, &token, id).await, 5.0);
    push.wait_for("phone", 3, Duration::from_secs(15)).await;
    let mut said = titles(&push);
    said.sort();
    assert_eq!(
        said,
        [
            "A batch of Amoxicillin expires soon",
            "A batch of Amoxicillin has expired",
            "Running low on Amoxicillin"
        ]
    );
}
