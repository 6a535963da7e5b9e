//! API tokens over HTTP against the real binary (issue 27): a token acts for its account as a
//! carer of its scope would (read lists, record logs, manage edits), only for the people it
//! names, never on the account's own routes; revoked and expired tokens are refused at once,
//! and the database keeps only a hash.

mod common;

use common::{Server, call, post, register};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

fn server() -> Server {
    Server::start_with(|c| {
        common::with_test_clock(c);
        c.env("PILLBOX_SIGNUPS", "open");
    })
}

fn code_of(body: &Value) -> &str {
    body["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no code in {body}"))
}

/// Makes a token with `body`; the test stops unless it is created. Answers (id, secret).
async fn make_token(server: &Server, session: &str, body: Value) -> (i64, String) {
    let (status, created) = post(server, "/api/tokens", Some(session), body).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let secret = created["data"]["token"].as_str().unwrap().to_owned();
    (created["data"]["id"].as_i64().unwrap(), secret)
}

async fn add_person(server: &Server, session: &str, name: &str) -> i64 {
    let (status, body) = post(server, "/api/people", Some(session), json!({ "name": name })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"]["id"].as_i64().unwrap()
}

async fn add_medication(server: &Server, session: &str, name: &str, person: Option<i64>) -> i64 {
    let mut body = json!({ "name": name, "unit": "mg", "default_quantity": 1, "frequency": "daily" });
    if let Some(person) = person {
        body["person_id"] = json!(person);
    }
    common::medication(server, session, body).await
}

async fn log_dose(server: &Server, token: &str, medication: i64) -> (StatusCode, Value) {
    post(
        server,
        &format!("/api/medications/{medication}/doses"),
        Some(token),
        json!({ "status": "taken" }),
    )
    .await
}

async fn get(server: &Server, path: &str, token: &str) -> (StatusCode, Value) {
    call(server, Method::GET, path, Some(token), None).await
}

#[tokio::test]
async fn a_read_token_lists_but_cannot_log() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    let aspirin = add_medication(&server, &eva, "Aspirin", None).await;
    let (status, _) = log_dose(&server, &eva, aspirin).await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, read) = make_token(&server, &eva, json!({ "name": "Dashboard", "scope": "read" })).await;
    assert!(read.starts_with("pbx_"), "{read}");

    let (status, list) = get(&server, "/api/medications", &read).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(list["data"][0]["name"], "Aspirin");
    let (status, history) = get(&server, "/api/medications/history", &read).await;
    assert_eq!(status, StatusCode::OK, "{history}");
    assert_eq!(history["data"].as_array().unwrap().len(), 1, "{history}");
    let (status, today) = get(&server, "/api/medications/today", &read).await;
    assert_eq!(status, StatusCode::OK, "{today}");

    let (status, refused) = log_dose(&server, &read, aspirin).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    assert_eq!(code_of(&refused), "not_permitted");
    let (status, refused) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{aspirin}"),
        Some(&read),
        Some(json!({ "name": "Renamed" })),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
    let (_, history) = get(&server, "/api/medications/history", &eva).await;
    assert_eq!(
        history["data"].as_array().unwrap().len(),
        1,
        "the refused dose was not logged"
    );
}

