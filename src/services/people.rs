//! The care circle's people and carers (issue 16): the people an account keeps medicines for
//! (the account holder and people without a login), the carers the owner invites by e-mail,
//! invitations and their acceptance, and each person's audit list. Only a person's owner
//! changes the circle; a carer may leave it. Changes to the circle are written into the
//! audit list whoever makes them; carers' changes to the data are written where they happen
//! (`access::audit`).

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access::{self, Access, Role, person_not_found};
use super::accounts::{queue_account_mail, validate_email};
use super::email::{Button, Letter};
use super::error::{ErrorCode, Problem, ServiceError, ServiceResult, conflict, invalid, not_found, rejected};
use super::{planner, user_settings};
use crate::clock;
use crate::db::Stamp;
use crate::domain::words::Lang;
use crate::mailer::{Email, Mailer};
use crate::security::codes;
use crate::store::carers::{self, Carer};
use crate::store::people::{self, AuditRow, Person};
use crate::store::users;

/// The longest name a person can have, in characters.
pub const MAX_PERSON_NAME: usize = 100;
/// How long an invitation link works.
pub const INVITATION_DAYS: i64 = 7;
/// Audit lines per page unless asked, and at most.
const AUDIT_PAGE: i64 = 50;
const AUDIT_PAGE_MAX: i64 = 200;

/// A person as the signed-in user sees them.
#[derive(Debug, Serialize, ToSchema)]
pub struct PersonView {
    pub id: i64,
    pub name: String,
    /// The account holder's own person.
    pub is_self: bool,
    /// Archived people get no reminders and are left out of Today; their data stays.
    pub archived: bool,
    /// The viewer's role: `owner` for their own people, else their role as a carer.
    pub role: Role,
    /// The name of the account the person belongs to.
    pub owner_name: String,
    /// The viewer's own carers row for a person they care for (to leave); null for their own.
    #[schema(required = true)]
    pub carer_id: Option<i64>,
    /// Published to Home Assistant by MQTT (when the server has `mqtt.url`); the owner's
    /// choice, off by default.
    pub home_assistant: bool,
    /// The server publishes to Home Assistant at all: it has an MQTT broker (`mqtt.url`).
    /// While false, `home_assistant` is kept as chosen but nothing is published.
    pub home_assistant_available: bool,
    /// RFC 3339, UTC.
    #[schema(value_type = String)]
    pub created_at: Stamp,
}

impl PersonView {
    fn own(person: Person) -> PersonView {
        PersonView::new(person, Role::Owner, None)
    }

    fn new(person: Person, role: Role, carer_id: Option<i64>) -> PersonView {
        PersonView {
            id: person.id,
            name: person.name,
            is_self: person.is_self,
            archived: person.archived,
            role,
            owner_name: person.owner_name,
            carer_id,
            home_assistant: person.home_assistant,
            home_assistant_available: false,
            created_at: person.created_at,
        }
    }

    /// Says whether this server publishes to Home Assistant (the HTTP layer knows its settings).
    pub fn published_by(mut self, available: bool) -> PersonView {
        self.home_assistant_available = available;
        self
    }
}

/// A new person.
#[derive(Debug, Deserialize, ToSchema)]
pub struct NewPerson {
    /// 1–100 characters, not only spaces.
    #[schema(min_length = 1, max_length = 100, pattern = "\\S")]
    pub name: String,
}

/// A change to a person; absent fields stay.
#[derive(Debug, Deserialize, ToSchema)]
pub struct PersonChange {
    /// 1–100 characters (the account holder's may be empty: the account's name shows).
    #[schema(max_length = 100)]
    pub name: Option<String>,
    /// Archive (true) or bring back (false); the account holder cannot be archived.
    pub archived: Option<bool>,
    /// Show the person's doses, stock and buttons in Home Assistant (true) or stop (false):
    /// their entities are removed from it.
    pub home_assistant: Option<bool>,
}

/// A carer's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CarerRole {
    /// Reads medications, schedules, stock and history.
    View,
    /// Also logs, edits and skips doses.
    Record,
    /// Also changes medications, schedules and stock.
    Manage,
}

