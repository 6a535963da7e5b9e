//! Importing the files of the apps people leave (issue 29), over HTTP and from the CLI against
//! the real binary: MedTimer's events and medicines CSVs, made to the shape MedTimer writes
//! (`;`-separated, its nine event columns, ISO 8601 times), and a FHIR R4 Bundle from another
//! Pillbox. Each previews with a dry run, lists the rows it cannot read and imports nothing
//! until the person agrees to leave them out, and a second import adds nothing.

mod common;

use common::{Server, client, get_json, post, register, save_settings};
use reqwest::StatusCode;
use serde_json::{Value, json};

const MEDTIMER_EVENTS: &str = "\
Reminded;Name;Dosage;Taken;Tags;Interval;Notes;Reminded (ISO 8601);Taken (ISO 8601)
20/11/2026 08:00;Ramipril;1;20/11/2026 08:04;;;with water;2026-11-20T07:00:00Z;2026-11-20T07:04:00Z
20/11/2026 20:00;Ramipril;1;;;;;2026-11-20T19:00:00Z;
21/11/2026 08:00;Vitamin D;2 drops;21/11/2026 08:01;morning;;;2026-11-21T07:00:00Z;2026-11-21T07:01:00Z
21/11/2026 09:00;Iron; one tablet; with juice;;;;;2026-11-21T08:00:00Z;
22/11/2026 08:00;Ramipril;1;22/11/2026 08:10;;;;2026-11-22T07:00:00Z;yesterday
";

fn open_signups(c: &mut std::process::Command) {
    c.env("PILLBOX_SIGNUPS", "open");
}

/// `(status, body)` of `POST /api/import?{query}` with `body`.
async fn import(
    server: &Server,
    token: &str,
    query: &str,
    body: &str,
    content_type: &str,
) -> (StatusCode, Value) {
    let response = client()
        .post(server.url(&format!("/api/import?{query}")))
        .bearer_auth(token)
        .header("content-type", content_type)
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = response.status();
    (status, response.json().await.unwrap())
}

async fn history(server: &Server, token: &str) -> Vec<Value> {
    let (status, page) = get_json(server, "/api/medications/history?limit=100", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["data"].as_array().unwrap().clone()
}

async fn medications(server: &Server, token: &str) -> Vec<Value> {
    let (status, list) = get_json(server, "/api/medications", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    list["data"].as_array().unwrap().clone()
}

fn named<'a>(list: &'a [Value], name: &str) -> &'a Value {
    list.iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {list:?}"))
}