#[tokio::test]
async fn a_record_token_for_one_person_logs_for_that_person_only() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    let jo = add_person(&server, &eva, "Grandpa Jo").await;
    let jos_pill = add_medication(&server, &eva, "Jo's pill", Some(jo)).await;
    let evas_pill = add_medication(&server, &eva, "Eva's pill", None).await;
    let (_, record) = make_token(
        &server,
        &eva,
        json!({ "name": "Jo's button", "scope": "record", "person_ids": [jo] }),
    )
    .await;

    let (status, logged) = log_dose(&server, &record, jos_pill).await;
    assert_eq!(status, StatusCode::CREATED, "{logged}");
    let (status, refused) = log_dose(&server, &record, evas_pill).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{refused}");
    assert_eq!(code_of(&refused), "medication_not_found");

    // The whole-account views show only Jo's.
    let (_, list) = get(&server, "/api/medications", &record).await;
    let names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Jo's pill"], "{list}");
    let (status, _) = log_dose(&server, &eva, evas_pill).await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, history) = get(&server, "/api/medications/history", &record).await;
    let entries = history["data"].as_array().unwrap();
    assert_eq!(entries.len(), 1, "{history}");
    assert_eq!(entries[0]["medication_name"], "Jo's pill", "{history}");
    let (status, refused) = get(
        &server,
        &format!(
            "/api/medications/history?person_id={}",
            people_self(&server, &eva).await
        ),
        &record,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{refused}");
    // Recording is not managing.
    let (status, refused) = post(
        &server,
        "/api/medications",
        Some(&record),
        json!({ "name": "New", "unit": "mg", "person_id": jo }),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{refused}");
}

async fn people_self(server: &Server, session: &str) -> i64 {
    let (_, people) = get(server, "/api/people", session).await;
    people["data"]["own"]
        .as_array()
        .or_else(|| people["data"].as_array())
        .and_then(|own| own.iter().find(|p| p["is_self"] == json!(true)))
        .and_then(|p| p["id"].as_i64())
        .unwrap_or_else(|| panic!("no own person in {people}"))
}

#[tokio::test]
async fn a_manage_token_edits_a_medication() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    let aspirin = add_medication(&server, &eva, "Aspirin", None).await;
    let (_, manage) = make_token(&server, &eva, json!({ "name": "Scripts", "scope": "manage" })).await;
    let (status, changed) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{aspirin}"),
        Some(&manage),
        Some(json!({ "name": "Aspirin 100" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    let (_, seen) = get(&server, &format!("/api/medications/{aspirin}"), &eva).await;
    assert_eq!(seen["data"]["name"], "Aspirin 100");
}

#[tokio::test]
async fn a_token_never_reaches_the_account() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    let (_, manage) = make_token(&server, &eva, json!({ "name": "Scripts", "scope": "manage" })).await;
    for (method, path, body) in [
        (Method::GET, "/api/auth/me", None),
        (
            Method::PUT,
            "/api/auth/me",
            Some(json!({ "firstName": "Mallory" })),
        ),
        (Method::POST, "/api/auth/logout-all", None),
        (
            Method::POST,
            "/api/auth/change-password",
            Some(json!({ "currentPassword": "secret123", "newPassword": "another123" })),
        ),
        (Method::POST, "/api/auth/refresh", None),
        (Method::GET, "/api/tokens", None),
        (
            Method::POST,
            "/api/tokens",
            Some(json!({ "name": "More", "scope": "manage" })),
        ),
        (Method::DELETE, "/api/tokens/1", None),
        (Method::GET, "/api/auth/oidc/identities", None),
        (Method::DELETE, "/api/auth/oidc/identities/1", None),
        (Method::GET, "/api/export", None),
        (Method::POST, "/api/import", Some(json!({}))),
        (
            Method::DELETE,
            "/api/auth/me",
            Some(json!({ "password": "secret123" })),
        ),
        (Method::GET, "/api/settings", None),
        (Method::GET, "/api/people", None),
    ] {
        let (status, body) = call(&server, method.clone(), path, Some(&manage), body).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{method} {path}: {body}");
        assert_eq!(code_of(&body), "token_not_allowed", "{method} {path}");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .contains("sign in with your password"),
            "{body}"
        );
    }
    // The account is still there, with its one token.
    let (status, tokens) = get(&server, "/api/tokens", &eva).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(tokens["data"].as_array().unwrap().len(), 1, "{tokens}");
    // The log is read from the server's stderr by another thread: wait for the last
    // request's own line (the only GET of the list that succeeded), after which whatever the
    // requests before it logged is in it too, a token included if one were written.
    assert!(
        server.logged("method=GET path=/api/tokens status=200").await,
        "{}",
        server.log()
    );
    let log = server.log();
    assert!(log.contains("API token refused"), "refusals are logged");
    assert!(!log.contains(&manage), "the token itself never reaches the log");
}

#[tokio::test]
async fn a_revoked_token_is_refused_at_once() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    add_medication(&server, &eva, "Aspirin", None).await;
    let (id, read) = make_token(&server, &eva, json!({ "name": "Dashboard", "scope": "read" })).await;
    let (status, _) = get(&server, "/api/medications", &read).await;
    assert_eq!(status, StatusCode::OK);

    let (status, revoked) = call(
        &server,
        Method::DELETE,
        &format!("/api/tokens/{id}"),
        Some(&eva),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{revoked}");
    let (status, refused) = get(&server, "/api/medications", &read).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(code_of(&refused), "api_token_invalid");
    let (_, tokens) = get(&server, "/api/tokens", &eva).await;
    assert_eq!(tokens["data"], json!([]));
    assert!(
        server.logged("API token refused: unknown or revoked").await,
        "{}",
        server.log()
    );
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    let (_, read) = make_token(
        &server,
        &eva,
        json!({ "name": "Week", "scope": "read", "expires_in_days": 1 }),
    )
    .await;
    let (status, _) = get(&server, "/api/medications", &read).await;
    assert_eq!(status, StatusCode::OK);
    common::advance(&server, 24 * 3600 + 1).await;
    let (status, refused) = get(&server, "/api/medications", &read).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(code_of(&refused), "api_token_invalid");
    assert!(
        server.logged("API token refused: expired").await,
        "{}",
        server.log()
    );
}

#[tokio::test]
async fn the_list_shows_what_each_token_may_do_and_when_it_was_used() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    let jo = add_person(&server, &eva, "Grandpa Jo").await;
    let (_, record) = make_token(
        &server,
        &eva,
        json!({ "name": "  Jo's button  ", "scope": "record", "person_ids": [jo], "expires_in_days": 30 }),
    )
    .await;
    let (_, tokens) = get(&server, "/api/tokens", &eva).await;
    let token = &tokens["data"][0];
    assert_eq!(token["name"], "Jo's button");
    assert_eq!(token["scope"], "record");
    assert_eq!(token["people"], json!([{ "id": jo, "name": "Grandpa Jo" }]));
    assert_eq!(token["last_used_at"], Value::Null);
    assert!(token["expires_at"].is_string(), "{token}");
    assert!(
        token.get("token").is_none(),
        "the secret is never listed: {token}"
    );
    assert!(!tokens.to_string().contains(&record));

    let (status, _) = get(&server, "/api/medications", &record).await;
    assert_eq!(status, StatusCode::OK);
    let (_, tokens) = get(&server, "/api/tokens", &eva).await;
    assert!(tokens["data"][0]["last_used_at"].is_string(), "{tokens}");
}

