//! Accounts over HTTP against the real binary: registration, sign-in, sessions, profile,
//! e-mail verification through a real SMTP server, two-factor (e-mail codes, TOTP, backup
//! codes), rate limits, and the admin commands.

mod common;

use std::io::Write;
use std::process::Stdio;

use common::{Server, SmtpSink, call, get_json, now_unix, post, totp_code};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery";

fn open_signups(command: &mut std::process::Command) {
    command.env("PILLBOX_SIGNUPS", "open");
}

async fn register(server: &Server, email: &str) -> String {
    let (status, body) = post(
        server,
        "/api/auth/register",
        None,
        json!({ "email": email, "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"]["token"]
        .as_str()
        .expect("a token when no verification is needed")
        .to_owned()
}

async fn login(server: &Server, email: &str, password: &str, code: Option<&str>) -> (StatusCode, Value) {
    let mut body = json!({ "email": email, "password": password });
    if let Some(code) = code {
        body["code"] = json!(code);
    }
    post(server, "/api/auth/login", None, body).await
}

/// The machine code of an error answer.
fn code_of(body: &Value) -> &str {
    body["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no code in {body}"))
}

fn token_of(body: &Value) -> String {
    body["data"]["token"]
        .as_str()
        .unwrap_or_else(|| panic!("no token in {body}"))
        .to_owned()
}

#[tokio::test]
async fn register_sign_in_and_profile_without_smtp() {
    let server = Server::start();
    let token = register(&server, "Ann@Example.org").await;

    let (status, me) = get_json(&server, "/api/auth/me", Some(&token)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["data"]["email"], "Ann@Example.org");
    assert_eq!(
        me["data"]["emailVerified"], true,
        "without SMTP accounts are verified at once"
    );
    assert!(me["data"]["created_at"].as_str().unwrap().ends_with('Z'));
    assert!(me["data"].get("password_hash").is_none() && me["data"].get("passwordHash").is_none());

    // Addresses compare case-insensitively.
    let (status, body) = login(&server, "ann@example.org", PASSWORD, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["user"]["email"], "Ann@Example.org");

    let (status, body) = call(
        &server,
        Method::PUT,
        "/api/auth/me",
        Some(&token),
        Some(json!({ "firstName": " Ann ", "lastName": "Lee" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (
            body["data"]["firstName"].as_str(),
            body["data"]["lastName"].as_str()
        ),
        (Some("Ann"), Some("Lee"))
    );
    let (status, body) = call(
        &server,
        Method::PUT,
        "/api/auth/me",
        Some(&token),
        Some(json!({ "firstName": "x".repeat(101) })),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("First name must be at most 100 characters")
        )
    );
    let (status, body) = call(
        &server,
        Method::PUT,
        "/api/auth/me",
        Some(&token),
        Some(json!({ "firstName": 7 })),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "wrong types are a 400: {body}");
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&token)).await.1["data"]["firstName"],
        "Ann",
        "nothing changed"
    );
}

#[tokio::test]
async fn registration_is_validated_and_honours_signups() {
    let server = Server::start();
    for (body, message, code) in [
        (
            json!({ "email": "a@example.org", "password": "12345" }),
            "Password must be at least 6 characters long",
            "password_too_short",
        ),
        (
            json!({ "email": "not-an-address", "password": PASSWORD }),
            "Please enter a valid email address",
            "email_invalid",
        ),
        (
            json!({ "email": "", "password": PASSWORD }),
            "Email is required",
            "email_required",
        ),
    ] {
        let (status, answer) = post(&server, "/api/auth/register", None, body).await;
        assert_eq!(
            (status, answer["message"].as_str(), code_of(&answer)),
            (StatusCode::BAD_REQUEST, Some(message), code)
        );
    }
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": 5, "password": [] }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "invalid_request")
    );

    // first-user (the default): the first account may register, then sign-ups close.
    register(&server, "first@example.org").await;
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "second@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str(), code_of(&body)),
        (
            StatusCode::FORBIDDEN,
            Some("Registration is closed"),
            "registration_closed"
        )
    );

    let open = Server::start_with(open_signups);
    register(&open, "one@example.org").await;
    register(&open, "two@example.org").await;
    let (status, body) = post(
        &open,
        "/api/auth/register",
        None,
        json!({ "email": "ONE@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str(), code_of(&body)),
        (
            StatusCode::CONFLICT,
            Some("An account with this email already exists"),
            "email_taken"
        )
    );

    let closed = Server::start_with(|c| {
        c.env("PILLBOX_SIGNUPS", "closed");
    });
    let (status, body) = post(
        &closed,
        "/api/auth/register",
        None,
        json!({ "email": "x@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::FORBIDDEN, "registration_closed")
    );
}

#[tokio::test]
async fn registrations_per_address_are_limited() {
    let server = Server::start_with(|c| {
        c.env("PILLBOX_SIGNUPS", "open")
            .env("PILLBOX_REGISTRATION_LIMIT", "2");
    });
    register(&server, "one@example.org").await;
    register(&server, "two@example.org").await;
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "three@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited")
    );
}

#[tokio::test]
async fn wrong_credentials_and_bad_tokens_are_refused() {
    let server = Server::start();
    register(&server, "ann@example.org").await;
    for (email, password) in [
        ("ann@example.org", "wrong password"),
        ("nobody@example.org", PASSWORD),
    ] {
        let (status, body) = login(&server, email, password, None).await;
        assert_eq!(
            (status, body["message"].as_str(), code_of(&body)),
            (
                StatusCode::UNAUTHORIZED,
                Some("Invalid email or password"),
                "invalid_credentials"
            )
        );
    }
    let (status, body) = post(
        &server,
        "/api/auth/login",
        None,
        json!({ "email": "ann@example.org" }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Email and password are required"))
    );

    for (token, expected) in [
        (None, "authentication_required"),
        (Some("garbage"), "session_expired"),
        (Some("a.b.c"), "session_expired"),
    ] {
        let (status, body) = get_json(&server, "/api/auth/me", token).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{token:?}");
        assert_eq!(body["success"], false);
        assert_eq!(code_of(&body), expected, "{token:?}");
    }
    let (status, body) = post(&server, "/api/auth/refresh", None, json!({ "token": "garbage" })).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "session_expired")
    );
}