#[tokio::test]
async fn medtimer_events_preview_their_unreadable_rows_import_only_when_told_and_never_twice() {
    let server = Server::start();
    let token = register(&server, "ann@example.com").await;

    // The preview: what would come in, and the two rows that cannot be read, by line.
    let (status, preview) = import(
        &server,
        &token,
        "source=medtimer&dry_run=true",
        MEDTIMER_EVENTS,
        "text/csv",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    let data = &preview["data"];
    assert_eq!(data["dry_run"], true);
    assert_eq!(data["medications"]["added"], 2, "{data}");
    assert_eq!(data["history"]["added"], 3, "{data}");
    let unreadable: Vec<(i64, &str)> = data["unreadable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["line"].as_i64().unwrap(), u["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(unreadable.len(), 2, "{data}");
    assert_eq!(unreadable[0].0, 5, "the row with a ';' inside its dose");
    assert!(unreadable[0].1.contains("10 fields"), "{unreadable:?}");
    assert_eq!(unreadable[1].0, 6);
    assert!(unreadable[1].1.contains("'yesterday'"), "{unreadable:?}");
    assert_eq!(data["unknown_columns"], json!([]));
    assert!(
        data["notices"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().contains("imported as missed")),
        "{data}"
    );

    // Without the person's agreement nothing is written.
    let (status, refused) = import(&server, &token, "source=medtimer", MEDTIMER_EVENTS, "text/csv").await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(refused["code"], "import_has_unreadable_rows");
    assert_eq!(refused["params"]["lines"], "5, 6");
    assert!(history(&server, &token).await.is_empty());
    assert!(medications(&server, &token).await.is_empty());

    // Agreed: the rest comes in.
    let (status, done) = import(
        &server,
        &token,
        "source=medtimer&skip_unreadable=true",
        MEDTIMER_EVENTS,
        "text/csv",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["data"]["history"]["added"], 3);
    let meds = medications(&server, &token).await;
    let ramipril = named(&meds, "Ramipril");
    assert_eq!(ramipril["frequency"], "as_needed", "no schedule is invented");
    assert_eq!(ramipril["unit"], "pills");
    assert_eq!(named(&meds, "Vitamin D")["unit"], "drops");
    let entries = history(&server, &token).await;
    let at = |time: &str| {
        entries
            .iter()
            .find(|e| e["taken"].as_str().unwrap_or_default().starts_with(time))
            .unwrap_or_else(|| panic!("nothing at {time}: {entries:?}"))
    };
    let taken = at("2026-11-20T07:04");
    assert_eq!(
        (&taken["status"], &taken["medication_name"]),
        (&json!("taken"), &json!("Ramipril"))
    );
    assert_eq!(at("2026-11-20T19:00")["status"], "missed");
    let drops = at("2026-11-21T07:01");
    assert_eq!(
        (&drops["quantity"], &drops["dosage_unit"]),
        (&json!(2), &json!("drops"))
    );

    // The same file again adds nothing.
    let (status, again) = import(
        &server,
        &token,
        "source=medtimer&skip_unreadable=true",
        MEDTIMER_EVENTS,
        "text/csv",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["data"]["history"], json!({ "added": 0, "skipped": 3 }));
    assert_eq!(again["data"]["medications"]["added"], 0);
    assert_eq!(history(&server, &token).await.len(), 3);
}

#[tokio::test]
async fn medtimer_columns_it_does_not_know_are_named_and_its_medicines_keep_their_reminders_as_notes() {
    let server = Server::start();
    let token = register(&server, "ann@example.com").await;
    let wider = "Erinnert;Name;Dosis;Genommen;Tags;Intervall;Notizen;Erinnert (ISO 8601);Genommen (ISO 8601);Ort\n\
                 20.11.2026 08:00;Ramipril;1;20.11.2026 08:04;;;;2026-11-20T07:00:00Z;2026-11-20T07:04:00Z;Küche\n";
    let (status, preview) = import(&server, &token, "source=medtimer&dry_run=true", wider, "text/csv").await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["data"]["unknown_columns"], json!(["Ort"]));
    assert_eq!(preview["data"]["history"]["added"], 1);

    let medicines = "Medicine;Dosage;Time\nRamipril;1;08:00, Every day\nRamipril;1;20:00, Every day\nInsulin;10 units;07:30, Every day\n";
    let (status, done) = import(&server, &token, "source=medtimer", medicines, "text/csv").await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["data"]["medications"]["added"], 2);
    let meds = medications(&server, &token).await;
    let ramipril = named(&meds, "Ramipril");
    assert_eq!(
        ramipril["notes"],
        "MedTimer reminders: 08:00, Every day | 20:00, Every day"
    );
    assert_eq!(ramipril["frequency"], "as_needed");
    let insulin = named(&meds, "Insulin");
    assert_eq!(
        (&insulin["unit"], &insulin["default_quantity"]),
        (&json!("units"), &json!(10))
    );

    // Not MedTimer's shape at all: refused, saying what was expected.
    let (status, refused) = import(&server, &token, "source=medtimer", "a,b\n1,2\n", "text/csv").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert_eq!(refused["code"], "import_invalid");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("MedTimer's events CSV has 9"),
        "{refused}"
    );
    let (status, refused) = import(&server, &token, "source=palm", "x", "text/csv").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("pillbox, medtimer or fhir"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_fhir_bundle_from_another_pillbox_brings_the_schedules_and_history_once() {
    let server = Server::start_with(open_signups);
    let ann = register(&server, "ann@example.com").await;
    save_settings(&server, &ann, json!({ "timezone": "Europe/Berlin" })).await;
    for body in [
        json!({ "name": "Metformin", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                "schedule": { "times": ["08:00", "20:00"], "start_date": "2026-01-01" },
                "prescription": { "prescriber": "Dr. Weber", "pharmacy_name": "Apotheke am Markt",
                                  "pharmacy_phone": "+49 30 1234567", "pharmacy_url": "https://apotheke.example/order",
                                  "prescribed_on": "2026-01-01", "expires_on": "2026-12-31",
                                  "refills_authorised": 5, "refills_left": 3 } }),
        json!({ "name": "Eye drops", "unit": "ml", "frequency": "weekly", "default_quantity": 0.5,
                "schedule": { "weekdays": [1, 4], "times": ["21:00"], "start_date": "2026-01-05" } }),
        json!({ "name": "Prednisolone", "unit": "mg", "frequency": "daily", "default_quantity": 40,
                "schedule": { "times": ["08:00"], "start_date": "2026-11-01",
                              "steps": [{ "days": 3, "quantity": 40 }, { "days": 2, "quantity": 20 }] } }),
        json!({ "name": "Pill", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                "schedule": { "times": ["07:00"], "start_date": "2026-11-02", "cycle_on_days": 21, "cycle_off_days": 7 } }),
        json!({ "name": "Ibuprofen", "unit": "tablets", "frequency": "as_needed", "default_quantity": 1,
                "schedule": { "max_per_day": 3 } }),
    ] {
        let (status, body) = post(&server, "/api/medications", Some(&ann), body).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let metformin = named(&medications(&server, &ann).await, "Metformin")["id"]
        .as_i64()
        .unwrap();
    for body in [
        json!({ "taken": "2026-11-20T07:02:00.000Z", "dosage": "with breakfast" }),
        json!({ "taken": "2026-11-20T19:00:00.000Z", "status": "skipped" }),
        json!({ "taken": "2026-11-21T07:00:00.000Z", "status": "missed" }),
    ] {
        let (status, answer) = post(
            &server,
            &format!("/api/medications/{metformin}/doses"),
            Some(&ann),
            body,
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
    }
    let bundle = client()
        .get(server.url("/api/export?format=fhir"))
        .bearer_auth(&ann)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();

    // Another account on another server: Bob brings Ann's record over (as her carer would).
    let bob = register(&server, "bob@example.com").await;
    save_settings(&server, &bob, json!({ "timezone": "Europe/Berlin" })).await;
    let (status, preview) = import(
        &server,
        &bob,
        "source=fhir&dry_run=true",
        &bundle,
        "application/fhir+json",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["data"]["medications"]["added"], 5, "{preview}");
    assert_eq!(preview["data"]["history"]["added"], 3, "{preview}");
    assert_eq!(preview["data"]["unreadable"], json!([]));
    let (status, done) = import(&server, &bob, "source=fhir", &bundle, "application/fhir+json").await;
    assert_eq!(status, StatusCode::OK, "{done}");

    let theirs = medications(&server, &ann).await;
    let mine = medications(&server, &bob).await;
    for name in ["Metformin", "Eye drops", "Prednisolone", "Pill", "Ibuprofen"] {
        let (a, b) = (named(&theirs, name), named(&mine, name));
        for field in ["unit", "frequency", "default_quantity"] {
            assert_eq!(a[field], b[field], "{name}.{field}");
        }
        for field in [
            "times",
            "weekdays",
            "start_date",
            "end_date",
            "steps",
            "cycle_on_days",
            "cycle_off_days",
            "max_per_day",
            "interval_hours",
        ] {
            assert_eq!(
                a["schedule"][field], b["schedule"][field],
                "{name}.schedule.{field}: {a} / {b}"
            );
        }
    }
    // Not by chance equal: each schedule is there.
    assert_eq!(
        named(&mine, "Metformin")["schedule"]["times"],
        json!(["08:00", "20:00"])
    );
    assert_eq!(named(&mine, "Eye drops")["schedule"]["weekdays"], json!([1, 4]));
    assert_eq!(
        named(&mine, "Prednisolone")["schedule"]["steps"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(named(&mine, "Pill")["schedule"]["cycle_on_days"], 21);
    assert_eq!(named(&mine, "Ibuprofen")["schedule"]["max_per_day"], 3);
    // The prescription came along on the request (and none where there was none).
    for field in [
        "prescriber",
        "pharmacy_name",
        "pharmacy_phone",
        "pharmacy_url",
        "prescribed_on",
        "expires_on",
        "refills_authorised",
        "refills_left",
        "order_days_before",
    ] {
        let theirs = &named(&theirs, "Metformin")["prescription"][field];
        assert_eq!(
            theirs,
            &named(&mine, "Metformin")["prescription"][field],
            "prescription.{field}"
        );
        assert!(!theirs.is_null(), "prescription.{field} is set");
    }
    assert_eq!(named(&mine, "Eye drops")["prescription"], Value::Null);
    let entries = history(&server, &bob).await;
    let mut statuses: Vec<&str> = entries.iter().map(|e| e["status"].as_str().unwrap()).collect();
    statuses.sort_unstable();
    assert_eq!(statuses, ["missed", "skipped", "taken"]);
    assert!(
        entries.iter().any(|e| e["dosage"] == "with breakfast"),
        "{entries:?}"
    );

    // Again: nothing new.
    let (status, again) = import(&server, &bob, "source=fhir", &bundle, "application/fhir+json").await;
    assert_eq!(status, StatusCode::OK, "{again}");
    assert_eq!(again["data"]["medications"]["added"], 0, "{again}");
    assert_eq!(again["data"]["history"]["added"], 0, "{again}");

    // A prescription Pillbox would refuse is left out with a notice; the rest comes in.
    let mut odd: Value = serde_json::from_str(&bundle).unwrap();
    for e in odd["entry"].as_array_mut().unwrap() {
        if let Some(telecom) = e
            .pointer_mut("/resource/contained/0/telecom")
            .and_then(Value::as_array_mut)
        {
            telecom[0]["value"] = json!("call the front desk");
        }
    }
    let carol = register(&server, "carol@example.com").await;
    let (status, preview) = import(
        &server,
        &carol,
        "source=fhir&dry_run=true",
        &odd.to_string(),
        "application/fhir+json",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["data"]["prescriptions"]["added"], 0, "{preview}");
    assert!(
        preview["data"]["notices"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("The prescription of Metformin was left out: The pharmacy's phone")),
        "{preview}"
    );

    // An entry it cannot read is named by its number, with the other resources it leaves out.
    let mut changed: Value = serde_json::from_str(&bundle).unwrap();
    let entries = changed["entry"].as_array_mut().unwrap();
    let dose = entries
        .iter()
        .position(|e| e["resource"]["resourceType"] == "MedicationAdministration")
        .unwrap();
    entries[dose]["resource"]["status"] = json!("in-progress");
    entries.push(json!({ "fullUrl": "urn:uuid:1", "resource": { "resourceType": "Observation", "id": "1", "status": "final" } }));
    let (status, preview) = import(
        &server,
        &bob,
        "source=fhir&dry_run=true",
        &changed.to_string(),
        "application/fhir+json",
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["data"]["unreadable"][0]["line"], dose + 1);
    assert!(
        preview["data"]["unreadable"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("in-progress")
    );
    assert!(
        preview["data"]["notices"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("1 Observation")),
        "{preview}"
    );
}

#[tokio::test]
async fn pillbox_import_reads_medtimer_and_lists_what_it_cannot_read() {
    let server = Server::start();
    register(&server, "ann@example.com").await;
    let file = server.data_dir.join("medtimer-events.csv");
    std::fs::write(&file, MEDTIMER_EVENTS).unwrap();
    let path = file.to_str().unwrap();
    let output = common::run(
        &server.data_dir,
        &[
            "import",
            "--email",
            "ann@example.com",
            "--source",
            "medtimer",
            "--dry-run",
            path,
        ],
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(printed.contains("line 5: cannot be read"), "{printed}");
    assert!(printed.contains("history entries: would add 3"), "{printed}");

    let output = common::run(
        &server.data_dir,
        &[
            "import",
            "--email",
            "ann@example.com",
            "--source",
            "medtimer",
            path,
        ],
    );
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--skip-unreadable"));
    let output = common::run(
        &server.data_dir,
        &[
            "import",
            "--email",
            "ann@example.com",
            "--source",
            "medtimer",
            "--skip-unreadable",
            path,
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("history entries: added 3"));
}