impl CarerRole {
    fn of(role: Role) -> CarerRole {
        match role {
            Role::View => CarerRole::View,
            Role::Record => CarerRole::Record,
            Role::Manage | Role::Owner => CarerRole::Manage,
        }
    }

    fn stored(text: &str) -> CarerRole {
        match text {
            "manage" => CarerRole::Manage,
            "record" => CarerRole::Record,
            _ => CarerRole::View,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            CarerRole::View => "view",
            CarerRole::Record => "record",
            CarerRole::Manage => "manage",
        }
    }
}

/// Where a carer is: invited (not yet accepted) or active.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CarerStatus {
    Invited,
    Active,
}

/// A carer of a person, or an invitation not yet accepted.
#[derive(Debug, Serialize, ToSchema)]
pub struct CarerView {
    pub id: i64,
    pub person_id: i64,
    /// The invited address.
    pub email: String,
    /// The carer's name; null until accepted.
    #[schema(required = true)]
    pub name: Option<String>,
    /// The carer's account once accepted (a medication's escalation names carers by it);
    /// null while invited.
    #[schema(required = true)]
    pub user_id: Option<i64>,
    pub role: CarerRole,
    pub status: CarerStatus,
    /// RFC 3339, UTC.
    #[schema(value_type = String)]
    pub created_at: Stamp,
    /// When the invitation was accepted; null while invited.
    #[schema(required = true, value_type = Option<String>)]
    pub accepted_at: Option<Stamp>,
    /// When the invitation's link stops working; null once accepted.
    #[schema(required = true, value_type = Option<String>)]
    pub expires_at: Option<Stamp>,
    /// The invitation's link (`{public_url}/invite/{token}`): only in the answer that made it,
    /// for sharing by hand where the server sends no e-mail; null everywhere else.
    #[schema(required = true)]
    pub invite_url: Option<String>,
}

impl CarerView {
    fn of(carer: Carer, invite_url: Option<String>) -> CarerView {
        CarerView {
            id: carer.id,
            person_id: carer.person_id,
            email: carer.email,
            name: carer.name,
            user_id: carer.user_id,
            role: CarerRole::stored(&carer.role),
            status: if carer.user_id.is_some() {
                CarerStatus::Active
            } else {
                CarerStatus::Invited
            },
            created_at: carer.created_at,
            accepted_at: carer.accepted_at,
            expires_at: carer.expires_at,
            invite_url,
        }
    }
}

/// An invitation to care for a person.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CarerInput {
    /// The address to invite; the invitation is accepted by the account with this address.
    /// At most 254 bytes, no spaces, with a dot in its domain.
    #[schema(format = Email, min_length = 3, max_length = 254)]
    pub email: String,
    /// `view`, `record` or `manage`.
    #[schema(value_type = CarerRole)]
    pub role: String,
}

/// A carer's new role.
#[derive(Debug, Deserialize, ToSchema)]
pub struct RoleChange {
    /// `view`, `record` or `manage`.
    #[schema(value_type = CarerRole)]
    pub role: String,
}

/// What an invitation offers, shown before it is accepted.
#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationView {
    /// Who the invitation is about.
    pub person_name: String,
    /// Who sent it (the person's account holder).
    pub owner_name: String,
    pub role: CarerRole,
    /// The invited address (masked, `a***@example.com`, in the signed-out preview).
    pub email: String,
    /// RFC 3339, UTC.
    #[schema(value_type = String)]
    pub expires_at: Stamp,
}

/// A line of a person's audit list.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditEntry {
    pub id: i64,
    /// Who did it (kept when that account is deleted).
    pub actor_name: String,
    /// `dose.logged`, `dose.edited`, `dose.deleted`, `medication.created`,
    /// `medication.updated`, `medication.deleted`, `stock.changed`, `carer.invited`,
    /// `carer.accepted`, `carer.role_changed`, `carer.revoked` or `carer.left`.
    pub action: String,
    /// What it was about: a medication's name, a carer's name or address.
    pub subject: String,
    /// RFC 3339, UTC.
    #[schema(value_type = String)]
    pub created_at: Stamp,
}

impl From<AuditRow> for AuditEntry {
    fn from(row: AuditRow) -> AuditEntry {
        AuditEntry {
            id: row.id,
            actor_name: row.actor_name,
            action: row.action,
            subject: row.subject,
            created_at: row.created_at,
        }
    }
}

