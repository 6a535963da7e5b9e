//! Prescriptions and stock batches in Pillbox's own export file (issue 29), over HTTP against
//! the real binary on a fixed clock: an export carries every prescription field and every
//! batch, an import into a fresh account brings them back with the same stock count, its dry
//! run counts them, a second import adds nothing, a file from before them imports as it did,
//! and a file whose prescription or batch the API would refuse is refused naming the row,
//! with nothing written.

mod common;

use common::{Server, get_json, post, register, with_clock_start};
use reqwest::StatusCode;
use serde_json::{Value, json};

fn server() -> Server {
    Server::start_with(|c| {
        c.env("PILLBOX_SIGNUPS", "open");
        with_clock_start(c, "2026-03-01T09:00:00Z");
    })
}

async fn export(server: &Server, token: &str) -> Value {
    let (status, body) = get_json(server, "/api/export", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body
}

async fn import(server: &Server, token: &str, file: &Value, dry_run: bool) -> (StatusCode, Value) {
    let response = common::client()
        .post(server.url(&format!("/api/import?dry_run={dry_run}")))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(file.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

async fn medications(server: &Server, token: &str) -> Vec<Value> {
    let (status, body) = get_json(server, "/api/medications", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

async fn only_medication(server: &Server, token: &str) -> Value {
    let list = medications(server, token).await;
    assert_eq!(list.len(), 1, "{list:?}");
    list[0].clone()
}

/// A medication's batches as a person sees them: what each holds and has left, its expiry
/// and lot, and whether it counts; with what the batches make available.
async fn batches(server: &Server, token: &str, id: i64) -> Value {
    let (status, body) = get_json(
        server,
        &format!("/api/medications/{id}/inventory/batches"),
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let data = &body["data"];
    let each: Vec<Value> = data["batches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            json!({ "quantity": b["quantity"], "remaining": b["remaining"], "expires_on": b["expires_on"],
                    "lot": b["lot"], "expired": b["expired"] })
        })
        .collect();
    json!({ "batches": each, "available": data["available"], "expired_remaining": data["expired_remaining"] })
}

const PRESCRIPTION: &str = r#"{
    "prescriber": "Dr. Weber", "pharmacy_name": "Apotheke am Markt", "pharmacy_phone": "+49 30 1234567",
    "pharmacy_url": "https://apotheke.example/order", "prescribed_on": "2026-01-10", "expires_on": "2026-09-30",
    "refills_authorised": 4, "refills_left": 4, "order_days_before": 10
}"#;

/// Ann's amoxicillin: a prescription, three batches (one expired), a dose drawn from the
/// first to expire, and a refill marked ordered. Answers its id.
async fn seeded(server: &Server, token: &str) -> i64 {
    let prescription: Value = serde_json::from_str(PRESCRIPTION).unwrap();
    let (status, body) = post(
        server,
        "/api/medications",
        Some(token),
        json!({ "name": "Amoxicillin", "unit": "tablets", "frequency": "twice_daily", "default_quantity": 1,
                "schedule": { "times": ["08:00", "20:00"], "start_date": "2026-02-20" },
                "prescription": prescription }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body["data"]["id"].as_i64().unwrap();
    for batch in [
        json!({ "quantity": 20, "expires_on": "2026-06-30", "lot": "A1" }),
        json!({ "quantity": 10, "expires_on": "2026-04-15", "lot": "B2" }),
        json!({ "quantity": 5, "expires_on": "2026-02-01" }),
    ] {
        let (status, body) = post(
            server,
            &format!("/api/medications/{id}/inventory/batches"),
            Some(token),
            batch,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, body) = post(
        server,
        &format!("/api/medications/{id}/doses"),
        Some(token),
        json!({ "quantity": 3 }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = post(
        server,
        &format!("/api/medications/{id}/refill-ordered"),
        Some(token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    id
}

fn counts(summary: &Value) -> Value {
    let data = &summary["data"];
    json!({ "medications": data["medications"], "prescriptions": data["prescriptions"],
            "batches": data["batches"], "history": data["history"] })
}

#[tokio::test]
async fn prescriptions_and_batches_travel_in_the_export_file_and_come_back_once() {
    let server = server();
    let ann = register(&server, "ann@example.com").await;
    let id = seeded(&server, &ann).await;
    let original = only_medication(&server, &ann).await;
    let original_batches = batches(&server, &ann, id).await;
    // What the seed made: the dose took 3 from B2 (the first to expire), the expired batch
    // does not count, three batches came in (refills 4 → 1), then a refill was ordered.
    assert_eq!(
        original_batches,
        json!({ "batches": [
                    { "quantity": 5, "remaining": 5, "expires_on": "2026-02-01", "lot": null, "expired": true },
                    { "quantity": 10, "remaining": 7, "expires_on": "2026-04-15", "lot": "B2", "expired": false },
                    { "quantity": 20, "remaining": 20, "expires_on": "2026-06-30", "lot": "A1", "expired": false }],
                "available": 27, "expired_remaining": 5 })
    );
    assert_eq!(original["inventory"]["current_quantity"], 27);
    assert_eq!(original["prescription"]["refills_left"], 1);
    assert!(original["prescription"]["ordered_at"].is_string(), "{original}");

    let file = export(&server, &ann).await;
    assert_eq!(file["version"], "1.2.0");
    let m = &file["medications"][0];
    assert_eq!(
        m["prescription"],
        json!({ "prescriber": "Dr. Weber", "pharmacy_name": "Apotheke am Markt", "pharmacy_phone": "+49 30 1234567",
                "pharmacy_url": "https://apotheke.example/order", "prescribed_on": "2026-01-10",
                "expires_on": "2026-09-30", "refills_authorised": 4, "refills_left": 1, "order_days_before": 10,
                "ordered_at": original["prescription"]["ordered_at"] })
    );
    let lots: Vec<(Value, Value, Value, Value)> = m["batches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["quantity"].clone(),
                b["remaining"].clone(),
                b["expires_on"].clone(),
                b["lot"].clone(),
            )
        })
        .collect();
    assert_eq!(
        lots,
        [
            (json!(5), json!(5), json!("2026-02-01"), Value::Null),
            (json!(10), json!(7), json!("2026-04-15"), json!("B2")),
            (json!(20), json!(20), json!("2026-06-30"), json!("A1")),
        ]
    );

    // The preview counts them and writes nothing.
    let bea = register(&server, "bea@example.com").await;
    let (status, dry) = import(&server, &bea, &file, true).await;
    assert_eq!(status, StatusCode::OK, "{dry}");
    assert_eq!(
        counts(&dry),
        json!({ "medications": { "added": 1, "skipped": 0 }, "prescriptions": { "added": 1, "skipped": 0 },
                "batches": { "added": 3, "skipped": 0 }, "history": { "added": 1, "skipped": 0 } })
    );
    assert_eq!(medications(&server, &bea).await, Vec::<Value>::new());

    let (status, done) = import(&server, &bea, &file, false).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(counts(&done), counts(&dry));
    let imported = only_medication(&server, &bea).await;
    let imported_id = imported["id"].as_i64().unwrap();
    // Every prescription field, the ordered mark and what needs ordering are as they were,
    // and importing counted no refill down.
    assert_eq!(imported["prescription"], original["prescription"]);
    assert_eq!(batches(&server, &bea, imported_id).await, original_batches);
    assert_eq!(
        imported["inventory"]["current_quantity"], 27,
        "the stock count agrees"
    );
    assert_eq!(
        imported["inventory"]["runs_out_on"],
        original["inventory"]["runs_out_on"]
    );

    // A second import adds nothing: the medication is there, with its own prescription and
    // batches.
    let (status, again) = import(&server, &bea, &file, false).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(
        counts(&again),
        json!({ "medications": { "added": 0, "skipped": 1 }, "prescriptions": { "added": 0, "skipped": 1 },
                "batches": { "added": 0, "skipped": 3 }, "history": { "added": 0, "skipped": 1 } })
    );
    assert_eq!(batches(&server, &bea, imported_id).await, original_batches);
    assert_eq!(
        only_medication(&server, &bea).await["prescription"],
        original["prescription"]
    );

    // Exported again, the record reads the same.
    let second = export(&server, &bea).await;
    assert_eq!(second["medications"][0]["prescription"], m["prescription"]);
    assert_eq!(second["medications"][0]["batches"], m["batches"]);

    // Batches keep counting after the import: the next dose draws from B2 again.
    let (status, body) = post(
        &server,
        &format!("/api/medications/{imported_id}/doses"),
        Some(&bea),
        json!({ "quantity": 2 }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let after = batches(&server, &bea, imported_id).await;
    assert_eq!(after["batches"][1]["remaining"], 5);
    assert_eq!(after["available"], 25);
}

#[tokio::test]
async fn a_file_from_before_prescriptions_and_batches_imports_as_before() {
    let server = server();
    let ann = register(&server, "ann@example.com").await;
    seeded(&server, &ann).await;
    let mut file = export(&server, &ann).await;
    file["version"] = json!("1.1.0");
    let m = file["medications"][0].as_object_mut().unwrap();
    m.remove("prescription");
    m.remove("batches");

    let bea = register(&server, "bea@example.com").await;
    let (status, done) = import(&server, &bea, &file, false).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        counts(&done),
        json!({ "medications": { "added": 1, "skipped": 0 }, "prescriptions": { "added": 0, "skipped": 0 },
                "batches": { "added": 0, "skipped": 0 }, "history": { "added": 1, "skipped": 0 } })
    );
    let imported = only_medication(&server, &bea).await;
    assert_eq!(imported["prescription"], Value::Null);
    // The single count, taken from the file as it is.
    assert_eq!(imported["inventory"]["current_quantity"], 27);
    let id = imported["id"].as_i64().unwrap();
    let (_, list) = get_json(
        &server,
        &format!("/api/medications/{id}/inventory/batches"),
        Some(&bea),
    )
    .await;
    assert_eq!(list["data"]["batches"], json!([]));
}

#[tokio::test]
async fn a_file_with_batches_but_no_stock_gets_stock_as_a_first_batch_does() {
    let server = server();
    let ann = register(&server, "ann@example.com").await;
    let file = json!({
        "version": "1.2.0", "medications": [{
            "id": 1, "name": "Vitamin D", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
            "batches": [{ "quantity": 30, "expires_on": "2027-01-31", "lot": "VD-7" },
                        { "quantity": 30, "remaining": 12, "expires_on": "2026-02-28" }]
        }], "history": []
    });
    let (status, done) = import(&server, &ann, &file, false).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    let m = only_medication(&server, &ann).await;
    assert_eq!(m["inventory"]["enabled"], true, "{m}");
    assert_eq!(
        m["inventory"]["current_quantity"], 30,
        "the expired batch does not count"
    );
    let id = m["id"].as_i64().unwrap();
    assert_eq!(
        batches(&server, &ann, id).await,
        json!({ "batches": [
                    { "quantity": 30, "remaining": 12, "expires_on": "2026-02-28", "lot": null, "expired": true },
                    { "quantity": 30, "remaining": 30, "expires_on": "2027-01-31", "lot": "VD-7", "expired": false }],
                "available": 30, "expired_remaining": 12 })
    );
}

#[tokio::test]
async fn a_prescription_or_batch_the_api_would_refuse_is_refused_naming_its_row_and_nothing_is_written() {
    let server = server();
    let ann = register(&server, "ann@example.com").await;
    let medication = |prescription: Value, batches: Value| {
        json!({
            "version": "1.2.0", "medications": [
                { "id": 1, "name": "Ibuprofen", "unit": "mg", "frequency": "as_needed", "default_quantity": 400 },
                { "id": 2, "name": "Metformin", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                  "prescription": prescription, "batches": batches }],
            "history": []
        })
    };
    let fine = json!({ "prescriber": "Dr. Weber" });
    let batch = json!([{ "quantity": 10, "expires_on": "2027-01-31" }]);
    for (file, says) in [
        (
            medication(json!({ "pharmacy_phone": "call me" }), batch.clone()),
            "medications[1]: prescription: The pharmacy's phone can have digits",
        ),
        (
            medication(json!({ "pharmacy_url": "ftp://x" }), batch.clone()),
            "medications[1]: prescription: The pharmacy's web address must start with https://",
        ),
        (
            medication(
                json!({ "refills_authorised": 1, "refills_left": 3 }),
                batch.clone(),
            ),
            "medications[1]: prescription: Refills left cannot be more than the refills authorised",
        ),
        (
            medication(json!({ "order_days_before": 91 }), batch.clone()),
            "medications[1]: prescription: Order a refill from 1 to 90 days",
        ),
        (
            medication(
                json!({ "prescribed_on": "2026-05-01", "expires_on": "2026-04-01" }),
                batch.clone(),
            ),
            "medications[1]: prescription: The prescription cannot expire before it was written",
        ),
        (
            medication(json!({ "refills_left": -1 }), batch.clone()),
            "medications[1]: invalid value: integer `-1`",
        ),
        (
            medication(json!({ "ordered_at": "yesterday" }), batch.clone()),
            "medications[1]: prescription: ordered_at 'yesterday' is not an RFC 3339",
        ),
        (
            medication(
                fine.clone(),
                json!([{ "quantity": 0, "expires_on": "2027-01-31" }]),
            ),
            "medications[1]: batches[0]: Quantity must be more than 0",
        ),
        (
            medication(
                fine.clone(),
                json!([{ "quantity": 10, "expires_on": "2027-01-31" },
                       { "quantity": 10, "remaining": 11, "expires_on": "2027-01-31" }]),
            ),
            "medications[1]: batches[1]: Remaining must be from 0 to the batch's quantity",
        ),
        (
            medication(
                fine.clone(),
                json!([{ "quantity": 10, "expires_on": "31.01.2027" }]),
            ),
            "medications[1]: batches[0]: Expiry date must be a date (YYYY-MM-DD)",
        ),
        (
            medication(
                fine.clone(),
                json!([{ "quantity": 10, "expires_on": "2027-01-31", "lot": "L".repeat(101) }]),
            ),
            "medications[1]: batches[0]: Lot must be at most 100 characters",
        ),
        (
            medication(fine.clone(), json!([{ "quantity": 10 }])),
            "medications[1]: missing field `expires_on`",
        ),
    ] {
        for dry_run in [true, false] {
            let (status, answer) = import(&server, &ann, &file, dry_run).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{says}: {answer}");
            assert_eq!(answer["code"], "import_invalid", "{answer}");
            let message = answer["message"].as_str().unwrap();
            assert!(message.starts_with(says), "{message} should start with {says}");
        }
    }
    assert_eq!(
        medications(&server, &ann).await,
        Vec::<Value>::new(),
        "nothing was written"
    );

    // The same file with the fields mended imports whole.
    let (status, done) = import(&server, &ann, &medication(fine, batch), false).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(
        counts(&done)["prescriptions"],
        json!({ "added": 1, "skipped": 0 })
    );
    let list = medications(&server, &ann).await;
    let metformin = list.iter().find(|m| m["name"] == "Metformin").unwrap();
    assert_eq!(metformin["prescription"]["prescriber"], "Dr. Weber");
    assert_eq!(metformin["inventory"]["current_quantity"], 10);
}
