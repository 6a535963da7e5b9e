//! Forgotten passwords and the sign-up status over HTTP against the real binary (issue 23):
//! the link mailed through a real SMTP server in the account's language, the same answer for
//! every address, one use, one hour (on the test clock), every session signed out, the
//! password rules, and `GET /api/auth/registration` in each `signups` mode.

mod common;

use common::{Server, SmtpSink, get_json, post};
use reqwest::StatusCode;
use serde_json::{Value, json};

const PUBLIC_URL: &str = "https://pillbox.example.test";
/// The password `common::verified_account` gives.
const OLD_PASSWORD: &str = "secret123";
const NEW_PASSWORD: &str = "a new password";

fn server_with_mail(smtp: &SmtpSink) -> Server {
    Server::start_with(|c| {
        smtp.configure(c);
        common::with_test_clock(c);
        c.env("PILLBOX_PUBLIC_URL", PUBLIC_URL);
    })
}

fn code_of(body: &Value) -> &str {
    body["code"]
        .as_str()
        .unwrap_or_else(|| panic!("no code in {body}"))
}

async fn forgot(server: &Server, email: &str) -> (StatusCode, Value) {
    post(
        server,
        "/api/auth/forgot-password",
        None,
        json!({ "email": email }),
    )
    .await
}

async fn reset(server: &Server, token: &str, password: &str) -> (StatusCode, Value) {
    post(
        server,
        "/api/auth/reset-password",
        None,
        json!({ "token": token, "password": password }),
    )
    .await
}

async fn sign_in(server: &Server, email: &str, password: &str) -> StatusCode {
    post(
        server,
        "/api/auth/login",
        None,
        json!({ "email": email, "password": password }),
    )
    .await
    .0
}

/// The token of the `n`-th mail to `to`, checked to be a reset link to this server.
fn reset_token(smtp: &SmtpSink, to: &str, n: usize) -> String {
    let mail = smtp.wait_for(to, n);
    let prefix = format!("{PUBLIC_URL}/reset-password/");
    let start = mail
        .text
        .find(&prefix)
        .unwrap_or_else(|| panic!("no reset link in {}", mail.text));
    mail.text[start + prefix.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_forgotten_password_link_is_mailed_works_once_and_signs_out_every_session() {
    let smtp = SmtpSink::start();
    let server = server_with_mail(&smtp);
    let phone = common::verified_account(&server, "ann@example.org").await;
    let laptop = common::login(&server, "ann@example.org").await;

    // The same answer whether or not the address has an account.
    let known = forgot(&server, "ann@example.org").await;
    let unknown = forgot(&server, "nobody@example.org").await;
    assert_eq!(known.0, StatusCode::OK, "{}", known.1);
    assert_eq!(known, unknown);
    assert_eq!(known.1["data"]["emailAvailable"], true);

    let mail = smtp.wait_for("ann@example.org", 1);
    assert_eq!(mail.subject, "Reset your Pillbox password");
    assert!(mail.text.contains("within 1 hour"), "{}", mail.text);
    let token = reset_token(&smtp, "ann@example.org", 1);
    assert_eq!(
        smtp.count_for("nobody@example.org"),
        0,
        "nothing for an unknown address"
    );

    // The password rules of registration apply, and a refused password keeps the link.
    let (status, body) = reset(&server, &token, "short").await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "password_too_short")
    );
    assert_eq!(
        sign_in(&server, "ann@example.org", "short").await,
        StatusCode::UNAUTHORIZED
    );

    let (status, body) = reset(&server, &token, NEW_PASSWORD).await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // Every session that was open is signed out; the new password signs in, the old does not.
    for session in [&phone, &laptop] {
        assert_eq!(
            get_json(&server, "/api/auth/me", Some(session)).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        sign_in(&server, "ann@example.org", OLD_PASSWORD).await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        sign_in(&server, "ann@example.org", NEW_PASSWORD).await,
        StatusCode::OK
    );

    // The link works once.
    let (status, body) = reset(&server, &token, "yet another one").await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "reset_link_invalid")
    );
    assert_eq!(
        body["message"],
        "This link is invalid or has expired: ask for a new one"
    );
    assert_eq!(
        sign_in(&server, "ann@example.org", NEW_PASSWORD).await,
        StatusCode::OK
    );
    let (status, body) = reset(&server, "not-a-link", NEW_PASSWORD).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "reset_link_invalid")
    );
}

