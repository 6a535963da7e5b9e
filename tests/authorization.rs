//! The authorization matrix of the care circle (issue 16): every route of the OpenAPI
//! document, tried by the person's owner, by carers with the roles manage, record and view,
//! and by a stranger. A route the table below does not name fails the test, so a new route
//! cannot be added without deciding who may use it.

mod common;

use std::collections::BTreeSet;

use common::{Server, call, get_json, post, register};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

/// The five kinds of caller, most powerful first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Who {
    Stranger,
    View,
    Record,
    Manage,
    Owner,
}

const EVERYONE: [Who; 5] = [Who::Owner, Who::Manage, Who::Record, Who::View, Who::Stranger];

/// Who may use a route, and what the others get.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// The person's data (medications, doses, stock, history): allowed from this role up,
    /// 403 below it for a carer, who can see the person, and 404 for a stranger.
    Person(Who),
    /// The person's owner only: carers 403, a stranger 404.
    Owner,
    /// Something of the owner's account that is not the person's data (a reminder, its
    /// delivery preferences): the owner only, and 404 for everyone else, carers included.
    OwnerObject,
    /// Acts on the caller's own account and names nobody else's id: each caller gets their
    /// own answer, never a 401, 403, 404 or 5xx.
    OwnAccount,
    /// Needs no sign-in (public facts, or a secret token in the path); not a matter of roles.
    Public,
    /// Ends the caller's session or account, or names a file only the server writes; not
    /// called here, for the reason given, where another test covers it.
    NotCalled(&'static str),
}