/// The user's own people (the account holder first, then by name), then those they care for.
pub fn list(conn: &Connection, user_id: i64) -> ServiceResult<Vec<PersonView>> {
    let mut views: Vec<PersonView> = people::own(conn, user_id)?
        .into_iter()
        .map(PersonView::own)
        .collect();
    for cared in people::cared(conn, user_id)? {
        let role = Role::carer(&cared.role).unwrap_or(Role::View);
        views.push(PersonView::new(cared.person, role, Some(cared.carer_id)));
    }
    Ok(views)
}

/// The person as `user_id` sees them.
fn view(conn: &Connection, access: &Access) -> ServiceResult<PersonView> {
    let person = people::find(conn, access.person_id)?.ok_or_else(person_not_found)?;
    if access.is_owner() {
        return Ok(PersonView::own(person));
    }
    let carer_id = people::cared(conn, access.user_id)?
        .into_iter()
        .find(|c| c.person.id == access.person_id)
        .map(|c| c.carer_id);
    Ok(PersonView::new(person, access.role, carer_id))
}

/// A person's name: trimmed, at most 100 characters; empty only where `may_be_empty`.
pub fn person_name(value: &str, may_be_empty: bool) -> ServiceResult<String> {
    let name = value.trim();
    if name.is_empty() && !may_be_empty {
        return Err(rejected(
            ErrorCode::PersonNameRequired,
            "Please enter the person's name",
        ));
    }
    if name.chars().count() > MAX_PERSON_NAME {
        return Err(ServiceError::Invalid(
            Problem::new(
                ErrorCode::ValidationFailed,
                format!("A name must be at most {MAX_PERSON_NAME} characters"),
            )
            .with_param("max", MAX_PERSON_NAME),
        ));
    }
    Ok(name.to_owned())
}

/// Adds a person (without a login) to the user's account.
pub fn create(
    conn: &Connection,
    user_id: i64,
    input: NewPerson,
    now: DateTime<Utc>,
) -> ServiceResult<PersonView> {
    let name = person_name(&input.name, false)?;
    let id = people::insert(conn, user_id, &name, Stamp::from(now))?;
    let person = people::find(conn, id)?.ok_or_else(person_not_found)?;
    Ok(PersonView::own(person))
}

/// Renames, archives or brings back one of the user's people. Archiving takes the person's
/// planned reminders away; bringing them back plans them again.
pub fn update(
    conn: &Connection,
    user_id: i64,
    person_id: i64,
    change: PersonChange,
    horizon_days: u32,
    now: DateTime<Utc>,
) -> ServiceResult<PersonView> {
    let access = access::person(conn, user_id, person_id)?.allow(Role::Owner)?;
    let person = people::find(conn, person_id)?.ok_or_else(person_not_found)?;
    let stamp = Stamp::from(now);
    if let Some(name) = &change.name {
        people::rename(conn, person_id, &person_name(name, person.is_self)?, stamp)?;
    }
    if let Some(archive) = change.archived {
        if archive && person.is_self {
            return Err(account_holder("The account holder cannot be archived"));
        }
        if archive != person.archived {
            people::set_archived(conn, person_id, archive.then_some(stamp), stamp)?;
            planner::plan_user_at(conn, access.owner_id, horizon_days, now)?;
        }
    }
    if let Some(on) = change.home_assistant
        && on != person.home_assistant
    {
        people::set_home_assistant(conn, person_id, on, stamp)?;
    }
    view(conn, &access)
}

fn account_holder(message: &str) -> ServiceError {
    rejected(ErrorCode::PersonIsAccountHolder, message)
}

/// Deletes one of the user's people with their medications, reminders and history; never
/// the account holder.
pub fn delete(conn: &Connection, user_id: i64, person_id: i64) -> ServiceResult<()> {
    access::person(conn, user_id, person_id)?.allow(Role::Owner)?;
    let person = people::find(conn, person_id)?.ok_or_else(person_not_found)?;
    if person.is_self {
        return Err(account_holder(
            "The account holder cannot be deleted here: delete the account instead",
        ));
    }
    people::delete(conn, person_id)?;
    Ok(())
}

