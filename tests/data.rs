//! A person's data over HTTP against the real binary: the export file (JSON and CSV), import
//! with its dry run and its refusals, the round trip into a fresh account, the doctor
//! report, retention and the daily auto-backups.

mod common;

use common::{Server, call, client, get_json, post, register, save_settings};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn open_signups(c: &mut std::process::Command) {
    c.env("PILLBOX_SIGNUPS", "open");
}

async fn create(server: &Server, token: &str, body: Value) -> i64 {
    let (status, answer) = post(server, "/api/medications", Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["data"]["id"].as_i64().unwrap()
}

async fn dose(server: &Server, token: &str, id: i64, body: Value) {
    let (status, answer) = post(server, &format!("/api/medications/{id}/doses"), Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
}

fn days_ago(days: i64, hour: u32) -> String {
    let day = chrono::Utc::now().date_naive() - chrono::Duration::days(days);
    format!("{day}T{hour:02}:00:00.000Z")
}

/// A person with Berlin time, three medications (one deleted with its history kept), stock,
/// per-medication reminder preferences and a history of taken, skipped and missed doses.
async fn seeded(server: &Server, email: &str) -> String {
    let token = register(server, email).await;
    save_settings(
        server,
        &token,
        json!({ "timezone": "Europe/Berlin", "language": "de", "defaultReminderTime": "08:30" }),
    )
    .await;
    let ibuprofen = create(
        server,
        &token,
        json!({
            "name": "Ibuprofen", "unit": "mg", "frequency": "twice_daily", "color": "red", "default_quantity": 500,
            "notes": "with food", "schedule": { "times": ["08:00", "20:00"] },
            "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "blister_pack",
                           "container_quantity": 3, "item_quantity": 10, "item_strength": 500, "item_unit": "tablets" }
        }),
    )
    .await;
    let drops = create(
        server,
        &token,
        json!({ "name": "Eye drops", "unit": "ml", "frequency": "weekly", "default_quantity": 0.5,
                "schedule": { "weekdays": [1, 4], "start_date": "2026-01-05" } }),
    )
    .await;
    let old = create(
        server,
        &token,
        json!({ "name": "Amoxicillin", "unit": "mg", "frequency": "daily", "default_quantity": 250 }),
    )
    .await;
    let (status, body) = call(
        server,
        Method::PUT,
        &format!("/api/notifications/medications/{ibuprofen}/preferences"),
        Some(&token),
        Some(json!({ "reminder_minutes_before": 30, "custom_message": "After breakfast" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    for (id, body) in [
        (ibuprofen, json!({ "taken": days_ago(3, 7), "dosage": "half" })),
        (ibuprofen, json!({ "taken": days_ago(2, 7), "status": "skipped" })),
        (ibuprofen, json!({ "taken": days_ago(1, 7), "quantity": 1000 })),
        (drops, json!({ "taken": days_ago(2, 18), "status": "missed" })),
        (old, json!({ "taken": days_ago(20, 9) })),
        (old, json!({ "taken": days_ago(19, 9) })),
    ] {
        dose(server, &token, id, body).await;
    }
    let (status, body) = call(
        server,
        Method::DELETE,
        &format!("/api/medications/{old}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    token
}

/// `(status, headers, body text)` of a GET.
async fn download(
    server: &Server,
    path: &str,
    token: &str,
) -> (StatusCode, reqwest::header::HeaderMap, String) {
    let response = client()
        .get(server.url(path))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

async fn export(server: &Server, token: &str) -> Value {
    let (status, _, text) = download(server, "/api/export", token).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    serde_json::from_str(&text).unwrap()
}

async fn import(
    server: &Server,
    token: &str,
    body: &str,
    content_type: &str,
    dry_run: bool,
) -> (StatusCode, Value) {
    let response = client()
        .post(server.url(&format!("/api/import?dry_run={dry_run}")))
        .bearer_auth(token)
        .header("content-type", content_type)
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

fn by_name<'a>(file: &'a Value, name: &str) -> &'a Value {
    file["medications"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {file}"))
}

#[tokio::test]
async fn the_export_file_holds_the_whole_record() {
    let server = Server::start_with(open_signups);
    let token = seeded(&server, "a@example.com").await;
    let (status, headers, text) = download(&server, "/api/export", &token).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let today = chrono::Utc::now()
        .with_timezone(&chrono_tz::Europe::Berlin)
        .date_naive();
    assert_eq!(
        headers["content-disposition"],
        format!("attachment; filename=\"pillbox-export-{today}.json\"").as_str()
    );
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["version"], "1.2.0");
    assert!(chrono::DateTime::parse_from_rfc3339(file["exportDate"].as_str().unwrap()).is_ok());
    assert_eq!(file["settings"]["timezone"], "Europe/Berlin");
    assert_eq!(file["settings"]["language"], "de");
    assert_eq!(file["settings"]["defaultReminderTime"], "08:30");
    assert_eq!(
        file["notificationPreferences"]["default_reminder_minutes_before"],
        15
    );

    let ibuprofen = by_name(&file, "Ibuprofen");
    assert_eq!(ibuprofen["archived"], false);
    assert_eq!(ibuprofen["schedule"]["times"], json!(["08:00", "20:00"]));
    assert_eq!(ibuprofen["inventory"]["item_strength"], 500);
    // 30 tablets less one and two for the doses of 500 mg and 1000 mg.
    assert_eq!(ibuprofen["inventory"]["current_quantity"], 27);
    assert_eq!(
        ibuprofen["notificationPreferences"]["custom_message"],
        "After breakfast"
    );
    assert_eq!(
        ibuprofen["notificationPreferences"]["reminder_minutes_before"],
        30
    );
    assert_eq!(by_name(&file, "Eye drops")["schedule"]["weekdays"], json!([1, 4]));
    let archived = by_name(&file, "Amoxicillin");
    assert_eq!(archived["archived"], true);
    assert!(archived["id"].as_i64().unwrap() < 0);

    let history = file["history"].as_array().unwrap();
    assert_eq!(history.len(), 6, "{text}");
    let first = &history[0];
    assert_eq!(
        first["medication_id"], archived["id"],
        "the oldest entries are the deleted medication's"
    );
    assert_eq!(first["medication_name"], "Amoxicillin");
    let half = history.iter().find(|e| e["note"] == "half").unwrap();
    assert_eq!(half["medication_id"], ibuprofen["id"]);
    assert_eq!(
        (half["quantity"].as_i64(), half["unit"].as_str()),
        (Some(500), Some("mg"))
    );
    assert_eq!(half["status"], "taken");
    let statuses: Vec<&str> = history.iter().map(|e| e["status"].as_str().unwrap()).collect();
    assert!(statuses.contains(&"skipped") && statuses.contains(&"missed"));

    let other = register(&server, "b@example.com").await;
    let theirs = export(&server, &other).await;
    assert_eq!(
        (
            theirs["medications"].as_array().unwrap().len(),
            theirs["history"].as_array().unwrap().len()
        ),
        (0, 0)
    );
    let (status, _, _) = download(&server, "/api/export", "not-a-token").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn the_history_csv_opens_in_a_spreadsheet_and_runs_no_formulas() {
    let server = Server::start_with(open_signups);
    let token = register(&server, "a@example.com").await;
    let id = create(
        &server,
        &token,
        json!({ "name": "=HYPERLINK(\"http://evil\")", "unit": "tablets", "frequency": "as_needed", "default_quantity": 1 }),
    )
    .await;
    dose(
        &server,
        &token,
        id,
        json!({ "taken": "2026-03-01T07:30:00Z", "dosage": "@SUM(A1)" }),
    )
    .await;
    let (status, headers, text) = download(&server, "/api/export?format=csv", &token).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(headers["content-type"], "text/csv; charset=utf-8");
    assert!(
        headers["content-disposition"]
            .to_str()
            .unwrap()
            .contains("pillbox-history-")
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "date,time,medication,quantity,unit,status,note,taken_at,person,logged_by"
    );
    assert_eq!(
        lines[1],
        "2026-03-01,07:30,\"'=HYPERLINK(\"\"http://evil\"\")\",1,tablets,taken,'@SUM(A1),2026-03-01T07:30:00.000Z,,a@example.com"
    );
    assert_eq!(lines.len(), 2);
    let (status, body) = get_json(&server, "/api/export?format=xml", Some(&token)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
}

/// The file as a person would compare two exports: ids and the export's date aside.
fn content(file: &Value) -> Value {
    let mut file = file.clone();
    let names: std::collections::HashMap<i64, String> = file["medications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["id"].as_i64().unwrap(), m["name"].as_str().unwrap().to_owned()))
        .collect();
    // People by name, the account holder (named after each account) as such.
    let people: std::collections::HashMap<i64, Value> = file["people"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let name = if p["is_self"] == true {
                json!("(account holder)")
            } else {
                p["name"].clone()
            };
            (p["id"].as_i64().unwrap(), name)
        })
        .collect();
    let person = |value: &Value| value.as_i64().map_or(Value::Null, |id| people[&id].clone());
    file.as_object_mut().unwrap().remove("exportDate");
    for p in file["people"].as_array_mut().unwrap() {
        let named = person(&p["id"]);
        p["name"] = named;
        p.as_object_mut().unwrap().remove("id");
    }
    for m in file["medications"].as_array_mut().unwrap() {
        m.as_object_mut().unwrap().remove("id");
        m["person_id"] = person(&m["person_id"]);
    }
    for e in file["history"].as_array_mut().unwrap() {
        let id = e["medication_id"].as_i64().unwrap();
        e["medication_id"] = json!(names[&id]);
        e.as_object_mut().unwrap().remove("id");
        e["person_id"] = person(&e["person_id"]);
    }
    file
}

#[tokio::test]
async fn export_import_export_gives_the_same_record_and_a_second_import_adds_nothing() {
    let server = Server::start_with(open_signups);
    let token = seeded(&server, "a@example.com").await;
    let first = export(&server, &token).await;
    let text = first.to_string();

    let fresh = register(&server, "new@example.com").await;
    let (status, dry) = import(&server, &fresh, &text, "application/json", true).await;
    assert_eq!(status, StatusCode::OK, "{dry}");
    assert_eq!(
        dry["data"],
        json!({ "dry_run": true, "people": { "added": 0, "skipped": 0 },
                "medications": { "added": 2, "skipped": 0 }, "schedules": { "added": 2 },
                "prescriptions": { "added": 0, "skipped": 0 }, "batches": { "added": 0, "skipped": 0 },
                "history": { "added": 6, "skipped": 0 }, "settings": { "replaced": true },
                "unreadable": [], "unknown_columns": [], "notices": [] })
    );
    let untouched = export(&server, &fresh).await;
    assert_eq!(untouched["medications"], json!([]), "a dry run changes nothing");
    assert_eq!(untouched["settings"]["timezone"], "UTC");

    let (status, done) = import(&server, &fresh, &text, "application/json", false).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["data"]["dry_run"], false);
    assert_eq!(done["data"]["history"]["added"], 6);
    let second = export(&server, &fresh).await;
    assert_eq!(content(&second), content(&first));

    let (status, again) = import(&server, &fresh, &text, "application/json", false).await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(
        again["data"],
        json!({ "dry_run": false, "people": { "added": 0, "skipped": 0 },
                "medications": { "added": 0, "skipped": 2 }, "schedules": { "added": 0 },
                "prescriptions": { "added": 0, "skipped": 0 }, "batches": { "added": 0, "skipped": 0 },
                "history": { "added": 0, "skipped": 6 }, "settings": { "replaced": false },
                "unreadable": [], "unknown_columns": [], "notices": [] })
    );
    assert_eq!(content(&export(&server, &fresh).await), content(&first));

    // Stock was taken from the file, not counted again from the imported doses.
    let (_, meds) = get_json(&server, "/api/medications", Some(&fresh)).await;
    let ibuprofen = meds["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "Ibuprofen")
        .unwrap();
    assert_eq!(ibuprofen["inventory"]["current_quantity"], 27);
    // Reminders were planned for the imported schedules.
    let (_, reminders) = get_json(&server, "/api/notifications?status=scheduled", Some(&fresh)).await;
    assert!(
        reminders["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["medication_id"] == ibuprofen["id"]),
        "{reminders}"
    );
    // The history page shows the imported entries, the deleted medication's under its name.
    let (_, page) = get_json(&server, "/api/medications/history?limit=100", Some(&fresh)).await;
    assert_eq!(page["pagination"]["total"], 6);
    assert!(
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["medication_name"] == "Amoxicillin" && e["medication_id"].is_null())
    );
}

#[tokio::test]
async fn a_bad_file_is_refused_with_what_is_wrong_and_changes_nothing() {
    let server = Server::start_with(open_signups);
    let token = register(&server, "a@example.com").await;
    let medication =
        json!({ "id": 1, "name": "Aspirin", "unit": "mg", "frequency": "daily", "default_quantity": 100 });
    let entry = json!({ "medication_id": 1, "quantity": 100, "unit": "mg", "status": "taken", "taken": "2026-01-01T08:00:00Z" });
    let file = |medications: Value, history: Value| {
        json!({ "version": "1.0.0", "exportDate": "2026-01-02T00:00:00Z", "medications": medications, "history": history })
            .to_string()
    };
    let mut no_unit = medication.clone();
    no_unit.as_object_mut().unwrap().remove("unit");
    let mut cups = medication.clone();
    cups["unit"] = json!("cups");
    let mut elsewhere = entry.clone();
    elsewhere["medication_id"] = json!(7);
    let mut future = entry.clone();
    future["taken"] = json!("2099-01-01T08:00:00Z");
    let cases = [
        ("this is not json".to_owned(), "not valid JSON"),
        (
            json!({ "version": "2.0.0", "medications": [], "history": [] }).to_string(),
            "version 2.0.0",
        ),
        (
            json!({ "medications": [], "history": [] }).to_string(),
            "no \"version\"",
        ),
        (
            json!({ "version": "1.0.0", "history": [] }).to_string(),
            "no \"medications\"",
        ),
        (
            file(json!([no_unit]), json!([])),
            "medications[0]: missing field `unit`",
        ),
        (
            file(json!([cups]), json!([])),
            "Unit 'cups' is not a valid medical unit",
        ),
        (
            file(json!([medication]), json!([entry, elsewhere])),
            "history[1] points to medication 7",
        ),
        (file(json!([medication]), json!([future])), "in the future"),
    ];
    for (body, expected) in cases {
        for dry_run in [true, false] {
            let (status, answer) = import(&server, &token, &body, "application/json", dry_run).await;
            assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
            let message = answer["message"].as_str().unwrap();
            assert!(message.contains(expected), "{message:?} should say {expected:?}");
            assert_eq!(answer["code"], "import_invalid", "{answer}");
        }
    }
    for body in ["   ", "{}", "x", ""] {
        let (status, answer) = import(&server, &token, body, "application/json", false).await;
        assert_eq!(
            (status, answer["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("import_invalid")),
            "{answer}"
        );
    }
    let token_copy = token.clone();

    // Too large: refused from its declared length, before the body is even sent.
    let address = server.base.trim_start_matches("http://").to_owned();
    let answer = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        write!(
            stream,
            "POST /api/import HTTP/1.1\r\nHost: pillbox\r\nAuthorization: Bearer {token_copy}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            64 * 1024 * 1024 + 1
        )
        .unwrap();
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        answer
    })
    .await
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("too large"), "{answer}");

    let after = export(&server, &token).await;
    assert_eq!(
        (
            after["medications"].as_array().unwrap().len(),
            after["history"].as_array().unwrap().len()
        ),
        (0, 0)
    );
}

#[tokio::test]
async fn a_spreadsheet_log_comes_in_as_csv() {
    let server = Server::start_with(open_signups);
    let token = register(&server, "a@example.com").await;
    save_settings(&server, &token, json!({ "timezone": "America/New_York" })).await;
    let aspirin = create(
        &server,
        &token,
        json!({ "name": "Aspirin", "unit": "mg", "frequency": "daily", "default_quantity": 100,
                "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "pill_bottle",
                               "item_quantity": 50, "item_strength": 100, "item_unit": "tablets" } }),
    )
    .await;
    let csv = "date,time,medication,quantity,unit,status,note\n\
               2026-02-01,08:00,aspirin,100,mg,taken,\n\
               2026-02-02,08:00,Aspirin,100,mg,skipped,forgot\n\
               2026-02-02,21:15,Melatonin,3,mg,taken,'=1+1\n";
    let (status, dry) = import(&server, &token, csv, "text/csv", true).await;
    assert_eq!(status, StatusCode::OK, "{dry}");
    assert_eq!(dry["data"]["medications"], json!({ "added": 1, "skipped": 1 }));
    assert_eq!(dry["data"]["history"], json!({ "added": 3, "skipped": 0 }));
    let (status, done) = import(&server, &token, csv, "text/csv", false).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    let (status, again) = import(&server, &token, csv, "text/csv", false).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again["data"]["history"], json!({ "added": 0, "skipped": 3 }));

    let (_, page) = get_json(
        &server,
        &format!("/api/medications/{aspirin}/history"),
        Some(&token),
    )
    .await;
    let entries = page["data"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    // 08:00 in New York on 1 February is 13:00 UTC.
    assert_eq!(entries[1]["taken"], "2026-02-01T13:00:00.000Z");
    let (_, meds) = get_json(&server, "/api/medications", Some(&token)).await;
    let meds = meds["data"].as_array().unwrap();
    let melatonin = meds.iter().find(|m| m["name"] == "Melatonin").unwrap();
    assert_eq!(melatonin["frequency"], "as_needed");
    let aspirin_now = meds.iter().find(|m| m["name"] == "Aspirin").unwrap();
    assert_eq!(
        aspirin_now["inventory"]["current_quantity"], 50,
        "imported doses leave stock alone"
    );
    let (_, history) = get_json(&server, "/api/medications/history?limit=10", Some(&token)).await;
    assert!(
        history["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["dosage"] == "=1+1")
    );

    let (status, bad) = import(
        &server,
        &token,
        "medication,quantity\nAspirin,1\n",
        "text/csv",
        false,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(bad["message"].as_str().unwrap().contains("unit, status"), "{bad}");
    assert_eq!(bad["code"], "import_invalid");
    let (status, bad) = import(
        &server,
        &token,
        "date,time,medication,quantity,unit,status\n2026-02-03,08:00,Aspirin,lots,mg,taken\n",
        "text/csv",
        false,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(bad["message"].as_str().unwrap().starts_with("line 2:"), "{bad}");
    assert_eq!(bad["code"], "import_invalid");
}

#[tokio::test]
async fn the_report_shows_adherence_missed_doses_and_stock() {
    let server = Server::start_with(open_signups);
    let token = seeded(&server, "a@example.com").await;
    let (status, body) = get_json(&server, "/api/report", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let report = &body["data"];
    assert_eq!(report["timezone"], "Europe/Berlin");
    // Deleted medications are not listed, but their doses count in the totals.
    assert_eq!(report["totals"]["taken"], 4);
    assert_eq!(report["totals"]["skipped"], 1);
    assert_eq!(report["totals"]["missed"], 1);
    let ibuprofen = report["medications"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "Ibuprofen")
        .unwrap();
    assert_eq!(
        ibuprofen["adherence"],
        json!({ "taken": 2, "skipped": 1, "missed": 0, "rate": 0.667 })
    );
    assert_eq!(
        ibuprofen["schedule"]["effective_times"],
        json!(["08:00", "20:00"])
    );
    assert_eq!(ibuprofen["inventory"]["current_quantity"], 27);
    assert_eq!(ibuprofen["inventory"]["total_unit"], "tablets");
    let missed = report["missed"].as_array().unwrap();
    assert!(
        missed
            .iter()
            .any(|m| m["medication_name"] == "Eye drops" && m["source"] == "logged"),
        "{missed:?}"
    );

    let week = chrono::Utc::now().date_naive() - chrono::Duration::days(10);
    let (_, narrow) = get_json(&server, &format!("/api/report?from={week}"), Some(&token)).await;
    assert_eq!(
        narrow["data"]["totals"]["taken"], 2,
        "the deleted medication's doses were 19 and 20 days ago"
    );
    let (status, bad) = get_json(&server, "/api/report?from=2026-05-01&to=2026-04-01", Some(&token)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    let (status, _) = get_json(&server, "/api/report?from=yesterday", Some(&token)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn retention_deletes_nothing_until_the_person_chooses_and_says_how_much_first() {
    let server = Server::start_with(open_signups);
    let token = seeded(&server, "a@example.com").await;
    let (_, settings) = get_json(&server, "/api/settings", Some(&token)).await;
    assert_eq!(settings["data"]["dataRetention"], 0, "forever unless chosen");
    let (status, preview) = get_json(
        &server,
        "/api/medications/history/retention?days=30",
        Some(&token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["data"]["entries"], 0);
    let (_, preview) = get_json(&server, "/api/medications/history/retention?days=0", Some(&token)).await;
    assert_eq!(preview["data"]["entries"], 0);
    let (status, bad) = get_json(
        &server,
        "/api/medications/history/retention?days=45",
        Some(&token),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{bad}");
    let (status, bad) = get_json(&server, "/api/medications/history/retention", Some(&token)).await;
    assert_eq!(
        (status, bad["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("validation_failed"))
    );
    let (status, bad) = get_json(
        &server,
        "/api/medications/history/retention?days=ten",
        Some(&token),
    )
    .await;
    assert_eq!(
        (status, bad["message"].as_str(), bad["code"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("days must be a whole number"),
            Some("invalid_request")
        )
    );

    // Entries a year old: a 90-day period would take them.
    let id = create(
        &server,
        &token,
        json!({ "name": "Old", "unit": "mg", "frequency": "as_needed", "default_quantity": 1 }),
    )
    .await;
    dose(&server, &token, id, json!({ "taken": days_ago(400, 9) })).await;
    dose(&server, &token, id, json!({ "taken": days_ago(200, 9) })).await;
    let (_, preview) = get_json(
        &server,
        "/api/medications/history/retention?days=90",
        Some(&token),
    )
    .await;
    assert_eq!(preview["data"]["entries"], 2);
    let (_, preview) = get_json(
        &server,
        "/api/medications/history/retention?days=365",
        Some(&token),
    )
    .await;
    assert_eq!(preview["data"]["entries"], 1);
}

#[tokio::test]
async fn retention_and_auto_backup_run_when_the_server_starts() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let server = Server::start_in(&data_dir, open_signups).unwrap();
    let token = register(&server, "a@example.com").await;
    let keep = create(
        &server,
        &token,
        json!({ "name": "Keep", "unit": "mg", "frequency": "as_needed", "default_quantity": 1 }),
    )
    .await;
    dose(&server, &token, keep, json!({ "taken": days_ago(400, 9) })).await;
    dose(&server, &token, keep, json!({ "taken": days_ago(10, 9) })).await;
    save_settings(&server, &token, json!({ "dataRetention": 90 })).await;
    let other = register(&server, "b@example.com").await;
    let (status, _) = call(
        &server,
        Method::PUT,
        "/api/settings",
        Some(&other),
        Some(json!({ "autoBackup": false })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let theirs = create(
        &server,
        &other,
        json!({ "name": "Theirs", "unit": "mg", "frequency": "as_needed", "default_quantity": 1 }),
    )
    .await;
    dose(&server, &other, theirs, json!({ "taken": days_ago(400, 9) })).await;
    drop(server);

    // The jobs run within a minute of starting (here: a few seconds).
    let server = Server::start_in(&data_dir, open_signups).unwrap();
    let mut listed = Value::Null;
    for _ in 0..100 {
        let (_, list) = get_json(&server, "/api/backups", Some(&token)).await;
        if !list["data"].as_array().unwrap().is_empty() {
            listed = list;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let kept = listed["data"].as_array().expect("an auto-backup within 20 s");
    assert_eq!(kept.len(), 1);
    let name = kept[0]["name"].as_str().unwrap();
    assert!(name.starts_with("pillbox-export-") && name.ends_with(".json"));
    let (status, headers, text) = download(&server, &format!("/api/backups/{name}"), &token).await;
    assert_eq!(status, StatusCode::OK);
    assert!(headers["content-disposition"].to_str().unwrap().contains(name));
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["medications"][0]["name"], "Keep");
    let on_disk = data_dir.join("backups/users").join("1").join(name);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&on_disk).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // The other person turned auto-backup off, and cannot reach the first one's files.
    let (_, none) = get_json(&server, "/api/backups", Some(&other)).await;
    assert_eq!(none["data"], json!([]));
    for (path, token) in [
        (format!("/api/backups/{name}"), &other),
        ("/api/backups/..%2F..%2Fpillbox.sqlite3".to_owned(), &token),
    ] {
        let (status, _, body) = download(&server, &path, token).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        let body: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(
            (body["message"].as_str(), body["code"].as_str()),
            (Some("Backup not found"), Some("backup_not_found"))
        );
    }

    // Retention: the chosen 90 days deleted the 400-day-old entry (the job runs right after
    // the backups); the other account, which never chose, keeps everything.
    let mut mine = Value::Null;
    for _ in 0..50 {
        mine = get_json(&server, "/api/medications/history", Some(&token))
            .await
            .1;
        if mine["pagination"]["total"] == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(mine["pagination"]["total"], 1, "{mine}");
    let (_, stock_left) = get_json(&server, "/api/medications/history", Some(&other)).await;
    assert_eq!(stock_left["pagination"]["total"], 1);

    // Deleting the account takes its kept exports with it.
    let (status, body) = call(
        &server,
        Method::DELETE,
        "/api/auth/me",
        Some(&token),
        Some(json!({ "password": "secret123" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(!on_disk.exists() && !data_dir.join("backups/users/1").exists());

    // The instance's own daily snapshot is there too, private.
    let (_, health) = get_json(&server, "/health", None).await;
    assert_eq!(health["data"]["backup"]["error"], Value::Null, "{health}");
    let snapshots: Vec<_> = std::fs::read_dir(data_dir.join("backups"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("pillbox-daily-"))
        .collect();
    assert_eq!(snapshots.len(), 1);
    assert_eq!(
        snapshots[0].metadata().unwrap().permissions().mode() & 0o777,
        0o600
    );
}

#[tokio::test]
async fn a_failed_daily_backup_shows_in_health_without_taking_the_app_down() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    std::fs::create_dir_all(&data_dir).unwrap();
    // backups/ cannot be a folder: every snapshot fails.
    std::fs::write(data_dir.join("backups"), "not a folder").unwrap();
    let server = Server::start_in(&data_dir, |_| {}).unwrap();
    let mut last = (StatusCode::OK, Value::Null);
    for _ in 0..100 {
        last = get_json(&server, "/health", None).await;
        if last.1["data"]["status"] != "ok" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    // Shown, not turned into downtime: the app keeps serving doses.
    assert_eq!(last.0, StatusCode::OK, "{}", last.1);
    assert_eq!(last.1["data"]["status"], "degraded", "{}", last.1);
    assert!(last.1["data"]["backup"]["error"].is_string(), "{}", last.1);
    assert!(server.logged("daily backup failed").await, "{}", server.log());
}

#[tokio::test]
async fn import_keeps_what_is_distinct_and_never_doubles_what_is_there() {
    let server = Server::start_with(open_signups);
    let token = register(&server, "a@example.com").await;
    save_settings(
        &server,
        &token,
        json!({ "timezone": "Asia/Tokyo", "defaultReminderTime": "07:15" }),
    )
    .await;
    // Two medications alike in name and unit, two doses at the same minute of different
    // sizes, a file whose settings carry only a theme and a retention period.
    let file = json!({
        "version": "1.0.0",
        "settings": { "theme": "dark", "dataRetention": 30 },
        "notificationPreferences": { "repeat_max": 1 },
        "medications": [
            { "id": 1, "name": "Vitamin D", "unit": "mg", "frequency": "daily", "default_quantity": 1000 },
            { "id": 2, "name": "Vitamin D", "unit": "mg", "frequency": "weekly", "default_quantity": 20000 }
        ],
        "history": [
            { "medication_id": 1, "quantity": 500, "unit": "mg", "status": "taken", "taken": "2026-03-01T08:00:00Z" },
            { "medication_id": 1, "quantity": 250, "unit": "mg", "status": "taken", "taken": "2026-03-01T08:00:00Z" },
            { "medication_id": 2, "quantity": 20000, "unit": "mg", "status": "taken", "taken": "2026-03-02T08:00:00Z" }
        ]
    })
    .to_string();
    let (status, done) = import(&server, &token, &file, "application/json", false).await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["data"]["medications"], json!({ "added": 2, "skipped": 0 }));
    assert_eq!(done["data"]["history"], json!({ "added": 3, "skipped": 0 }));
    let (_, settings) = get_json(&server, "/api/settings", Some(&token)).await;
    assert_eq!(settings["data"]["theme"], "dark");
    assert_eq!(
        settings["data"]["timezone"], "Asia/Tokyo",
        "what the file leaves out stays"
    );
    assert_eq!(settings["data"]["defaultReminderTime"], "07:15");
    assert_eq!(
        settings["data"]["dataRetention"], 0,
        "deleting history is never imported"
    );
    let (_, prefs) = get_json(&server, "/api/notifications/preferences", Some(&token)).await;
    assert_eq!(prefs["data"]["repeat_max"], 1);
    assert_eq!(prefs["data"]["repeat_interval_minutes"], 10);

    let (_, again) = import(&server, &token, &file, "application/json", false).await;
    assert_eq!(again["data"]["medications"], json!({ "added": 0, "skipped": 2 }));
    assert_eq!(again["data"]["history"], json!({ "added": 0, "skipped": 3 }));

    // Restoring yesterday's file after deleting a medication by mistake brings it back with
    // its history once, not twice; the CSV export of the same account does not double it
    // either.
    let backup = export(&server, &token).await.to_string();
    let (_, _, csv) = download(&server, "/api/export?format=csv", &token).await;
    let (_, meds) = get_json(&server, "/api/medications", Some(&token)).await;
    let weekly = meds["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["frequency"] == "weekly")
        .unwrap()["id"]
        .clone();
    let (status, _) = call(
        &server,
        Method::DELETE,
        &format!("/api/medications/{weekly}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, from_csv) = import(&server, &token, &csv, "text/csv", false).await;
    assert_eq!(
        from_csv["data"]["history"],
        json!({ "added": 0, "skipped": 3 }),
        "{from_csv}"
    );
    assert_eq!(from_csv["data"]["medications"]["added"], 0, "{from_csv}");
    let (_, restored) = import(&server, &token, &backup, "application/json", false).await;
    assert_eq!(
        restored["data"]["medications"],
        json!({ "added": 1, "skipped": 1 }),
        "{restored}"
    );
    assert_eq!(
        restored["data"]["history"],
        json!({ "added": 0, "skipped": 3 }),
        "{restored}"
    );
    let (_, page) = get_json(&server, "/api/medications/history?limit=100", Some(&token)).await;
    assert_eq!(page["pagination"]["total"], 3);
    assert!(
        page["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| !e["medication_id"].is_null()),
        "{page}"
    );
}

#[tokio::test]
async fn settings_refusals_name_the_value_and_its_choices() {
    let server = Server::start();
    let token = register(&server, "a@example.com").await;
    let put = |body: Value| call(&server, Method::PUT, "/api/settings", Some(&token), Some(body));
    let (status, bad) = put(json!({ "timezone": "Mars/Olympus" })).await;
    assert_eq!(
        (status, bad["message"].as_str(), bad["code"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Unknown time zone 'Mars/Olympus'"),
            Some("validation_failed")
        )
    );
    assert_eq!(bad["params"], json!({ "timezone": "Mars/Olympus" }));
    let (status, bad) = put(json!({ "language": "xx" })).await;
    assert_eq!(
        (status, bad["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("Language must be one of en, es, fr, de")
        )
    );
    assert_eq!(
        bad["params"],
        json!({ "field": "language", "allowed": ["en", "es", "fr", "de"] })
    );
    let (status, bad) = put(json!({ "autoBackup": "yes" })).await;
    assert_eq!(
        (status, bad["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_request"))
    );

    let (status, saved) = put(json!({ "theme": "dark", "timezone": "Europe/Berlin" })).await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(saved["message"], "App settings updated successfully");
    assert_eq!(
        saved["data"],
        json!({
            "language": "en",
            "dateFormat": "auto",
            "timeFormat": "auto",
            "autoBackup": true,
            "dataRetention": 0,
            "theme": "dark",
            "timezone": "Europe/Berlin",
            "defaultReminderTime": saved["data"]["defaultReminderTime"],
        })
    );
    let (_, read) = get_json(&server, "/api/settings", Some(&token)).await;
    assert_eq!(read["data"], saved["data"]);
}

/// The medication called `name` in a report.
fn line<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["medications"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not in the report: {report}"))
}

#[tokio::test]
async fn the_report_states_every_schedule_and_counts_as_needed_doses_as_use_with_those_over_a_limit() {
    let server = Server::start_with(open_signups);
    let token = register(&server, "doctor@example.com").await;
    save_settings(&server, &token, json!({ "timezone": "UTC" })).await;
    let today = chrono::Utc::now().date_naive();
    let day = |offset: i64| (today + chrono::Duration::days(offset)).to_string();
    let started = day(-10);
    let mut ids = std::collections::HashMap::new();
    for (name, frequency, schedule) in [
        (
            "Daily",
            "daily",
            json!({ "times": ["08:00"], "start_date": started }),
        ),
        (
            "Twice",
            "twice_daily",
            json!({ "times": ["08:00", "20:00"], "start_date": started }),
        ),
        (
            "Weekly",
            "weekly",
            json!({ "times": ["20:00"], "weekdays": [4, 1], "start_date": started }),
        ),
        (
            "Monthly",
            "monthly",
            json!({ "times": ["09:00"], "start_date": "2026-01-15" }),
        ),
        (
            "Interval",
            "daily",
            json!({ "times": ["06:00"], "interval_hours": 8, "start_date": started, "end_date": day(5) }),
        ),
        (
            "Every third day",
            "daily",
            json!({ "times": ["08:00"], "every_days": 3, "start_date": started }),
        ),
        (
            "Cycle",
            "daily",
            json!({ "times": ["21:00"], "cycle_on_days": 21, "cycle_off_days": 7, "start_date": started }),
        ),
        (
            "Taper",
            "daily",
            json!({ "times": ["08:00"], "start_date": day(-3),
                    "steps": [{ "days": 5, "quantity": 40 }, { "days": 5, "quantity": 30 }, { "days": 5, "quantity": 10 }] }),
        ),
        (
            "As needed",
            "as_needed",
            json!({ "max_per_day": 2, "min_gap_minutes": 240, "start_date": started }),
        ),
    ] {
        let body = json!({ "name": name, "unit": "mg", "frequency": frequency, "default_quantity": 40, "schedule": schedule });
        ids.insert(name, create(&server, &token, body).await);
    }
    dose(&server, &token, ids["Daily"], json!({ "taken": days_ago(2, 8) })).await;
    dose(
        &server,
        &token,
        ids["Daily"],
        json!({ "taken": days_ago(1, 8), "status": "missed" }),
    )
    .await;
    let as_needed = ids["As needed"];
    dose(&server, &token, as_needed, json!({ "taken": days_ago(3, 8) })).await;
    // Two hours later (the gap is four) and a third that day (the most is two): both asked
    // "Take anyway?" and confirmed.
    let (status, refused) = post(
        &server,
        &format!("/api/medications/{as_needed}/doses"),
        Some(&token),
        json!({ "taken": days_ago(3, 10) }),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    dose(
        &server,
        &token,
        as_needed,
        json!({ "taken": days_ago(3, 10), "confirm": true }),
    )
    .await;
    dose(
        &server,
        &token,
        as_needed,
        json!({ "taken": days_ago(3, 15), "confirm": true }),
    )
    .await;
    // The next day, once the 24 hours since the second dose are over: within the limits.
    dose(&server, &token, as_needed, json!({ "taken": days_ago(2, 16) })).await;

    let (status, body) = get_json(&server, "/api/report", Some(&token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let report = &body["data"];

    let daily = line(report, "Daily");
    assert_eq!(daily["schedule"]["effective_times"], json!(["08:00"]));
    assert_eq!(daily["schedule"]["start_date"], started);
    assert_eq!(daily["last_day"], Value::Null);
    assert_eq!(
        daily["adherence"],
        json!({ "taken": 1, "skipped": 0, "missed": 1, "rate": 0.5 })
    );
    assert_eq!(daily["usage"], Value::Null);
    assert_eq!(
        line(report, "Twice")["schedule"]["effective_times"],
        json!(["08:00", "20:00"])
    );
    assert_eq!(
        line(report, "Weekly")["schedule"]["effective_weekdays"],
        json!([1, 4])
    );
    assert_eq!(line(report, "Monthly")["schedule"]["start_date"], "2026-01-15");

    let interval = &line(report, "Interval")["schedule"];
    assert_eq!(interval["interval_hours"], 8);
    assert_eq!(interval["times"], json!(["06:00"]));
    assert_eq!(interval["effective_times"], json!(["06:00", "14:00", "22:00"]));
    assert_eq!(interval["clock"], "elapsed");
    assert_eq!(interval["end_date"], day(5));
    assert_eq!(line(report, "Interval")["last_day"], day(5));
    assert_eq!(line(report, "Every third day")["schedule"]["every_days"], 3);
    let cycle = &line(report, "Cycle")["schedule"];
    assert_eq!(
        (cycle["cycle_on_days"].clone(), cycle["cycle_off_days"].clone()),
        (json!(21), json!(7))
    );

    let taper = line(report, "Taper");
    assert_eq!(
        taper["stages"],
        json!([
            { "first_day": day(-3), "last_day": day(1), "quantity": 40 },
            { "first_day": day(2), "last_day": day(6), "quantity": 30 },
            { "first_day": day(7), "last_day": day(11), "quantity": 10 },
        ])
    );
    assert_eq!(taper["last_day"], day(11));

    let prn = line(report, "As needed");
    assert_eq!(prn["schedule"]["max_per_day"], 2);
    assert_eq!(prn["schedule"]["min_gap_minutes"], 240);
    assert_eq!(
        prn["adherence"],
        Value::Null,
        "as needed, no dose is kept to or missed"
    );
    assert_eq!(prn["usage"], json!({ "taken": 4, "days": 30, "per_day": 0.13 }));
    assert_eq!(
        prn["over_limit"],
        json!([
            { "time": days_ago(3, 10), "limit": "min_gap" },
            { "time": days_ago(3, 15), "limit": "max_per_day" },
        ])
    );
    for m in report["medications"].as_array().unwrap() {
        if m["name"] != "As needed" {
            assert_eq!(m["over_limit"], json!([]), "{m}");
            assert_eq!(
                m["stages"].as_array().unwrap().is_empty(),
                m["name"] != "Taper",
                "{m}"
            );
        }
    }
    // Only scheduled doses count: the as-needed ones are use, not adherence.
    assert_eq!(
        report["totals"],
        json!({ "taken": 1, "skipped": 0, "missed": 1, "rate": 0.5 })
    );
}

/// The statuses Today shows for a medication's doses.
async fn today_statuses(server: &Server, token: &str, medication: i64) -> Vec<String> {
    let (status, body) = get_json(server, "/api/medications/today", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]["doses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["medication_id"] == medication)
        .map(|d| d["status"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_imported_dose_answers_its_scheduled_slot_and_no_reminder_goes_out() {
    let push = common::push::PushService::start().await;
    // A start at noon: the slot a few minutes on is today's, whenever the test runs.
    let server = Server::start_with(|c| {
        common::with_clock_start(c, "2026-03-02T12:00:00Z");
        c.env("PILLBOX_REMINDERS_TICK_SECONDS", "3600")
            .env("PILLBOX_PUSH_ALLOW_ENDPOINTS", push.prefix())
            .env("PILLBOX_PUBLIC_URL", "http://pillbox.test");
    });
    let token = register(&server, "ann@example.org").await;
    save_settings(&server, &token, json!({ "timezone": "UTC" })).await;
    common::register_device(&server, &token, &push, "phone").await;
    // Two medications due at the same minute, a few minutes from now, reminded at dose time.
    // The lead is 0 before they are created: with the default 15 minutes their reminders would
    // be due at once, and the dispatcher (which wakes when a reminder falls due) would send them.
    let (status, body) = call(
        &server,
        Method::PUT,
        "/api/notifications/preferences",
        Some(&token),
        Some(json!({ "default_reminder_minutes_before": 0 })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let now = common::advance(&server, 0).await;
    let slot = now + chrono::Duration::minutes(4);
    let slot = slot
        - chrono::Duration::seconds(i64::from(chrono::Timelike::second(&slot)))
        - chrono::Duration::nanoseconds(i64::from(chrono::Timelike::nanosecond(&slot)));
    let time = slot.format("%H:%M").to_string();
    let mut ids = Vec::new();
    for name in ["Imported", "Control"] {
        let id = create(
            &server,
            &token,
            json!({ "name": name, "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                    "schedule": { "times": [time] } }),
        )
        .await;
        let (status, body) = call(
            &server,
            Method::PUT,
            &format!("/api/notifications/medications/{id}/preferences"),
            Some(&token),
            Some(json!({ "reminder_minutes_before": 0 })),
        )
        .await;
        assert_eq!(status, StatusCode::OK, "{body}");
        ids.push(id);
    }
    let (imported, control) = (ids[0], ids[1]);

    // The file (this account's own export) carries "Imported" taken at its slot today.
    let mut file = export(&server, &token).await;
    let file_id = by_name(&file, "Imported")["id"].clone();
    file["history"].as_array_mut().unwrap().push(json!({
        "medication_id": file_id, "quantity": 1, "unit": "tablets", "status": "taken",
        "taken": slot.to_rfc3339()
    }));
    let (status, body) = import(&server, &token, &file.to_string(), "application/json", false).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["history"]["added"], 1, "{body}");

    // Today shows it taken, as a dose logged in the app; the other is still to come.
    assert_eq!(today_statuses(&server, &token, imported).await, ["taken"]);
    assert_eq!(today_statuses(&server, &token, control).await, ["upcoming"]);

    // Past the slot and every repeat: only "Control" reminded anyone.
    common::advance(&server, 5 * 60).await;
    push.wait_for("phone", 1, std::time::Duration::from_secs(10))
        .await;
    common::advance(&server, 35 * 60).await;
    let titles: Vec<String> = push
        .received("phone")
        .into_iter()
        .filter(|r| r.payload["kind"] != "withdraw")
        .map(|r| r.payload["title"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(titles.iter().any(|t| t.contains("Control")), "{titles:?}");
    assert!(
        titles.iter().all(|t| !t.contains("Imported")),
        "no reminder for a dose already taken: {titles:?}"
    );
    let sent = common::deliveries(&server, &token).await;
    assert!(
        sent.iter().all(|d| d["medication_name"] != "Imported"),
        "{sent:?}"
    );
    let (_, reminders) = get_json(&server, "/api/notifications?limit=200", Some(&token)).await;
    let answered: Vec<&Value> = reminders["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["medication_id"] == imported && common::instant(&r["scheduled_time"]) == slot)
        .collect();
    assert_eq!(answered.len(), 1, "{reminders}");
    assert!(answered[0]["answered_at"].is_string(), "{}", answered[0]);
    assert_eq!(today_statuses(&server, &token, imported).await, ["taken"]);
}

/// A dose logged for today's slot and then moved to yesterday no longer answers today's
/// slot: Today shows that slot open again, and moved back, taken again.
#[tokio::test]
async fn a_dose_moved_to_another_day_leaves_the_slot_it_answered_open() {
    // About noon in the person's zone (10:00 UTC, two hours ahead), so that the slot and the
    // minutes around it stay today.
    let server = Server::start_with(|c| common::with_clock_start(c, "2026-03-02T10:00:00Z"));
    let token = register(&server, "moved@example.org").await;
    let now = common::advance(&server, 0).await;
    save_settings(&server, &token, json!({ "timezone": "Etc/GMT-2" })).await;
    let local = chrono::FixedOffset::east_opt(2 * 3600).unwrap();
    let slot = now + chrono::Duration::minutes(2);
    let time = slot.with_timezone(&local).format("%H:%M").to_string();
    let slot = chrono::DateTime::parse_from_rfc3339(&format!(
        "{}T{time}:00{}",
        slot.with_timezone(&local).date_naive(),
        local
    ))
    .unwrap()
    .with_timezone(&chrono::Utc);
    let id = create(
        &server,
        &token,
        json!({ "name": "Moved", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                "schedule": { "times": [time] } }),
    )
    .await;
    common::advance(&server, 3 * 60).await;
    let (status, logged) = post(
        &server,
        &format!("/api/medications/{id}/doses"),
        Some(&token),
        json!({ "taken": (slot + chrono::Duration::minutes(1)).to_rfc3339() }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{logged}");
    assert_eq!(today_statuses(&server, &token, id).await, ["taken"]);

    let path = format!("/api/medications/history/{}", logged["data"]["entry"]["id"]);
    let move_to = |at: chrono::DateTime<chrono::Utc>| {
        call(
            &server,
            Method::PUT,
            &path,
            Some(&token),
            Some(json!({ "taken": at.to_rfc3339() })),
        )
    };
    let (status, body) = move_to(slot - chrono::Duration::days(1)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let statuses = today_statuses(&server, &token, id).await;
    assert_eq!(statuses.len(), 1, "{statuses:?}");
    assert_ne!(statuses[0], "taken", "today's slot is open again: {statuses:?}");

    let (status, body) = move_to(slot).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(today_statuses(&server, &token, id).await, ["taken"]);
}

/// An export with `entries` history entries of two medications, an hour apart.
fn long_export(entries: usize) -> String {
    let start = chrono::Utc::now() - chrono::Duration::hours(entries as i64 + 2);
    let history: Vec<Value> = (0..entries)
        .map(|i| {
            let taken = start + chrono::Duration::hours(i as i64);
            json!({ "medication_id": i % 2 + 1, "quantity": 500, "unit": "mg", "status": "taken",
                    "taken": taken.to_rfc3339_opts(chrono::SecondsFormat::Secs, true) })
        })
        .collect();
    json!({
        "version": "1.1.0",
        "medications": [
            { "id": 1, "name": "Metformin", "unit": "mg", "frequency": "daily", "default_quantity": 500,
              "schedule": { "times": ["08:00"] } },
            { "id": 2, "name": "Ibuprofen", "unit": "mg", "frequency": "as_needed", "default_quantity": 500 },
        ],
        "history": history,
    })
    .to_string()
}

fn count(db: &rusqlite::Connection, sql: &str) -> i64 {
    db.query_row(sql, [], |row| row.get(0)).unwrap()
}

fn uploads_in(data_dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(data_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".import-"))
        .collect()
}

#[tokio::test]
async fn an_import_cut_off_by_a_crash_shows_nothing_and_the_next_start_clears_what_it_staged() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let server = Server::start_in(&data_dir, open_signups).unwrap();
    let token = register(&server, "a@example.com").await;
    let other = register(&server, "b@example.com").await;
    let theirs = create(
        &server,
        &other,
        json!({ "name": "Insulin", "unit": "units", "frequency": "as_needed", "default_quantity": 4 }),
    )
    .await;
    let file = long_export(10_000);
    let importing = {
        let (url, token, file) = (server.url("/api/import"), token.clone(), file.clone());
        tokio::spawn(async move {
            client()
                .post(url)
                .bearer_auth(token)
                .header("content-type", "application/json")
                .body(file)
                .send()
                .await
        })
    };
    // Wait until the import is writing its history, then look at what readers see.
    let db = rusqlite::Connection::open_with_flags(
        data_dir.join("pillbox.sqlite3"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    db.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let staged = loop {
        let staged = count(
            &db,
            "SELECT count(*) FROM dose_history_rows WHERE import_id IS NOT NULL",
        );
        if staged > 0 {
            break staged;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the import never began writing:\n{}",
            server.log()
        );
        // The import's request runs on this test's runtime meanwhile.
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    };
    assert!(
        staged < 10_000,
        "the whole import was staged before it could be cut off"
    );
    // Another person's dose goes in between the import's transactions, not after them.
    let (status, dose) = post(
        &server,
        &format!("/api/medications/{theirs}/doses"),
        Some(&other),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{dose}");
    assert_eq!(
        count(&db, "SELECT count(*) FROM imports_pending"),
        1,
        "the import ended before the dose"
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM dose_history WHERE user_id = 1"),
        0,
        "readers see a part of the import"
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM medications WHERE user_id = 1"),
        0
    );
    let (status, page) = get_json(&server, "/api/medications/history", Some(&token)).await;
    assert_eq!(
        (status, page["data"].as_array().map(Vec::len)),
        (StatusCode::OK, Some(0)),
        "{page}"
    );
    assert_eq!(
        uploads_in(&data_dir).len(),
        1,
        "the upload is kept on disk while it is imported"
    );
    drop(db);

    // kill -9 in the middle of it.
    drop(server);
    let _ = importing.await;

    let server = Server::start_in(&data_dir, open_signups).unwrap();
    assert!(
        server.log().contains("an import was interrupted"),
        "{}",
        server.log()
    );
    let db = rusqlite::Connection::open_with_flags(
        data_dir.join("pillbox.sqlite3"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    assert_eq!(
        count(&db, "SELECT count(*) FROM dose_history_rows WHERE user_id = 1"),
        0,
        "staged rows stay behind"
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM dose_history WHERE user_id = 2"),
        1,
        "the other person's dose is kept"
    );
    assert_eq!(count(&db, "SELECT count(*) FROM imports_pending"), 0);
    assert_eq!(uploads_in(&data_dir), Vec::<String>::new());
    let (_, medications) = get_json(&server, "/api/medications", Some(&token)).await;
    assert_eq!(medications["data"], json!([]), "{medications}");

    // The same file again, whole: every entry, counted as a page shows them.
    let (status, answer) = import(&server, &token, &file, "application/json", false).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["data"]["history"]["added"], 10_000, "{answer}");
    assert_eq!(
        count(&db, "SELECT count(*) FROM dose_history WHERE user_id = 1"),
        10_000
    );
    assert_eq!(
        count(
            &db,
            "SELECT coalesce(sum(entries), 0) FROM history_counts WHERE user_id = 1"
        ),
        10_000,
        "the page totals count the revealed entries"
    );
    assert_eq!(
        uploads_in(&data_dir),
        Vec::<String>::new(),
        "the upload is deleted after the import"
    );
}
