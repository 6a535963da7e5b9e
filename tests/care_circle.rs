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

/// Registers an address through the API and confirms it with the mailed link; signs in.
async fn register_by_mail(server: &Server, smtp: &SmtpSink, email: &str) -> String {
    let before = smtp.count_for(email);
    let (status, body) = post(
        server,
        "/api/auth/register",
        None,
        json!({ "email": email, "password": PASSWORD }),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let mail = smtp.wait_for(email, before + 1);
    let token = mail
        .text
        .split("/verify-email/")
        .nth(1)
        .expect("a verification mail")
        .split_whitespace()
        .next()
        .unwrap()
        .to_owned();
    let (status, _) = get_json(server, &format!("/api/auth/verify-email/{token}"), None).await;
    assert_eq!(status, StatusCode::OK);
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
    let carer = register_by_mail(&server, &smtp, "kim@example.org").await;
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
    let (status, again) = invite(&server, &owner, grandpa, "sam@example.org", "record").await;
    assert_eq!(status, StatusCode::CREATED);
    let second = invitation_token(&smtp, "sam@example.org", 2);
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
    let (status, body) = call(&server, Method::DELETE, &role_path, Some(&owner), None).await;
    assert_eq!(
        (status, &body["message"]),
        (StatusCode::OK, &json!("Carer removed"))
    );
    assert_eq!(people(&server, &carer).await.len(), 1);
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
