//! Medications, stock and history over HTTP against the real binary: CRUD, every validation
//! message, stock arithmetic through doses, switches, deletes and adjustments, concurrent
//! doses, paging and filters, user isolation and bad input.

mod common;

use common::{Server, call, get_json, login, post};
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

fn open_signups(c: &mut std::process::Command) {
    c.env("PILLBOX_SIGNUPS", "open");
}

/// 3 blister packs of 10 tablets of 500 mg: 30 tablets.
fn tablets() -> Value {
    json!({
        "name": "Ibuprofen", "unit": "mg", "frequency": "twice_daily", "color": "red", "default_quantity": 500,
        "notes": "with food", "schedule": { "times": ["08:00", "20:00"] },
        "inventory": {
            "enabled": true, "inventory_type": "discrete", "container_type": "blister_pack",
            "container_quantity": 3, "item_quantity": 10, "item_strength": 500, "item_unit": "tablets"
        }
    })
}

async fn create(server: &Server, token: &str, body: Value) -> Value {
    let (status, answer) = post(server, "/api/medications", Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["data"].clone()
}

async fn stock(server: &Server, token: &str, id: i64) -> f64 {
    let (status, body) = get_json(server, &format!("/api/medications/{id}/inventory"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]["current_quantity"].as_f64().unwrap()
}

async fn dose(server: &Server, token: &str, id: i64, body: Value) -> Value {
    let (status, answer) = post(server, &format!("/api/medications/{id}/doses"), Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["data"].clone()
}

/// The ledger's changes add up to the current stock.
async fn assert_ledger_adds_up(server: &Server, token: &str, id: i64) {
    let rows = ledger(server, token, id).await;
    let sum: i64 = rows
        .iter()
        .map(|r| (r["change"].as_f64().unwrap() * 1000.0).round() as i64)
        .sum();
    let current = (stock(server, token, id).await * 1000.0).round() as i64;
    assert_eq!(sum, current, "ledger: {rows:?}");
    assert_eq!(
        (rows[0]["balance"].as_f64().unwrap() * 1000.0).round() as i64,
        current
    );
}

#[tokio::test]
async fn create_read_update_delete() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let (_, empty) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(empty["data"], json!([]));

    let med = create(&server, &token, tablets()).await;
    let id = med["id"].as_i64().unwrap();
    assert_eq!(
        (med["name"].as_str(), med["unit"].as_str(), med["icon"].as_str()),
        (Some("Ibuprofen"), Some("mg"), Some("pill-symbolic"))
    );
    assert_eq!(med["schedule"]["effective_times"], json!(["08:00", "20:00"]));
    let inv = &med["inventory"];
    assert_eq!(
        (inv["total_quantity"].as_f64(), inv["total_unit"].as_str()),
        (Some(30.0), Some("tablets"))
    );
    assert_eq!(
        (inv["current_quantity"].as_f64(), inv["stock_status"].as_str()),
        (Some(30.0), Some("in_stock"))
    );
    // Two doses of one tablet a day: 30 tablets last 15 days.
    let runs_out =
        chrono::NaiveDate::parse_from_str(inv["runs_out_on"].as_str().unwrap(), "%Y-%m-%d").unwrap();
    let days = (runs_out - chrono::Utc::now().date_naive()).num_days();
    assert!((14..=16).contains(&days), "{runs_out}");

    let (status, updated) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{id}"),
        Some(&token),
        Some(json!({ "name": "Ibuprofen 500", "frequency": "weekly", "schedule": { "weekdays": [1, 4], "times": [] } })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{updated}");
    assert_eq!(updated["data"]["name"], "Ibuprofen 500");
    assert_eq!(updated["data"]["schedule"]["effective_weekdays"], json!([1, 4]));
    assert_eq!(
        updated["data"]["schedule"]["effective_times"],
        json!(["09:00"]),
        "default reminder time"
    );
    assert_eq!(
        updated["data"]["color"], "red",
        "fields not sent keep their value"
    );

    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    let (status, _) = call(
        &server,
        Method::DELETE,
        &format!("/api/medications/{id}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        get_json(&server, &format!("/api/medications/{id}"), Some(&token))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn validation_messages_from_the_spec() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let cases = [
        (json!({ "unit": "mg" }), "Name is required"),
        (json!({ "name": "  ", "unit": "mg" }), "Name is required"),
        (json!({ "name": "A" }), "Unit is required"),
        (
            json!({ "name": "A", "unit": "spoons" }),
            "Unit 'spoons' is not a valid medical unit",
        ),
        (
            json!({ "name": "A", "unit": "mg", "frequency": "hourly" }),
            "Frequency must be one of daily, twice_daily, weekly, monthly, as_needed",
        ),
        (
            json!({ "name": "A", "unit": "mg", "color": "black" }),
            "Color must be one of blue, red, green, yellow, purple, pink, orange",
        ),
        (
            json!({ "name": "A", "unit": "mg", "default_quantity": -1 }),
            "Please enter a valid positive number for the dosage amount",
        ),
        (
            json!({ "name": "A", "unit": "mg", "default_quantity": 0 }),
            "Please enter a valid positive number for the dosage amount",
        ),
        (
            json!({ "name": "x".repeat(201), "unit": "mg" }),
            "Name must be at most 200 characters",
        ),
        (
            json!({ "name": "A", "unit": "mg", "schedule": { "times": ["25:00"] } }),
            "Time of day '25:00' must be written as HH:MM",
        ),
        (
            json!({ "name": "A", "unit": "ml", "inventory": { "enabled": true, "inventory_type": "continuous", "container_quantity": 2 } }),
            "Container quantity, size, and unit are required for continuous inventory",
        ),
        (
            json!({ "name": "A", "unit": "mg", "inventory": { "enabled": true, "inventory_type": "discrete", "item_quantity": 10 } }),
            "Container type, item quantity and unit are required for discrete inventory",
        ),
        (
            json!({ "name": "A", "unit": "ml", "inventory": { "enabled": true, "inventory_type": "continuous", "container_quantity": 0, "container_size": 10, "container_unit": "ml" } }),
            "Container quantity must be a whole number from 1 to 1000000",
        ),
    ];
    for (body, message) in cases {
        let (status, answer) = post(&server, "/api/medications", Some(&token), body.clone()).await;
        assert_eq!(
            (status, answer["message"].as_str()),
            (StatusCode::BAD_REQUEST, Some(message)),
            "{body}"
        );
        // The machine code the app translates; the specific ones carry their values.
        let code = match message {
            "Name is required" => "name_required",
            "Unit is required" => "unit_required",
            "Unit 'spoons' is not a valid medical unit" => "unit_invalid",
            _ => "validation_failed",
        };
        assert_eq!(answer["code"], code, "{body}: {answer}");
        if code == "unit_invalid" {
            assert_eq!(answer["params"], json!({ "unit": "spoons" }));
        } else {
            assert!(answer.get("params").is_none(), "{answer}");
        }
    }
    for body in [
        json!({ "name": 5, "unit": "mg" }),
        json!({ "name": "A", "unit": "mg", "default_quantity": "one" }),
        json!({ "name": "A", "unit": "mg", "default_quantity": 0.0001 }),
        json!({ "name": "A", "unit": "mg", "inventory": { "enabled": true, "container_quantity": 1.5 } }),
    ] {
        let (status, answer) = post(&server, "/api/medications", Some(&token), body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(answer["success"], false);
        assert!(answer["code"].is_string(), "{answer}");
    }
    assert_eq!(
        get_json(&server, "/api/medications", Some(&token)).await.1["data"],
        json!([]),
        "nothing half-written"
    );
}

#[tokio::test]
async fn stock_follows_doses_switches_deletes_and_adjustments() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let id = create(&server, &token, tablets()).await["id"].as_i64().unwrap();

    // 500 mg is one tablet; 2 tablets are two; 1 g of 500 mg tablets is two.
    let first = dose(&server, &token, id, json!({})).await;
    assert_eq!(first["inventory"]["current_quantity"], 29);
    dose(
        &server,
        &token,
        id,
        json!({ "quantity": 2, "dosage_unit": "tablets" }),
    )
    .await;
    let gram = dose(&server, &token, id, json!({ "quantity": 1, "dosage_unit": "g" })).await;
    assert_eq!(stock(&server, &token, id).await, 25.0);
    // Skipped and missed doses and doses that do not affect inventory leave stock alone.
    dose(&server, &token, id, json!({ "status": "skipped" })).await;
    dose(&server, &token, id, json!({ "status": "missed" })).await;
    dose(&server, &token, id, json!({ "affect_inventory": false })).await;
    assert_eq!(stock(&server, &token, id).await, 25.0);

    // Switching a taken entry to skipped gives its tablets back; back to taken takes them.
    let entry_id = first["entry"]["id"].as_i64().unwrap();
    let path = format!("/api/medications/history/{entry_id}");
    let (status, body) = call(
        &server,
        Method::PUT,
        &path,
        Some(&token),
        Some(json!({ "status": "skipped" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["inventory"]["current_quantity"], 26);
    call(
        &server,
        Method::PUT,
        &path,
        Some(&token),
        Some(json!({ "status": "missed" })),
    )
    .await;
    assert_eq!(
        stock(&server, &token, id).await,
        26.0,
        "skipped to missed moves nothing"
    );
    call(
        &server,
        Method::PUT,
        &path,
        Some(&token),
        Some(json!({ "status": "taken" })),
    )
    .await;
    assert_eq!(stock(&server, &token, id).await, 25.0);
    let (status, body) = call(
        &server,
        Method::PUT,
        &path,
        Some(&token),
        Some(json!({ "status": "forgotten" })),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Status must be taken, skipped or missed")
        )
    );

    // Deleting a taken entry gives its stock back.
    let gram_path = format!("/api/medications/history/{}", gram["entry"]["id"]);
    assert_eq!(
        call(&server, Method::DELETE, &gram_path, Some(&token), None)
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(stock(&server, &token, id).await, 27.0);
    assert_eq!(
        call(&server, Method::DELETE, &gram_path, Some(&token), None)
            .await
            .0,
        StatusCode::NOT_FOUND
    );

    // Manual adjustments, exact to three decimals.
    let adjust = format!("/api/medications/{id}/inventory/adjust");
    for change in [0.1, 0.2] {
        let (status, body) = post(
            &server,
            &adjust,
            Some(&token),
            json!({ "adjustment": change, "reason": "found one" }),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let (_, body) = post(&server, &adjust, Some(&token), json!({ "adjustment": -0.3 })).await;
    assert_eq!(
        body["data"]["current_quantity"], 27,
        "0.1 + 0.2 - 0.3 is exactly 0"
    );
    let (status, body) = post(&server, &adjust, Some(&token), json!({ "adjustment": 0 })).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Adjustment must be a non-zero number")
        )
    );
    let (status, _) = post(&server, &adjust, Some(&token), json!({ "reason": "no amount" })).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_ledger_adds_up(&server, &token, id).await;

    // Totals kept by triggers agree with counting after switches and deletes.
    for status in ["taken", "skipped", "missed"] {
        let (_, kept) = get_json(
            &server,
            &format!("/api/medications/history?status={status}"),
            Some(&token),
        )
        .await;
        let (_, counted) = get_json(
            &server,
            &format!("/api/medications/history?status={status}&medicationId={id}"),
            Some(&token),
        )
        .await;
        assert_eq!(
            kept["pagination"]["total"], counted["pagination"]["total"],
            "{status}"
        );
    }
    let (_, all) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(all["pagination"]["total"], 5, "six logged, one deleted");

    // Clearing the item strength (null) would leave doses in mg uncountable in tablets: it is
    // refused, and the strength stays.
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{id}/inventory"),
        Some(&token),
        Some(json!({ "item_strength": null })),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some(
                "Stock is counted in tablets but doses are in mg: enter how many mg one tablet holds (item strength)"
            )
        )
    );
    let (_, inventory) = get_json(&server, &format!("/api/medications/{id}/inventory"), Some(&token)).await;
    assert_eq!(inventory["data"]["item_strength"], 500);

    // A dose in a unit the stock cannot count is still recorded; the stock is left alone
    // and the answer says why.
    let (status, body) = post(
        &server,
        &format!("/api/medications/{id}/doses"),
        Some(&token),
        json!({ "quantity": 5, "dosage_unit": "ml" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["data"]["warning_code"], "stock_unit_mismatch");
    assert_eq!(
        body["data"]["warning"],
        "The dose is recorded, but the stock was left as it was. A dose in ml cannot be counted in tablets."
    );
    assert_eq!(body["data"]["entry"]["dosage_unit"], "ml");
    assert_eq!(stock(&server, &token, id).await, 27.0);
}

#[tokio::test]
async fn continuous_stock_low_stock_and_the_refill_threshold() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let syrup = create(
        &server,
        &token,
        json!({
            "name": "Syrup", "unit": "ml", "default_quantity": 2.5,
            "inventory": { "enabled": true, "inventory_type": "continuous", "container_type": "bottle",
                           "container_quantity": 2, "container_size": 10, "container_unit": "ml", "reminder_threshold": 15 }
        }),
    )
    .await;
    let id = syrup["id"].as_i64().unwrap();
    assert_eq!(syrup["inventory"]["total_quantity"], 20);
    dose(&server, &token, id, json!({})).await;
    dose(
        &server,
        &token,
        id,
        json!({ "quantity": 500, "dosage_unit": "mcl" }),
    )
    .await;
    assert_eq!(stock(&server, &token, id).await, 17.0);
    let (_, low) = get_json(&server, "/api/medications/inventory/low-stock", Some(&token)).await;
    assert_eq!(low["data"], json!([]));
    dose(&server, &token, id, json!({ "quantity": 2 })).await;
    let (_, low) = get_json(&server, "/api/medications/inventory/low-stock", Some(&token)).await;
    assert_eq!(low["data"][0]["inventory"]["stock_status"], "low");
    dose(&server, &token, id, json!({ "quantity": 15 })).await;
    let (_, low) = get_json(&server, "/api/medications/inventory/low-stock", Some(&token)).await;
    assert_eq!(low["data"][0]["inventory"]["stock_status"], "out_of_stock");

    // Turning inventory off and on again starts from a full stock.
    let inventory = format!("/api/medications/{id}/inventory");
    call(
        &server,
        Method::PUT,
        &inventory,
        Some(&token),
        Some(json!({ "enabled": false })),
    )
    .await;
    let (status, body) = call(
        &server,
        Method::PUT,
        &inventory,
        Some(&token),
        Some(json!({ "enabled": true, "container_quantity": 1 })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (
            body["data"]["current_quantity"].as_f64(),
            body["data"]["total_quantity"].as_f64()
        ),
        (Some(10.0), Some(10.0))
    );
    assert_ledger_adds_up(&server, &token, id).await;
}

#[tokio::test]
async fn fifty_concurrent_doses_lose_no_update() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let mut body = tablets();
    body["inventory"]["container_quantity"] = json!(10);
    let id = create(&server, &token, body).await["id"].as_i64().unwrap();
    let doses = (0..50).map(|_| {
        let client = common::client();
        let url = server.url(&format!("/api/medications/{id}/doses"));
        let token = token.clone();
        tokio::spawn(async move {
            client
                .post(url)
                .bearer_auth(token)
                .json(&json!({}))
                .send()
                .await
                .unwrap()
                .status()
        })
    });
    for handle in doses.collect::<Vec<_>>() {
        assert_eq!(handle.await.unwrap(), StatusCode::CREATED);
    }
    assert_eq!(
        stock(&server, &token, id).await,
        50.0,
        "100 tablets less 50 doses of one"
    );
    let (_, history) = get_json(
        &server,
        &format!("/api/medications/{id}/history?limit=1"),
        Some(&token),
    )
    .await;
    assert_eq!(history["pagination"]["total"], 50);
    assert_ledger_adds_up(&server, &token, id).await;
}

#[tokio::test]
async fn history_pages_and_filters() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let a = create(&server, &token, json!({ "name": "A", "unit": "tablets" })).await["id"]
        .as_i64()
        .unwrap();
    let b = create(&server, &token, json!({ "name": "B", "unit": "tablets" })).await["id"]
        .as_i64()
        .unwrap();
    let now = chrono::Utc::now();
    for i in 0..45 {
        let status = ["taken", "skipped", "missed"][i % 3];
        let taken = (now - chrono::Duration::hours(i as i64 * 12)).to_rfc3339();
        dose(
            &server,
            &token,
            if i % 5 == 0 { b } else { a },
            json!({ "status": status, "taken": taken }),
        )
        .await;
    }
    let (_, first) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(first["data"].as_array().unwrap().len(), 20);
    assert_eq!(
        first["pagination"],
        json!({ "total": 45, "total_exact": true, "has_more": true, "limit": 20, "offset": 0, "page": 1, "pages": 3 })
    );
    let (_, last) = get_json(&server, "/api/medications/history?page=3", Some(&token)).await;
    assert_eq!(last["data"].as_array().unwrap().len(), 5);
    assert_eq!(last["pagination"]["has_more"], false);
    let times: Vec<&str> = first["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["taken"].as_str().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first");
    assert_eq!(first["data"][0]["medication_name"], "B");

    let (_, taken) = get_json(
        &server,
        "/api/medications/history?status=taken&limit=100",
        Some(&token),
    )
    .await;
    assert_eq!(taken["pagination"]["total"], 15);
    assert!(
        taken["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["status"] == "taken")
    );
    let (_, only_b) = get_json(
        &server,
        &format!("/api/medications/history?medicationId={b}"),
        Some(&token),
    )
    .await;
    assert_eq!(only_b["pagination"]["total"], 9);
    let today = now.date_naive();
    let from = (today - chrono::Duration::days(2)).to_string();
    let (_, recent) = get_json(
        &server,
        &format!("/api/medications/history?date_from={from}&date_to={today}"),
        Some(&token),
    )
    .await;
    let total = recent["pagination"]["total"].as_i64().unwrap();
    assert!(
        (5..=7).contains(&total),
        "about 2.5 days of 12-hourly doses: {total}"
    );

    for bad in [
        "status=taken&status=missed",
        "status=forgotten",
        "limit=0",
        "limit=1000",
        "page=0",
        "offset=-1",
        "date_from=yesterday",
        "medicationId=x",
    ] {
        let (status, body) =
            get_json(&server, &format!("/api/medications/history?{bad}"), Some(&token)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    // Far past the end is an empty page (it once overflowed into a 500).
    let (status, body) = get_json(
        &server,
        &format!("/api/medications/history?limit=1&offset={}", i64::MAX),
        Some(&token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"], json!([]));
    assert_eq!(body["pagination"]["page"], i64::MAX);
}

#[tokio::test]
async fn historical_entries_cannot_be_in_the_future() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let id = create(&server, &token, tablets()).await["id"].as_i64().unwrap();
    let tomorrow = (chrono::Utc::now() + chrono::Duration::days(1)).to_rfc3339();
    let (status, body) = post(
        &server,
        &format!("/api/medications/{id}/doses"),
        Some(&token),
        json!({ "taken": tomorrow }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Cannot add entries for future dates")
        )
    );
    assert_eq!(body["code"], "future_date");
    let yesterday = (chrono::Utc::now() - chrono::Duration::days(1)).to_rfc3339();
    let entry = dose(
        &server,
        &token,
        id,
        json!({ "taken": yesterday, "quantity": 1000, "dosage_unit": "mg" }),
    )
    .await;
    assert_eq!(
        entry["inventory"]["current_quantity"], 28,
        "affects inventory by default"
    );
    for (body, message, code) in [
        (
            json!({ "quantity": -2 }),
            "Please enter a valid positive number for the dosage amount",
            "validation_failed",
        ),
        (json!({ "dosage_unit": "" }), "Unit is required", "unit_required"),
        (
            json!({ "dosage_unit": "cups" }),
            "Unit 'cups' is not a valid medical unit",
            "unit_invalid",
        ),
        (
            json!({ "taken": "yesterday" }),
            "Please select both date and time",
            "validation_failed",
        ),
        (
            json!({ "status": "eaten" }),
            "Status must be taken, skipped or missed",
            "validation_failed",
        ),
    ] {
        let (status, answer) = post(
            &server,
            &format!("/api/medications/{id}/doses"),
            Some(&token),
            body.clone(),
        )
        .await;
        assert_eq!(
            (status, answer["message"].as_str(), answer["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some(message), Some(code)),
            "{body}"
        );
    }
    assert_eq!(stock(&server, &token, id).await, 28.0);
}

#[tokio::test]
async fn another_users_ids_answer_404() {
    let server = Server::start_with(open_signups);
    let ann = account(&server, "ann@example.org").await;
    let bob = account(&server, "bob@example.org").await;
    let id = create(&server, &ann, tablets()).await["id"].as_i64().unwrap();
    let entry = dose(&server, &ann, id, json!({})).await["entry"]["id"]
        .as_i64()
        .unwrap();

    assert_eq!(
        get_json(&server, "/api/medications", Some(&bob)).await.1["data"],
        json!([])
    );
    let (_, bob_history) = get_json(&server, "/api/medications/history", Some(&bob)).await;
    assert_eq!(bob_history["pagination"]["total"], 0);
    for (method, path, body) in [
        (Method::GET, format!("/api/medications/{id}"), None),
        (
            Method::PUT,
            format!("/api/medications/{id}"),
            Some(json!({ "name": "mine" })),
        ),
        (Method::DELETE, format!("/api/medications/{id}"), None),
        (
            Method::POST,
            format!("/api/medications/{id}/doses"),
            Some(json!({})),
        ),
        (Method::GET, format!("/api/medications/{id}/history"), None),
        (Method::GET, format!("/api/medications/{id}/inventory"), None),
        (
            Method::PUT,
            format!("/api/medications/{id}/inventory"),
            Some(json!({ "enabled": false })),
        ),
        (
            Method::POST,
            format!("/api/medications/{id}/inventory/adjust"),
            Some(json!({ "adjustment": 5 })),
        ),
        (
            Method::PUT,
            format!("/api/medications/history/{entry}"),
            Some(json!({ "status": "skipped" })),
        ),
        (Method::DELETE, format!("/api/medications/history/{entry}"), None),
        (Method::GET, "/api/medications/999999".to_owned(), None),
        (Method::GET, "/api/medications/not-a-number".to_owned(), None),
    ] {
        let (status, answer) = call(&server, method.clone(), &path, Some(&bob), body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{method} {path}: {answer}");
        assert_eq!(answer["success"], false);
        let code = if path.contains("/history/") {
            "entry_not_found"
        } else if path.ends_with("not-a-number") {
            "invalid_request"
        } else {
            "medication_not_found"
        };
        assert_eq!(answer["code"], code, "{method} {path}: {answer}");
    }
    assert_eq!(stock(&server, &ann, id).await, 29.0, "ann's stock untouched");
    assert_eq!(
        get_json(&server, &format!("/api/medications/{id}"), Some(&ann))
            .await
            .1["data"]["name"],
        "Ibuprofen"
    );
    assert_eq!(
        get_json(&server, "/api/medications", None).await.0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn deleting_a_medication_keeps_its_history_unless_asked() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let keep = create(&server, &token, tablets()).await["id"].as_i64().unwrap();
    let drop = create(&server, &token, json!({ "name": "Other", "unit": "tablets" })).await["id"]
        .as_i64()
        .unwrap();
    dose(&server, &token, keep, json!({})).await;
    dose(&server, &token, drop, json!({})).await;
    call(
        &server,
        Method::DELETE,
        &format!("/api/medications/{keep}"),
        Some(&token),
        None,
    )
    .await;
    call(
        &server,
        Method::DELETE,
        &format!("/api/medications/{drop}?delete_history=true"),
        Some(&token),
        None,
    )
    .await;
    let (_, history) = get_json(&server, "/api/medications/history", Some(&token)).await;
    let entries = history["data"].as_array().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(
        (
            entries[0]["medication_name"].as_str(),
            &entries[0]["medication_id"]
        ),
        (Some("Ibuprofen"), &Value::Null)
    );
    // The kept entry can still be corrected or deleted.
    let path = format!("/api/medications/history/{}", entries[0]["id"]);
    assert_eq!(
        call(
            &server,
            Method::PUT,
            &path,
            Some(&token),
            Some(json!({ "status": "skipped" }))
        )
        .await
        .0,
        StatusCode::OK
    );
}

#[tokio::test]
async fn adherence_and_settings() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let id = create(&server, &token, json!({ "name": "A", "unit": "tablets" })).await["id"]
        .as_i64()
        .unwrap();
    let ago = |days: i64| (chrono::Utc::now() - chrono::Duration::days(days)).to_rfc3339();
    for (status, days) in [
        ("taken", 0),
        ("taken", 1),
        ("skipped", 2),
        ("missed", 10),
        ("taken", 20),
        ("taken", 40),
    ] {
        dose(
            &server,
            &token,
            id,
            json!({ "status": status, "taken": ago(days) }),
        )
        .await;
    }
    let (_, body) = get_json(&server, "/api/medications/adherence", Some(&token)).await;
    let med = &body["data"]["medications"][0];
    assert_eq!(
        med["last7"],
        json!({ "taken": 2, "skipped": 1, "missed": 0, "rate": 0.667 })
    );
    assert_eq!(
        med["last30"],
        json!({ "taken": 3, "skipped": 1, "missed": 1, "rate": 0.6 })
    );
    let daily = body["data"]["daily"].as_array().unwrap();
    assert_eq!(daily.len(), 30);
    assert_eq!(daily.iter().map(|d| d["taken"].as_i64().unwrap()).sum::<i64>(), 3);

    let (status, body) = call(
        &server,
        Method::PUT,
        "/api/settings",
        Some(&token),
        Some(json!({ "timezone": "Mars/Olympus" })),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Unknown time zone 'Mars/Olympus'"))
    );
    let (status, body) = call(
        &server,
        Method::PUT,
        "/api/settings",
        Some(&token),
        Some(json!({ "timezone": "Europe/Berlin", "defaultReminderTime": "07:30", "language": "de", "theme": "dark" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, settings) = get_json(&server, "/api/settings", Some(&token)).await;
    assert_eq!(settings["data"]["timezone"], "Europe/Berlin");
    assert_eq!(
        (
            settings["data"]["language"].as_str(),
            settings["data"]["dateFormat"].as_str()
        ),
        (Some("de"), Some("auto"))
    );
    let (_, med) = get_json(&server, &format!("/api/medications/{id}"), Some(&token)).await;
    assert_eq!(
        med["data"]["schedule"]["effective_times"],
        json!(["07:30"]),
        "schedules use the default reminder time"
    );
    let (_, units) = get_json(&server, "/api/units", None).await;
    assert!(
        units["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["symbol"] == "μg" && u["aliases"] == json!(["mcg"]))
    );
}

#[tokio::test]
async fn old_entries_never_move_a_newer_stock() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let id = create(&server, &token, tablets()).await["id"].as_i64().unwrap();
    let entry = dose(
        &server,
        &token,
        id,
        json!({ "quantity": 1000, "dosage_unit": "mg" }),
    )
    .await;
    assert_eq!(
        entry["inventory"]["current_quantity"], 28,
        "1000 mg of 500 mg tablets"
    );
    let path = format!("/api/medications/history/{}", entry["entry"]["id"]);
    let inventory = format!("/api/medications/{id}/inventory");

    // New tablets of another strength: correcting the old entry's time moves nothing.
    call(
        &server,
        Method::PUT,
        &inventory,
        Some(&token),
        Some(json!({ "item_strength": 1000 })),
    )
    .await;
    let earlier = (chrono::Utc::now() - chrono::Duration::hours(2)).to_rfc3339();
    let (status, body) = call(
        &server,
        Method::PUT,
        &path,
        Some(&token),
        Some(json!({ "taken": earlier })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(stock(&server, &token, id).await, 28.0);

    // Stock turned off and on starts full; deleting the old dose does not overfill it.
    call(
        &server,
        Method::PUT,
        &inventory,
        Some(&token),
        Some(json!({ "enabled": false })),
    )
    .await;
    call(
        &server,
        Method::PUT,
        &inventory,
        Some(&token),
        Some(json!({ "enabled": true })),
    )
    .await;
    assert_eq!(stock(&server, &token, id).await, 30.0);
    assert_eq!(
        call(&server, Method::DELETE, &path, Some(&token), None).await.0,
        StatusCode::OK
    );
    assert_eq!(stock(&server, &token, id).await, 30.0);
    assert_ledger_adds_up(&server, &token, id).await;
}

/// The data directory's database, opened by the test itself as an older Pillbox left it.
fn database(data_dir: &std::path::Path) -> rusqlite::Connection {
    rusqlite::Connection::open(data_dir.join("pillbox.sqlite3")).unwrap()
}

/// The whole ledger, newest first, read page by page.
async fn ledger(server: &Server, token: &str, id: i64) -> Vec<Value> {
    let mut rows = Vec::new();
    for page in 1.. {
        let (status, body) = get_json(
            server,
            &format!("/api/medications/{id}/inventory/ledger?limit=100&page={page}"),
            Some(token),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        rows.extend(body["data"].as_array().unwrap().iter().cloned());
        if body["pagination"]["has_more"] == false {
            return rows;
        }
    }
    unreachable!()
}

#[tokio::test]
async fn a_stock_set_up_that_doses_cannot_draw_from_is_refused_with_what_to_fill_in() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let lisinopril = json!({
        "name": "Lisinopril", "unit": "mg", "default_quantity": 10,
        "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "pill_bottle",
                       "container_quantity": 1, "item_quantity": 30, "item_unit": "tablets" }
    });
    let (status, body) = post(&server, "/api/medications", Some(&token), lisinopril.clone()).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some(
                "Stock is counted in tablets but doses are in mg: enter how many mg one tablet holds (item strength)"
            )
        )
    );
    assert_eq!(body["code"], "strength_needed");
    assert_eq!(body["params"], json!({ "stock": "tablets", "unit": "mg" }));
    let insulin = json!({
        "name": "Insulin", "unit": "units", "default_quantity": 8,
        "inventory": { "enabled": true, "inventory_type": "continuous", "container_type": "vial",
                       "container_quantity": 2, "container_size": 10, "container_unit": "ml" }
    });
    let (status, body) = post(&server, "/api/medications", Some(&token), insulin).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some(
                "Stock is counted in ml but doses are in units: count the stock in units, a unit a dose converts to"
            )
        )
    );
    assert_eq!(body["code"], "unit_mismatch");
    assert_eq!(body["params"], json!({ "stock": "ml", "unit": "units" }));
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(list["data"], json!([]), "nothing was created");

    // With the strength it is accepted; without stock tracking the units do not matter.
    let mut with_strength = lisinopril.clone();
    with_strength["inventory"]["item_strength"] = json!(10);
    let id = create(&server, &token, with_strength).await["id"]
        .as_i64()
        .unwrap();
    let mut untracked = lisinopril;
    untracked["name"] = json!("Lisinopril (spare)");
    untracked["inventory"]["enabled"] = json!(false);
    create(&server, &token, untracked).await;

    // Saving the inventory, or changing the medication's unit, into such a set-up is
    // refused too, and changes nothing.
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{id}"),
        Some(&token),
        Some(json!({ "name": "Renamed", "inventory": { "item_strength": null } })),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("enter how many mg one tablet holds"),
        "{body}"
    );
    let syrup = create(
        &server,
        &token,
        json!({ "name": "Syrup", "unit": "ml", "default_quantity": 5,
                "inventory": { "enabled": true, "inventory_type": "continuous", "container_type": "bottle",
                               "container_quantity": 1, "container_size": 100, "container_unit": "ml" } }),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{syrup}"),
        Some(&token),
        Some(json!({ "unit": "mg" })),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Stock is counted in ml but doses are in mg: count the stock in mg or another weight unit")
        )
    );
    assert_eq!(
        (body["code"].as_str(), &body["params"]),
        (Some("unit_mismatch"), &json!({ "stock": "ml", "unit": "mg" }))
    );
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    let names: Vec<(&str, &str)> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["name"].as_str().unwrap(), m["unit"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("Lisinopril", "mg"),
            ("Lisinopril (spare)", "mg"),
            ("Syrup", "ml")
        ]
    );
    assert_eq!(list["data"][0]["inventory"]["item_strength"], 10);
    // A dose unit that converts (μl for ml) stays fine.
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{syrup}"),
        Some(&token),
        Some(json!({ "unit": "mcl" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_dose_on_stock_stored_in_units_it_cannot_count_is_recorded_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start_in(&data, open_signups).unwrap();
    let token = account(&server, "ann@example.org").await;
    let id = create(
        &server,
        &token,
        json!({ "name": "Lisinopril", "unit": "mg", "default_quantity": 10,
                "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "pill_bottle",
                               "container_quantity": 1, "item_quantity": 30, "item_strength": 10, "item_unit": "tablets" } }),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    server.terminate();
    // What older versions accepted: tablets with no strength for a medication in mg.
    database(&data)
        .execute(
            "UPDATE inventories SET item_strength = NULL WHERE medication_id = ?1",
            [id],
        )
        .unwrap();
    let server = Server::start_in(&data, open_signups).unwrap();
    let token = login(&server, "ann@example.org").await;

    let (status, body) = post(
        &server,
        &format!("/api/medications/{id}/doses"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "the dose is recorded: {body}");
    assert_eq!(body["data"]["warning_code"], "stock_unit_mismatch");
    assert_eq!(
        body["data"]["warning"],
        "The dose is recorded, but the stock was left as it was. Stock is counted in tablets but doses are in mg: enter how many mg one tablet holds (item strength)."
    );
    assert_eq!(body["data"]["entry"]["status"], "taken");
    assert_eq!(body["data"]["inventory"]["current_quantity"], 30);
    let (_, history) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(history["pagination"]["total"], 1);
    let rows = ledger(&server, &token, id).await;
    assert_eq!(rows.len(), 1, "only the initial count: {rows:?}");
    assert_eq!(rows[0]["kind"], "initial");

    // Deleting that entry gives back nothing it did not take.
    let path = format!("/api/medications/history/{}", body["data"]["entry"]["id"]);
    assert_eq!(
        call(&server, Method::DELETE, &path, Some(&token), None).await.0,
        StatusCode::OK
    );
    assert_eq!(stock(&server, &token, id).await, 30.0);

    // A dose without a stock problem answers no warning.
    let (_, other) = post(
        &server,
        &format!("/api/medications/{id}/doses"),
        Some(&token),
        json!({ "quantity": 1, "dosage_unit": "tablets" }),
    )
    .await;
    assert_eq!(
        (&other["data"]["warning"], &other["data"]["warning_code"]),
        (&Value::Null, &Value::Null),
        "{other}"
    );
    assert_eq!(stock(&server, &token, id).await, 29.0);
}

#[tokio::test]
async fn stock_never_goes_below_zero() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = Server::start_in(&data, open_signups).unwrap();
    let token = account(&server, "ann@example.org").await;
    let id = create(
        &server,
        &token,
        json!({ "name": "Amoxicillin", "unit": "capsules", "default_quantity": 1,
                "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "pill_bottle",
                               "container_quantity": 1, "item_quantity": 20, "item_unit": "capsules",
                               "current_quantity": 2 } }),
    )
    .await["id"]
        .as_i64()
        .unwrap();

    // Three capsules taken with two left: recorded, stock stops at 0, the ledger says so.
    let big = dose(&server, &token, id, json!({ "quantity": 3 })).await;
    assert_eq!(big["entry"]["quantity"], 3);
    assert_eq!(big["inventory"]["current_quantity"], 0);
    assert_eq!(big["inventory"]["stock_status"], "out_of_stock");
    assert_eq!(big["warning_code"], "stock_short");
    assert_eq!(
        big["warning"],
        "The dose is recorded, but the stock had only 2 capsules: it is now 0 (1 capsule taken beyond the stock)."
    );
    let rows = ledger(&server, &token, id).await;
    assert_eq!(
        (&rows[0]["change"], &rows[0]["balance"], &rows[0]["reason"]),
        (&json!(-2), &json!(0), &json!("1 capsule taken beyond the stock"))
    );
    // Another with none left: recorded, still 0.
    let more = dose(&server, &token, id, json!({ "quantity": 2 })).await;
    assert_eq!(more["inventory"]["current_quantity"], 0);
    assert_eq!(more["warning_code"], "stock_short");
    assert_eq!(
        more["warning"],
        "The dose is recorded, but the stock was already empty (2 capsules taken beyond the stock)."
    );
    assert_ledger_adds_up(&server, &token, id).await;

    // Switching or deleting gives back only what came out of the stock.
    let path = format!("/api/medications/history/{}", big["entry"]["id"]);
    let (status, body) = call(
        &server,
        Method::PUT,
        &path,
        Some(&token),
        Some(json!({ "status": "skipped" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["inventory"]["current_quantity"], 2);
    let more_path = format!("/api/medications/history/{}", more["entry"]["id"]);
    assert_eq!(
        call(&server, Method::DELETE, &more_path, Some(&token), None)
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(stock(&server, &token, id).await, 2.0);

    // A manual change below zero is refused and changes nothing; down to zero is fine.
    let adjust = format!("/api/medications/{id}/inventory/adjust");
    let (status, body) = post(&server, &adjust, Some(&token), json!({ "adjustment": -3 })).await;
    assert_eq!(
        (status, body["message"].as_str(), body["code"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Stock cannot go below zero"),
            Some("stock_below_zero")
        )
    );
    assert_eq!(stock(&server, &token, id).await, 2.0);
    let (status, body) = post(&server, &adjust, Some(&token), json!({ "adjustment": -2 })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["current_quantity"], 0);
    assert_ledger_adds_up(&server, &token, id).await;

    // A balance below zero left by an older version shows as none, and a refill counts
    // from zero.
    server.terminate();
    database(&data)
        .execute(
            "UPDATE inventories SET current_quantity = -1000 WHERE medication_id = ?1",
            [id],
        )
        .unwrap();
    let server = Server::start_in(&data, open_signups).unwrap();
    let token = login(&server, "ann@example.org").await;
    assert_eq!(stock(&server, &token, id).await, 0.0);
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(list["data"][0]["inventory"]["current_quantity"], 0);
    let (_, body) = post(
        &server,
        &adjust,
        Some(&token),
        json!({ "adjustment": 5, "reason": "refill" }),
    )
    .await;
    assert_eq!(body["data"]["current_quantity"], 5);
}

#[tokio::test]
async fn stock_and_history_errors_carry_their_codes() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let plain = create(&server, &token, json!({ "name": "Plain", "unit": "mg" })).await["id"]
        .as_i64()
        .unwrap();
    let (status, body) = post(
        &server,
        &format!("/api/medications/{plain}/inventory/adjust"),
        Some(&token),
        json!({ "adjustment": 5 }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str(), body["code"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Inventory is not enabled for this medication"),
            Some("inventory_not_enabled")
        )
    );
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{plain}/inventory"),
        Some(&token),
        Some(
            json!({ "enabled": true, "inventory_type": "continuous", "container_type": "vial",
                     "container_quantity": 1, "container_size": 10, "container_unit": "cups" }),
        ),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str(), body["code"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Unit 'cups' is not a valid medical unit"),
            Some("unit_invalid")
        )
    );
    assert_eq!(body["params"], json!({ "unit": "cups" }));

    let entry = dose(&server, &token, plain, json!({})).await["entry"]["id"]
        .as_i64()
        .unwrap();
    let tomorrow = (chrono::Utc::now() + chrono::Duration::days(1)).to_rfc3339();
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/history/{entry}"),
        Some(&token),
        Some(json!({ "taken": tomorrow })),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("future_date")),
        "{body}"
    );
    let (status, body) = get_json(&server, "/api/medications/history?status=eaten", Some(&token)).await;
    assert_eq!(
        (status, body["message"].as_str(), body["code"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Status must be taken, skipped or missed"),
            Some("validation_failed")
        )
    );
    let (status, body) = post(
        &server,
        &format!("/api/medications/{plain}/doses"),
        Some(&token),
        json!({ "dosage_id": 999_999 }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("notification_not_found")),
        "{body}"
    );

    // The unit catalogue needs no sign-in.
    let (status, body) = get_json(&server, "/api/units", None).await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        body["data"]
            .as_array()
            .is_some_and(|units| units.iter().any(|u| u["symbol"] == "μg"))
    );
}

/// Rows written straight into the ledger, as years of doses would leave them.
fn seed_ledger(data_dir: &std::path::Path, id: i64, rows: i64) {
    let db = database(data_dir);
    db.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
    db.execute(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?2)
         INSERT INTO stock_ledger (medication_id, change, balance, kind, reason, history_id, created_at)
         SELECT ?1, 0, 30000, 'adjustment', 'row ' || i, NULL, '2024-01-01T00:00:00.000Z' FROM n",
        [id, rows],
    )
    .unwrap();
}

#[tokio::test]
async fn the_stock_ledger_pages_like_the_history_past_its_old_500_rows() {
    let server = Server::start_with(open_signups);
    let token = account(&server, "ann@example.org").await;
    let id = create(&server, &token, tablets()).await["id"].as_i64().unwrap();
    seed_ledger(&server.data_dir, id, 1199);
    let page = |query: &str| {
        let path = format!("/api/medications/{id}/inventory/ledger?{query}");
        let (server, token) = (&server, &token);
        async move {
            let (status, body) = get_json(server, &path, Some(token)).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            body
        }
    };

    // 1,200 rows: the first page counts only so far ahead, and says so.
    let first = page("").await;
    assert_eq!(first["data"].as_array().unwrap().len(), 20);
    assert_eq!(first["data"][0]["reason"], "row 1199", "newest first");
    assert_eq!(first["pagination"]["total_exact"], false, "{first}");
    assert_eq!(first["pagination"]["has_more"], true);
    assert!(first["pagination"]["total"].as_i64().unwrap() > 20);
    // Page 60 of 20 holds the oldest rows, ending with the stock's first one; there the
    // count reaches the end.
    let last = page("page=60").await;
    let rows = last["data"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    assert_eq!(rows[19]["kind"], "initial");
    assert_eq!(rows[18]["reason"], "row 1");
    assert_eq!(
        last["pagination"],
        json!({ "total": 1200, "total_exact": true, "has_more": false, "limit": 20, "offset": 1180, "page": 60, "pages": 60 })
    );
    // The same parameters as the history: `offset` wins over `page`.
    let by_offset = page("limit=3&offset=600&page=2").await;
    assert_eq!(by_offset["data"][0]["reason"], "row 599");
    assert_eq!(by_offset["pagination"]["page"], 201);
    let past_end = page("page=1000").await;
    assert_eq!(past_end["data"], json!([]));
    assert_eq!(past_end["pagination"]["has_more"], false);

    for bad in ["limit=0", "limit=101", "page=0", "offset=-1", "page=x"] {
        let (status, body) = get_json(
            &server,
            &format!("/api/medications/{id}/inventory/ledger?{bad}"),
            Some(&token),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}: {body}");
    }
    let bob = account(&server, "bob@example.org").await;
    let (status, body) = get_json(
        &server,
        &format!("/api/medications/{id}/inventory/ledger"),
        Some(&bob),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "medication_not_found");
}

#[tokio::test]
async fn history_totals_stay_exact_by_medication_and_status_and_say_when_a_date_range_was_not_counted_to_the_end()
 {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let a = create(&server, &token, json!({ "name": "A", "unit": "mg" })).await["id"]
        .as_i64()
        .unwrap();
    let b = create(&server, &token, json!({ "name": "B", "unit": "mg" })).await["id"]
        .as_i64()
        .unwrap();
    let user: i64 = get_json(&server, "/api/auth/me", Some(&token)).await.1["data"]["id"]
        .as_i64()
        .unwrap();
    // 2,400 entries an hour apart, alternating A and B, taken, taken, missed.
    let db = database(&server.data_dir);
    db.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
    db.execute(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2399)
         INSERT INTO dose_history_rows (user_id, medication_id, medication_name, medication_unit, status, taken_at,
                                   quantity, dosage_unit, affect_inventory, created_at)
         SELECT ?1, CASE WHEN i % 2 = 0 THEN ?2 ELSE ?3 END, CASE WHEN i % 2 = 0 THEN 'A' ELSE 'B' END, 'mg',
                CASE WHEN i % 3 = 2 THEN 'missed' ELSE 'taken' END,
                strftime('%Y-%m-%dT%H:%M:%S.000Z', '2025-06-01', '-' || i || ' hours'), 1000, 'mg', 0,
                '2025-06-01T00:00:00.000Z'
         FROM n",
        rusqlite::params![user, a, b],
    )
    .unwrap();
    let total = |query: String| {
        let (server, token) = (&server, &token);
        async move {
            let (status, body) =
                get_json(server, &format!("/api/medications/history?{query}"), Some(token)).await;
            assert_eq!(status, StatusCode::OK, "{body}");
            body["pagination"].clone()
        }
    };
    let exact = |pagination: &Value, n: i64| {
        assert_eq!(pagination["total"], n, "{pagination}");
        assert_eq!(pagination["total_exact"], true, "{pagination}");
    };
    exact(&total(String::new()).await, 2400);
    exact(&total(format!("medicationId={a}")).await, 1200);
    exact(
        &total(format!("medicationId={b}&status=missed&page=3")).await,
        400,
    );
    exact(&total("status=taken".into()).await, 1600);

    // A range of 61 days (1,464 entries) is counted up to a bound past the page: more than
    // the page, less than all, and flagged.
    let wide = total("date_from=2025-04-01&date_to=2025-05-31".into()).await;
    assert_eq!(wide["total_exact"], false, "{wide}");
    assert_eq!(wide["has_more"], true);
    let counted = wide["total"].as_i64().unwrap();
    assert!((21..1464).contains(&counted), "{wide}");
    // Its last page, asked for by offset, is counted exactly.
    let end = total("date_from=2025-04-01&date_to=2025-05-31&limit=100&offset=1400".into()).await;
    assert_eq!(end["has_more"], false, "{end}");
    exact(&end, 1464);
    // A narrow range is exact.
    exact(&total("date_from=2025-05-30&date_to=2025-05-30".into()).await, 24);

    // A medication deleted with its history kept: its entries stay, counted without it.
    let (status, body) = call(
        &server,
        Method::DELETE,
        &format!("/api/medications/{b}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    exact(&total(String::new()).await, 2400);
    exact(&total("status=missed".into()).await, 800);
    exact(&total(format!("medicationId={a}&status=missed")).await, 400);
    // Its id names no medication any more: as a filter it is not found, as its own routes
    // answer (an id that is not the account's cannot be told from one that never was).
    let (status, body) = get_json(
        &server,
        &format!("/api/medications/history?medicationId={b}"),
        Some(&token),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "medication_not_found", "{body}");
}

#[tokio::test]
async fn the_list_shows_each_medications_five_latest_doses_as_the_history_orders_them() {
    let server = Server::start();
    let token = account(&server, "ann@example.org").await;
    let a = create(&server, &token, tablets()).await["id"].as_i64().unwrap();
    let b = create(&server, &token, json!({ "name": "B", "unit": "mg" })).await["id"]
        .as_i64()
        .unwrap();
    let _none = create(&server, &token, json!({ "name": "C", "unit": "mg" })).await;
    let now = chrono::Utc::now();
    // Seven doses of A, three of them at one instant (ties are broken by the newer entry),
    // and two of B.
    for hours in [30, 1, 1, 1, 20, 10, 40] {
        let taken = (now - chrono::Duration::hours(hours)).to_rfc3339();
        dose(&server, &token, a, json!({ "taken": taken })).await;
    }
    for hours in [3, 2] {
        let taken = (now - chrono::Duration::hours(hours)).to_rfc3339();
        dose(&server, &token, b, json!({ "taken": taken, "status": "skipped" })).await;
    }
    let (_, list) = get_json(&server, "/api/medications", Some(&token)).await;
    let doses_of = |id: i64| -> Vec<Value> {
        let m = list["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id)
            .unwrap();
        m["doses"].as_array().unwrap().clone()
    };
    for (id, expected) in [(a, 5), (b, 2)] {
        let (_, history) = get_json(
            &server,
            &format!("/api/medications/{id}/history?limit=5"),
            Some(&token),
        )
        .await;
        let from_history: Vec<&Value> = history["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| &e["id"])
            .collect();
        let listed = doses_of(id);
        let from_list: Vec<&Value> = listed.iter().map(|d| &d["id"]).collect();
        assert_eq!(from_list.len(), expected);
        assert_eq!(from_list, from_history, "{listed:?}");
    }
    assert_eq!(doses_of(b)[0]["status"], "skipped");
    let names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["B", "C", "Ibuprofen"]);
    let c = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "C")
        .unwrap();
    assert_eq!(c["doses"], json!([]));
    assert_eq!(c["inventory"], Value::Null);
}

#[tokio::test]
async fn doses_logged_at_the_same_moment_are_all_kept_and_a_refused_one_fails_alone() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let server = Server::start_in(&data_dir, |_| {}).unwrap();
    let token = account(&server, "ann@example.org").await;
    let id = create(&server, &token, tablets()).await["id"].as_i64().unwrap();

    // 32 doses at once share commits; every other one is refused (a dose in the future, a
    // medication that is not there), inside the same group as the good ones.
    let mut requests = tokio::task::JoinSet::new();
    for n in 0..32 {
        let (path, body) = match n % 4 {
            1 => (
                format!("/api/medications/{id}/doses"),
                json!({ "taken": "2999-01-01T08:00:00Z" }),
            ),
            3 => (format!("/api/medications/{}/doses", id + 1000), json!({})),
            _ => (format!("/api/medications/{id}/doses"), json!({})),
        };
        let request = common::client()
            .post(server.url(&path))
            .bearer_auth(&token)
            .json(&body);
        requests.spawn(async move {
            let response = request.send().await.unwrap();
            (n, response.status(), response.json::<Value>().await.unwrap())
        });
    }
    let mut entries = Vec::new();
    while let Some(answer) = requests.join_next().await {
        let (n, status, body) = answer.unwrap();
        match n % 4 {
            1 => assert_eq!(
                (status, body["code"].as_str()),
                (StatusCode::BAD_REQUEST, Some("future_date"))
            ),
            3 => assert_eq!(
                (status, body["code"].as_str()),
                (StatusCode::NOT_FOUND, Some("medication_not_found"))
            ),
            _ => {
                assert_eq!(status, StatusCode::CREATED, "{body}");
                entries.push(body["data"]["entry"]["id"].as_i64().unwrap());
            }
        }
    }
    entries.sort_unstable();
    entries.dedup();
    assert_eq!(entries.len(), 16, "every logged dose has its own entry");
    assert_eq!(stock(&server, &token, id).await, 14.0, "each took its tablet");
    assert_ledger_adds_up(&server, &token, id).await;

    // What was acknowledged survives the server being killed (Drop sends SIGKILL).
    drop(server);
    let server = Server::start_in(&data_dir, |_| {}).unwrap();
    let (_, history) = get_json(&server, "/api/medications/history?limit=100", Some(&token)).await;
    let mut kept: Vec<i64> = history["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    kept.sort_unstable();
    assert_eq!(kept, entries);
    assert_eq!(stock(&server, &token, id).await, 14.0);
}

/// GET /api/medications with an Accept-Encoding: its headers and its body decoded.
async fn list_as(server: &Server, token: &str, accept: &str) -> (Option<String>, String, Value) {
    let answer = common::client()
        .get(server.url("/api/medications"))
        .bearer_auth(token)
        .header("accept-encoding", accept)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::OK);
    let header = |name: &str| answer.headers().get(name).map(|v| v.to_str().unwrap().to_owned());
    let (encoding, vary) = (header("content-encoding"), header("vary").unwrap_or_default());
    let bytes = answer.bytes().await.unwrap();
    let mut json = Vec::new();
    match encoding.as_deref() {
        Some("gzip") => {
            std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut json).unwrap();
        }
        None => json = bytes.to_vec(),
        Some(other) => panic!("unexpected encoding {other}"),
    }
    (encoding, vary, serde_json::from_slice(&json).unwrap())
}

/// The list is the app's first screen and is kept between requests: what it shows is never
/// older than what is stored, whoever changed it (this server or another process beside it),
/// and it reads the same gzipped or not.
#[tokio::test]
async fn the_list_is_never_older_than_the_database_and_reads_the_same_in_every_encoding() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let server = Server::start_in(&data_dir, open_signups).unwrap();
    let token = account(&server, "ann@example.org").await;
    let id = create(&server, &token, tablets()).await["id"].as_i64().unwrap();
    // Long enough to be worth compressing.
    for name in ["Zinc", "Zolpidem"] {
        create(
            &server,
            &token,
            json!({ "name": name, "unit": "mg", "notes": "x".repeat(300) }),
        )
        .await;
    }
    let stock_listed = |list: &Value| list["data"][0]["inventory"]["current_quantity"].as_f64().unwrap();
    for _ in 0..3 {
        assert_eq!(stock_listed(&list_as(&server, &token, "identity").await.2), 30.0);
    }

    dose(&server, &token, id, json!({})).await;
    let (_, _, list) = list_as(&server, &token, "identity").await;
    assert_eq!(stock_listed(&list), 29.0);
    assert_eq!(list["data"][0]["doses"].as_array().unwrap().len(), 1);

    // Another process (a script, a CLI command) changes the database beside the server.
    database(&data_dir)
        .execute(
            "UPDATE medications SET name = 'Ibuprofen 400' WHERE id = ?1",
            [id],
        )
        .unwrap();
    let (_, _, list) = list_as(&server, &token, "identity").await;
    assert_eq!(list["data"][0]["name"], "Ibuprofen 400");

    let (plain_encoding, vary, plain) = list_as(&server, &token, "identity").await;
    assert_eq!(plain_encoding, None);
    assert!(vary.contains("accept-encoding"), "{vary}");
    // Like the rest of the API, gzip only (the binary carries no Brotli encoder).
    for (accept, expected) in [
        ("gzip, deflate, br, zstd", Some("gzip")),
        ("gzip", Some("gzip")),
        ("br;q=0, gzip;q=0.8", Some("gzip")),
        ("br", None),
        ("gzip;q=0", None),
    ] {
        for _ in 0..2 {
            let (encoding, vary, list) = list_as(&server, &token, accept).await;
            assert_eq!(encoding.as_deref(), expected, "{accept}");
            assert!(vary.contains("accept-encoding"), "{vary}");
            assert_eq!(list, plain, "{accept}");
        }
    }

    // Another person sees their own (empty) list, not Ann's kept one.
    let bob = account(&server, "bob@example.org").await;
    assert_eq!(list_as(&server, &bob, "gzip").await.2["data"], json!([]));
}

#[tokio::test]
async fn a_history_entry_is_corrected_in_time_amount_and_note_and_the_stock_follows() {
    let server = Server::start_with(open_signups);
    let token = account(&server, "ann@example.org").await;
    let id = create(&server, &token, tablets()).await["id"].as_i64().unwrap();
    let logged = dose(
        &server,
        &token,
        id,
        json!({ "quantity": 1, "dosage_unit": "tablets" }),
    )
    .await;
    assert_eq!(stock(&server, &token, id).await, 29.0);
    let entry = logged["entry"]["id"].as_i64().unwrap();
    let path = format!("/api/medications/history/{entry}");
    let put = |body: Value| call(&server, Method::PUT, &path, Some(&token), Some(body));

    // Taken three hours ago, three tablets, with a note: the stock gives two more.
    let earlier = chrono::Utc::now() - chrono::Duration::hours(3);
    let (status, body) = put(json!({
        "taken": earlier.to_rfc3339(), "quantity": 3, "dosage_unit": "tablets", "dosage": "after lunch"
    }))
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let corrected = &body["data"]["entry"];
    assert_eq!(
        common::instant(&corrected["taken"]).timestamp_millis(),
        earlier.timestamp_millis()
    );
    assert_eq!(
        (
            &corrected["quantity"],
            &corrected["dosage_unit"],
            &corrected["dosage"]
        ),
        (&json!(3), &json!("tablets"), &json!("after lunch"))
    );
    assert_eq!(body["data"]["inventory"]["current_quantity"], 27);
    assert_eq!(stock(&server, &token, id).await, 27.0);
    let rows = ledger(&server, &token, id).await;
    assert_eq!(
        (
            &rows[0]["kind"],
            &rows[0]["change"],
            &rows[0]["balance"],
            &rows[0]["reason"],
            &rows[0]["history_id"]
        ),
        (
            &json!("correction"),
            &json!(-2),
            &json!(27),
            &json!("Dose corrected from 1 tablet to 3 tablets"),
            &json!(entry)
        )
    );
    assert_ledger_adds_up(&server, &token, id).await;
    let (_, listed) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(listed["data"][0]["dosage"], "after lunch", "{listed}");

    // Back down to 500 mg (one tablet): two come back, as a correction.
    let (status, body) = put(json!({ "quantity": 500, "dosage_unit": "mg" })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(stock(&server, &token, id).await, 29.0);
    let rows = ledger(&server, &token, id).await;
    assert_eq!(
        (&rows[0]["kind"], &rows[0]["change"], &rows[0]["reason"]),
        (
            &json!("correction"),
            &json!(2),
            &json!("Dose corrected from 3 tablets to 500 mg")
        )
    );
    // Only the note: the stock stays, and no ledger row is written.
    let before = rows.len();
    let (status, body) = put(json!({ "dosage": "" })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["entry"]["dosage"], Value::Null);
    assert_eq!(ledger(&server, &token, id).await.len(), before);

    // A time in the future, an unknown unit or a non-positive amount is refused with what to
    // do, and nothing of the request is written.
    let later = chrono::Utc::now() + chrono::Duration::hours(2);
    for (body, code) in [
        (
            json!({ "taken": later.to_rfc3339(), "quantity": 4, "dosage_unit": "tablets" }),
            "future_date",
        ),
        (json!({ "quantity": 4, "dosage_unit": "spoons" }), "unit_invalid"),
        (json!({ "quantity": 0 }), "validation_failed"),
        (json!({ "taken": "yesterday" }), "validation_failed"),
    ] {
        let (status, answer) = put(body.clone()).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some(code)),
            "{body}: {answer}"
        );
        assert!(answer["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    assert_eq!(stock(&server, &token, id).await, 29.0);
    assert_eq!(ledger(&server, &token, id).await.len(), before);
    let (_, listed) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(
        (&listed["data"][0]["quantity"], &listed["data"][0]["dosage_unit"]),
        (&json!(500), &json!("mg"))
    );
    assert_eq!(
        common::instant(&listed["data"][0]["taken"]).timestamp_millis(),
        earlier.timestamp_millis()
    );

    // Another account's entry is not found, and stays as it was.
    let other = account(&server, "bob@example.org").await;
    let (status, answer) = call(
        &server,
        Method::PUT,
        &path,
        Some(&other),
        Some(json!({ "quantity": 9 })),
    )
    .await;
    assert_eq!(
        (status, answer["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("entry_not_found"))
    );
    assert_eq!(stock(&server, &token, id).await, 29.0);
}

/// A correction charges only the change of amount: a dose that took less than its amount
/// (here, logged when the stock ran short) is not charged again for what it did not take.
#[tokio::test]
async fn correcting_an_amount_moves_the_stock_by_the_change_only() {
    let server = Server::start_with(open_signups);
    let token = account(&server, "ann@example.org").await;
    let id = create(
        &server,
        &token,
        json!({ "name": "Amoxicillin", "unit": "capsules", "default_quantity": 1,
                "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "pill_bottle",
                               "container_quantity": 1, "item_quantity": 20, "item_unit": "capsules",
                               "current_quantity": 1 } }),
    )
    .await["id"]
        .as_i64()
        .unwrap();
    // Two capsules with one left: the dose took one.
    let short = dose(&server, &token, id, json!({ "quantity": 2 })).await;
    assert_eq!(short["inventory"]["current_quantity"], 0);
    let adjust = format!("/api/medications/{id}/inventory/adjust");
    let (status, body) = post(&server, &adjust, Some(&token), json!({ "adjustment": 10 })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(stock(&server, &token, id).await, 10.0);

    // Corrected from two to three: one more capsule, not two.
    let path = format!("/api/medications/history/{}", short["entry"]["id"]);
    let (status, body) = call(
        &server,
        Method::PUT,
        &path,
        Some(&token),
        Some(json!({ "quantity": 3 })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(stock(&server, &token, id).await, 9.0);
    let rows = ledger(&server, &token, id).await;
    assert_eq!(
        (&rows[0]["kind"], &rows[0]["change"], &rows[0]["reason"]),
        (
            &json!("correction"),
            &json!(-1),
            &json!("Dose corrected from 2 capsules to 3 capsules")
        )
    );
    // Back to one capsule: two come back (the two the dose took from the stock); the capsule
    // it took beyond the stock stays the one missing from it.
    let (status, body) = call(
        &server,
        Method::PUT,
        &path,
        Some(&token),
        Some(json!({ "quantity": 1 })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(stock(&server, &token, id).await, 11.0);
    // Deleting gives back what it still holds from the stock: nothing.
    let (status, _) = call(&server, Method::DELETE, &path, Some(&token), None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(stock(&server, &token, id).await, 11.0);
    assert_ledger_adds_up(&server, &token, id).await;
}

/// A dose time in the database that does not read as a time (a hand edit, a broken tool) is
/// an error that says where it is: adherence once left such an entry out and counted the
/// week without it, and the history showed the text as the dose's time.
#[tokio::test]
async fn a_stored_time_that_does_not_read_is_an_error_naming_its_row_never_a_dose_left_out() {
    let server = Server::start_with(open_signups);
    let token = account(&server, "ann@example.org").await;
    let id = create(&server, &token, json!({ "name": "Aspirin", "unit": "mg" })).await["id"]
        .as_i64()
        .unwrap();
    for _ in 0..2 {
        dose(
            &server,
            &token,
            id,
            json!({ "quantity": 1, "unit": "mg", "status": "taken" }),
        )
        .await;
    }
    let (status, body) = get_json(&server, "/api/medications/adherence", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let db = database(&server.data_dir);
    db.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
    let entry: i64 = db
        .query_row("SELECT max(id) FROM dose_history", [], |row| row.get(0))
        .unwrap();
    db.execute(
        "UPDATE dose_history_rows SET taken_at = 'soon' WHERE id = ?1",
        [entry],
    )
    .unwrap();
    for path in ["/api/medications/adherence", "/api/medications/history"] {
        let (status, body) = get_json(&server, path, Some(&token)).await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{path}: {body}");
        assert_eq!(body["code"], "internal_error", "{path}: {body}");
    }
    // The log is read from the server's stderr by another thread: wait for the line.
    let named = format!("dose_history row {entry}, column taken_at:");
    assert!(server.logged(&named).await, "{}", server.log());
    let log = server.log();
    assert!(
        log.contains(&named) && log.contains("soon"),
        "the log names the row and its text: {log}"
    );
}
