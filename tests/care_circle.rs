//! The care circle over HTTP against the real binary (issue 16): people, inviting a carer
//! through a real SMTP server, accepting, roles, revoking and leaving, the audit list,
//! archived and deleted people, export and import with people, and deleting either side's
//! account.

mod common;

use common::{Server, SmtpSink, call, get_json, post};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

const PASSWORD: &str = "secret123";
const PUBLIC_URL: &str = "https://pillbox.example.test";

/// A server that sends e-mail to `smtp`, with a movable clock and the default sign-ups
/// (only the first account, and invited addresses, may register).
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

/// The token of the `n`-th invitation mailed to `to` (other mails to it aside), checked to
/// be a link to this server.
fn invitation_token(smtp: &SmtpSink, to: &str, n: usize) -> String {
    let prefix = format!("{PUBLIC_URL}/invite/");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    loop {
        let links: Vec<String> = smtp
            .messages()
            .into_iter()
            .filter(|m| m.to.contains(to))
            .filter_map(|m| {
                let start = m.text.find(&prefix)?;
                Some(
                    m.text[start + prefix.len()..]
                        .split_whitespace()
                        .next()?
                        .to_owned(),
                )
            })
            .collect();
        if links.len() >= n {
            return links[n - 1].clone();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no invitation #{n} for {to}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Registers an invited address with its invitation's token: the invitation's mail proved
/// the address, so the account is signed in at once and verified, and later sign-ins are not
/// asked to verify it (this server sends e-mail). Returns its token.
async fn register_invited(server: &Server, email: &str, invitation: &str) -> String {
    let (status, body) = post(
        server,
        "/api/auth/register",
        None,
        json!({ "email": email, "password": PASSWORD, "invitation": invitation }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["data"]["user"]["emailVerified"], true, "{body}");
    assert!(body["data"]["token"].is_string(), "signed in at once: {body}");
    common::login(server, email).await
}

async fn set_name(server: &Server, token: &str, first: &str, last: &str) {
    let (status, body) = call(
        server,
        Method::PUT,
        "/api/auth/me",
        Some(token),
        Some(json!({ "firstName": first, "lastName": last })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

async fn people(server: &Server, token: &str) -> Vec<Value> {
    let (status, body) = get_json(server, "/api/people", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

async fn new_person(server: &Server, token: &str, name: &str) -> i64 {
    let (status, body) = post(server, "/api/people", Some(token), json!({ "name": name })).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"]["id"].as_i64().unwrap()
}

async fn invite(server: &Server, token: &str, person: i64, email: &str, role: &str) -> (StatusCode, Value) {
    post(
        server,
        &format!("/api/people/{person}/carers"),
        Some(token),
        json!({ "email": email, "role": role }),
    )
    .await
}

async fn accept(server: &Server, token: &str, invitation: &str) -> (StatusCode, Value) {
    post(
        server,
        &format!("/api/invitations/{invitation}/accept"),
        Some(token),
        json!({}),
    )
    .await
}

async fn audit_actions(server: &Server, token: &str, person: i64) -> Vec<String> {
    let (status, body) = get_json(server, &format!("/api/people/{person}/audit"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line["action"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn an_invited_carer_registers_accepts_and_the_owner_manages_the_circle() {
    let smtp = SmtpSink::start();
    let server = server_with_mail(&smtp);
    let owner = common::verified_account(&server, "eva@example.org").await;
    set_name(&server, &owner, "Eva", "Lind").await;
    let stranger = common::verified_account(&server, "sam@example.org").await;

    // Every account starts with its own person, shown with the account's name.
    let mine = people(&server, &owner).await;
    assert_eq!(mine.len(), 1);
    assert_eq!(
        (
            &mine[0]["name"],
            &mine[0]["is_self"],
            &mine[0]["role"],
            &mine[0]["carer_id"]
        ),
        (&json!("Eva Lind"), &json!(true), &json!("owner"), &Value::Null)
    );
    let (status, body) = post(&server, "/api/people", Some(&owner), json!({ "name": "  " })).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "person_name_required")
    );
    let (status, body) = post(
        &server,
        "/api/people",
        Some(&owner),
        json!({ "name": "x".repeat(101) }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "validation_failed")
    );
    let grandpa = new_person(&server, &owner, "Grandpa Jo").await;
    let names: Vec<Value> = people(&server, &owner)
        .await
        .iter()
        .map(|p| p["name"].clone())
        .collect();
    assert_eq!(
        names,
        [json!("Eva Lind"), json!("Grandpa Jo")],
        "the account holder first"
    );

    // The owner invites an address that has no account yet; the mail carries the link.
    let (status, body) = invite(&server, &owner, grandpa, "kim@example.org", "record").await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let invited = &body["data"];
    assert_eq!(
        (
            &invited["status"],
            &invited["role"],
            &invited["name"],
            &invited["email"]
        ),
        (
            &json!("invited"),
            &json!("record"),
            &Value::Null,
            &json!("kim@example.org")
        )
    );
    let carer_id = invited["id"].as_i64().unwrap();
    let token = invitation_token(&smtp, "kim@example.org", 1);
    assert_eq!(
        invited["invite_url"],
        json!(format!("{PUBLIC_URL}/invite/{token}"))
    );
    let mail = smtp.wait_for("kim@example.org", 1);
    assert_eq!(
        mail.subject,
        "Eva Lind invites you to care for Grandpa Jo on Pillbox"
    );
    let (_, listed) = get_json(&server, &format!("/api/people/{grandpa}/carers"), Some(&owner)).await;
    assert_eq!(
        listed["data"][0]["invite_url"],
        Value::Null,
        "the link is shown once"
    );

    // The invited address may register although sign-ups are closed past the first account.
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "nobody@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::FORBIDDEN, "registration_closed")
    );
    // The invited address alone does not open it; with the link's token it does.
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "kim@example.org", "password": PASSWORD }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::FORBIDDEN, "registration_closed")
    );
    let (status, body) = post(
        &server,
        "/api/auth/register",
        None,
        json!({ "email": "nobody@example.org", "password": PASSWORD, "invitation": token }),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::FORBIDDEN, "registration_closed"),
        "the token opens registration for the invited address only"
    );
    let carer = register_invited(&server, "kim@example.org", &token).await;
    set_name(&server, &carer, "Kim", "Berg").await;

    // Another account cannot read or take it; the address is masked.
    let (status, body) = get_json(&server, &format!("/api/invitations/{token}"), Some(&stranger)).await;
    assert_eq!(
        (status, code_of(&body), &body["params"]["email"]),
        (
            StatusCode::FORBIDDEN,
            "invitation_other_account",
            &json!("k***@example.org")
        )
    );
    let (status, _) = accept(&server, &stranger, &token).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = get_json(&server, "/api/invitations/not-a-token", Some(&carer)).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "invitation_not_found")
    );
    let (status, _) = get_json(&server, &format!("/api/invitations/{token}"), None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    // Before signing in, the link's holder sees who invites and for whom; the address masked.
    let (status, body) = get_json(&server, &format!("/api/invitations/{token}/preview"), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (
            &body["data"]["owner_name"],
            &body["data"]["person_name"],
            &body["data"]["role"],
            &body["data"]["email"]
        ),
        (
            &json!("Eva Lind"),
            &json!("Grandpa Jo"),
            &json!("record"),
            &json!("k***@example.org")
        )
    );
    let (status, body) = get_json(&server, "/api/invitations/not-a-token/preview", None).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "invitation_not_found")
    );

    let (status, body) = get_json(&server, &format!("/api/invitations/{token}"), Some(&carer)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (
            &body["data"]["person_name"],
            &body["data"]["owner_name"],
            &body["data"]["role"]
        ),
        (&json!("Grandpa Jo"), &json!("Eva Lind"), &json!("record"))
    );
    let (status, body) = accept(&server, &carer, &token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (
            &body["data"]["id"],
            &body["data"]["role"],
            &body["data"]["carer_id"]
        ),
        (&json!(grandpa), &json!("record"), &json!(carer_id))
    );
    let (status, body) = accept(&server, &carer, &token).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "invitation_not_found"),
        "used"
    );

    // The carer sees their own person, then Grandpa with their role and the owner's name.
    let theirs = people(&server, &carer).await;
    assert_eq!(theirs.len(), 2);
    assert_eq!(
        (
            &theirs[1]["name"],
            &theirs[1]["role"],
            &theirs[1]["owner_name"],
            &theirs[1]["is_self"]
        ),
        (
            &json!("Grandpa Jo"),
            &json!("record"),
            &json!("Eva Lind"),
            &json!(false)
        )
    );
    assert!(
        people(&server, &stranger)
            .await
            .iter()
            .all(|p| p["id"] != json!(grandpa))
    );
    let (_, listed) = get_json(&server, &format!("/api/people/{grandpa}/carers"), Some(&owner)).await;
    assert_eq!(
        (
            &listed["data"][0]["status"],
            &listed["data"][0]["name"],
            &listed["data"][0]["expires_at"]
        ),
        (&json!("active"), &json!("Kim Berg"), &Value::Null)
    );
    // The escalation settings name carers by account: the list says which one it is.
    let (_, me) = get_json(&server, "/api/auth/me", Some(&carer)).await;
    assert_eq!(listed["data"][0]["user_id"], me["data"]["id"]);

    // Only the owner changes the circle: a carer gets 403, a stranger 404.
    for (who, expected) in [
        (&carer, StatusCode::FORBIDDEN),
        (&stranger, StatusCode::NOT_FOUND),
    ] {
        let (status, _) = get_json(&server, &format!("/api/people/{grandpa}/carers"), Some(who)).await;
        assert_eq!(status, expected);
        let (status, _) = invite(&server, who, grandpa, "lee@example.org", "view").await;
        assert_eq!(status, expected);
        let (status, _) = get_json(&server, &format!("/api/people/{grandpa}/audit"), Some(who)).await;
        assert_eq!(status, expected);
        let (status, _) = call(
            &server,
            Method::PUT,
            &format!("/api/people/{grandpa}"),
            Some(who),
            Some(json!({ "name": "Jo" })),
        )
        .await;
        assert_eq!(status, expected);
        let (status, _) = call(
            &server,
            Method::DELETE,
            &format!("/api/people/{grandpa}"),
            Some(who),
            None,
        )
        .await;
        assert_eq!(status, expected);
    }

    // Roles.
    let role_path = format!("/api/people/{grandpa}/carers/{carer_id}");
    let (status, body) = call(
        &server,
        Method::PUT,
        &role_path,
        Some(&owner),
        Some(json!({ "role": "owner" })),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "role_invalid")
    );
    let (status, body) = call(
        &server,
        Method::PUT,
        &role_path,
        Some(&owner),
        Some(json!({ "role": "manage" })),
    )
    .await;
    assert_eq!(
        (status, &body["data"]["role"]),
        (StatusCode::OK, &json!("manage")),
        "{body}"
    );
    assert_eq!(people(&server, &carer).await[1]["role"], json!("manage"));
    let (status, _) = call(
        &server,
        Method::PUT,
        &role_path,
        Some(&carer),
        Some(json!({ "role": "view" })),
    )
    .await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a carer cannot change their own role"
    );

    // Inviting the owner's own address, or an active carer's again.
    let (status, body) = invite(&server, &owner, grandpa, "EVA@example.org", "view").await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "carer_is_owner")
    );
    let (status, body) = invite(&server, &owner, grandpa, "Kim@Example.org", "view").await;
    assert_eq!((status, code_of(&body)), (StatusCode::CONFLICT, "carer_exists"));
    let (status, body) = invite(&server, &owner, grandpa, "kim@example.org", "boss").await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "role_invalid")
    );
    let (status, body) = invite(&server, &owner, grandpa, "not an address", "view").await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "email_invalid")
    );

    // A pending address invited again gets a new link; the old one stops working.
    let (status, _) = invite(&server, &owner, grandpa, "sam@example.org", "view").await;
    assert_eq!(status, StatusCode::CREATED);
    let first = invitation_token(&smtp, "sam@example.org", 1);
    common::save_settings(&server, &owner, json!({ "language": "de" })).await;
    let (status, again) = invite(&server, &owner, grandpa, "sam@example.org", "record").await;
    assert_eq!(status, StatusCode::CREATED);
    let second = invitation_token(&smtp, "sam@example.org", 2);
    // (The second mail went out after the owner switched the app to German.)
    let german = smtp
        .messages()
        .into_iter()
        .find(|m| m.to.contains("sam@example.org") && m.text.contains(&second))
        .unwrap();
    assert!(
        german
            .text
            .starts_with("Eva Lind lädt Sie ein, bei den Medikamenten von Grandpa Jo in Pillbox zu helfen."),
        "{}",
        german.text
    );
    assert_ne!(first, second);
    let (_, listed) = get_json(&server, &format!("/api/people/{grandpa}/carers"), Some(&owner)).await;
    assert_eq!(
        listed["data"].as_array().unwrap().len(),
        2,
        "still one row for the address"
    );
    assert_eq!(again["data"]["role"], json!("record"));
    let (status, _) = get_json(&server, &format!("/api/invitations/{first}"), Some(&stranger)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "the first link was replaced");

    // An invitation expires after 7 days.
    common::advance_clock(&server, 7 * 24 * 3600 + 60).await;
    let (status, body) = get_json(&server, &format!("/api/invitations/{second}"), Some(&stranger)).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "invitation_not_found")
    );
    let (status, _) = accept(&server, &stranger, &second).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // Revoking ends the carer's access to the person.
    let his_medications = format!("/api/medications?person_id={grandpa}");
    let (status, _) = get_json(&server, &his_medications, Some(&carer)).await;
    assert_eq!(status, StatusCode::OK, "a carer reads the person's medications");
    let (status, body) = call(&server, Method::DELETE, &role_path, Some(&owner), None).await;
    assert_eq!(
        (status, &body["message"]),
        (StatusCode::OK, &json!("Carer removed"))
    );
    assert_eq!(people(&server, &carer).await.len(), 1);
    let (status, body) = get_json(&server, &his_medications, Some(&carer)).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "person_not_found")
    );
    let (status, body) = get_json(&server, &format!("/api/people/{grandpa}/audit"), Some(&carer)).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "person_not_found")
    );

    // Invited again, the carer accepts and then leaves by themself.
    let (status, body) = invite(&server, &owner, grandpa, "kim@example.org", "view").await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let again = invitation_token(&smtp, "kim@example.org", 2);
    let (status, body) = accept(&server, &carer, &again).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let own_row = body["data"]["carer_id"].as_i64().unwrap();
    let (status, _) = call(
        &server,
        Method::DELETE,
        &format!("/api/people/{grandpa}/carers/{own_row}"),
        Some(&stranger),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND, "a stranger cannot end it");
    let (status, body) = call(
        &server,
        Method::DELETE,
        &format!("/api/people/{grandpa}/carers/{own_row}"),
        Some(&carer),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(people(&server, &carer).await.len(), 1);

    // The audit list, newest first, names who did each.
    assert_eq!(
        audit_actions(&server, &owner, grandpa).await,
        [
            "carer.left",
            "carer.accepted",
            "carer.invited",
            "carer.revoked",
            "carer.invited",
            "carer.invited",
            "carer.role_changed",
            "carer.accepted",
            "carer.invited",
        ]
    );
    let (_, body) = get_json(
        &server,
        &format!("/api/people/{grandpa}/audit?limit=2&offset=1"),
        Some(&owner),
    )
    .await;
    let page = body["data"].as_array().unwrap();
    assert_eq!(page.len(), 2);
    assert_eq!(
        (&page[0]["action"], &page[0]["actor_name"], &page[0]["subject"]),
        (&json!("carer.accepted"), &json!("Kim Berg"), &json!("Kim Berg"))
    );
    let (status, _) = get_json(
        &server,
        &format!("/api/people/{grandpa}/audit?limit=0"),
        Some(&owner),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

/// A server without e-mail: invitations are shared by their link (`invite_url`).
fn server_without_mail() -> Server {
    Server::start_with(common::with_test_clock)
}

#[tokio::test]
async fn signing_in_with_an_invitation_to_the_same_address_proves_it() {
    let smtp = SmtpSink::start();
    let server = Server::start_with(|c| {
        smtp.configure(c);
        c.env("PILLBOX_PUBLIC_URL", PUBLIC_URL);
        c.env("PILLBOX_SIGNUPS", "open");
    });
    let owner = common::verified_account(&server, "eva@example.org").await;
    let grandpa = new_person(&server, &owner, "Grandpa Jo").await;
    // Two accounts that registered on their own and never opened their verification mail.
    for email in ["kim@example.org", "lee@example.org"] {
        let (status, body) = post(
            &server,
            "/api/auth/register",
            None,
            json!({ "email": email, "password": PASSWORD }),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let sign_in = |email: &'static str, invitation: Option<String>| {
        let server = &server;
        async move {
            post(
                server,
                "/api/auth/login",
                None,
                json!({ "email": email, "password": PASSWORD, "invitation": invitation }),
            )
            .await
        }
    };
    let (status, body) = sign_in("kim@example.org", None).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::FORBIDDEN, "email_not_verified")
    );

    let (status, body) = invite(&server, &owner, grandpa, "kim@example.org", "view").await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let token = invitation_token(&smtp, "kim@example.org", 1);

    // Kim's invitation proves nothing about Lee's address.
    let (status, body) = sign_in("lee@example.org", Some(token.clone())).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::FORBIDDEN, "email_not_verified")
    );
    // Signed in from the invitation, Kim's address is verified: no verification asked, now
    // or later.
    let (status, body) = sign_in("kim@example.org", Some(token.clone())).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["user"]["emailVerified"], true);
    let carer = body["data"]["token"].as_str().unwrap().to_owned();
    let (status, body) = accept(&server, &carer, &token).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = sign_in("kim@example.org", None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // A used invitation verifies nobody.
    let (status, body) = sign_in("lee@example.org", Some(token)).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::FORBIDDEN, "email_not_verified")
    );
}

