//! The record as a FHIR R4 Bundle (issue 29), over HTTP and from the CLI against the real
//! binary, checked by an independent implementation: `fhir.resources` (tests/fhir/validate.py)
//! parses every resource, checks the codes and references, and round-trips the bundle.

mod common;

use std::collections::HashMap;

use common::{Server, call, client, get_json, post, register, save_settings};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const PASSWORD: &str = "secret123";

async fn create(server: &Server, token: &str, body: Value) -> i64 {
    let (status, answer) = post(server, "/api/medications", Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    answer["data"]["id"].as_i64().unwrap()
}

async fn dose(server: &Server, token: &str, id: i64, body: Value) {
    let (status, answer) = post(server, &format!("/api/medications/{id}/doses"), Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
}

/// `(status, content type, content disposition, body)` of a GET.
async fn download(server: &Server, path: &str, token: &str) -> (StatusCode, String, String, String) {
    let response = client()
        .get(server.url(path))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    let (status, kind, disposition) = (
        response.status(),
        header("content-type"),
        header("content-disposition"),
    );
    (status, kind, disposition, response.text().await.unwrap())
}

/// What tests/fhir/validate.py says of a bundle: `{problems, counts}`.
fn validated(text: &str) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bundle.json");
    std::fs::write(&file, text).unwrap();
    let output = std::process::Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fhir/validate.py"))
        .arg(&file)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "the validator failed (is fhir.resources installed? python3 -m pip install -r tests/requirements.txt):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

fn resources<'a>(bundle: &'a Value, kind: &str) -> Vec<&'a Value> {
    bundle["entry"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| &e["resource"])
        .filter(|r| r["resourceType"] == kind)
        .collect()
}

/// The resource a reference names.
fn resolve<'a>(bundle: &'a Value, reference: &Value) -> &'a Value {
    let url = reference["reference"].as_str().unwrap();
    bundle["entry"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["fullUrl"] == url)
        .map(|e| &e["resource"])
        .unwrap_or_else(|| panic!("{url} is not in the bundle"))
}

fn medication_named<'a>(bundle: &'a Value, name: &str) -> &'a Value {
    resources(bundle, "Medication")
        .into_iter()
        .find(|m| m["code"]["text"] == name)
        .unwrap_or_else(|| panic!("no Medication {name}"))
}

/// The MedicationRequest (the schedule) of a medication.
fn request_of<'a>(bundle: &'a Value, name: &str) -> &'a Value {
    let medication = medication_named(bundle, name);
    resources(bundle, "MedicationRequest")
        .into_iter()
        .find(|r| resolve(bundle, &r["medicationReference"])["id"] == medication["id"])
        .unwrap_or_else(|| panic!("no MedicationRequest for {name}"))
}