#[tokio::test]
async fn sessions_die_with_password_changes_and_account_deletion() {
    let server = Server::start_with(open_signups);
    let ann = register(&server, "ann@example.org").await;
    let bob = register(&server, "bob@example.org").await;

    // Each token sees only its own account.
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&bob)).await.1["data"]["email"],
        "bob@example.org"
    );

    let (status, refreshed) = post(&server, "/api/auth/refresh", None, json!({ "token": ann })).await;
    assert_eq!(status, StatusCode::OK);
    let refreshed = token_of(&refreshed);
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&refreshed)).await.0,
        StatusCode::OK
    );

    let (status, body) = post(
        &server,
        "/api/auth/change-password",
        Some(&ann),
        json!({ "currentPassword": "not it", "newPassword": "a new password" }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Current password is incorrect"))
    );
    let (status, body) = post(
        &server,
        "/api/auth/change-password",
        Some(&ann),
        json!({ "currentPassword": PASSWORD, "newPassword": "a new password" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let after_change = token_of(&body);
    for old in [&ann, &refreshed] {
        assert_eq!(
            get_json(&server, "/api/auth/me", Some(old)).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&after_change)).await.0,
        StatusCode::OK
    );
    assert_eq!(
        login(&server, "ann@example.org", PASSWORD, None).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        login(&server, "ann@example.org", "a new password", None).await.0,
        StatusCode::OK
    );

    // Deleting needs the password too: a token alone cannot wipe the record.
    let (status, body) = call(
        &server,
        Method::DELETE,
        "/api/auth/me",
        Some(&after_change),
        Some(json!({})),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Please enter your password"))
    );
    let wrong = json!({ "password": PASSWORD });
    let (status, body) = call(
        &server,
        Method::DELETE,
        "/api/auth/me",
        Some(&after_change),
        Some(wrong),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Password is incorrect"))
    );
    let right = json!({ "password": "a new password" });
    let (status, _) = call(
        &server,
        Method::DELETE,
        "/api/auth/me",
        Some(&after_change),
        Some(right),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&after_change)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        login(&server, "ann@example.org", "a new password", None).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&bob)).await.0,
        StatusCode::OK,
        "other accounts stay"
    );
}

async fn me_status(server: &Server, token: &str) -> StatusCode {
    get_json(server, "/api/auth/me", Some(token)).await.0
}

#[tokio::test]
async fn signing_out_ends_this_session_on_the_server_and_no_other() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let server = Server::start_in(&data_dir, open_signups).unwrap();
    let phone = register(&server, "ann@example.org").await;
    let laptop = token_of(&login(&server, "ann@example.org", PASSWORD, None).await.1);
    let bob = register(&server, "bob@example.org").await;

    let (status, body) = post(&server, "/api/auth/logout", Some(&phone), json!({})).await;
    assert_eq!(
        (status, body["success"].as_bool()),
        (StatusCode::OK, Some(true)),
        "{body}"
    );
    let (status, body) = get_json(&server, "/api/auth/me", Some(&phone)).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "session_expired"),
        "the signed-out token is refused"
    );
    let (status, _) = post(&server, "/api/auth/refresh", None, json!({ "token": phone })).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "nor can it be exchanged for a fresh one"
    );
    let (status, _) = post(&server, "/api/auth/logout", Some(&phone), json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        me_status(&server, &laptop).await,
        StatusCode::OK,
        "the laptop stays signed in"
    );
    assert_eq!(me_status(&server, &bob).await, StatusCode::OK);

    // Kept on the server: a restart does not bring the token back.
    drop(server);
    let server = Server::start_in(&data_dir, open_signups).unwrap();
    assert_eq!(me_status(&server, &phone).await, StatusCode::UNAUTHORIZED);
    assert_eq!(me_status(&server, &laptop).await, StatusCode::OK);
    let again = token_of(&login(&server, "ann@example.org", PASSWORD, None).await.1);
    assert_eq!(
        me_status(&server, &again).await,
        StatusCode::OK,
        "signing in again works"
    );
}