fn carer_not_found() -> ServiceError {
    not_found(ErrorCode::CarerNotFound, "Carer not found")
}

/// A person's carers and open invitations (owner only).
pub fn carers(conn: &Connection, user_id: i64, person_id: i64) -> ServiceResult<Vec<CarerView>> {
    access::person(conn, user_id, person_id)?.allow(Role::Owner)?;
    Ok(carers::list(conn, person_id)?
        .into_iter()
        .map(|c| CarerView::of(c, None))
        .collect())
}

/// What sending an invitation needs from the server.
pub struct Invitations<'a> {
    pub mailer: &'a Mailer,
    /// The instance's public address, which invitation links start with.
    pub link_base: &'a str,
}

/// Invites an address to care for one of the user's people, or invites a pending address
/// again (a new link; the old one stops working). The mail is queued when the server sends
/// e-mail; true in the answer's second place then, so the caller wakes the queue.
pub fn invite(
    conn: &Connection,
    user_id: i64,
    person_id: i64,
    input: CarerInput,
    server: &Invitations<'_>,
    now: DateTime<Utc>,
) -> ServiceResult<(CarerView, bool)> {
    let access = access::person(conn, user_id, person_id)?.allow(Role::Owner)?;
    let email = validate_email(&input.email).map_err(ServiceError::Invalid)?;
    let role = CarerRole::of(Role::carer(input.role.trim())?);
    let owner = users::find_by_id(conn, access.owner_id)?.ok_or_else(person_not_found)?;
    if owner.email.eq_ignore_ascii_case(&email) {
        return Err(carer_is_owner());
    }
    let token = codes::link_token();
    let hash = codes::hash_link_token(&token);
    let stamp = Stamp::from(now);
    let expires = clock::stamp(now + Duration::days(INVITATION_DAYS));
    let carer_id = match carers::by_email(conn, person_id, &email)? {
        Some(existing) if existing.user_id.is_some() => {
            return Err(ServiceError::Conflict(
                Problem::new(
                    ErrorCode::CarerExists,
                    "This address is already a carer of this person",
                )
                .with_param("email", email),
            ));
        }
        Some(pending) => {
            carers::reinvite(conn, pending.id, role.as_str(), &hash, &expires, stamp)?;
            pending.id
        }
        None => carers::invite(conn, person_id, &email, role.as_str(), &hash, &expires, stamp)?,
    };
    let owner_name = people::user_name(conn, owner.id)?.unwrap_or_default();
    audit_circle(conn, person_id, user_id, "carer.invited", &email, stamp)?;
    let link = format!("{}/invite/{token}", server.link_base);
    let mailed = server.mailer.is_configured();
    if mailed {
        let person_name = people::name(conn, person_id)?.unwrap_or_default();
        let lang = user_settings::language(conn, owner.id)?;
        let mail = invitation_email(lang, &owner_name, &person_name, role, &email, &link);
        queue_account_mail(conn, server.mailer, owner.id, &email, &mail, now)?;
    }
    let carer = carers::find(conn, person_id, carer_id)?.ok_or_else(carer_not_found)?;
    Ok((CarerView::of(carer, Some(link)), mailed))
}

fn carer_is_owner() -> ServiceError {
    rejected(
        ErrorCode::CarerIsOwner,
        "You cannot be a carer of your own person",
    )
}

/// Writes a change to the circle into the person's audit list, whoever made it.
fn audit_circle(
    conn: &Connection,
    person_id: i64,
    actor_id: i64,
    action: &str,
    subject: &str,
    stamp: Stamp,
) -> ServiceResult<()> {
    let actor = access::actor(conn, actor_id)?;
    people::audit(
        conn,
        person_id,
        actor.user_id,
        &actor.name,
        action,
        subject,
        stamp,
    )?;
    Ok(())
}