#[tokio::test]
async fn bad_tokens_are_refused_with_their_reason() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    let sam = register(&server, "sam@example.test").await;
    let sams_person = add_person(&server, &sam, "Sam's kid").await;
    for (body, status, code) in [
        (
            json!({ "name": "  ", "scope": "read" }),
            StatusCode::BAD_REQUEST,
            "api_token_name_required",
        ),
        (
            json!({ "name": "x".repeat(101), "scope": "read" }),
            StatusCode::BAD_REQUEST,
            "api_token_name_too_long",
        ),
        (
            json!({ "name": "A", "scope": "owner" }),
            StatusCode::BAD_REQUEST,
            "api_token_scope_invalid",
        ),
        (
            json!({ "name": "A", "scope": "read", "expires_in_days": 0 }),
            StatusCode::BAD_REQUEST,
            "api_token_expiry_invalid",
        ),
        (
            json!({ "name": "A", "scope": "read", "expires_in_days": 3651 }),
            StatusCode::BAD_REQUEST,
            "api_token_expiry_invalid",
        ),
        (
            json!({ "name": "A", "scope": "read", "person_ids": [sams_person] }),
            StatusCode::NOT_FOUND,
            "person_not_found",
        ),
        (
            json!({ "scope": "read" }),
            StatusCode::BAD_REQUEST,
            "invalid_request",
        ),
    ] {
        let (got, answer) = post(&server, "/api/tokens", Some(&eva), body.clone()).await;
        assert_eq!(got, status, "{body}: {answer}");
        assert_eq!(code_of(&answer), code, "{body}");
    }
    let (_, tokens) = get(&server, "/api/tokens", &eva).await;
    assert_eq!(tokens["data"], json!([]), "nothing was made");

    for n in 0..50 {
        make_token(&server, &eva, json!({ "name": format!("T{n}"), "scope": "read" })).await;
    }
    let (status, refused) = post(
        &server,
        "/api/tokens",
        Some(&eva),
        json!({ "name": "One more", "scope": "read" }),
    )
    .await;
    assert_eq!(status, StatusCode::CONFLICT, "{refused}");
    assert_eq!(code_of(&refused), "api_token_limit_reached");
    assert_eq!(refused["params"]["max"], 50);

    let (status, refused) = get(&server, "/api/medications", "pbx_not-a-token").await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{refused}");
    assert_eq!(code_of(&refused), "api_token_invalid");
}

#[tokio::test]
async fn another_account_cannot_list_or_revoke_your_tokens() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    let sam = register(&server, "sam@example.test").await;
    let (id, read) = make_token(&server, &eva, json!({ "name": "Dashboard", "scope": "read" })).await;
    let (_, sams) = get(&server, "/api/tokens", &sam).await;
    assert_eq!(sams["data"], json!([]));
    let (status, refused) = call(
        &server,
        Method::DELETE,
        &format!("/api/tokens/{id}"),
        Some(&sam),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{refused}");
    assert_eq!(code_of(&refused), "api_token_not_found");
    let (status, _) = get(&server, "/api/medications", &read).await;
    assert_eq!(status, StatusCode::OK, "Eva's token still works");

    // Nor does Eva's token reach Sam's medications.
    let sams_pill = add_medication(&server, &sam, "Sam's pill", None).await;
    let (status, refused) = get(&server, &format!("/api/medications/{sams_pill}"), &read).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{refused}");
}

#[tokio::test]
async fn the_database_keeps_only_a_hash_of_the_token() {
    let server = server();
    let eva = register(&server, "eva@example.test").await;
    let (_, read) = make_token(&server, &eva, json!({ "name": "Dashboard", "scope": "read" })).await;
    let db = rusqlite::Connection::open(server.data_dir.join("pillbox.sqlite3")).unwrap();
    let stored: String = db
        .query_row("SELECT token_hash FROM api_tokens", [], |row| row.get(0))
        .unwrap();
    assert_ne!(stored, read);
    assert!(!stored.contains(read.trim_start_matches("pbx_")));
    drop(db);
    let file = std::fs::read(server.data_dir.join("pillbox.sqlite3")).unwrap();
    let wal = std::fs::read(server.data_dir.join("pillbox.sqlite3-wal")).unwrap_or_default();
    let secret = read.as_bytes();
    for bytes in [&file, &wal] {
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret),
            "the token is nowhere in the database files"
        );
    }
}