/// Invites `email` to `person` with `role` and has it accept: the address registers (allowed
/// by the invitation), names itself and accepts. Returns its token and carers row id.
async fn carer_by_link(
    server: &Server,
    owner: &str,
    person: i64,
    email: &str,
    role: &str,
    name: (&str, &str),
) -> (String, i64) {
    let (status, body) = invite(server, owner, person, email, role).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let link = body["data"]["invite_url"].as_str().unwrap().to_owned();
    let invitation = link.rsplit('/').next().unwrap();
    // Sign-ups are closed past the first account: the invitation's link opens them.
    let (status, body) = post(
        server,
        "/api/auth/register",
        None,
        json!({ "email": email, "password": PASSWORD, "invitation": invitation }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let token = body["data"]["token"].as_str().unwrap().to_owned();
    set_name(server, &token, name.0, name.1).await;
    let (status, body) = accept(server, &token, invitation).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    (token, body["data"]["carer_id"].as_i64().unwrap())
}

/// A daily medication at 08:00 and 20:00 for a person (None: the account holder).
async fn medication(server: &Server, token: &str, name: &str, person: Option<i64>) -> i64 {
    let mut body = json!({
        "name": name, "unit": "mg", "default_quantity": 1, "frequency": "daily",
        "schedule": { "times": ["08:00", "20:00"] },
    });
    if let Some(person) = person {
        body["person_id"] = json!(person);
    }
    let (status, body) = post(server, "/api/medications", Some(token), body).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"]["id"].as_i64().unwrap()
}

async fn log_dose(server: &Server, token: &str, medication: i64) {
    let (status, body) = post(
        server,
        &format!("/api/medications/{medication}/doses"),
        Some(token),
        json!({ "status": "taken" }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
}

/// How many reminders are planned for a medication.
async fn planned(server: &Server, token: &str, medication: i64) -> usize {
    let (status, body) = get_json(
        server,
        "/api/notifications?status=scheduled&limit=200",
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["medication_id"] == json!(medication))
        .count()
}

async fn history_total(server: &Server, token: &str, query: &str) -> i64 {
    let (status, body) = get_json(server, &format!("/api/medications/history?{query}"), Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["pagination"]["total_exact"], json!(true));
    body["pagination"]["total"].as_i64().unwrap()
}

#[tokio::test]
async fn an_archived_person_gets_no_reminders_and_deleting_one_takes_their_data_with_them() {
    let server = server_without_mail();
    let owner = common::register(&server, "eva@example.org").await;
    let me = people(&server, &owner).await[0]["id"].as_i64().unwrap();
    let grandpa = new_person(&server, &owner, "Grandpa Jo").await;
    let his = medication(&server, &owner, "Digoxin", Some(grandpa)).await;
    let mine = medication(&server, &owner, "Aspirin", None).await;
    log_dose(&server, &owner, his).await;
    log_dose(&server, &owner, mine).await;
    assert!(planned(&server, &owner, his).await > 0);
    let mine_planned = planned(&server, &owner, mine).await;
    assert!(mine_planned > 0);

    let path = format!("/api/people/{grandpa}");
    let (status, body) = call(
        &server,
        Method::PUT,
        &path,
        Some(&owner),
        Some(json!({ "archived": true })),
    )
    .await;
    assert_eq!(
        (status, &body["data"]["archived"]),
        (StatusCode::OK, &json!(true)),
        "{body}"
    );
    assert_eq!(
        planned(&server, &owner, his).await,
        0,
        "archiving takes the planned reminders away"
    );
    assert_eq!(planned(&server, &owner, mine).await, mine_planned);
    let (_, today) = get_json(&server, "/api/medications/today", Some(&owner)).await;
    assert!(
        today["data"]["doses"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["person_id"] != json!(grandpa)),
        "left out of Today: {today}"
    );
    // The data stays readable.
    let (status, listed) = get_json(
        &server,
        &format!("/api/medications?person_id={grandpa}"),
        Some(&owner),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{listed}");
    assert_eq!(listed["data"][0]["id"], json!(his));
    // Changing his medication plans nothing either.
    let (status, body) = call(
        &server,
        Method::PUT,
        &format!("/api/medications/{his}"),
        Some(&owner),
        Some(json!({ "schedule": { "times": ["09:00"] } })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(planned(&server, &owner, his).await, 0);
    // A day later the daily top-up still plans nothing for him.
    common::advance_clock(&server, 24 * 3600).await;
    assert_eq!(planned(&server, &owner, his).await, 0);

    let (status, body) = call(
        &server,
        Method::PUT,
        &path,
        Some(&owner),
        Some(json!({ "archived": false, "name": "Jo" })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (&body["data"]["archived"], &body["data"]["name"]),
        (&json!(false), &json!("Jo"))
    );
    assert!(
        planned(&server, &owner, his).await > 0,
        "brought back, planned again"
    );

    // The account holder is neither archived nor deleted here.
    let own = format!("/api/people/{me}");
    let (status, body) = call(
        &server,
        Method::PUT,
        &own,
        Some(&owner),
        Some(json!({ "archived": true })),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "person_is_account_holder")
    );
    let (status, body) = call(&server, Method::DELETE, &own, Some(&owner), None).await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::BAD_REQUEST, "person_is_account_holder")
    );

    // Deleting him takes his medications, reminders and history; the counts follow.
    // (The day that passed left missed doses of the account holder's in the history.)
    let all = history_total(&server, &owner, "").await;
    let his_entries = history(&server, &owner, grandpa).await.len() as i64;
    assert_eq!(his_entries, 1);
    let mine_entries = history_total(&server, &owner, &format!("medicationId={mine}")).await;
    assert_eq!(all, mine_entries + his_entries);
    assert_eq!(history_total(&server, &owner, "status=taken").await, 2);
    let (status, body) = call(&server, Method::DELETE, &path, Some(&owner), None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        people(&server, &owner)
            .await
            .iter()
            .all(|p| p["id"] != json!(grandpa))
    );
    let (status, _) = get_json(&server, &format!("/api/medications/{his}"), Some(&owner)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(planned(&server, &owner, his).await, 0);
    assert_eq!(history_total(&server, &owner, "").await, mine_entries);
    assert_eq!(history_total(&server, &owner, "status=taken").await, 1);
    assert_eq!(
        history_total(&server, &owner, &format!("medicationId={mine}")).await,
        mine_entries
    );
    // His medication is gone: filtering by it is not found, as its own routes answer.
    let (status, body) = get_json(
        &server,
        &format!("/api/medications/history?medicationId={his}"),
        Some(&owner),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "medication_not_found")
    );
    let (status, _) = call(&server, Method::DELETE, &path, Some(&owner), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

async fn export(server: &Server, token: &str) -> Value {
    let response = common::client()
        .get(server.url("/api/export"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    serde_json::from_str(&response.text().await.unwrap()).unwrap()
}

async fn import(server: &Server, token: &str, file: &Value) -> Value {
    let response = common::client()
        .post(server.url("/api/import"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(file.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status();
    let body: Value = response.json().await.unwrap();
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].clone()
}

async fn history(server: &Server, token: &str, person: i64) -> Vec<Value> {
    let (status, body) = get_json(
        server,
        &format!("/api/medications/history?person_id={person}&limit=100"),
        Some(token),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn export_and_import_carry_the_people_and_who_logged_each_dose() {
    let server = server_without_mail();
    let owner = common::register(&server, "eva@example.org").await;
    let grandpa = new_person(&server, &owner, "Grandpa Jo").await;
    let aunt = new_person(&server, &owner, "Aunt May").await;
    let his = medication(&server, &owner, "Digoxin", Some(grandpa)).await;
    let hers = medication(&server, &owner, "Digoxin", Some(aunt)).await;
    medication(&server, &owner, "Aspirin", None).await;
    let (carer, _) = carer_by_link(
        &server,
        &owner,
        grandpa,
        "kim@example.org",
        "record",
        ("Kim", "Berg"),
    )
    .await;
    log_dose(&server, &carer, his).await;
    log_dose(&server, &owner, hers).await;
    let (status, _) = call(
        &server,
        Method::PUT,
        &format!("/api/people/{aunt}"),
        Some(&owner),
        Some(json!({ "archived": true })),
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    let file = export(&server, &owner).await;
    assert_eq!(file["version"], json!("1.2.0"));
    let names: Vec<(&Value, &Value, &Value)> = file["people"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (&p["name"], &p["is_self"], &p["archived"]))
        .collect();
    assert_eq!(
        names,
        [
            (&json!("eva@example.org"), &json!(true), &json!(false)),
            (&json!("Aunt May"), &json!(false), &json!(true)),
            (&json!("Grandpa Jo"), &json!(false), &json!(false)),
        ]
    );
    assert!(
        file.to_string().find("kim@example.org").is_none(),
        "carers are not exported"
    );
    let entry = file["history"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["medication_id"] == json!(his))
        .unwrap();
    assert_eq!(
        (&entry["person_id"], &entry["logged_by_name"]),
        (&json!(grandpa), &json!("Kim Berg"))
    );

    // Into another account (the invitation let Kim register; this one is made by the CLI).
    let other = common::verified_account(&server, "lee@example.org").await;
    let summary = import(&server, &other, &file).await;
    assert_eq!(summary["people"], json!({ "added": 2, "skipped": 0 }));
    assert_eq!(summary["medications"]["added"], json!(3));
    let theirs = people(&server, &other).await;
    assert_eq!(theirs.len(), 3);
    assert_eq!(
        (&theirs[0]["is_self"], &theirs[0]["name"]),
        (&json!(true), &json!("lee@example.org"))
    );
    let new_grandpa = theirs.iter().find(|p| p["name"] == json!("Grandpa Jo")).unwrap();
    let new_aunt = theirs.iter().find(|p| p["name"] == json!("Aunt May")).unwrap();
    assert_eq!(
        (&new_grandpa["archived"], &new_aunt["archived"]),
        (&json!(false), &json!(true))
    );
    let his_history = history(&server, &other, new_grandpa["id"].as_i64().unwrap()).await;
    assert_eq!(his_history.len(), 1);
    assert_eq!(his_history[0]["medication_name"], json!("Digoxin"));
    assert_eq!(
        his_history[0]["logged_by"],
        json!({ "user_id": null, "name": "Kim Berg" })
    );
    let (_, listed) = get_json(
        &server,
        &format!("/api/medications?person_id={}", new_aunt["id"]),
        Some(&other),
    )
    .await;
    assert_eq!(
        listed["data"].as_array().unwrap().len(),
        1,
        "her Digoxin stays hers: {listed}"
    );
    let new_his = his_history[0]["medication_id"].as_i64().unwrap();
    assert!(planned(&server, &other, new_his).await > 0, "reminders planned");

    // Importing it again adds nothing.
    let again = import(&server, &other, &file).await;
    assert_eq!(again["people"], json!({ "added": 0, "skipped": 2 }));
    assert_eq!(again["medications"], json!({ "added": 0, "skipped": 3 }));
    assert_eq!(again["history"]["added"], json!(0));

    // The history CSV names the person (empty for the account holder) and who logged it;
    // imported elsewhere, it brings the people along.
    let response = common::client()
        .get(server.url("/api/export?format=csv"))
        .bearer_auth(&owner)
        .send()
        .await
        .unwrap();
    let csv = response.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "date,time,medication,quantity,unit,status,note,taken_at,person,logged_by"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains(",Digoxin,") && l.ends_with(",Grandpa Jo,Kim Berg")),
        "{csv}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains(",Digoxin,") && l.ends_with(",Aunt May,eva@example.org")),
        "{csv}"
    );
    let third = common::verified_account(&server, "max@example.org").await;
    let response = common::client()
        .post(server.url("/api/import"))
        .bearer_auth(&third)
        .header("content-type", "text/csv")
        .body(csv.clone())
        .send()
        .await
        .unwrap();
    let imported: Value = response.json().await.unwrap();
    assert_eq!(
        imported["data"]["people"],
        json!({ "added": 2, "skipped": 0 }),
        "{imported}"
    );
    let from_csv = people(&server, &third).await;
    let csv_grandpa = from_csv
        .iter()
        .find(|p| p["name"] == json!("Grandpa Jo"))
        .unwrap();
    let entries = history(&server, &third, csv_grandpa["id"].as_i64().unwrap()).await;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["logged_by"]["name"], json!("Kim Berg"));
    let response = common::client()
        .post(server.url("/api/import"))
        .bearer_auth(&third)
        .header("content-type", "text/csv")
        .body(csv)
        .send()
        .await
        .unwrap();
    let again: Value = response.json().await.unwrap();
    assert_eq!(
        again["data"]["people"],
        json!({ "added": 0, "skipped": 2 }),
        "{again}"
    );
    assert_eq!(again["data"]["history"]["added"], json!(0), "{again}");

    // A file from before the care circle puts everything on the account holder.
    let old = json!({
        "version": "1.0.0",
        "medications": [{ "id": 1, "name": "Ramipril", "unit": "mg", "frequency": "daily", "default_quantity": 5 }],
        "history": [{ "medication_id": 1, "quantity": 5, "unit": "mg", "status": "taken", "taken": "2026-01-02T08:00:00Z" }],
    });
    let summary = import(&server, &other, &old).await;
    assert_eq!(summary["people"], json!({ "added": 0, "skipped": 0 }));
    let holder = theirs[0]["id"].as_i64().unwrap();
    assert!(
        history(&server, &other, holder)
            .await
            .iter()
            .any(|e| e["medication_name"] == json!("Ramipril"))
    );
    assert_eq!(people(&server, &other).await.len(), 3);
}

#[tokio::test]
async fn deleting_a_carers_account_keeps_the_owners_data_and_deleting_the_owners_ends_every_carers_access() {
    let server = server_without_mail();
    let owner = common::register(&server, "eva@example.org").await;
    let grandpa = new_person(&server, &owner, "Grandpa Jo").await;
    let his = medication(&server, &owner, "Digoxin", Some(grandpa)).await;
    let (kim, _) = carer_by_link(
        &server,
        &owner,
        grandpa,
        "kim@example.org",
        "record",
        ("Kim", "Berg"),
    )
    .await;
    let (ann, _) = carer_by_link(
        &server,
        &owner,
        grandpa,
        "ann@example.org",
        "view",
        ("Ann", "Roe"),
    )
    .await;
    log_dose(&server, &kim, his).await;
    let logged = history(&server, &owner, grandpa).await;
    assert_eq!(logged[0]["logged_by"]["name"], json!("Kim Berg"));
    assert!(logged[0]["logged_by"]["user_id"].is_i64());

    // Kim deletes their account: the dose, its "given by" and the audit list stay.
    let (status, body) = call(
        &server,
        Method::DELETE,
        "/api/auth/me",
        Some(&kim),
        Some(json!({ "password": PASSWORD })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let kept = history(&server, &owner, grandpa).await;
    assert_eq!(kept.len(), 1);
    assert_eq!(
        kept[0]["logged_by"],
        json!({ "user_id": null, "name": "Kim Berg" })
    );
    let (_, listed) = get_json(
        &server,
        &format!("/api/medications?person_id={grandpa}"),
        Some(&owner),
    )
    .await;
    assert_eq!(listed["data"][0]["id"], json!(his));
    let (_, carers) = get_json(&server, &format!("/api/people/{grandpa}/carers"), Some(&owner)).await;
    let emails: Vec<&Value> = carers["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["email"])
        .collect();
    assert_eq!(
        emails,
        [&json!("ann@example.org")],
        "Kim's row went with the account"
    );
    let (_, audit) = get_json(&server, &format!("/api/people/{grandpa}/audit"), Some(&owner)).await;
    assert!(
        audit["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["actor_name"] == json!("Kim Berg") && l["action"] == json!("dose.logged")),
        "{audit}"
    );

    // Eva deletes hers: Ann no longer reaches Grandpa or anything of his.
    assert_eq!(people(&server, &ann).await.len(), 2);
    let (status, _) = get_json(
        &server,
        &format!("/api/medications?person_id={grandpa}"),
        Some(&ann),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = call(
        &server,
        Method::DELETE,
        "/api/auth/me",
        Some(&owner),
        Some(json!({ "password": PASSWORD })),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let left = people(&server, &ann).await;
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["is_self"], json!(true));
    let (status, body) = get_json(
        &server,
        &format!("/api/medications?person_id={grandpa}"),
        Some(&ann),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "person_not_found")
    );
    let (status, _) = get_json(&server, &format!("/api/medications/{his}"), Some(&ann)).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, today) = get_json(&server, "/api/medications/today", Some(&ann)).await;
    assert_eq!(today["data"]["doses"], json!([]));
}

/// One page of a history the signed-in person can see (`query` may name a person).
async fn history_page(server: &Server, token: &str, query: &str) -> (StatusCode, Value) {
    get_json(
        server,
        &format!("/api/medications/history?limit=100{query}"),
        Some(token),
    )
    .await
}

/// `(medication, person)` names of a history page's entries, sorted.
fn whose(page: &Value) -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> = page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["medication_name"].as_str().unwrap().to_owned(),
                e["person_name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    names.sort();
    names
}

/// `(medication, person, taken in the last 7 days)` of an adherence answer, sorted.
fn adherence_of(body: &Value) -> Vec<(String, String, i64)> {
    let mut rows: Vec<(String, String, i64)> = body["data"]["medications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_owned(),
                m["person_name"].as_str().unwrap().to_owned(),
                m["last7"]["taken"].as_i64().unwrap(),
            )
        })
        .collect();
    rows.sort();
    rows
}

fn named(rows: &[(&str, &str)]) -> Vec<(String, String)> {
    rows.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

/// Eva, who takes Aspirin and looks after Grandpa Jo (Digoxin), each with a dose logged;
/// Kim, Grandpa's carer with the view role; Sam, a stranger to both with a dose of Insulin.
struct Circle {
    server: Server,
    owner: String,
    grandpa: i64,
    his: i64,
    evas: i64,
    carer: String,
    stranger: String,
    sams: i64,
    sam: i64,
}

async fn eva_kim_and_sam() -> Circle {
    let server = server_without_mail();
    let owner = common::register(&server, "eva@example.org").await;
    let grandpa = new_person(&server, &owner, "Grandpa Jo").await;
    let his = medication(&server, &owner, "Digoxin", Some(grandpa)).await;
    let evas = medication(&server, &owner, "Aspirin", None).await;
    log_dose(&server, &owner, his).await;
    log_dose(&server, &owner, evas).await;
    let (carer, _) = carer_by_link(
        &server,
        &owner,
        grandpa,
        "kim@example.org",
        "view",
        ("Kim", "Berg"),
    )
    .await;
    let stranger = common::verified_account(&server, "sam@example.org").await;
    let sams = medication(&server, &stranger, "Insulin", None).await;
    log_dose(&server, &stranger, sams).await;
    let sam = people(&server, &stranger).await[0]["id"].as_i64().unwrap();
    Circle {
        server,
        owner,
        grandpa,
        his,
        evas,
        carer,
        stranger,
        sams,
        sam,
    }
}

#[tokio::test]
async fn a_carers_history_and_adherence_show_the_people_they_care_for_and_no_one_else() {
    let Circle {
        server,
        owner,
        grandpa,
        his,
        carer,
        sam,
        ..
    } = eva_kim_and_sam().await;
    set_name(&server, &owner, "Eva", "Lind").await;
    let eva = people(&server, &owner).await[0]["id"].as_i64().unwrap();
    // Kim keeps her own medicine too.
    let kims = medication(&server, &carer, "Vitamin D", None).await;
    log_dose(&server, &carer, kims).await;

    // Without a person: Kim's own dose and Grandpa's, each with whose it is; never Eva's or
    // the stranger's.
    let (status, page) = history_page(&server, &carer, "").await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(
        whose(&page),
        named(&[("Digoxin", "Grandpa Jo"), ("Vitamin D", "Kim Berg")])
    );
    assert_eq!(
        (&page["pagination"]["total"], &page["pagination"]["pages"]),
        (&json!(2), &json!(1))
    );
    let (_, taken) = history_page(&server, &carer, "&status=taken").await;
    assert_eq!(taken["pagination"]["total"], json!(2), "{taken}");
    let (_, one_medication) = history_page(&server, &carer, &format!("&medicationId={his}")).await;
    assert_eq!(whose(&one_medication), named(&[("Digoxin", "Grandpa Jo")]));
    let (_, paged) = get_json(&server, "/api/medications/history?limit=1&page=2", Some(&carer)).await;
    assert_eq!(
        (
            paged["data"].as_array().unwrap().len(),
            &paged["pagination"]["total"]
        ),
        (1, &json!(2)),
        "{paged}"
    );

    // One person: only theirs; a person Kim cannot see is not found.
    let (_, his_only) = history_page(&server, &carer, &format!("&person_id={grandpa}")).await;
    assert_eq!(whose(&his_only), named(&[("Digoxin", "Grandpa Jo")]));
    for hidden in [eva, sam] {
        let (status, body) = history_page(&server, &carer, &format!("&person_id={hidden}")).await;
        assert_eq!(
            (status, code_of(&body)),
            (StatusCode::NOT_FOUND, "person_not_found")
        );
    }

    // The adherence chart covers the same people.
    let (status, body) = get_json(&server, "/api/medications/adherence", Some(&carer)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        adherence_of(&body),
        [
            ("Digoxin".to_owned(), "Grandpa Jo".to_owned(), 1),
            ("Vitamin D".to_owned(), "Kim Berg".to_owned(), 1)
        ]
    );
    let taken_by_day: i64 = body["data"]["daily"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["taken"].as_i64().unwrap())
        .sum();
    assert_eq!(taken_by_day, 2, "{body}");
    let (_, body) = get_json(
        &server,
        &format!("/api/medications/adherence?person_id={grandpa}"),
        Some(&carer),
    )
    .await;
    assert_eq!(
        adherence_of(&body),
        [("Digoxin".to_owned(), "Grandpa Jo".to_owned(), 1)]
    );
    let (status, body) = get_json(
        &server,
        &format!("/api/medications/adherence?person_id={sam}"),
        Some(&carer),
    )
    .await;
    assert_eq!(
        (status, code_of(&body)),
        (StatusCode::NOT_FOUND, "person_not_found")
    );

    // The owner still sees her own people's doses, not her carer's.
    let (_, page) = history_page(&server, &owner, "").await;
    assert_eq!(
        whose(&page),
        named(&[("Aspirin", "Eva Lind"), ("Digoxin", "Grandpa Jo")])
    );
}

#[tokio::test]
async fn another_accounts_ids_in_a_history_filter_are_not_found_and_a_carer_still_sees_their_persons() {
    let Circle {
        server,
        owner,
        grandpa,
        his,
        evas,
        carer,
        stranger,
        sams,
        sam,
    } = eva_kim_and_sam().await;

    // Another account's medication, as a filter of the whole history or of one medication's,
    // is not found, as its own routes answer: never an empty page that looks like no doses.
    let not_yours = [
        (&stranger, format!("/api/medications/history?medicationId={his}")),
        (&stranger, format!("/api/medications/history?medicationId={evas}")),
        (&carer, format!("/api/medications/history?medicationId={evas}")),
        (&carer, format!("/api/medications/history?medicationId={sams}")),
        (&owner, format!("/api/medications/history?medicationId={sams}")),
        (
            &owner,
            format!("/api/medications/{evas}/history?medicationId={sams}"),
        ),
        (
            &carer,
            format!("/api/medications/{his}/history?medicationId={evas}"),
        ),
    ];
    for (token, path) in &not_yours {
        let (status, body) = get_json(&server, path, Some(token)).await;
        assert_eq!(
            (status, code_of(&body)),
            (StatusCode::NOT_FOUND, "medication_not_found"),
            "{path}: {body}"
        );
    }
    // So is another account's person named beside a medication one may see.
    for path in [
        format!("/api/medications/history?medicationId={his}&person_id={sam}"),
        format!("/api/medications/{his}/history?person_id={sam}"),
    ] {
        let (status, body) = get_json(&server, &path, Some(&carer)).await;
        assert_eq!(
            (status, code_of(&body)),
            (StatusCode::NOT_FOUND, "person_not_found"),
            "{path}: {body}"
        );
    }

    // A carer filtering by the medication of the person they care for sees its doses.
    let (status, page) = history_page(&server, &carer, &format!("&medicationId={his}")).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(whose(&page), named(&[("Digoxin", "Grandpa Jo")]));
    assert_eq!(page["pagination"]["total"], json!(1), "{page}");
    let (status, page) = history_page(
        &server,
        &carer,
        &format!("&medicationId={his}&person_id={grandpa}"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(whose(&page), named(&[("Digoxin", "Grandpa Jo")]));
    // And the owner, her own.
    let (status, page) = history_page(&server, &owner, &format!("&medicationId={evas}")).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["data"].as_array().unwrap().len(), 1, "{page}");
    assert_eq!(page["data"][0]["medication_name"], json!("Aspirin"), "{page}");
}