/// Changes a carer's role (owner only).
pub fn change_role(
    conn: &Connection,
    user_id: i64,
    person_id: i64,
    carer_id: i64,
    change: RoleChange,
    now: DateTime<Utc>,
) -> ServiceResult<CarerView> {
    access::person(conn, user_id, person_id)?.allow(Role::Owner)?;
    let role = CarerRole::of(Role::carer(change.role.trim())?);
    let carer = carers::find(conn, person_id, carer_id)?.ok_or_else(carer_not_found)?;
    let old = CarerRole::stored(&carer.role);
    if old != role {
        let stamp = Stamp::from(now);
        carers::set_role(conn, carer_id, role.as_str(), stamp)?;
        let subject = format!("{} ({} → {})", who(&carer), old.as_str(), role.as_str());
        audit_circle(conn, person_id, user_id, "carer.role_changed", &subject, stamp)?;
    }
    let carer = carers::find(conn, person_id, carer_id)?.ok_or_else(carer_not_found)?;
    Ok(CarerView::of(carer, None))
}

/// A carer as the audit list names them: their name once accepted, else the address.
fn who(carer: &Carer) -> String {
    carer.name.clone().unwrap_or_else(|| carer.email.clone())
}

/// How a carers row ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removed {
    /// The owner ended a carer's access.
    Revoked,
    /// The owner withdrew an invitation not yet accepted.
    Cancelled,
    /// The carer left.
    Left,
}

/// Ends a carers row: the owner revokes a carer (or withdraws an invitation), or the carer
/// themself leaves. Another carer of the person may not (403); anyone else sees nothing (404).
pub fn remove(
    conn: &Connection,
    user_id: i64,
    person_id: i64,
    carer_id: i64,
    now: DateTime<Utc>,
) -> ServiceResult<Removed> {
    let access = access::person(conn, user_id, person_id)?;
    let carer = carers::find(conn, person_id, carer_id)?;
    let leaving = carer.as_ref().is_some_and(|c| c.user_id == Some(user_id));
    if !leaving {
        access.allow(Role::Owner)?;
    }
    let carer = carer.ok_or_else(carer_not_found)?;
    carers::delete(conn, carer.id)?;
    let stamp = Stamp::from(now);
    let removed = if leaving {
        Removed::Left
    } else if carer.user_id.is_some() {
        Removed::Revoked
    } else {
        Removed::Cancelled
    };
    let action = if leaving { "carer.left" } else { "carer.revoked" };
    audit_circle(conn, person_id, user_id, action, &who(&carer), stamp)?;
    Ok(removed)
}

/// The open invitation a token names, checked for the signed-in account.
fn open_invitation(
    conn: &Connection,
    user_id: i64,
    user_email: &str,
    token: &str,
    now: DateTime<Utc>,
) -> ServiceResult<(Carer, Person)> {
    let not_found = || {
        not_found(
            ErrorCode::InvitationNotFound,
            "This invitation does not exist, expired or was used",
        )
    };
    // A link token is 43 characters; anything far longer names nothing.
    if token.is_empty() || token.len() > 128 {
        return Err(not_found());
    }
    let carer =
        carers::invitation(conn, &codes::hash_link_token(token), Stamp::from(now))?.ok_or_else(not_found)?;
    if !carer.email.eq_ignore_ascii_case(user_email) {
        return Err(ServiceError::Forbidden(
            Problem::new(
                ErrorCode::InvitationOtherAccount,
                "This invitation was sent to another address: sign in with that address to accept it",
            )
            .with_param("email", masked(&carer.email)),
        ));
    }
    let person = people::find(conn, carer.person_id)?.ok_or_else(not_found)?;
    if person.owner_id == user_id {
        return Err(carer_is_owner());
    }
    Ok((carer, person))
}

/// An address shown to someone it may not belong to: `a***@example.com`.
fn masked(email: &str) -> String {
    match email.split_once('@') {
        Some((local, domain)) => {
            let first: String = local.chars().take(1).collect();
            format!("{first}***@{domain}")
        }
        None => "***".to_owned(),
    }
}

/// What an invitation offers, for the account it was sent to.
pub fn invitation(
    conn: &Connection,
    user_id: i64,
    user_email: &str,
    token: &str,
    now: DateTime<Utc>,
) -> ServiceResult<InvitationView> {
    let (carer, person) = open_invitation(conn, user_id, user_email, token, now)?;
    Ok(InvitationView {
        person_name: person.name,
        owner_name: person.owner_name,
        role: CarerRole::stored(&carer.role),
        email: carer.email,
        // An open invitation has an expiry (the look-up compares it with now).
        expires_at: carer.expires_at.ok_or_else(|| {
            not_found(
                ErrorCode::InvitationNotFound,
                "This invitation does not exist, expired or was used",
            )
        })?,
    })
}

