//! Passkeys over HTTP against the real binary (issue 27), answered by a software
//! authenticator that signs for real (tests/common/authenticator.rs): add one, sign in with it
//! without an e-mail address, use it as the second factor after the password; answers for
//! another challenge, from another origin, replayed or from a copied authenticator are
//! refused and change nothing; another account's passkey is 404; the last way to sign in
//! stays.

mod common;

use common::authenticator::Authenticator;
use common::{Server, call, now_unix, post, register, totp_code};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// The address people open; the server's relying party.
const ORIGIN: &str = "http://localhost:8123";
const RP_ID: &str = "localhost";
const PASSWORD: &str = "secret123";

fn server() -> Server {
    Server::start_with(|c| {
        c.env("PILLBOX_SIGNUPS", "open");
        c.env("PILLBOX_PUBLIC_URL", ORIGIN);
    })
}

fn code_of(body: &Value) -> &str {
    body["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no code in {body}"))
}

async fn get(server: &Server, path: &str, token: &str) -> (StatusCode, Value) {
    call(server, Method::GET, path, Some(token), None).await
}

async fn delete(server: &Server, path: &str, token: &str) -> (StatusCode, Value) {
    call(server, Method::DELETE, path, Some(token), None).await
}

/// The account's passkeys as listed.
async fn passkeys(server: &Server, token: &str) -> Vec<Value> {
    let (status, body) = get(server, "/api/auth/passkeys", token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

/// Adds a passkey on `authenticator` to the signed-in account; answers the server's reply.
async fn try_add(
    server: &Server,
    token: &str,
    authenticator: &mut Authenticator,
    name: &str,
    origin: &str,
) -> (StatusCode, Value) {
    let (status, options) = post(
        server,
        "/api/auth/passkeys/register/options",
        Some(token),
        json!({ "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{options}");
    let credential = authenticator.create(&options["data"]["publicKey"], origin);
    post(
        server,
        "/api/auth/passkeys/register",
        Some(token),
        json!({ "ceremony": options["data"]["ceremony"], "name": name, "credential": credential }),
    )
    .await
}

async fn add(server: &Server, token: &str, authenticator: &mut Authenticator, name: &str) -> i64 {
    let (status, body) = try_add(server, token, authenticator, name, ORIGIN).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"]["id"].as_i64().unwrap()
}

/// New sign-in options: (ceremony, publicKey).
async fn sign_in_options(server: &Server) -> (String, Value) {
    let (status, options) = post(server, "/api/auth/passkeys/login/options", None, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{options}");
    (
        options["data"]["ceremony"].as_str().unwrap().to_owned(),
        options["data"]["publicKey"].clone(),
    )
}

/// Answers a passkey sign-in ceremony with an authenticator's credential.
async fn answer(server: &Server, ceremony: &str, credential: &Value) -> (StatusCode, Value) {
    post(
        server,
        "/api/auth/passkeys/login",
        None,
        json!({ "ceremony": ceremony, "credential": credential }),
    )
    .await
}

async fn sign_in(server: &Server, authenticator: &mut Authenticator) -> (StatusCode, Value) {
    let (ceremony, options) = sign_in_options(server).await;
    let credential = authenticator.get(&options, ORIGIN);
    answer(server, &ceremony, &credential).await
}

#[tokio::test]
async fn a_passkey_signs_in_without_an_email_address_and_the_session_works() {
    let server = server();
    let (status, providers) = call(&server, Method::GET, "/api/auth/providers", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(providers["data"]["passkeys"], true, "{providers}");

    let ann = register(&server, "ann@example.org").await;
    let mut laptop = Authenticator::new(RP_ID);
    let (status, options) = post(
        &server,
        "/api/auth/passkeys/register/options",
        Some(&ann),
        json!({ "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{options}");
    let public_key = &options["data"]["publicKey"];
    assert_eq!(public_key["rp"]["id"], RP_ID);
    assert_eq!(
        public_key["authenticatorSelection"]["residentKey"], "required",
        "a discoverable credential, so that no e-mail address is needed: {public_key}"
    );
    assert_eq!(
        public_key["authenticatorSelection"]["userVerification"],
        "required"
    );
    let credential = laptop.create(public_key, ORIGIN);
    let (status, created) = post(
        &server,
        "/api/auth/passkeys/register",
        Some(&ann),
        json!({ "ceremony": options["data"]["ceremony"], "name": "  Laptop ", "credential": credential }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    assert_eq!(created["data"]["name"], "Laptop");

    let listed = passkeys(&server, &ann).await;
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["name"], "Laptop");
    assert!(
        listed[0]["created_at"].as_str().unwrap().ends_with('Z'),
        "{listed:?}"
    );
    assert_eq!(listed[0]["last_used_at"], Value::Null, "never used yet");

    // Signed out, the authenticator alone signs in: no e-mail address is sent.
    let (ceremony, options) = sign_in_options(&server).await;
    assert!(
        options
            .get("allowCredentials")
            .is_none_or(|a| a.as_array().unwrap().is_empty()),
        "no account named: {options}"
    );
    let assertion = laptop.get(&options, ORIGIN);
    let (status, signed_in) = answer(&server, &ceremony, &assertion).await;
    assert_eq!(status, StatusCode::OK, "{signed_in}");
    assert_eq!(signed_in["data"]["user"]["email"], "ann@example.org");
    let token = signed_in["data"]["token"].as_str().unwrap();
    let (status, me) = get(&server, "/api/auth/me", token).await;
    assert_eq!(
        (status, &me["data"]["email"]),
        (StatusCode::OK, &json!("ann@example.org"))
    );
    // An ordinary session: it refreshes and signs out like a password sign-in's.
    let (status, refreshed) = post(&server, "/api/auth/refresh", Some(token), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{refreshed}");

    let listed = passkeys(&server, token).await;
    assert!(
        listed[0]["last_used_at"].is_string(),
        "last used is noted: {listed:?}"
    );
    assert!(
        server.logged("signed in with a passkey").await,
        "{}",
        server.log()
    );

    // The session can list but another account cannot see it.
    let bob = register(&server, "bob@example.org").await;
    assert!(passkeys(&server, &bob).await.is_empty());
}

#[tokio::test]
async fn answers_for_another_challenge_from_another_origin_or_replayed_are_refused() {
    let server = server();
    let ann = register(&server, "ann@example.org").await;
    let mut key = Authenticator::new(RP_ID);
    add(&server, &ann, &mut key, "Phone").await;

    // An answer for another ceremony's challenge.
    let (first, first_options) = sign_in_options(&server).await;
    let (second, _) = sign_in_options(&server).await;
    let for_first = key.get(&first_options, ORIGIN);
    let (status, body) = answer(&server, &second, &for_first).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "passkey_invalid"),
        "{body}"
    );

    // The right pair, once: the ceremony was not spent by the other's answer.
    let (status, body) = answer(&server, &first, &for_first).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let used_at = passkeys(&server, &ann).await[0]["last_used_at"].clone();
    // Replayed: the ceremony works once.
    let (status, body) = answer(&server, &first, &for_first).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "passkey_ceremony_invalid"),
        "{body}"
    );
    // A ceremony made up by the client.
    let (status, body) = answer(&server, "made-up", &for_first).await;
    assert_eq!(code_of(&body), "passkey_ceremony_invalid", "{status} {body}");

    // From a page at another origin (a phishing copy of the site).
    let (ceremony, options) = sign_in_options(&server).await;
    let phished = key.get(&options, "http://pillbox.example.net");
    let (status, body) = answer(&server, &ceremony, &phished).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "passkey_invalid"),
        "{body}"
    );

    // A passkey this server does not know.
    let mut stranger = Authenticator::new(RP_ID);
    stranger.user_handle = key.user_handle.clone();
    let (status, body) = sign_in(&server, &mut stranger).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "passkey_invalid"),
        "{body}"
    );

    // Without user verification a passkey is not a sign-in.
    key.verifies_user = false;
    let (status, body) = sign_in(&server, &mut key).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "passkey_invalid"),
        "{body}"
    );

    // None of the refusals touched the passkey.
    assert_eq!(passkeys(&server, &ann).await[0]["last_used_at"], used_at);
    for reason in [
        "passkey sign-in refused: the answer does not verify",
        "passkey sign-in refused: unknown, used or expired ceremony",
        "passkey sign-in refused: unknown passkey",
    ] {
        assert!(server.logged(reason).await, "{reason}: {}", server.log());
    }

    // A registration answered from another origin stores nothing.
    let mut other = Authenticator::new(RP_ID);
    let (status, body) = try_add(&server, &ann, &mut other, "Tablet", "http://pillbox.example.net").await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "passkey_invalid"),
        "{body}"
    );
    assert_eq!(passkeys(&server, &ann).await.len(), 1);
    // Nor one for another account's ceremony.
    let bob = register(&server, "bob@example.org").await;
    let (_, options) = post(
        &server,
        "/api/auth/passkeys/register/options",
        Some(&bob),
        json!({ "password": PASSWORD }),
    )
    .await;
    let credential = other.create(&options["data"]["publicKey"], ORIGIN);
    let (status, body) = post(
        &server,
        "/api/auth/passkeys/register",
        Some(&ann),
        json!({ "ceremony": options["data"]["ceremony"], "name": "Tablet", "credential": credential }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "passkey_ceremony_invalid"),
        "{body}"
    );
    assert_eq!(passkeys(&server, &ann).await.len(), 1);
    assert!(passkeys(&server, &bob).await.is_empty());
    // Nor an unnamed one (the ceremony stays for a named try).
    let (_, options) = post(
        &server,
        "/api/auth/passkeys/register/options",
        Some(&ann),
        json!({ "password": PASSWORD }),
    )
    .await;
    let credential = other.create(&options["data"]["publicKey"], ORIGIN);
    let body = json!({ "ceremony": options["data"]["ceremony"], "name": " ", "credential": credential });
    let (status, refused) = post(&server, "/api/auth/passkeys/register", Some(&ann), body.clone()).await;
    assert_eq!(
        (status, code_of(&refused)),
        (StatusCode::BAD_REQUEST, "passkey_name_required")
    );
    let mut named = body;
    named["name"] = json!("x".repeat(65));
    let (status, refused) = post(&server, "/api/auth/passkeys/register", Some(&ann), named.clone()).await;
    assert_eq!(
        (status, code_of(&refused), &refused["params"]["max"]),
        (StatusCode::BAD_REQUEST, "passkey_name_too_long", &json!(64))
    );
    named["name"] = json!("Tablet");
    let (status, created) = post(&server, "/api/auth/passkeys/register", Some(&ann), named.clone()).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    // The same authenticator's credential again (a browser would have refused it: the
    // options exclude the account's passkeys), and another account's.
    let (status, body) = try_add(&server, &ann, &mut other, "Tablet again", ORIGIN).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::CONFLICT, "passkey_already_registered"),
        "{body} {}",
        server.log()
    );
    let (status, body) = try_add(&server, &bob, &mut other, "Not mine", ORIGIN).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::CONFLICT, "passkey_already_registered"),
        "{body}"
    );
    assert_eq!(passkeys(&server, &ann).await.len(), 2);
    assert!(passkeys(&server, &bob).await.is_empty());
}