/// One route as the matrix tries it.
struct Case {
    rule: Rule,
    /// The path with its parameters filled in.
    path: String,
    body: Option<Value>,
    /// What to make fresh for each allowed caller, for routes that delete what they name.
    fresh: Fresh,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Fresh {
    Nothing,
    Medication,
    /// A stock batch (`{batchId}`) of a medication (`{id}`).
    Batch,
    Entry,
    Person,
    Invitation,
    Reminder,
    Channel,
}

struct Fixture {
    person: i64,
    medication: i64,
    entry: i64,
    reminder: i64,
    view_carer: i64,
    channel: i64,
    /// A medication whose stock is in batches, and one of its batches.
    batch_medication: i64,
    batch: i64,
}

fn case(method: &Method, path: &str, f: &Fixture) -> Option<Case> {
    use Rule::*;
    let m = f.medication;
    let p = f.person;
    let person_query = |base: &str| format!("{base}?person_id={p}");
    let (rule, path, body, fresh): (Rule, String, Option<Value>, Fresh) = match (method.as_str(), path) {
        // --- the person's data ---
        ("GET", "/api/medications") => (Person(Who::View), person_query(path), None, Fresh::Nothing),
        ("POST", "/api/medications") => (
            Person(Who::Manage),
            path.into(),
            Some(json!({"name": "Ibuprofen", "unit": "tablets", "person_id": p})),
            Fresh::Nothing,
        ),
        ("GET", "/api/medications/adherence")
        | ("GET", "/api/medications/history")
        | ("GET", "/api/medications/inventory/low-stock")
        | ("GET", "/api/medications/today") => (Person(Who::View), person_query(path), None, Fresh::Nothing),
        ("GET", "/api/medications/{id}")
        | ("GET", "/api/medications/{id}/history")
        | ("GET", "/api/medications/{id}/inventory")
        | ("GET", "/api/medications/{id}/inventory/ledger") => (
            Person(Who::View),
            path.replace("{id}", &m.to_string()),
            None,
            Fresh::Nothing,
        ),
        ("POST", "/api/medications/{id}/doses") => (
            Person(Who::Record),
            path.replace("{id}", &m.to_string()),
            Some(json!({"status": "taken"})),
            Fresh::Nothing,
        ),
        ("PUT", "/api/medications/history/{id}") => (
            Person(Who::Record),
            path.replace("{id}", &f.entry.to_string()),
            Some(json!({"dosage": "with food"})),
            Fresh::Nothing,
        ),
        ("DELETE", "/api/medications/history/{id}") => (Person(Who::Record), path.into(), None, Fresh::Entry),
        ("PUT", "/api/medications/{id}") => (
            Person(Who::Manage),
            path.replace("{id}", &m.to_string()),
            Some(json!({"notes": "after breakfast"})),
            Fresh::Nothing,
        ),
        ("DELETE", "/api/medications/{id}") => (Person(Who::Manage), path.into(), None, Fresh::Medication),
        ("PUT", "/api/medications/{id}/inventory") | ("POST", "/api/medications/{id}/inventory") => (
            Person(Who::Manage),
            path.replace("{id}", &m.to_string()),
            Some(json!({"current_quantity": 40})),
            Fresh::Nothing,
        ),
        ("GET", "/api/medications/{id}/inventory/batches") => (
            Person(Who::View),
            path.replace("{id}", &f.batch_medication.to_string()),
            None,
            Fresh::Nothing,
        ),
        ("POST", "/api/medications/{id}/inventory/batches") => (
            Person(Who::Manage),
            path.into(),
            Some(json!({"quantity": 50, "expires_on": "2099-06-30"})),
            Fresh::Medication,
        ),
        ("PUT", "/api/medications/{id}/inventory/batches/{batchId}") => (
            Person(Who::Manage),
            path.into(),
            Some(json!({"lot": "B2"})),
            Fresh::Batch,
        ),
        ("DELETE", "/api/medications/{id}/inventory/batches/{batchId}") => {
            (Person(Who::Manage), path.into(), None, Fresh::Batch)
        }
        ("POST", "/api/medications/{id}/refill-ordered") => (
            Person(Who::Record),
            path.replace("{id}", &m.to_string()),
            Some(json!({})),
            Fresh::Nothing,
        ),
        ("POST", "/api/medications/{id}/inventory/adjust") => (
            Person(Who::Manage),
            path.replace("{id}", &m.to_string()),
            Some(json!({"adjustment": 1, "reason": "refill"})),
            Fresh::Nothing,
        ),
        // --- the person and their circle ---
        ("PUT", "/api/people/{id}") => (
            Owner,
            path.replace("{id}", &p.to_string()),
            Some(json!({"name": "Emma"})),
            Fresh::Nothing,
        ),
        ("DELETE", "/api/people/{id}") => (Owner, path.into(), None, Fresh::Person),
        ("GET", "/api/people/{id}/carers") | ("GET", "/api/people/{id}/audit") => {
            (Owner, path.replace("{id}", &p.to_string()), None, Fresh::Nothing)
        }
        ("POST", "/api/people/{id}/carers") => (
            Owner,
            path.replace("{id}", &p.to_string()),
            Some(json!({"email": "someone@example.com", "role": "view"})),
            Fresh::Nothing,
        ),
        ("PUT", "/api/people/{id}/carers/{carerId}") => (
            Owner,
            path.replace("{id}", &p.to_string())
                .replace("{carerId}", &f.view_carer.to_string()),
            Some(json!({"role": "view"})),
            Fresh::Nothing,
        ),
        // A carer may remove their own row (leave); another carer's is the owner's to revoke.
        ("DELETE", "/api/people/{id}/carers/{carerId}") => (Owner, path.into(), None, Fresh::Invitation),
        ("GET", "/api/people") | ("POST", "/api/people") => (
            OwnAccount,
            path.into(),
            (method == Method::POST).then(|| json!({"name": "Someone"})),
            Fresh::Nothing,
        ),
        ("GET", "/api/invitations/{token}")
        | ("GET", "/api/invitations/{token}/preview")
        | ("POST", "/api/invitations/{token}/accept") => (
            NotCalled("a secret token in the path, for the invited address only: tests/care_circle.rs"),
            path.into(),
            None,
            Fresh::Nothing,
        ),
        // --- the owner's reminders and their delivery, not the person's data ---
        // Each changes the reminder's state (cancelled, sent): the owner gets a fresh one.
        ("PUT", "/api/notifications/{id}") => (
            OwnerObject,
            path.into(),
            Some(json!({"reminder_minutes_before": 5})),
            Fresh::Reminder,
        ),
        ("DELETE", "/api/notifications/{id}") | ("POST", "/api/notifications/{id}/send") => {
            (OwnerObject, path.into(), None, Fresh::Reminder)
        }
        // A person's channels are theirs alone; carers never see them.
        ("GET", "/api/channels") | ("POST", "/api/channels") => (
            OwnAccount,
            path.into(),
            Some(json!({"kind": "ntfy", "config": {"server_url": "https://ntfy.example", "topic": "own"}})),
            Fresh::Nothing,
        ),
        ("PUT", "/api/channels/{id}") => (
            OwnerObject,
            path.into(),
            Some(json!({"name": "Renamed"})),
            Fresh::Channel,
        ),
        ("DELETE", "/api/channels/{id}")
        | ("POST", "/api/channels/{id}/test")
        | ("POST", "/api/channels/{id}/link") => (OwnerObject, path.into(), None, Fresh::Channel),
        ("GET", "/api/notifications/medications/{id}/preferences") => (
            OwnerObject,
            path.replace("{id}", &m.to_string()),
            None,
            Fresh::Nothing,
        ),
        ("PUT", "/api/notifications/medications/{id}/preferences") => (
            OwnerObject,
            path.replace("{id}", &m.to_string()),
            Some(json!({"enabled": true})),
            Fresh::Nothing,
        ),
        ("POST", "/api/notifications") => (
            OwnerObject,
            path.into(),
            Some(json!({"medication_id": m, "scheduled_time": in_a_month(8)})),
            Fresh::Nothing,
        ),
        ("POST", "/api/notifications/schedule-medication") => (
            OwnerObject,
            path.into(),
            Some(json!({"medication_id": m})),
            Fresh::Nothing,
        ),
        // --- the caller's own account ---
        ("GET", "/api/auth/me")
        | ("PUT", "/api/auth/me")
        | ("GET", "/api/auth/2fa/status")
        | ("POST", "/api/auth/refresh")
        | ("GET", "/api/backups")
        | ("GET", "/api/calendar/feed")
        | ("POST", "/api/calendar/feed")
        | ("DELETE", "/api/calendar/feed")
        | ("GET", "/api/export")
        | ("POST", "/api/import")
        | ("GET", "/api/medications/history/retention")
        | ("GET", "/api/notifications")
        | ("GET", "/api/notifications/history")
        | ("GET", "/api/notifications/preferences")
        | ("PUT", "/api/notifications/preferences")
        | ("GET", "/api/notifications/settings")
        | ("PUT", "/api/notifications/settings")
        | ("POST", "/api/notifications/push/register")
        | ("POST", "/api/notifications/push/unregister")
        | ("POST", "/api/notifications/push/status")
        | ("POST", "/api/notifications/test")
        | ("GET", "/api/report")
        | ("GET", "/api/settings")
        | ("PUT", "/api/settings")
        | ("POST", "/api/auth/2fa/backup-codes")
        | ("POST", "/api/auth/2fa/complete-totp-setup")
        | ("POST", "/api/auth/2fa/disable-method")
        | ("POST", "/api/auth/2fa/set-preference")
        | ("POST", "/api/auth/2fa/setup")
        | ("POST", "/api/auth/2fa/setup-email")
        | ("POST", "/api/auth/2fa/setup-totp") => (
            OwnAccount,
            path.into(),
            Some(own_body(method, path)),
            Fresh::Nothing,
        ),
        // API tokens are the caller's own; a token itself never reaches these (tests/api_tokens.rs).
        ("GET", "/api/tokens") | ("POST", "/api/tokens") => (
            OwnAccount,
            path.into(),
            Some(json!({"name": "Matrix", "scope": "read"})),
            Fresh::Nothing,
        ),
        // Passkeys are the caller's own (the matrix's server has a public_url, so it has them).
        ("GET", "/api/auth/passkeys") | ("POST", "/api/auth/passkeys/register/options") => (
            OwnAccount,
            path.into(),
            Some(json!({"password": "secret123"})),
            Fresh::Nothing,
        ),
        ("POST", "/api/auth/passkeys/register") => (
            OwnAccount,
            path.into(),
            Some(json!({"ceremony": "none", "name": "Matrix", "credential": {}})),
            Fresh::Nothing,
        ),
        ("DELETE", "/api/auth/passkeys/{id}") => (
            NotCalled(
                "deletes one of the caller's own passkeys, another account's id answers 404: tests/passkeys.rs",
            ),
            path.into(),
            None,
            Fresh::Nothing,
        ),
        ("DELETE", "/api/tokens/{id}") => (
            NotCalled(
                "revokes one of the caller's own tokens, another account's id answers 404: tests/api_tokens.rs",
            ),
            path.into(),
            None,
            Fresh::Nothing,
        ),
        // The caller's own linked identities; a token never reaches them (tests/oidc.rs).
        ("GET", "/api/auth/oidc/identities") => (OwnAccount, path.into(), None, Fresh::Nothing),
        ("DELETE", "/api/auth/oidc/identities/{id}") => (
            NotCalled(
                "unlinks one of the caller's own identities, another account's id answers 404: tests/oidc.rs",
            ),
            path.into(),
            None,
            Fresh::Nothing,
        ),
        ("GET", "/api/backups/{name}") => (
            NotCalled(
                "names a file in the caller's own backup folder, which only the server writes: tests/backup.rs",
            ),
            path.into(),
            None,
            Fresh::Nothing,
        ),
        ("POST", "/api/auth/logout")
        | ("POST", "/api/auth/logout-all")
        | ("POST", "/api/auth/change-password")
        | ("POST", "/api/auth/2fa/disable")
        | ("DELETE", "/api/auth/me") => (
            NotCalled("ends the caller's own session or account: tests/accounts.rs, tests/care_circle.rs"),
            path.into(),
            None,
            Fresh::Nothing,
        ),
        // --- no sign-in ---
        ("POST", "/api/auth/2fa/check-login-requirements")
        | ("POST", "/api/auth/2fa/generate-otp")
        | ("POST", "/api/auth/2fa/verify-otp")
        | ("POST", "/api/auth/login")
        | ("POST", "/api/auth/register")
        | ("GET", "/api/auth/registration")
        | ("GET", "/api/auth/providers")
        | ("GET", "/api/auth/oidc/start")
        | ("GET", "/api/auth/oidc/callback")
        | ("POST", "/api/auth/oidc/exchange")
        | ("POST", "/api/auth/oidc/link/open")
        | ("POST", "/api/auth/oidc/link")
        | ("POST", "/api/auth/passkeys/login/options")
        | ("POST", "/api/auth/passkeys/login")
        | ("POST", "/api/auth/proxy-session")
        | ("POST", "/api/auth/forgot-password")
        | ("POST", "/api/auth/reset-password")
        | ("POST", "/api/auth/resend-verification")
        | ("GET", "/api/auth/verify-email/{token}")
        | ("GET", "/api/calendar/{file}")
        | ("GET", "/api/notifications/push/public-key")
        | ("GET", "/api/notifications/take/{token}")
        | ("POST", "/api/notifications/take/{token}")
        | ("GET", "/api/units")
        | ("GET", "/api/version") => (Public, path.into(), None, Fresh::Nothing),
        _ => return None,
    };
    Some(Case {
        rule,
        path,
        body,
        fresh,
    })
}

/// A different hour for each reminder made (one medication has one reminder at a time).
fn next_hour() -> u32 {
    static HOURS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    HOURS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 24
}

/// An RFC 3339 instant about a month ahead, at `hour`:00 UTC.
fn in_a_month(hour: u32) -> String {
    let day = (chrono::Utc::now() + chrono::Duration::days(30)).date_naive();
    format!("{day}T{hour:02}:00:00Z")
}

/// A body for an own-account route that the route can read.
fn own_body(method: &Method, path: &str) -> Value {
    match (method.as_str(), path) {
        ("PUT", "/api/auth/me") => json!({"firstName": "Sam"}),
        ("PUT", "/api/settings") => json!({"timezone": "UTC"}),
        ("POST", "/api/import") => json!({"medications": [], "history": []}),
        ("POST", "/api/notifications/push/register") => json!({}),
        ("POST", "/api/notifications/push/status") => {
            json!({"endpoint": "https://fcm.googleapis.com/fcm/send/unknown"})
        }
        _ => json!({}),
    }
}

struct Circle {
    server: Server,
    tokens: Vec<(Who, String)>,
    owner: String,
    fixture: Fixture,
}

impl Circle {
    fn token(&self, who: Who) -> &str {
        &self.tokens.iter().find(|(w, _)| *w == who).unwrap().1
    }