/// What an invitation offers, for whoever holds its link before signing in: who invites,
/// for whom, the role, and the invited address masked (the link may have been passed on).
pub fn invitation_preview(
    conn: &Connection,
    token: &str,
    now: DateTime<Utc>,
) -> ServiceResult<InvitationView> {
    let not_found = || {
        not_found(
            ErrorCode::InvitationNotFound,
            "This invitation does not exist, expired or was used",
        )
    };
    if token.is_empty() || token.len() > 128 {
        return Err(not_found());
    }
    let carer =
        carers::invitation(conn, &codes::hash_link_token(token), Stamp::from(now))?.ok_or_else(not_found)?;
    let person = people::find(conn, carer.person_id)?.ok_or_else(not_found)?;
    Ok(InvitationView {
        person_name: person.name,
        owner_name: person.owner_name,
        role: CarerRole::stored(&carer.role),
        email: masked(&carer.email),
        expires_at: carer.expires_at.ok_or_else(not_found)?,
    })
}

/// Accepts an invitation: the signed-in account becomes the person's carer, and its address
/// counts as verified.
pub fn accept(
    conn: &Connection,
    user_id: i64,
    user_email: &str,
    token: &str,
    now: DateTime<Utc>,
) -> ServiceResult<PersonView> {
    let (carer, person) = open_invitation(conn, user_id, user_email, token, now)?;
    if carers::cares_for(conn, person.id, user_id)? {
        return Err(conflict(
            ErrorCode::CarerExists,
            "You already care for this person",
        ));
    }
    let stamp = Stamp::from(now);
    carers::accept(conn, carer.id, user_id, stamp)?;
    // The invitation was mailed to this very address (open_invitation checked): its link
    // proves the address as a verification link would.
    users::mark_verified(conn, user_id)?;
    let actor = access::actor(conn, user_id)?;
    people::audit(
        conn,
        person.id,
        user_id,
        &actor.name,
        "carer.accepted",
        &actor.name,
        stamp,
    )?;
    let access = access::person(conn, user_id, person.id)?;
    view(conn, &access)
}

/// A page of a person's audit list, newest first (owner only).
pub fn audit(
    conn: &Connection,
    user_id: i64,
    person_id: i64,
    limit: Option<i64>,
    offset: Option<i64>,
) -> ServiceResult<Vec<AuditEntry>> {
    access::person(conn, user_id, person_id)?.allow(Role::Owner)?;
    let limit = limit.unwrap_or(AUDIT_PAGE);
    if !(1..=AUDIT_PAGE_MAX).contains(&limit) {
        return Err(invalid(format!("limit must be between 1 and {AUDIT_PAGE_MAX}")));
    }
    let offset = offset.unwrap_or(0);
    if offset < 0 {
        return Err(invalid("offset must not be negative"));
    }
    Ok(people::audit_page(conn, person_id, limit, offset)?
        .into_iter()
        .map(AuditEntry::from)
        .collect())
}

/// The invitation e-mail, in the inviting owner's language (the invitee may have no account
/// and so no language yet).
fn invitation_email(
    lang: Lang,
    owner: &str,
    person: &str,
    role: CarerRole,
    email: &str,
    link: &str,
) -> Email {
    let w = invitation_words(lang);
    let role_text = match role {
        CarerRole::View => w.view,
        CarerRole::Record => w.record,
        CarerRole::Manage => w.manage,
    };
    let fill = |template: &str| {
        template
            .replace("{owner}", owner)
            .replace("{person}", person)
            .replace("{email}", email)
            .replace("{days}", &INVITATION_DAYS.to_string())
    };
    Letter {
        paragraphs: vec![fill(w.invites), format!("{} {role_text}.", w.can), fill(w.open)],
        button: Some(Button {
            href: link.to_owned(),
            label: w.button.into(),
            text_label: None,
            or_open: Some(super::email::or_open(lang).into()),
        }),
        notes: vec![fill(w.ignore)],
        ..Letter::new(lang, fill(w.subject))
    }
    .email()
}