#[tokio::test]
async fn signing_out_of_all_devices_ends_every_session_of_the_account() {
    let server = Server::start_with(open_signups);
    let phone = register(&server, "ann@example.org").await;
    let laptop = token_of(&login(&server, "ann@example.org", PASSWORD, None).await.1);
    let (status, refreshed) = post(&server, "/api/auth/refresh", None, json!({ "token": phone })).await;
    assert_eq!(status, StatusCode::OK);
    let refreshed = token_of(&refreshed);
    let bob = register(&server, "bob@example.org").await;

    let (status, body) = post(&server, "/api/auth/logout-all", Some(&laptop), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["message"], "Signed out of all devices");
    assert!(
        body.get("data").is_none(),
        "no new token: this device signs in again too"
    );
    for token in [&phone, &laptop, &refreshed] {
        let (status, body) = get_json(&server, "/api/auth/me", Some(token)).await;
        assert_eq!(
            (status, code_of(&body)),
            (StatusCode::UNAUTHORIZED, "session_expired")
        );
    }
    assert_eq!(
        me_status(&server, &bob).await,
        StatusCode::OK,
        "other accounts stay"
    );
    let again = token_of(&login(&server, "ann@example.org", PASSWORD, None).await.1);
    assert_eq!(me_status(&server, &again).await, StatusCode::OK);
    let (status, body) = post(&server, "/api/auth/logout-all", None, json!({})).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "authentication_required")
    );
}