    async fn medication(&self) -> i64 {
        let (status, body) = post(
            &self.server,
            "/api/medications",
            Some(&self.owner),
            json!({"name": "Amoxicillin", "unit": "ml", "default_quantity": 5, "person_id": self.fixture.person,
                   "inventory": {"enabled": true, "inventory_type": "continuous", "container_type": "bottle",
                                 "container_quantity": 1, "container_size": 100, "container_unit": "ml"},
                   "prescription": {"pharmacy_name": "Apotheke am Markt"}}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["data"]["id"].as_i64().unwrap()
    }

    /// A new medication of the person's with one stock batch: `(medication, batch)`.
    async fn batch(&self) -> (i64, i64) {
        let medication = self.medication().await;
        let path = format!("/api/medications/{medication}/inventory/batches");
        let (status, body) = post(
            &self.server,
            &path,
            Some(&self.owner),
            json!({"quantity": 100, "expires_on": "2099-12-31", "lot": "A1"}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        (medication, body["data"]["id"].as_i64().unwrap())
    }

    async fn entry(&self) -> i64 {
        let path = format!("/api/medications/{}/doses", self.fixture.medication);
        let (status, body) = post(&self.server, &path, Some(&self.owner), json!({"status": "taken"})).await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["data"]["entry"]["id"].as_i64().unwrap()
    }

    /// A one-off reminder of the owner's for the fixture's medication, a month ahead.
    async fn reminder(&self) -> i64 {
        let (status, body) = post(
            &self.server,
            "/api/notifications",
            Some(&self.owner),
            json!({"medication_id": self.fixture.medication, "scheduled_time": in_a_month(next_hour())}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["data"]["id"].as_i64().unwrap()
    }

    /// A channel of the owner's, switched off (a test then answers 409 without the network).
    async fn channel(&self) -> i64 {
        let (status, body) = post(
            &self.server,
            "/api/channels",
            Some(&self.owner),
            json!({"kind": "ntfy", "enabled": false, "config": {"server_url": "https://ntfy.example", "topic": "pills"}}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["data"]["id"].as_i64().unwrap()
    }

    async fn person(&self, name: &str) -> i64 {
        let (status, body) = post(
            &self.server,
            "/api/people",
            Some(&self.owner),
            json!({"name": name}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["data"]["id"].as_i64().unwrap()
    }

    /// Invites `email` to the fixture's person; returns the carer row's id and the token.
    async fn invite(&self, email: &str, role: &str) -> (i64, String) {
        let path = format!("/api/people/{}/carers", self.fixture.person);
        let (status, body) = post(
            &self.server,
            &path,
            Some(&self.owner),
            json!({"email": email, "role": role}),
        )
        .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        let url = body["data"]["invite_url"].as_str().unwrap();
        let token = url.rsplit('/').next().unwrap().to_owned();
        (body["data"]["id"].as_i64().unwrap(), token)
    }
}

async fn circle() -> Circle {
    let server = Server::start_with(|c| {
        c.env("PILLBOX_SIGNUPS", "open");
        // A host name, so that the passkey routes are there to be tried.
        c.env("PILLBOX_PUBLIC_URL", "http://localhost:3001");
    });
    let mut tokens = Vec::new();
    for (who, email) in [
        (Who::Owner, "owner@example.com"),
        (Who::Manage, "manage@example.com"),
        (Who::Record, "record@example.com"),
        (Who::View, "view@example.com"),
        (Who::Stranger, "stranger@example.com"),
    ] {
        tokens.push((who, register(&server, email).await));
    }
    let owner = tokens[0].1.clone();
    let placeholder = Fixture {
        person: 0,
        medication: 0,
        entry: 0,
        reminder: 0,
        view_carer: 0,
        channel: 0,
        batch_medication: 0,
        batch: 0,
    };
    let mut c = Circle {
        server,
        tokens,
        owner,
        fixture: placeholder,
    };
    c.fixture.person = c.person("Emma").await;
    for (who, role) in [
        (Who::Manage, "manage"),
        (Who::Record, "record"),
        (Who::View, "view"),
    ] {
        let email = format!("{role}@example.com");
        let (id, token) = c.invite(&email, role).await;
        let path = format!("/api/invitations/{token}/accept");
        let (status, body) = post(&c.server, &path, Some(c.token(who)), json!({})).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        if who == Who::View {
            c.fixture.view_carer = id;
        }
    }
    c.fixture.medication = c.medication().await;
    c.fixture.entry = c.entry().await;
    c.fixture.reminder = c.reminder().await;
    c.fixture.channel = c.channel().await;
    (c.fixture.batch_medication, c.fixture.batch) = c.batch().await;
    c
}

/// The status a caller should get under a rule, as a check on the status they got.
fn expected(rule: Rule, who: Who) -> fn(StatusCode) -> bool {
    let allowed: fn(StatusCode) -> bool = |s| s.is_success();
    let own: fn(StatusCode) -> bool = |s| !matches!(s.as_u16(), 401 | 403 | 404) && !s.is_server_error();
    let forbidden: fn(StatusCode) -> bool = |s| s == StatusCode::FORBIDDEN;
    let unseen: fn(StatusCode) -> bool = |s| s == StatusCode::NOT_FOUND;
    match rule {
        Rule::Person(needed) if who >= needed => allowed,
        Rule::Person(_) if who == Who::Stranger => unseen,
        Rule::Person(_) => forbidden,
        Rule::Owner if who == Who::Owner => allowed,
        Rule::Owner if who == Who::Stranger => unseen,
        Rule::Owner => forbidden,
        // Reached, though it may fail for its own reasons (a test send with no device: 409).
        Rule::OwnerObject if who == Who::Owner => own,
        Rule::OwnerObject => unseen,
        Rule::OwnAccount => own,
        Rule::Public | Rule::NotCalled(_) => own,
    }
}

#[tokio::test]
async fn every_route_answers_each_role_as_the_care_circle_allows() {
    let c = circle().await;
    let (status, document) = get_json(&c.server, "/api/openapi.json", None).await;
    assert_eq!(status, StatusCode::OK);
    let mut routes = Vec::new();
    for (path, operations) in document["paths"].as_object().unwrap() {
        for method in operations.as_object().unwrap().keys() {
            if let Ok(method) = method.to_uppercase().parse::<Method>() {
                routes.push((method, path.clone()));
            }
        }
    }
    assert!(routes.len() > 70, "the document lists {} routes", routes.len());

    let missing: Vec<String> = routes
        .iter()
        .filter(|(method, path)| case(method, path, &c.fixture).is_none())
        .map(|(method, path)| format!("{method} {path}"))
        .collect();
    assert!(
        missing.is_empty(),
        "routes without an entry in the authorization matrix (add one to `case`): {missing:?}"
    );

    let mut failures = Vec::new();
    let mut tried = BTreeSet::new();
    for (method, route) in &routes {
        let Case {
            rule,
            path,
            body,
            fresh,
        } = case(method, route, &c.fixture).unwrap();
        if let Rule::NotCalled(reason) = rule {
            // A route left out here is covered elsewhere, and says where.
            assert!(reason.contains("tests/"), "{method} {route}: {reason}");
            continue;
        }
        if matches!(rule, Rule::Public) {
            continue;
        }
        // The least powerful first: a refusal must change nothing the next caller relies on.
        for who in EVERYONE.iter().rev().copied() {
            let check = expected(rule, who);
            let allowed = check(StatusCode::OK);
            let path = match (fresh, allowed) {
                (Fresh::Nothing, _) => path.clone(),
                (Fresh::Medication, true) => route.replace("{id}", &c.medication().await.to_string()),
                (Fresh::Medication, false) => route.replace("{id}", &c.fixture.medication.to_string()),
                (Fresh::Batch, true) => {
                    let (medication, batch) = c.batch().await;
                    route
                        .replace("{id}", &medication.to_string())
                        .replace("{batchId}", &batch.to_string())
                }
                (Fresh::Batch, false) => route
                    .replace("{id}", &c.fixture.batch_medication.to_string())
                    .replace("{batchId}", &c.fixture.batch.to_string()),
                (Fresh::Entry, true) => route.replace("{id}", &c.entry().await.to_string()),
                (Fresh::Entry, false) => route.replace("{id}", &c.fixture.entry.to_string()),
                (Fresh::Reminder, true) => route.replace("{id}", &c.reminder().await.to_string()),
                (Fresh::Reminder, false) => route.replace("{id}", &c.fixture.reminder.to_string()),
                (Fresh::Channel, true) => route.replace("{id}", &c.channel().await.to_string()),
                (Fresh::Channel, false) => route.replace("{id}", &c.fixture.channel.to_string()),
                (Fresh::Person, true) => route.replace("{id}", &c.person("Leo").await.to_string()),
                (Fresh::Person, false) => route.replace("{id}", &c.fixture.person.to_string()),
                (Fresh::Invitation, true) => {
                    let (id, _) = c.invite("pending@example.com", "view").await;
                    route
                        .replace("{id}", &c.fixture.person.to_string())
                        .replace("{carerId}", &id.to_string())
                }
                // Another carer's row: the view carer's, which only the owner may revoke.
                (Fresh::Invitation, false) => route
                    .replace("{id}", &c.fixture.person.to_string())
                    .replace("{carerId}", &c.fixture.view_carer.to_string()),
            };
            let path = if fresh == Fresh::Invitation && who == Who::View && !allowed {
                // The view carer's own row would be leaving, which is allowed: they try the
                // record carer's row instead.
                let (status, carers) = get_json(
                    &c.server,
                    &format!("/api/people/{}/carers", c.fixture.person),
                    Some(&c.owner),
                )
                .await;
                assert_eq!(status, StatusCode::OK);
                let record = carers["data"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|carer| carer["role"] == "record")
                    .unwrap()["id"]
                    .as_i64()
                    .unwrap();
                route
                    .replace("{id}", &c.fixture.person.to_string())
                    .replace("{carerId}", &record.to_string())
            } else {
                path
            };
            let token = c.token(who).to_owned();
            let (status, answer) = call(&c.server, method.clone(), &path, Some(&token), body.clone()).await;
            tried.insert(format!("{method} {route}"));
            if !check(status) {
                failures.push(format!("{who:?} {method} {path} ({rule:?}): {status} {answer}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} wrong answers:\n{}",
        failures.len(),
        failures.join("\n")
    );

    // What the refusals must not have changed: the person, their medication and the entry.
    let (status, body) = get_json(
        &c.server,
        &format!(
            "/api/medications/history?person_id={}&limit=100",
            c.fixture.person
        ),
        Some(&c.owner),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let entries = body["data"].as_array().unwrap();
    assert!(entries.iter().any(|e| e["id"] == c.fixture.entry), "{body}");
    let path = format!("/api/medications/{}", c.fixture.medication);
    let (status, body) = get_json(&c.server, &path, Some(&c.owner)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["person_id"], c.fixture.person);
    assert!(tried.len() > 40, "only {} routes were called", tried.len());
}

/// The signed-in account's id.
async fn my_id(server: &Server, token: &str) -> i64 {
    let (status, body) = get_json(server, "/api/auth/me", Some(token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    body["data"]["id"].as_i64().unwrap()
}

#[tokio::test]
async fn a_carers_dose_shows_who_gave_it_and_reaches_everyones_today() {
    let c = circle().await;
    let (p, m) = (c.fixture.person, c.fixture.medication);
    // The record carer gives their name and a daily 08:00 dose is due today for Emma.
    let (status, body) = call(
        &c.server,
        Method::PUT,
        "/api/auth/me",
        Some(c.token(Who::Record)),
        Some(json!({"firstName": "Anna", "lastName": "Berg"})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let path = format!("/api/medications/{m}/doses");
    let (status, body) = post(
        &c.server,
        &path,
        Some(c.token(Who::Record)),
        json!({"quantity": 5}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // The owner's history of Emma says who gave it; the owner's own doses say the owner.
    let history = format!("/api/medications/history?person_id={p}");
    let (status, body) = get_json(&c.server, &history, Some(&c.owner)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let newest = &body["data"][0];
    assert_eq!(newest["logged_by"]["name"], "Anna Berg", "{body}");
    assert_eq!(
        newest["logged_by"]["user_id"],
        my_id(&c.server, c.token(Who::Record)).await
    );
    assert_eq!(newest["person_id"], p);
    assert_eq!(
        body["data"][1]["logged_by"]["name"], "owner@example.com",
        "{body}"
    );

    // The audit list shows the carer's dose; the owner's own dose is not listed.
    let (status, body) = get_json(&c.server, &format!("/api/people/{p}/audit"), Some(&c.owner)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let logged: Vec<&Value> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["action"] == "dose.logged")
        .collect();
    assert_eq!(logged.len(), 1, "{body}");
    assert_eq!(logged[0]["actor_name"], "Anna Berg");
    assert_eq!(logged[0]["subject"], "Amoxicillin");

    // Emma's daily dose is on the owner's Today and on each carer's, with her name; a
    // stranger's Today has none of it.
    for who in [Who::Owner, Who::Manage, Who::Record, Who::View] {
        let (status, body) = get_json(&c.server, "/api/medications/today", Some(c.token(who))).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        let doses = body["data"]["doses"].as_array().unwrap();
        assert!(
            doses
                .iter()
                .any(|d| d["medication_id"] == m && d["person_name"] == "Emma" && d["person_id"] == p),
            "{who:?}: {body}"
        );
    }
    let (_, body) = get_json(&c.server, "/api/medications/today", Some(c.token(Who::Stranger))).await;
    assert_eq!(body["data"]["doses"], json!([]), "{body}");
}

#[tokio::test]
async fn a_manage_carer_adds_a_medication_to_the_person_and_escalation_names_only_carers_who_record() {
    let c = circle().await;
    let p = c.fixture.person;
    let (status, body) = post(
        &c.server,
        "/api/medications",
        Some(c.token(Who::Manage)),
        json!({"name": "Vitamin D", "unit": "drops", "person_id": p}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let vitamin = body["data"]["id"].as_i64().unwrap();
    assert_eq!(body["data"]["person_id"], p);
    // It is the owner's, listed under Emma; the carer's own list stays theirs.
    let (_, body) = get_json(
        &c.server,
        &format!("/api/medications?person_id={p}"),
        Some(&c.owner),
    )
    .await;
    let names: Vec<&str> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    // The fixture's two (one with its stock in batches), then the carer's.
    assert_eq!(names, ["Amoxicillin", "Amoxicillin", "Vitamin D"], "{body}");
    let (_, body) = get_json(&c.server, "/api/medications", Some(c.token(Who::Manage))).await;
    assert_eq!(body["data"], json!([]), "{body}");

    // Escalation: the view carer cannot be told (their link could not record the dose).
    let (view_id, record_id) = (
        my_id(&c.server, c.token(Who::View)).await,
        my_id(&c.server, c.token(Who::Record)).await,
    );
    let stranger_id = my_id(&c.server, c.token(Who::Stranger)).await;
    let path = format!("/api/medications/{vitamin}");
    for (escalation, code) in [
        (
            json!({"after_minutes": 30, "carers": [view_id]}),
            "escalation_invalid",
        ),
        (
            json!({"after_minutes": 30, "carers": [stranger_id]}),
            "escalation_invalid",
        ),
        (
            json!({"after_minutes": 4, "carers": [record_id]}),
            "escalation_invalid",
        ),
        (json!({"after_minutes": 30, "carers": []}), "escalation_invalid"),
    ] {
        let (status, body) = call(
            &c.server,
            Method::PUT,
            &path,
            Some(&c.owner),
            Some(json!({"escalation": escalation})),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(body["code"], code);
    }
    let (_, body) = get_json(&c.server, &path, Some(&c.owner)).await;
    assert_eq!(
        body["data"]["escalation"],
        Value::Null,
        "a refused setting changed nothing: {body}"
    );
    let wanted = json!({"after_minutes": 30, "carers": [record_id]});
    let (status, body) = call(
        &c.server,
        Method::PUT,
        &path,
        Some(c.token(Who::Manage)),
        Some(json!({"escalation": wanted})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["escalation"], wanted);
    let (status, body) = call(
        &c.server,
        Method::PUT,
        &path,
        Some(&c.owner),
        Some(json!({"escalation": null})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["escalation"], Value::Null);

    // A carer who leaves the circle drops out of the setting on its next save, instead of
    // making it refused.
    let (status, body) = call(
        &c.server,
        Method::PUT,
        &path,
        Some(&c.owner),
        Some(json!({"escalation": wanted})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, carers) = get_json(&c.server, &format!("/api/people/{p}/carers"), Some(&c.owner)).await;
    let row = carers["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["user_id"] == record_id)
        .unwrap()["id"]
        .clone();
    let (status, body) = call(
        &c.server,
        Method::DELETE,
        &format!("/api/people/{p}/carers/{row}"),
        Some(&c.owner),
        None,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = call(
        &c.server,
        Method::PUT,
        &path,
        Some(&c.owner),
        Some(json!({"escalation": wanted})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["escalation"], Value::Null, "{body}");

    // A dose of it, given by the manage carer, goes with the medication when it moves.
    let (status, body) = post(
        &c.server,
        &format!("{path}/doses"),
        Some(c.token(Who::Manage)),
        json!({}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // Only the owner moves a medication to another of their people.
    let me = c.person("Leo").await;
    let (status, body) = call(
        &c.server,
        Method::PUT,
        &path,
        Some(c.token(Who::Manage)),
        Some(json!({"person_id": me})),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["code"], "not_permitted");
    let (status, body) = call(
        &c.server,
        Method::PUT,
        &path,
        Some(&c.owner),
        Some(json!({"person_id": me})),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["person_id"], me);
    // Now out of the carers' reach, its history with it: Leo's history has the dose, Emma's
    // does not, and the carer can neither read nor change the entry.
    let (status, _) = get_json(&c.server, &path, Some(c.token(Who::Manage))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (_, leo) = get_json(
        &c.server,
        &format!("/api/medications/history?person_id={me}"),
        Some(&c.owner),
    )
    .await;
    let moved = leo["data"].as_array().unwrap();
    assert_eq!(moved.len(), 1, "{leo}");
    assert_eq!(moved[0]["person_id"], me);
    let (_, emma) = get_json(
        &c.server,
        &format!("/api/medications/history?person_id={p}"),
        Some(&c.owner),
    )
    .await;
    assert!(
        emma["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["medication_id"] != vitamin),
        "{emma}"
    );
    let entry = format!("/api/medications/history/{}", moved[0]["id"]);
    let (status, _) = call(
        &c.server,
        Method::PUT,
        &entry,
        Some(c.token(Who::Manage)),
        Some(json!({"dosage": "x"})),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = get_json(&c.server, &format!("{path}/history"), Some(c.token(Who::Manage))).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