#[tokio::test]
async fn a_forgotten_password_link_expires_after_an_hour_and_speaks_the_account_language() {
    let smtp = SmtpSink::start();
    let server = server_with_mail(&smtp);
    let token = common::verified_account(&server, "jo@example.org").await;
    common::save_settings(&server, &token, json!({ "language": "de" })).await;

    assert_eq!(forgot(&server, "jo@example.org").await.0, StatusCode::OK);
    let mail = smtp.wait_for("jo@example.org", 1);
    assert!(
        mail.text
            .contains("Öffnen Sie diesen Link innerhalb einer Stunde, um ein neues Passwort zu wählen."),
        "{}",
        mail.text
    );
    let expired = reset_token(&smtp, "jo@example.org", 1);
    common::advance(&server, 3601).await;
    let (status, body) = reset(&server, &expired, NEW_PASSWORD).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "reset_link_invalid")
    );
    assert_eq!(
        sign_in(&server, "jo@example.org", OLD_PASSWORD).await,
        StatusCode::OK
    );

    // A new link works until the hour is over, and replaces the one before it.
    assert_eq!(forgot(&server, "jo@example.org").await.0, StatusCode::OK);
    let older = reset_token(&smtp, "jo@example.org", 2);
    assert_eq!(forgot(&server, "jo@example.org").await.0, StatusCode::OK);
    let newer = reset_token(&smtp, "jo@example.org", 3);
    assert_eq!(
        reset(&server, &older, NEW_PASSWORD).await.0,
        StatusCode::BAD_REQUEST,
        "replaced by the newer link"
    );
    common::advance(&server, 59 * 60).await;
    let (status, body) = reset(&server, &newer, NEW_PASSWORD).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        sign_in(&server, "jo@example.org", NEW_PASSWORD).await,
        StatusCode::OK
    );
}

#[tokio::test]
async fn without_email_the_answer_is_the_same_and_says_no_link_can_come() {
    let server = Server::start();
    common::register(&server, "ann@example.org").await;
    let known = forgot(&server, "ann@example.org").await;
    let unknown = forgot(&server, "nobody@example.org").await;
    assert_eq!(known.0, StatusCode::OK, "{}", known.1);
    assert_eq!(known, unknown);
    assert_eq!(known.1["data"]["emailAvailable"], false);

    let (status, body) = forgot(&server, "not an address").await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "email_invalid")
    );
    // Three links per address an hour, like verification links; then a 429.
    for _ in 0..2 {
        assert_eq!(forgot(&server, "ann@example.org").await.0, StatusCode::OK);
    }
    let (status, body) = forgot(&server, "ann@example.org").await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited")
    );
}

async fn registration(server: &Server) -> Value {
    let (status, body) = get_json(server, "/api/auth/registration", None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].clone()
}

#[tokio::test]
async fn the_registration_status_follows_each_signups_mode() {
    let first_user = Server::start();
    assert_eq!(
        registration(&first_user).await,
        json!({ "signups": "first-user", "open": true, "invitations": true })
    );
    common::register(&first_user, "first@example.org").await;
    assert_eq!(
        registration(&first_user).await,
        json!({ "signups": "first-user", "open": false, "invitations": true }),
        "closed past the first account, except through an invitation's link"
    );

    let open = Server::start_with(|c| {
        c.env("PILLBOX_SIGNUPS", "open");
    });
    common::register(&open, "first@example.org").await;
    assert_eq!(
        registration(&open).await,
        json!({ "signups": "open", "open": true, "invitations": true })
    );

    let closed = Server::start_with(|c| {
        c.env("PILLBOX_SIGNUPS", "closed");
    });
    assert_eq!(
        registration(&closed).await,
        json!({ "signups": "closed", "open": false, "invitations": false })
    );
}

/// A person who changes their password (fearing it is known) leaves no forgotten-password
/// link behind that could change it again.
#[tokio::test]
async fn changing_the_password_voids_a_link_already_mailed() {
    let smtp = SmtpSink::start();
    let server = server_with_mail(&smtp);
    let session = common::verified_account(&server, "kim@example.org").await;
    let (status, body) = forgot(&server, "kim@example.org").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let token = reset_token(&smtp, "kim@example.org", 1);

    let (status, body) = post(
        &server,
        "/api/auth/change-password",
        Some(&session),
        json!({ "currentPassword": OLD_PASSWORD, "newPassword": NEW_PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    let (status, body) = reset(&server, &token, "somebody else's").await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(code_of(&body), "reset_link_invalid");
    assert_eq!(
        sign_in(&server, "kim@example.org", NEW_PASSWORD).await,
        StatusCode::OK
    );
}