#[tokio::test]
async fn a_deleted_accounts_token_never_opens_a_new_account() {
    let server = Server::start_with(open_signups);
    register(&server, "keeper@example.org").await;
    let old = register(&server, "leaver@example.org").await;
    let (status, _) = call(
        &server,
        Method::DELETE,
        "/api/auth/me",
        Some(&old),
        Some(json!({ "password": PASSWORD })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let fresh = register(&server, "newcomer@example.org").await;
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&fresh)).await.0,
        StatusCode::OK
    );
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&old)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        post(&server, "/api/auth/refresh", None, json!({ "token": old }))
            .await
            .0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn a_stolen_session_cannot_take_over_two_factor() {
    let server = Server::start();
    let token = register(&server, "ann@example.org").await;
    for path in [
        "/api/auth/2fa/setup-totp",
        "/api/auth/2fa/setup-email",
        "/api/auth/2fa/backup-codes",
    ] {
        let (status, body) = post(&server, path, Some(&token), json!({})).await;
        assert_eq!(
            (status, body["message"].as_str()),
            (StatusCode::BAD_REQUEST, Some("Please enter your password")),
            "{path}"
        );
        let (status, body) = post(&server, path, Some(&token), json!({ "password": "guess" })).await;
        assert_eq!(
            (status, body["message"].as_str(), code_of(&body)),
            (
                StatusCode::BAD_REQUEST,
                Some("Password is incorrect"),
                "password_incorrect"
            ),
            "{path}"
        );
    }
    let (status, body) = post(
        &server,
        "/api/auth/2fa/setup",
        Some(&token),
        json!({ "method": "totp", "password": "guess" }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Password is incorrect"))
    );
    assert_eq!(
        get_json(&server, "/api/auth/2fa/status", Some(&token)).await.1["data"]["methods"],
        json!([])
    );
}

/// A server that believes `X-Forwarded-For` from the test (as from a reverse proxy), so one
/// test can speak from many client addresses.
fn behind_a_proxy(command: &mut std::process::Command) {
    command
        .env("PILLBOX_TRUSTED_PROXIES", "127.0.0.1")
        .env("PILLBOX_SIGNUPS", "open");
}

/// A POST from the client address `from`; the raw answer, for its headers.
async fn post_from(server: &Server, from: &str, path: &str, body: Value) -> reqwest::Response {
    common::client()
        .post(server.url(path))
        .header("X-Forwarded-For", from)
        .json(&body)
        .send()
        .await
        .unwrap()
}

async fn login_from(server: &Server, from: &str, email: &str, password: &str) -> reqwest::Response {
    post_from(
        server,
        from,
        "/api/auth/login",
        json!({ "email": email, "password": password }),
    )
    .await
}

async fn check_requirements_from(server: &Server, from: &str, email: &str, password: &str) -> StatusCode {
    post_from(
        server,
        from,
        "/api/auth/2fa/check-login-requirements",
        json!({ "email": email, "password": password }),
    )
    .await
    .status()
}

async fn verify_from(server: &Server, from: &str, token: &str) -> reqwest::Response {
    common::client()
        .get(server.url(&format!("/api/auth/verify-email/{token}")))
        .header("X-Forwarded-For", from)
        .send()
        .await
        .unwrap()
}

async fn resend_from(server: &Server, from: &str, email: &str) -> reqwest::Response {
    post_from(
        server,
        from,
        "/api/auth/resend-verification",
        json!({ "email": email }),
    )
    .await
}

/// Asserts a 429 `rate_limited` answer and returns its Retry-After in seconds.
async fn assert_limited(response: reqwest::Response) -> u64 {
    assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let body = response.json::<Value>().await.unwrap();
    assert_eq!(body["success"], false);
    assert_eq!(
        (body["message"].as_str(), code_of(&body)),
        (Some("Too many attempts. Please try again later."), "rate_limited")
    );
    retry
}

#[tokio::test]
async fn wrong_passwords_from_one_address_do_not_lock_the_owner_out_from_another() {
    let server = Server::start_with(behind_a_proxy);
    register(&server, "ann@example.org").await;
    let attacker = "198.51.100.7";
    let owner = "203.0.113.20";
    for i in 0..5 {
        let response = login_from(&server, attacker, "ann@example.org", &format!("guess {i}")).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    let retry = assert_limited(login_from(&server, attacker, "ann@example.org", PASSWORD).await).await;
    assert!((1..=30).contains(&retry), "the first wait is 30 s: {retry}");

    let response = login_from(&server, owner, "ann@example.org", PASSWORD).await;
    assert_eq!(response.status(), StatusCode::OK, "the owner signs in from home");
    assert_limited(login_from(&server, attacker, "ann@example.org", "guess 6").await).await;
    assert_eq!(
        login_from(&server, owner, "ann@example.org", "a typo")
            .await
            .status(),
        StatusCode::UNAUTHORIZED,
        "the owner's own typo is just a wrong password"
    );
}

#[tokio::test]
async fn the_account_ceiling_bounds_a_guesser_with_many_addresses() {
    let server = Server::start_with(behind_a_proxy);
    register(&server, "ann@example.org").await;
    register(&server, "bob@example.org").await;
    // 100 wrong passwords from 20 addresses, each within its own free failures.
    for i in 0..100 {
        let from = format!("198.51.100.{}", i / 5);
        let response = login_from(&server, &from, "ann@example.org", &format!("guess {i}")).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "try {i}");
    }
    let fresh = "203.0.113.20";
    let retry = assert_limited(login_from(&server, fresh, "ann@example.org", PASSWORD).await).await;
    assert!((1..=3600).contains(&retry), "{retry}");
    assert_eq!(
        login_from(&server, fresh, "bob@example.org", PASSWORD)
            .await
            .status(),
        StatusCode::OK,
        "other accounts are not held up"
    );
}

#[tokio::test]
async fn the_requirement_check_shares_the_sign_in_budget() {
    let server = Server::start_with(behind_a_proxy);
    register(&server, "ann@example.org").await;

    // The web app checks the requirements, then signs in with the same password: one typo,
    // two calls, one failure. Four typos stay within the free five.
    let laptop = "203.0.113.20";
    for i in 0..4 {
        let typo = format!("typo {i}");
        assert_eq!(
            check_requirements_from(&server, laptop, "ann@example.org", &typo).await,
            StatusCode::OK
        );
        let response = login_from(&server, laptop, "ann@example.org", &typo).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    assert_eq!(
        login_from(&server, laptop, "ann@example.org", PASSWORD)
            .await
            .status(),
        StatusCode::OK,
        "four typos do not hold the owner up"
    );

    // Guessing through the check alone spends the same budget as signing in.
    let guesser = "198.51.100.7";
    for i in 0..5 {
        assert_eq!(
            check_requirements_from(&server, guesser, "ann@example.org", &format!("guess {i}")).await,
            StatusCode::OK,
            "a wrong password looks like an account without two-factor"
        );
    }
    assert_limited(login_from(&server, guesser, "ann@example.org", PASSWORD).await).await;
    assert_limited(
        post_from(
            &server,
            guesser,
            "/api/auth/2fa/check-login-requirements",
            json!({ "email": "ann@example.org", "password": "guess 5" }),
        )
        .await,
    )
    .await;
    assert_eq!(
        login_from(&server, laptop, "ann@example.org", PASSWORD)
            .await
            .status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn verification_links_and_resends_are_rate_limited() {
    let smtp = SmtpSink::start();
    let server = Server::start_with(|c| {
        smtp.configure(c);
        behind_a_proxy(c);
    });
    let (status, _) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "ann@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);

    // Guessing verification links: ten unknown links per address and hour.
    let guesser = "198.51.100.7";
    for i in 0..10 {
        let response = verify_from(&server, guesser, &format!("guess-{i}")).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    }
    assert_limited(verify_from(&server, guesser, "guess-10").await).await;
    assert_eq!(
        verify_from(&server, "203.0.113.20", "guess-11").await.status(),
        StatusCode::BAD_REQUEST,
        "another address is not held up"
    );

    // New links: three per account and hour, from any address; ten per address.
    for _ in 0..3 {
        let response = resend_from(&server, "203.0.113.20", "ann@example.org").await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    assert_limited(resend_from(&server, "203.0.113.21", "ann@example.org").await).await;
    for i in 0..10 {
        let response = resend_from(&server, guesser, &format!("nobody{i}@example.org")).await;
        assert_eq!(response.status(), StatusCode::OK);
    }
    assert_limited(resend_from(&server, guesser, "nobody10@example.org").await).await;
    assert_eq!(smtp.wait_for("ann@example.org", 4).to, "ann@example.org");
}

#[tokio::test]
async fn oversized_and_malformed_bodies_are_client_errors() {
    let server = Server::start();
    let big = json!({ "email": "a@example.org", "password": "x".repeat(2 * 1024 * 1024) });
    let (status, body) = post(&server, "/api/auth/register", None, big).await;
    assert_eq!(
        (status, body["success"].as_bool(), code_of(&body)),
        (StatusCode::PAYLOAD_TOO_LARGE, Some(false), "body_too_large")
    );
    let response = common::client()
        .post(server.url("/api/auth/login"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(
        code_of(&response.json::<Value>().await.unwrap()),
        "invalid_request"
    );
    let long = json!({ "email": "a@example.org", "password": "x".repeat(5000) });
    assert_eq!(
        post(&server, "/api/auth/register", None, long).await.0,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn email_verification_through_a_real_smtp_server() {
    let smtp = SmtpSink::start();
    let server = Server::start_with(|c| {
        smtp.configure(c);
        c.env("PILLBOX_PUBLIC_URL", "https://pillbox.example.test");
    });
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "ann@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["data"]["requiresEmailVerification"], true);
    assert_eq!(body["data"]["verificationEmailSent"], true);
    assert!(
        body["data"].get("token").is_none(),
        "not signed in before verifying"
    );

    let (status, body) = login(&server, "ann@example.org", PASSWORD, None).await;
    assert_eq!(
        (
            status,
            body["requiresEmailVerification"].as_bool(),
            code_of(&body)
        ),
        (StatusCode::FORBIDDEN, Some(true), "email_not_verified")
    );

    let mail = smtp.wait_for("ann@example.org", 1);
    assert!(mail.raw.contains("text/html"), "plain text and HTML parts");
    let link_start = mail
        .text
        .find("https://pillbox.example.test/verify-email/")
        .expect("link built from public_url");
    let link: String = mail.text[link_start..]
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let token = link.rsplit('/').next().unwrap();

    // A new link replaces the old one; the answer is the same for unknown addresses.
    let (status, known) = post(
        &server,
        "/api/auth/resend-verification",
        None,
        json!({ "email": "ann@example.org" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (_, unknown) = post(
        &server,
        "/api/auth/resend-verification",
        None,
        json!({ "email": "who@example.org" }),
    )
    .await;
    assert_eq!(known, unknown);
    let second = smtp.wait_for("ann@example.org", 2);
    let new_token = verification_token(&second);
    assert_ne!(new_token, token);
    let (status, body) = get_json(&server, &format!("/api/auth/verify-email/{token}"), None).await;
    assert_eq!(
        (status, body["emailVerified"].as_bool(), code_of(&body)),
        (StatusCode::BAD_REQUEST, Some(false), "invalid_token")
    );
    assert_eq!(body["message"], "Invalid or expired verification link");

    let (status, body) = get_json(&server, &format!("/api/auth/verify-email/{new_token}"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (body["success"].as_bool(), body["emailVerified"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(
        get_json(&server, &format!("/api/auth/verify-email/{new_token}"), None)
            .await
            .0,
        StatusCode::BAD_REQUEST,
        "used once"
    );
    assert_eq!(
        login(&server, "ann@example.org", PASSWORD, None).await.0,
        StatusCode::OK
    );
}

/// Registers and verifies an account on an SMTP-enabled server; returns its token.
async fn verified_account(server: &Server, smtp: &SmtpSink, email: &str) -> String {
    let (status, _) = post(
        server,
        "/api/auth/register",
        None,
        json!({ "email": email, "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED);
    let mail = smtp.wait_for(email, 1);
    let token = verification_token(&mail);
    assert_eq!(
        get_json(server, &format!("/api/auth/verify-email/{token}"), None)
            .await
            .0,
        StatusCode::OK
    );
    token_of(&login(server, email, PASSWORD, None).await.1)
}

/// The token of the verification link in an e-mail's text.
fn verification_token(mail: &common::Mail) -> String {
    mail.text
        .split("/verify-email/")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

fn code_from(mail: &common::Mail) -> String {
    mail.text
        .split_whitespace()
        .find(|w| w.len() == 6 && w.bytes().all(|b| b.is_ascii_digit()))
        .expect("a 6-digit code")
        .to_owned()
}

#[tokio::test]
async fn account_emails_are_written_in_the_persons_language() {
    let smtp = SmtpSink::start();
    let server = Server::start_with(|c| {
        smtp.configure(c);
        c.env("PILLBOX_PUBLIC_URL", "https://pillbox.example.test");
    });
    // Lena signs up from a German browser: the verification e-mail is German.
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "lena@example.org", "password": PASSWORD, "language": "de" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let mail = smtp.wait_for("lena@example.org", 1);
    // "Bestätigen Sie Ihre E-Mail-Adresse für Pillbox", its non-ASCII words encoded (RFC 2047).
    assert!(
        mail.subject.contains("Sie Ihre E-Mail-Adresse"),
        "{}",
        mail.subject
    );
    assert!(mail.text.starts_with("Willkommen bei Pillbox."), "{}", mail.text);
    assert!(
        mail.raw.contains("lang=3D\"de\"") || mail.raw.contains("lang=\"de\""),
        "the HTML part says its language"
    );
    let token = verification_token(&mail);
    assert_eq!(
        get_json(&server, &format!("/api/auth/verify-email/{token}"), None)
            .await
            .0,
        StatusCode::OK
    );
    let session = token_of(&login(&server, "lena@example.org", PASSWORD, None).await.1);
    let (status, _) = post(
        &server,
        "/api/auth/2fa/setup-email",
        Some(&session),
        json!({ "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    // Her sign-in code, too.
    let generate = json!({ "email": "lena@example.org", "password": PASSWORD, "method": "email" });
    assert_eq!(
        post(&server, "/api/auth/2fa/generate-otp", None, generate)
            .await
            .0,
        StatusCode::OK
    );
    let mail = smtp.wait_for("lena@example.org", 2);
    assert_eq!(mail.subject, "Ihr Pillbox-Anmeldecode");
    assert!(
        mail.text.starts_with("Ihr Pillbox-Anmeldecode lautet"),
        "{}",
        mail.text
    );
    assert!(mail.text.contains("Er ist 10 Minuten gültig."), "{}", mail.text);
    assert_eq!(code_from(&mail).len(), 6);
}

#[tokio::test]
async fn email_two_factor_codes() {
    let smtp = SmtpSink::start();
    let server = Server::start_with(|c| {
        smtp.configure(c);
        behind_a_proxy(c);
    });
    let token = verified_account(&server, &smtp, "ann@example.org").await;
    verified_account(&server, &smtp, "plain@example.org").await;

    let (status, body) = post(
        &server,
        "/api/auth/2fa/setup-email",
        Some(&token),
        json!({ "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let codes: Vec<String> = serde_json::from_value(body["data"]["backupCodes"].clone()).unwrap();
    assert_eq!(codes.len(), 10);
    assert!(codes.iter().all(|c| c.len() == 8));
    let fresh = token_of(&body);
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&token)).await.0,
        StatusCode::UNAUTHORIZED,
        "2FA change ends old sessions"
    );
    let (_, status_body) = get_json(&server, "/api/auth/2fa/status", Some(&fresh)).await;
    assert_eq!(status_body["data"]["methods"], json!(["email"]));
    assert_eq!(status_body["data"]["preference"], "email");

    // The requirement check reveals nothing without the right password.
    let check = |email: &str, password: Option<&str>| {
        let mut body = json!({ "email": email });
        if let Some(p) = password {
            body["password"] = json!(p);
        }
        body
    };
    let (_, neutral_unknown) = post(
        &server,
        "/api/auth/2fa/check-login-requirements",
        None,
        check("who@example.org", Some(PASSWORD)),
    )
    .await;
    let (_, neutral_plain) = post(
        &server,
        "/api/auth/2fa/check-login-requirements",
        None,
        check("plain@example.org", None),
    )
    .await;
    let (_, neutral_no_password) = post(
        &server,
        "/api/auth/2fa/check-login-requirements",
        None,
        check("ann@example.org", None),
    )
    .await;
    let (_, neutral_wrong) = post(
        &server,
        "/api/auth/2fa/check-login-requirements",
        None,
        check("ann@example.org", Some("nope")),
    )
    .await;
    assert_eq!(neutral_unknown["requires2FA"], false);
    for other in [&neutral_plain, &neutral_no_password, &neutral_wrong] {
        assert_eq!(other, &neutral_unknown);
    }
    let (_, required) = post(
        &server,
        "/api/auth/2fa/check-login-requirements",
        None,
        check("ann@example.org", Some(PASSWORD)),
    )
    .await;
    assert_eq!(
        (required["requires2FA"].as_bool(), &required["availableMethods"]),
        (Some(true), &json!(["email"]))
    );

    // The password alone is not enough; a code alone is not enough either.
    let (status, body) = login(&server, "ann@example.org", PASSWORD, None).await;
    assert_eq!(
        (status, body["requires2FA"].as_bool(), code_of(&body)),
        (StatusCode::UNAUTHORIZED, Some(true), "two_factor_required")
    );
    assert_eq!(
        (&body["availableMethods"], &body["preferredMethod"]),
        (&json!(["email"]), &json!("email"))
    );
    let generate = json!({ "email": "ann@example.org", "password": PASSWORD, "method": "email" });
    assert_eq!(
        post(&server, "/api/auth/2fa/generate-otp", None, generate.clone())
            .await
            .0,
        StatusCode::OK
    );
    let code = code_from(&smtp.wait_for("ann@example.org", 2));
    let (status, _) = post(
        &server,
        "/api/auth/login",
        None,
        json!({ "email": "ann@example.org", "code": code }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        login(&server, "ann@example.org", "wrong", Some(&code)).await.0,
        StatusCode::UNAUTHORIZED
    );
    let wrong = if code == "000000" { "111111" } else { "000000" };
    let (status, body) = login(&server, "ann@example.org", PASSWORD, Some(wrong)).await;
    assert_eq!(
        (status, body["message"].as_str(), code_of(&body)),
        (
            StatusCode::UNAUTHORIZED,
            Some("Invalid verification code"),
            "invalid_code"
        )
    );
    let (status, body) = post(
        &server,
        "/api/auth/2fa/verify-otp",
        None,
        json!({ "email": "ann@example.org", "password": PASSWORD, "otp": code }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["data"]["token"].is_string() && body["data"]["user"].is_object());
    assert_eq!(
        login(&server, "ann@example.org", PASSWORD, Some(&code)).await.0,
        StatusCode::UNAUTHORIZED,
        "a code works once"
    );

    // Five wrong tries use a code up, from whichever addresses they come.
    assert_eq!(
        post(&server, "/api/auth/2fa/generate-otp", None, generate.clone())
            .await
            .0,
        StatusCode::OK
    );
    let code = code_from(&smtp.wait_for("ann@example.org", 3));
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for i in 0..5 {
        let body = json!({ "email": "ann@example.org", "password": PASSWORD, "code": wrong });
        let response = post_from(&server, &format!("198.51.100.{i}"), "/api/auth/login", body).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    }
    assert_eq!(
        login(&server, "ann@example.org", PASSWORD, Some(&code)).await.0,
        StatusCode::UNAUTHORIZED
    );

    // An expired code is refused: age it in the real database file.
    assert_eq!(
        post(&server, "/api/auth/2fa/generate-otp", None, generate.clone())
            .await
            .0,
        StatusCode::OK
    );
    let code = code_from(&smtp.wait_for("ann@example.org", 4));
    let db = rusqlite::Connection::open(server.data_dir.join("pillbox.sqlite3")).unwrap();
    db.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    db.execute(
        "UPDATE email_codes SET expires_at = '2000-01-01T00:00:00.000Z'",
        [],
    )
    .unwrap();
    assert_eq!(
        login(&server, "ann@example.org", PASSWORD, Some(&code)).await.0,
        StatusCode::UNAUTHORIZED
    );

    // A backup code signs in once.
    let (status, _) = login(
        &server,
        "ann@example.org",
        PASSWORD,
        Some(&codes[0].to_lowercase()),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        login(&server, "ann@example.org", PASSWORD, Some(&codes[0]))
            .await
            .0,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn authenticator_app_two_factor() {
    // TOTP codes come from the test's own RFC 6238 implementation; check it first.
    assert_eq!(totp_code("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ", 59), "287082");

    let server = Server::start();
    let token = register(&server, "ann@example.org").await;
    let (status, body) = post(
        &server,
        "/api/auth/2fa/setup-totp",
        Some(&token),
        json!({ "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let secret = body["data"]["secret"].as_str().unwrap().to_owned();
    assert!(
        body["data"]["qrCodeUrl"]
            .as_str()
            .unwrap()
            .starts_with("data:image/svg+xml;base64,"),
        "drawn by the server"
    );

    let (status, body) = post(
        &server,
        "/api/auth/2fa/complete-totp-setup",
        Some(&token),
        json!({ "otp": "12345x" }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str(), code_of(&body)),
        (
            StatusCode::BAD_REQUEST,
            Some("Invalid verification code"),
            "invalid_code"
        )
    );
    let (status, body) = post(
        &server,
        "/api/auth/2fa/complete-totp-setup",
        Some(&token),
        json!({ "otp": totp_code(&secret, now_unix()) }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let backup: Vec<String> = serde_json::from_value(body["data"]["backupCodes"].clone()).unwrap();
    let token = token_of(&body);

    // The setup code was used; the next step's code signs in, once.
    let next = totp_code(&secret, now_unix() + 30);
    let (status, body) = login(&server, "ann@example.org", PASSWORD, None).await;
    assert_eq!(
        (status, &body["availableMethods"]),
        (StatusCode::UNAUTHORIZED, &json!(["totp"]))
    );
    let (status, body) = login(&server, "ann@example.org", PASSWORD, Some(&next)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = login(&server, "ann@example.org", PASSWORD, Some(&next)).await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("Invalid verification code")),
        "no replay"
    );
    // Nothing to send for the authenticator method; e-mail codes are not on.
    let (status, body) = post(
        &server,
        "/api/auth/2fa/generate-otp",
        None,
        json!({ "email": "ann@example.org", "password": PASSWORD, "method": "email" }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str(), code_of(&body)),
        (
            StatusCode::BAD_REQUEST,
            Some("This sign-in method is not enabled"),
            "method_not_enabled"
        )
    );
    let (status, _) = post(
        &server,
        "/api/auth/2fa/generate-otp",
        None,
        json!({ "email": "ann@example.org", "password": PASSWORD, "method": "totp" }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    // Backup codes: regenerate (old ones stop working), then disable with one.
    let (status, body) = post(
        &server,
        "/api/auth/2fa/backup-codes",
        Some(&token),
        json!({ "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let regenerated: Vec<String> = serde_json::from_value(body["data"]["backupCodes"].clone()).unwrap();
    assert_ne!(regenerated, backup);
    assert_eq!(
        login(&server, "ann@example.org", PASSWORD, Some(&backup[1]))
            .await
            .0,
        StatusCode::UNAUTHORIZED
    );

    let disable = |code: &str| json!({ "method": "totp", "backupCode": code });
    let (status, body) = post(
        &server,
        "/api/auth/2fa/disable-method",
        Some(&token),
        disable("  "),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str()),
        (StatusCode::BAD_REQUEST, Some("Please enter a backup code"))
    );
    let (status, body) = post(
        &server,
        "/api/auth/2fa/disable-method",
        Some(&token),
        disable("ZZZZZZZZ"),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str(), code_of(&body)),
        (
            StatusCode::BAD_REQUEST,
            Some("Invalid backup code"),
            "invalid_backup_code"
        )
    );
    let (status, body) = post(
        &server,
        "/api/auth/2fa/set-preference",
        Some(&token),
        json!({ "preference": "email" }),
    )
    .await;
    assert_eq!(
        (status, body["message"].as_str(), code_of(&body)),
        (
            StatusCode::BAD_REQUEST,
            Some("That method is not enabled"),
            "method_not_enabled"
        )
    );
    let (status, body) = post(
        &server,
        "/api/auth/2fa/disable-method",
        Some(&token),
        disable(&regenerated[0]),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["methods"], json!([]));
    let token = token_of(&body);
    assert_eq!(
        get_json(&server, "/api/auth/2fa/status", Some(&token)).await.1["data"]["methods"],
        json!([])
    );
    assert_eq!(
        login(&server, "ann@example.org", PASSWORD, None).await.0,
        StatusCode::OK,
        "back to password only"
    );
}

fn run_with_stdin(data_dir: &std::path::Path, args: &[&str], input: &str) -> std::process::Output {
    let mut child = common::pillbox(data_dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that fails before it reads (no database, say) may close its stdin before
    // this write: a broken pipe here is that, not a test failure.
    if let Err(e) = child.stdin.take().unwrap().write_all(input.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
    }
    child.wait_with_output().unwrap()
}

#[tokio::test]
async fn admin_creates_users_and_resets_passwords() {
    let temp = tempfile::tempdir().unwrap();
    let data_dir = temp.path().join("data");
    let created = run_with_stdin(
        &data_dir,
        &["create-user", "--email", "admin@example.org", "--password-stdin"],
        "admin secret\n",
    );
    assert!(
        created.status.success(),
        "{}",
        String::from_utf8_lossy(&created.stderr)
    );
    let again = run_with_stdin(
        &data_dir,
        &["create-user", "--email", "ADMIN@example.org", "--password-stdin"],
        "admin secret\n",
    );
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    let short = run_with_stdin(
        &data_dir,
        &["create-user", "--email", "b@example.org", "--password-stdin"],
        "12345\n",
    );
    assert!(String::from_utf8_lossy(&short.stderr).contains("at least 6 characters"));
    // Without --password-stdin and without a terminal it refuses instead of hanging.
    let no_tty = common::run(&data_dir, &["create-user", "--email", "c@example.org"]);
    assert!(String::from_utf8_lossy(&no_tty.stderr).contains("--password-stdin"));

    let server = Server::start_in(&data_dir, |c| {
        // Sign-ups are closed once an account exists: only the admin can add more.
        c.env("PILLBOX_SMTP_HOST", "127.0.0.1")
            .env("PILLBOX_SMTP_FROM", "p@example.org");
    })
    .unwrap();
    let (status, body) = login(&server, "admin@example.org", "admin secret", None).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "created accounts are verified even with SMTP on: {body}"
    );
    let token = token_of(&body);
    let (status, _) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "new@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let reset = run_with_stdin(
        &data_dir,
        &[
            "reset-password",
            "--email",
            "admin@example.org",
            "--password-stdin",
        ],
        "brand new secret\n",
    );
    assert!(
        reset.status.success(),
        "{}",
        String::from_utf8_lossy(&reset.stderr)
    );
    assert_eq!(
        get_json(&server, "/api/auth/me", Some(&token)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        login(&server, "admin@example.org", "brand new secret", None)
            .await
            .0,
        StatusCode::OK
    );

    let missing = run_with_stdin(
        &temp.path().join("typo"),
        &["reset-password", "--email", "a@b.c", "--password-stdin"],
        "x\n",
    );
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no database at"));
    assert!(
        !temp.path().join("typo").exists(),
        "no empty database from a mistyped path"
    );
}

/// A person who registers from a page in German keeps German: the account's language is the
/// one the page was shown in, so the app, its reminders and e-mails speak it from the start.
#[tokio::test]
async fn a_new_account_keeps_the_language_it_registered_in() {
    let server = Server::start_with(open_signups);
    let (status, refused) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "lena@example.org", "password": PASSWORD, "language": "xx" }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{refused}");
    assert_eq!(code_of(&refused), "validation_failed");
    assert_eq!(refused["message"], "Language must be one of en, es, fr, de");

    // Nothing was written: the same address registers now.
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "lena@example.org", "password": PASSWORD, "language": "de" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, settings) = get_json(&server, "/api/settings", Some(&token_of(&body))).await;
    assert_eq!(status, StatusCode::OK, "{settings}");
    assert_eq!(settings["data"]["language"], "de");

    let english = register(&server, "sam@example.org").await;
    let (_, settings) = get_json(&server, "/api/settings", Some(&english)).await;
    assert_eq!(settings["data"]["language"], "en");
}