#[tokio::test]
async fn a_counter_that_goes_backwards_is_refused_and_logged() {
    let server = server();
    let ann = register(&server, "ann@example.org").await;
    let mut key = Authenticator::new(RP_ID);
    add(&server, &ann, &mut key, "Security key").await;
    for _ in 0..3 {
        let (status, body) = sign_in(&server, &mut key).await;
        assert_eq!(status, StatusCode::OK, "{body}");
    }
    let used_at = passkeys(&server, &ann).await[0]["last_used_at"].clone();
    // A copy of the authenticator, taken when its counter was at 1.
    key.counter = 1;
    let (status, body) = sign_in(&server, &mut key).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "passkey_counter_invalid"),
        "{body}"
    );
    assert!(
        server.logged("its signature counter went backwards").await,
        "{}",
        server.log()
    );
    assert_eq!(
        passkeys(&server, &ann).await[0]["last_used_at"],
        used_at,
        "nothing written"
    );
    // The real one, further on, still signs in.
    key.counter = 10;
    let (status, body) = sign_in(&server, &mut key).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_deleted_passkey_no_longer_signs_in_and_another_accounts_id_is_not_found() {
    let server = server();
    let ann = register(&server, "ann@example.org").await;
    let bob = register(&server, "bob@example.org").await;
    let mut anns = Authenticator::new(RP_ID);
    let id = add(&server, &ann, &mut anns, "Phone").await;

    let (status, body) = delete(&server, &format!("/api/auth/passkeys/{id}"), &bob).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "passkey_not_found"),
        "{body}"
    );
    let (status, body) = delete(&server, "/api/auth/passkeys/99999", &ann).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "passkey_not_found"),
        "{body}"
    );
    assert_eq!(passkeys(&server, &ann).await.len(), 1, "still there");
    let (status, body) = sign_in(&server, &mut anns).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, body) = delete(&server, &format!("/api/auth/passkeys/{id}"), &ann).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(passkeys(&server, &ann).await.is_empty());
    let (status, body) = sign_in(&server, &mut anns).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "passkey_invalid"),
        "{body}"
    );
}