async fn person(server: &Server, token: &str, name: &str) -> i64 {
    let (status, body) = post(server, "/api/people", Some(token), json!({ "name": name })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"]["id"].as_i64().unwrap()
}

/// A carer with the `record` role for `person`, named "Sam Carer".
async fn carer(server: &Server, owner: &str, person: i64) -> String {
    let (status, body) = post(
        server,
        &format!("/api/people/{person}/carers"),
        Some(owner),
        json!({ "email": "sam@example.com", "role": "record" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let link = body["data"]["invite_url"].as_str().unwrap().to_owned();
    let invitation = link.rsplit('/').next().unwrap();
    let (status, body) = post(
        server,
        "/api/auth/register",
        None,
        json!({ "email": "sam@example.com", "password": PASSWORD, "invitation": invitation }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let token = body["data"]["token"].as_str().unwrap().to_owned();
    let (status, body) = call(
        server,
        Method::PUT,
        "/api/auth/me",
        Some(&token),
        Some(json!({ "firstName": "Sam", "lastName": "Carer" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = post(
        server,
        &format!("/api/invitations/{invitation}/accept"),
        Some(&token),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    token
}

/// Ann (Berlin) with a medication of every kind of schedule, stock with a strength, a deleted
/// medication whose history is kept, and Grandpa, whose carer logs a dose for him.
async fn seeded(server: &Server) -> (String, i64) {
    let token = register(server, "ann@example.com").await;
    save_settings(
        server,
        &token,
        json!({ "timezone": "Europe/Berlin", "defaultReminderTime": "08:30" }),
    )
    .await;
    let metformin = create(
        server,
        &token,
        json!({
            "name": "Metformin", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
            "schedule": { "times": ["08:00", "20:00"], "start_date": "2026-01-01" },
            "inventory": { "enabled": true, "inventory_type": "discrete", "container_type": "box",
                           "container_quantity": 1, "item_quantity": 60, "item_strength": 500, "item_unit": "mg" },
            "prescription": { "prescriber": "Dr. Weber", "pharmacy_name": "Apotheke am Markt",
                              "pharmacy_phone": "+49 30 1234567", "pharmacy_url": "https://apotheke.example/order",
                              "prescribed_on": "2026-01-01", "expires_on": "2026-12-31",
                              "refills_authorised": 5, "refills_left": 3 }
        }),
    )
    .await;
    create(
        server,
        &token,
        json!({ "name": "Eye drops", "unit": "ml", "frequency": "weekly", "default_quantity": 0.5,
                "schedule": { "weekdays": [1, 4], "times": ["21:00"], "start_date": "2026-01-05" } }),
    )
    .await;
    create(
        server,
        &token,
        json!({ "name": "Amoxicillin course", "unit": "capsules", "frequency": "daily", "default_quantity": 1,
                "schedule": { "times": ["06:00"], "interval_hours": 8,
                              "start_date": "2026-10-01", "end_date": "2026-10-10" } }),
    )
    .await;
    create(
        server,
        &token,
        json!({ "name": "Prednisolone", "unit": "mg", "frequency": "daily", "default_quantity": 40,
                "schedule": { "times": ["08:00"], "start_date": "2026-11-01",
                              "steps": [{ "days": 3, "quantity": 40 }, { "days": 3, "quantity": 20 },
                                        { "days": 3, "quantity": 10 }] } }),
    )
    .await;
    create(
        server,
        &token,
        json!({ "name": "Pill", "unit": "tablets", "frequency": "daily", "default_quantity": 1,
                "schedule": { "times": ["07:00"], "start_date": "2026-11-02",
                              "cycle_on_days": 21, "cycle_off_days": 7 } }),
    )
    .await;
    create(
        server,
        &token,
        json!({ "name": "Ibuprofen", "unit": "tablets", "frequency": "as_needed", "default_quantity": 1,
                "schedule": { "max_per_day": 3, "min_gap_minutes": 360 } }),
    )
    .await;
    create(
        server,
        &token,
        json!({ "name": "Vitamin D", "unit": "capsules", "frequency": "monthly", "default_quantity": 1,
                "schedule": { "times": ["09:00"], "start_date": "2026-01-15" } }),
    )
    .await;
    let old = create(
        server,
        &token,
        json!({ "name": "Old cream", "unit": "g", "frequency": "daily", "default_quantity": 2 }),
    )
    .await;
    dose(
        server,
        &token,
        metformin,
        json!({ "taken": "2026-11-20T07:02:00.000Z", "dosage": "with breakfast" }),
    )
    .await;
    dose(
        server,
        &token,
        metformin,
        json!({ "taken": "2026-11-20T19:00:00.000Z", "status": "skipped" }),
    )
    .await;
    dose(
        server,
        &token,
        metformin,
        json!({ "taken": "2026-11-21T07:00:00.000Z", "status": "missed" }),
    )
    .await;
    dose(
        server,
        &token,
        old,
        json!({ "taken": "2026-11-01T09:00:00.000Z", "quantity": 1.5 }),
    )
    .await;
    let (status, body) = call(
        server,
        Method::DELETE,
        &format!("/api/medications/{old}"),
        Some(&token),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let grandpa = person(server, &token, "Grandpa").await;
    let warfarin = create(
        server,
        &token,
        json!({ "name": "Warfarin", "unit": "mg", "frequency": "daily", "default_quantity": 5,
                "person_id": grandpa, "schedule": { "times": ["18:00"], "start_date": "2026-06-01" } }),
    )
    .await;
    let sam = carer(server, &token, grandpa).await;
    dose(
        server,
        &sam,
        warfarin,
        json!({ "taken": "2026-11-22T17:00:00.000Z" }),
    )
    .await;
    (token, grandpa)
}

#[tokio::test]
async fn the_fhir_bundle_says_what_the_record_says_and_an_independent_validator_accepts_it() {
    let server = Server::start();
    let (token, grandpa) = seeded(&server).await;

    let (status, kind, disposition, text) = download(&server, "/api/export?format=fhir", &token).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert_eq!(kind, "application/fhir+json");
    assert!(
        disposition.starts_with("attachment; filename=\"pillbox-fhir-") && disposition.ends_with(".json\""),
        "{disposition}"
    );
    let report = validated(&text);
    assert_eq!(report["problems"], json!([]), "{report}");
    assert_eq!(
        report["counts"],
        json!({
            "Patient": 2, "Medication": 9, "MedicationRequest": 8, "MedicationStatement": 8,
            "MedicationAdministration": 5,
        }),
        "two people; eight medications with their schedules and one deleted; five history entries"
    );
    let bundle: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(bundle["type"], "collection");

    // People.
    let names: Vec<&str> = resources(&bundle, "Patient")
        .iter()
        .map(|p| p["name"][0]["text"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"Grandpa"), "{names:?}");

    // Form and strength where the medication says them.
    let metformin = medication_named(&bundle, "Metformin");
    assert_eq!(metformin["form"]["text"], "tablets");
    assert_eq!(
        metformin["ingredient"][0]["strength"],
        json!({ "numerator": { "value": 500, "unit": "mg" }, "denominator": { "value": 1, "unit": "tablets" } })
    );
    assert!(
        medication_named(&bundle, "Prednisolone").get("form").is_none(),
        "mg is no form"
    );

    // Each schedule, as a Timing.
    let daily = request_of(&bundle, "Metformin");
    // Its prescription: who wrote it, how long it is valid, the refills it allows and has left,
    // and the pharmacy (contained, with its phone and ordering page).
    assert_eq!(daily["requester"], json!({ "display": "Dr. Weber" }));
    assert_eq!(
        daily["dispenseRequest"],
        json!({ "validityPeriod": { "start": "2026-01-01", "end": "2026-12-31" }, "numberOfRepeatsAllowed": 5,
                "performer": { "reference": "#pharmacy", "display": "Apotheke am Markt" } })
    );
    assert_eq!(
        daily["contained"],
        json!([{ "resourceType": "Organization", "id": "pharmacy", "name": "Apotheke am Markt",
                 "telecom": [{ "system": "phone", "value": "+49 30 1234567" },
                             { "system": "url", "value": "https://apotheke.example/order" }] }])
    );
    assert_eq!(
        daily["extension"],
        json!([{ "url": "urn:pillbox:fhir:refills-left", "valueUnsignedInt": 3 }])
    );
    let without = request_of(&bundle, "Eye drops");
    assert!(
        without.get("dispenseRequest").is_none() && without.get("requester").is_none(),
        "no prescription, no dispense request: {without}"
    );
    assert_eq!(
        (&daily["status"], &daily["intent"]),
        (&json!("active"), &json!("plan"))
    );
    let dosage = &daily["dosageInstruction"];
    assert_eq!(dosage.as_array().unwrap().len(), 1);
    assert_eq!(
        dosage[0]["timing"]["repeat"],
        json!({ "frequency": 2, "period": 1, "periodUnit": "d", "timeOfDay": ["08:00:00", "20:00:00"],
                "boundsPeriod": { "start": "2026-01-01" } })
    );
    assert_eq!(
        dosage[0]["doseAndRate"][0]["doseQuantity"],
        json!({ "value": 1, "unit": "tablets" })
    );

    let weekly = &request_of(&bundle, "Eye drops")["dosageInstruction"][0];
    assert_eq!(weekly["timing"]["repeat"]["dayOfWeek"], json!(["mon", "thu"]));
    assert_eq!(weekly["timing"]["repeat"]["timeOfDay"], json!(["21:00:00"]));
    assert_eq!(weekly["doseAndRate"][0]["doseQuantity"]["value"], 0.5);

    let course = request_of(&bundle, "Amoxicillin course");
    assert_eq!(course["status"], "stopped", "it ended on 2026-10-10");
    let repeat = &course["dosageInstruction"][0]["timing"]["repeat"];
    assert_eq!(
        (&repeat["frequency"], &repeat["period"], &repeat["periodUnit"]),
        (&json!(1), &json!(8), &json!("h"))
    );
    assert_eq!(repeat["boundsPeriod"]["end"], "2026-10-10");
    // 06:00 in Berlin on its first day, as an instant.
    assert_eq!(
        repeat["boundsPeriod"]["start"].as_str().unwrap()[..19],
        *"2026-10-01T04:00:00"
    );

    let taper = request_of(&bundle, "Prednisolone")["dosageInstruction"]
        .as_array()
        .unwrap();
    let steps: Vec<(i64, &str, &str, i64)> = taper
        .iter()
        .map(|d| {
            let bounds = &d["timing"]["repeat"]["boundsPeriod"];
            (
                d["sequence"].as_i64().unwrap(),
                bounds["start"].as_str().unwrap(),
                bounds["end"].as_str().unwrap(),
                d["doseAndRate"][0]["doseQuantity"]["value"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [
            (1, "2026-11-01", "2026-11-03", 40),
            (2, "2026-11-04", "2026-11-06", 20),
            (3, "2026-11-07", "2026-11-09", 10)
        ]
    );
    let statement = resources(&bundle, "MedicationStatement")
        .into_iter()
        .find(|s| resolve(&bundle, &s["medicationReference"])["code"]["text"] == "Prednisolone")
        .unwrap();
    assert_eq!(
        statement["effectivePeriod"],
        json!({ "start": "2026-11-01", "end": "2026-11-09" })
    );

    let cycle = &request_of(&bundle, "Pill")["dosageInstruction"][0];
    assert_eq!(cycle["timing"]["code"]["text"], "21 days on, 7 days off");
    assert_eq!(
        cycle["extension"][0]["extension"],
        json!([{ "url": "onDays", "valuePositiveInt": 21 }, { "url": "offDays", "valuePositiveInt": 7 }])
    );

    let as_needed = &request_of(&bundle, "Ibuprofen")["dosageInstruction"][0];
    assert_eq!(as_needed["asNeededBoolean"], true);
    assert_eq!(as_needed["maxDosePerPeriod"]["numerator"]["value"], 3);
    assert_eq!(as_needed["maxDosePerPeriod"]["denominator"]["code"], "d");
    assert!(
        as_needed["timing"]["repeat"].get("frequency").is_none(),
        "{as_needed}"
    );
    assert!(
        as_needed["text"]
            .as_str()
            .unwrap()
            .contains("At least 360 minutes between doses")
    );

    let monthly = &request_of(&bundle, "Vitamin D")["dosageInstruction"][0];
    assert_eq!(monthly["timing"]["repeat"]["periodUnit"], "mo");
    assert!(
        monthly["text"].as_str().unwrap().contains("Monthly on day 15"),
        "{monthly}"
    );

    // History: taken, skipped, missed, a deleted medication's, and a carer's.
    let given: HashMap<&str, &Value> = resources(&bundle, "MedicationAdministration")
        .into_iter()
        .map(|a| (a["effectiveDateTime"].as_str().unwrap(), a))
        .collect();
    let at = |time: &str| {
        *given
            .iter()
            .find(|(t, _)| t.starts_with(time))
            .unwrap_or_else(|| panic!("no administration at {time}: {:?}", given.keys()))
            .1
    };
    let taken = at("2026-11-20T07:02");
    assert_eq!(taken["status"], "completed");
    assert_eq!(taken["dosage"]["dose"], json!({ "value": 1, "unit": "tablets" }));
    assert_eq!(taken["note"][0]["text"], "with breakfast");
    assert_eq!(
        resolve(&bundle, &taken["medicationReference"])["code"]["text"],
        "Metformin"
    );
    assert_eq!(
        resolve(&bundle, &taken["request"])["resourceType"],
        "MedicationRequest"
    );
    let skipped = at("2026-11-20T19:00");
    assert_eq!(
        (&skipped["status"], &skipped["statusReason"][0]["text"]),
        (&json!("not-done"), &json!("Skipped"))
    );
    let missed = at("2026-11-21T07:00");
    assert_eq!(missed["status"], "not-done");
    assert!(
        missed["statusReason"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Missed")
    );
    let deleted = at("2026-11-01T09:00");
    assert_eq!(
        resolve(&bundle, &deleted["medicationReference"])["code"]["text"],
        "Old cream"
    );
    assert_eq!(deleted["dosage"]["dose"]["value"], 1.5);
    let by_carer = at("2026-11-22T17:00");
    assert_eq!(by_carer["performer"][0]["actor"]["display"], "Sam Carer");
    assert_eq!(
        resolve(&bundle, &by_carer["subject"])["name"][0]["text"],
        "Grandpa"
    );

    // The same data exports with the same ids.
    let (_, _, _, again) = download(&server, "/api/export?format=fhir", &token).await;
    let again: Value = serde_json::from_str(&again).unwrap();
    let urls = |b: &Value| -> Vec<Value> {
        b["entry"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["fullUrl"].clone())
            .collect()
    };
    assert_eq!(urls(&bundle), urls(&again));

    // One person: only Grandpa, his medication and his dose.
    let (status, _, _, text) = download(
        &server,
        &format!("/api/export?format=fhir&person_id={grandpa}"),
        &token,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{text}");
    let report = validated(&text);
    assert_eq!(report["problems"], json!([]), "{report}");
    assert_eq!(
        report["counts"],
        json!({ "Patient": 1, "Medication": 1, "MedicationRequest": 1, "MedicationStatement": 1, "MedicationAdministration": 1 })
    );
    let his: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(resources(&his, "Patient")[0]["name"][0]["text"], "Grandpa");
    assert_eq!(urls(&his)[0], urls(&bundle)[1], "his Patient keeps its id");
}

#[tokio::test]
async fn another_accounts_person_is_404_and_a_wrong_query_says_what_to_ask() {
    let server = Server::start_with(|c| {
        c.env("PILLBOX_SIGNUPS", "open");
    });
    let ann = register(&server, "ann@example.com").await;
    let bob = register(&server, "bob@example.com").await;
    let bobs_person = person(&server, &bob, "Bob's father").await;

    let (status, body) = get_json(
        &server,
        &format!("/api/export?format=fhir&person_id={bobs_person}"),
        Some(&ann),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["code"], "person_not_found");

    let (status, body) = get_json(
        &server,
        &format!("/api/export?format=json&person_id={bobs_person}"),
        Some(&bob),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("format=fhir"),
        "{body}"
    );

    let (status, body) = get_json(&server, "/api/export?format=hl7", Some(&ann)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(body["message"].as_str().unwrap().contains("fhir"), "{body}");
}

#[tokio::test]
async fn pillbox_export_writes_the_same_bundle_to_a_private_file() {
    let server = Server::start();
    let (token, grandpa) = seeded(&server).await;
    let (_, _, _, served) = download(&server, "/api/export?format=fhir", &token).await;
    let out = server.data_dir.join("record.fhir.json");
    let output = common::run(
        &server.data_dir,
        &[
            "export",
            "--email",
            "ann@example.com",
            "--format",
            "fhir",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let written: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let served: Value = serde_json::from_str(&served).unwrap();
    assert_eq!(
        written["entry"], served["entry"],
        "the same resources as the download"
    );

    let output = common::run(
        &server.data_dir,
        &[
            "export",
            "--email",
            "ann@example.com",
            "--format",
            "fhir",
            "--person-id",
            &grandpa.to_string(),
        ],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let his: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(his["entry"].as_array().unwrap().len(), 5);

    let output = common::run(
        &server.data_dir,
        &[
            "export",
            "--email",
            "ann@example.com",
            "--format",
            "csv",
            "--person-id",
            "1",
        ],
    );
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--format fhir"));
}