/// The invitation e-mail's texts, with `{owner}`, `{person}`, `{email}` and `{days}` holes.
struct InvitationWords {
    subject: &'static str,
    invites: &'static str,
    can: &'static str,
    view: &'static str,
    record: &'static str,
    manage: &'static str,
    open: &'static str,
    button: &'static str,
    ignore: &'static str,
}

fn invitation_words(lang: Lang) -> &'static InvitationWords {
    match lang {
        Lang::En => &InvitationWords {
            subject: "{owner} invites you to care for {person} on Pillbox",
            invites: "{owner} invites you to help with {person}'s medicines on Pillbox.",
            can: "You will be able to",
            view: "see medications, schedules, stock and history",
            record: "see everything and log doses",
            manage: "see everything, log doses and change medications and stock",
            open: "Open this link within {days} days, then sign in or create an account with this address ({email}) to accept:",
            button: "View the invitation",
            ignore: "If you do not know {owner}, ignore this message.",
        },
        Lang::Es => &InvitationWords {
            subject: "{owner} te invita a cuidar de {person} en Pillbox",
            invites: "{owner} te invita a ayudar con los medicamentos de {person} en Pillbox.",
            can: "Podrás",
            view: "ver medicamentos, horarios, existencias e historial",
            record: "verlo todo y registrar tomas",
            manage: "verlo todo, registrar tomas y cambiar medicamentos y existencias",
            open: "Abre este enlace en los próximos {days} días e inicia sesión o crea una cuenta con esta dirección ({email}) para aceptar:",
            button: "Ver la invitación",
            ignore: "Si no conoces a {owner}, ignora este mensaje.",
        },
        Lang::Fr => &InvitationWords {
            subject: "{owner} vous invite à veiller sur {person} dans Pillbox",
            invites: "{owner} vous invite à aider pour les médicaments de {person} dans Pillbox.",
            can: "Vous pourrez",
            view: "voir les médicaments, les horaires, le stock et l'historique",
            record: "tout voir et enregistrer les prises",
            manage: "tout voir, enregistrer les prises et modifier les médicaments et le stock",
            open: "Ouvrez ce lien dans les {days} jours, puis connectez-vous ou créez un compte avec cette adresse ({email}) pour accepter :",
            button: "Voir l'invitation",
            ignore: "Si vous ne connaissez pas {owner}, ignorez ce message.",
        },
        Lang::De => &InvitationWords {
            subject: "{owner} lädt Sie ein, sich in Pillbox um {person} zu kümmern",
            invites: "{owner} lädt Sie ein, bei den Medikamenten von {person} in Pillbox zu helfen.",
            can: "Sie können",
            view: "Medikamente, Pläne, Vorrat und Verlauf ansehen",
            record: "alles ansehen und Einnahmen eintragen",
            manage: "alles ansehen, Einnahmen eintragen sowie Medikamente und Vorrat ändern",
            open: "Öffnen Sie diesen Link innerhalb von {days} Tagen und melden Sie sich mit dieser Adresse ({email}) an oder erstellen Sie ein Konto, um anzunehmen:",
            button: "Einladung ansehen",
            ignore: "Wenn Sie {owner} nicht kennen, ignorieren Sie diese Nachricht.",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_masked_to_their_first_letter_and_domain() {
        assert_eq!(masked("anna@example.com"), "a***@example.com");
        assert_eq!(masked("ü@x.de"), "ü***@x.de");
    }

    #[test]
    fn the_invitation_mail_carries_the_link_and_escapes_names_in_html() {
        let mail = invitation_email(
            Lang::De,
            "Eva <Admin>",
            "Opa",
            CarerRole::Record,
            "k@x.org",
            "https://pillbox.example/invite/abc",
        );
        assert_eq!(
            mail.subject,
            "Eva <Admin> lädt Sie ein, sich in Pillbox um Opa zu kümmern"
        );
        assert!(mail.text.contains("https://pillbox.example/invite/abc"));
        assert!(mail.text.contains("alles ansehen und Einnahmen eintragen"));
        assert!(mail.text.contains("innerhalb von 7 Tagen"));
        assert!(mail.html.contains("Eva &#60;Admin&#62;"), "{}", mail.html);
        assert!(!mail.html.contains("<Admin>"));
    }
}