/// `POST /api/auth/login` with the password and, optionally, more.
async fn password_login(server: &Server, extra: Value) -> (StatusCode, Value) {
    let mut body = json!({ "email": "ann@example.org", "password": PASSWORD });
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    post(server, "/api/auth/login", None, body).await
}

#[tokio::test]
async fn a_passkey_is_the_second_factor_after_the_password() {
    let server = server();
    let ann = register(&server, "ann@example.org").await;
    let mut key = Authenticator::new(RP_ID);
    add(&server, &ann, &mut key, "Phone").await;
    // Two-factor on with an authenticator app.
    let (status, body) = post(
        &server,
        "/api/auth/2fa/setup-totp",
        Some(&ann),
        json!({ "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let secret = body["data"]["secret"].as_str().unwrap().to_owned();
    let (status, body) = post(
        &server,
        "/api/auth/2fa/complete-totp-setup",
        Some(&ann),
        json!({ "otp": totp_code(&secret, now_unix()) }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, body) = password_login(&server, json!({})).await;
    assert_eq!(
        (status, code_of(&body), &body["availableMethods"]),
        (
            StatusCode::UNAUTHORIZED,
            "two_factor_required",
            &json!(["totp", "passkey"])
        ),
        "{body}"
    );
    let (status, body) = post(
        &server,
        "/api/auth/2fa/check-login-requirements",
        None,
        json!({ "email": "ann@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["availableMethods"], json!(["totp", "passkey"]), "{body}");

    // The passkey instead of the code.
    let (ceremony, options) = sign_in_options(&server).await;
    let assertion = key.get(&options, ORIGIN);
    let (status, body) = password_login(
        &server,
        json!({ "passkey": { "ceremony": ceremony, "credential": assertion } }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let token = body["data"]["token"].as_str().unwrap();
    assert_eq!(get(&server, "/api/auth/me", token).await.0, StatusCode::OK);
    assert!(
        server.logged("second factor: a passkey").await,
        "{}",
        server.log()
    );

    // Not without the password: a wrong one with a good passkey is refused.
    let (ceremony, options) = sign_in_options(&server).await;
    let assertion = key.get(&options, ORIGIN);
    let (status, body) = post(
        &server,
        "/api/auth/login",
        None,
        json!({ "email": "ann@example.org", "password": "wrong-password", "passkey": { "ceremony": ceremony, "credential": assertion } }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "invalid_credentials"),
        "{body}"
    );

    // Another account's passkey is not Ann's second factor.
    let bob = register(&server, "bob@example.org").await;
    let mut bobs = Authenticator::new(RP_ID);
    add(&server, &bob, &mut bobs, "Bob's phone").await;
    let (ceremony, options) = sign_in_options(&server).await;
    let assertion = bobs.get(&options, ORIGIN);
    let (status, body) = password_login(
        &server,
        json!({ "passkey": { "ceremony": ceremony, "credential": assertion } }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "passkey_invalid"),
        "{body}"
    );
    assert!(
        server
            .logged("second factor refused: the passkey is another account's")
            .await,
        "{}",
        server.log()
    );

    // A replayed assertion is refused as the second factor too.
    let (ceremony, options) = sign_in_options(&server).await;
    let assertion = key.get(&options, ORIGIN);
    let answer = json!({ "passkey": { "ceremony": ceremony, "credential": assertion } });
    assert_eq!(password_login(&server, answer.clone()).await.0, StatusCode::OK);
    let (status, body) = password_login(&server, answer).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::UNAUTHORIZED, "passkey_ceremony_invalid"),
        "{body}"
    );
}

#[tokio::test]
async fn passkey_failures_spend_the_sign_in_budget_of_the_password() {
    let server = server();
    let ann = register(&server, "ann@example.org").await;
    let mut key = Authenticator::new(RP_ID);
    add(&server, &ann, &mut key, "Phone").await;
    // Five answers from a phishing page: the free failures of this account from this address.
    for _ in 0..5 {
        let (ceremony, options) = sign_in_options(&server).await;
        let phished = key.get(&options, "http://pillbox.example.net");
        let (status, body) = answer(&server, &ceremony, &phished).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    }
    // Now the password waits too, and so does the passkey.
    let (status, body) = password_login(&server, json!({})).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
        "{body}"
    );
    let (status, body) = sign_in(&server, &mut key).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
        "{body}"
    );
}

#[tokio::test]
async fn the_last_way_to_sign_in_cannot_be_deleted() {
    let server = server();
    let kim = register(&server, "kim@example.org").await;
    let mut phone = Authenticator::new(RP_ID);
    let first = add(&server, &kim, &mut phone, "Phone").await;
    // As an account made by an OpenID Connect sign-in whose identity was unlinked since: a
    // password nobody knows, no identity at a provider.
    let database = server.data_dir.join("pillbox.sqlite3");
    let conn = rusqlite::Connection::open(&database).unwrap();
    conn.execute(
        "UPDATE users SET password_hash = '!oidc:nobody-knows' WHERE email = 'kim@example.org'",
        [],
    )
    .unwrap();

    let (status, body) = delete(&server, &format!("/api/auth/passkeys/{first}"), &kim).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::CONFLICT, "passkey_last_sign_in_method"),
        "{body}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("only way left to sign in"),
        "{body}"
    );
    assert_eq!(passkeys(&server, &kim).await.len(), 1, "kept");

    // With a second passkey, either may go, but not both.
    let mut laptop = Authenticator::new(RP_ID);
    let second = add(&server, &kim, &mut laptop, "Laptop").await;
    let (status, body) = delete(&server, &format!("/api/auth/passkeys/{first}"), &kim).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = delete(&server, &format!("/api/auth/passkeys/{second}"), &kim).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::CONFLICT, "passkey_last_sign_in_method"),
        "{body}"
    );
    let (status, body) = sign_in(&server, &mut laptop).await;
    assert_eq!(status, StatusCode::OK, "the kept passkey still signs in: {body}");

    // An identity at a provider is another way in: then the last passkey may go.
    conn.execute(
        "INSERT INTO oidc_identities (user_id, issuer, subject, created_at)
         SELECT id, 'https://id.example.org', 'kim', '2026-01-01T00:00:00.000Z' FROM users WHERE email = 'kim@example.org'",
        [],
    )
    .unwrap();
    let (status, body) = delete(&server, &format!("/api/auth/passkeys/{second}"), &kim).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn without_a_public_url_naming_a_host_there_are_no_passkeys() {
    for public_url in [None, Some("http://127.0.0.1:8123")] {
        let server = Server::start_with(|c| {
            c.env("PILLBOX_SIGNUPS", "open");
            if let Some(url) = public_url {
                c.env("PILLBOX_PUBLIC_URL", url);
            }
        });
        let (_, providers) = call(&server, Method::GET, "/api/auth/providers", None, None).await;
        assert_eq!(
            providers["data"]["passkeys"], false,
            "{public_url:?}: {providers}"
        );
        let ann = register(&server, "ann@example.org").await;
        let (status, body) = post(
            &server,
            "/api/auth/passkeys/register/options",
            Some(&ann),
            json!({ "password": PASSWORD }),
        )
        .await;
        assert_eq!(
            (status, code_of(&body)),
            (StatusCode::NOT_FOUND, "passkeys_not_configured"),
            "{body}"
        );
        let (status, body) = post(&server, "/api/auth/passkeys/login/options", None, json!({})).await;
        assert_eq!(
            (status, code_of(&body)),
            (StatusCode::NOT_FOUND, "passkeys_not_configured"),
            "{body}"
        );
        // The list is there (empty), so Settings can say why nothing can be added.
        assert!(passkeys(&server, &ann).await.is_empty());
        assert!(server.logged("passkeys are off").await, "{}", server.log());
    }
}

#[tokio::test]
async fn an_account_has_at_most_twenty_passkeys() {
    let server = server();
    let ann = register(&server, "ann@example.org").await;
    for n in 0..20 {
        add(&server, &ann, &mut Authenticator::new(RP_ID), &format!("Key {n}")).await;
    }
    let (status, body) = post(
        &server,
        "/api/auth/passkeys/register/options",
        Some(&ann),
        json!({ "password": PASSWORD }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body), &body["params"]["max"]),
        (StatusCode::CONFLICT, "passkey_limit_reached", &json!(20)),
        "{body}"
    );
    assert!(server.logged("the account has the most passkeys already").await);
    assert_eq!(passkeys(&server, &ann).await.len(), 20);
}

#[tokio::test]
async fn adding_a_passkey_asks_for_the_password_again() {
    let server = server();
    let ann = register(&server, "ann@example.org").await;
    let path = "/api/auth/passkeys/register/options";
    let (status, body) = post(&server, path, Some(&ann), json!({})).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "password_required"),
        "{body}"
    );
    let (status, body) = post(&server, path, Some(&ann), json!({ "password": "not-it" })).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "password_incorrect"),
        "{body}"
    );
    assert!(
        server
            .logged("passkey registration refused: the password was not confirmed")
            .await
    );
    assert!(passkeys(&server, &ann).await.is_empty());

    // An account made by an OpenID Connect sign-in has no password to give.
    let conn = rusqlite::Connection::open(server.data_dir.join("pillbox.sqlite3")).unwrap();
    conn.execute(
        "UPDATE users SET password_hash = '!oidc:nobody-knows' WHERE email = 'ann@example.org'",
        [],
    )
    .unwrap();
    let (status, options) = post(&server, path, Some(&ann), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{options}");
    let credential = Authenticator::new(RP_ID).create(&options["data"]["publicKey"], ORIGIN);
    let (status, body) = post(
        &server,
        "/api/auth/passkeys/register",
        Some(&ann),
        json!({ "ceremony": options["data"]["ceremony"], "name": "Phone", "credential": credential }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

#[tokio::test]
async fn a_provider_identity_can_be_unlinked_while_a_passkey_remains_and_not_both() {
    let server = server();
    let kim = register(&server, "kim@example.org").await;
    // As an account a provider made: a password nobody knows, and the provider's identity.
    let conn = rusqlite::Connection::open(server.data_dir.join("pillbox.sqlite3")).unwrap();
    conn.execute(
        "UPDATE users SET password_hash = '!oidc:nobody-knows' WHERE email = 'kim@example.org'",
        [],
    )
    .unwrap();
    conn.execute(
        "INSERT INTO oidc_identities (user_id, issuer, subject, created_at)
         SELECT id, 'https://id.example.org', 'kim', '2026-01-01T00:00:00.000Z' FROM users WHERE email = 'kim@example.org'",
        [],
    )
    .unwrap();
    let identity = conn.last_insert_rowid();
    let unlink = format!("/api/auth/oidc/identities/{identity}");
    let (status, body) = delete(&server, &unlink, &kim).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::CONFLICT, "oidc_last_sign_in"),
        "{body}"
    );

    // No password to confirm: the identity's session adds a passkey.
    let (status, options) = post(
        &server,
        "/api/auth/passkeys/register/options",
        Some(&kim),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{options}");
    let mut phone = Authenticator::new(RP_ID);
    let credential = phone.create(&options["data"]["publicKey"], ORIGIN);
    let (status, created) = post(
        &server,
        "/api/auth/passkeys/register",
        Some(&kim),
        json!({ "ceremony": options["data"]["ceremony"], "name": "Phone", "credential": credential }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (status, body) = delete(&server, &unlink, &kim).await;
    assert_eq!(status, StatusCode::OK, "the passkey is another way in: {body}");

    // Now the passkey is the last way in.
    let id = created["data"]["id"].as_i64().unwrap();
    let (status, body) = delete(&server, &format!("/api/auth/passkeys/{id}"), &kim).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::CONFLICT, "passkey_last_sign_in_method"),
        "{body}"
    );
    let (status, body) = sign_in(&server, &mut phone).await;
    assert_eq!(status, StatusCode::OK, "{body}");
}
