//! Who may do what with a person's data (issue 16). Every route that reaches a person's
//! medications, doses, stock or history asks here first: the owner may do everything; a carer
//! as their role allows (view reads; record also logs, edits and skips doses; manage also
//! changes medications, schedules and stock). What a user cannot see answers 404, what they can
//! see but not change 403 `not_permitted`. The data itself stays in the owner's rows, so the
//! services below run with `owner_id` as before.

use chrono::{DateTime, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::ServiceResult;
use super::error::{ErrorCode, Problem, ServiceError, not_found};
use crate::db::Stamp;
use crate::domain::medication::MedicationId;
use crate::store::api_tokens;
use crate::store::people::{self, Reach};

/// Who asks: a signed-in user, or an API token acting for its account. A token reaches its
/// account's own people (all, or those it names) as a carer of its scope's role would: the
/// checks below are the care circle's, only the reach comes from the token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    User(i64),
    Token { token_id: i64, user_id: i64 },
}

impl Caller {
    /// The account asking (a token's owner).
    pub fn user_id(self) -> i64 {
        match self {
            Caller::User(id) | Caller::Token { user_id: id, .. } => id,
        }
    }
}

impl From<i64> for Caller {
    fn from(user_id: i64) -> Caller {
        Caller::User(user_id)
    }
}

/// What a user may do with a person's data, in rising order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    View,
    Record,
    Manage,
    Owner,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::View => "view",
            Role::Record => "record",
            Role::Manage => "manage",
            Role::Owner => "owner",
        }
    }

    /// A carer's role as sent (`view`, `record`, `manage`); `owner` is not a carer's.
    pub fn carer(text: &str) -> ServiceResult<Role> {
        match text {
            "view" => Ok(Role::View),
            "record" => Ok(Role::Record),
            "manage" => Ok(Role::Manage),
            _ => Err(ServiceError::Invalid(
                Problem::new(ErrorCode::RoleInvalid, "A carer's role is view, record or manage")
                    .with_param("value", text),
            )),
        }
    }

    fn stored(text: &str) -> Role {
        match text {
            "owner" => Role::Owner,
            "manage" => Role::Manage,
            "record" => Role::Record,
            _ => Role::View,
        }
    }
}

/// A user's reach to one person.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// The signed-in user.
    pub user_id: i64,
    /// The account that holds the person's data.
    pub owner_id: i64,
    pub person_id: i64,
    pub role: Role,
}

impl Access {
    fn of(user_id: i64, reach: Reach) -> Access {
        Access {
            user_id,
            owner_id: reach.owner_id,
            person_id: reach.person_id,
            role: Role::stored(&reach.role),
        }
    }

    /// The access itself when its role is at least `needed`, else 403 `not_permitted`.
    pub fn allow(self, needed: Role) -> ServiceResult<Access> {
        if self.role >= needed {
            return Ok(self);
        }
        let message = match needed {
            Role::Owner => "Only the person's owner can do this".to_owned(),
            _ => format!(
                "Your role ({}) does not allow this: it needs {}. Ask the owner to change your role",
                self.role.as_str(),
                needed.as_str()
            ),
        };
        Err(ServiceError::Forbidden(
            Problem::new(ErrorCode::NotPermitted, message)
                .with_param("role", self.role.as_str())
                .with_param("needed", needed.as_str()),
        ))
    }

    pub fn is_owner(&self) -> bool {
        self.role == Role::Owner
    }
}

pub fn person_not_found() -> ServiceError {
    not_found(ErrorCode::PersonNotFound, "Person not found")
}

/// The caller's access to a person; 404 `person_not_found` when they have none.
pub fn person(conn: &Connection, caller: impl Into<Caller>, person_id: i64) -> ServiceResult<Access> {
    let caller = caller.into();
    let reach = match caller {
        Caller::User(user_id) => people::reach_person(conn, user_id, person_id)?,
        Caller::Token { token_id, .. } => api_tokens::reach_person(conn, token_id, person_id)?,
    };
    Ok(Access::of(caller.user_id(), reach.ok_or_else(person_not_found)?))
}

/// The caller's access to a medication's person; 404 `medication_not_found` when they have none.
pub fn medication(conn: &Connection, caller: impl Into<Caller>, id: MedicationId) -> ServiceResult<Access> {
    let caller = caller.into();
    let reach = match caller {
        Caller::User(user_id) => people::reach_medication(conn, user_id, id.0)?,
        Caller::Token { token_id, .. } => api_tokens::reach_medication(conn, token_id, id.0)?,
    };
    let reach = reach.ok_or_else(|| not_found(ErrorCode::MedicationNotFound, "Medication not found"))?;
    Ok(Access::of(caller.user_id(), reach))
}

/// The caller's access to a history entry's person; 404 `entry_not_found` when they have none.
pub fn entry(conn: &Connection, caller: impl Into<Caller>, entry_id: i64) -> ServiceResult<Access> {
    let caller = caller.into();
    let reach = match caller {
        Caller::User(user_id) => people::reach_entry(conn, user_id, entry_id)?,
        Caller::Token { token_id, .. } => api_tokens::reach_entry(conn, token_id, entry_id)?,
    };
    let reach = reach.ok_or_else(|| not_found(ErrorCode::EntryNotFound, "History entry not found"))?;
    Ok(Access::of(caller.user_id(), reach))
}

/// Every person the caller reaches, their own first.
pub fn reachable(conn: &Connection, caller: impl Into<Caller>) -> ServiceResult<Vec<Access>> {
    let caller = caller.into();
    let reaches = match caller {
        Caller::User(user_id) => people::reachable(conn, user_id)?,
        Caller::Token { token_id, .. } => api_tokens::reachable(conn, token_id)?,
    };
    Ok(reaches
        .into_iter()
        .map(|reach| Access::of(caller.user_id(), reach))
        .collect())
}

/// Whose rows a whole-account view (the medication list, low stock) reads, and which of
/// its people (None: all of them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Whose {
    pub owner_id: i64,
    pub people: Option<Vec<i64>>,
}

/// One person's (404 `person_not_found` for one the caller cannot see), else the caller's
/// own account: all its people, or those a limited token names.
pub fn whose(conn: &Connection, caller: impl Into<Caller>, person: Option<i64>) -> ServiceResult<Whose> {
    let caller = caller.into();
    Ok(match person {
        Some(id) => Whose {
            owner_id: self::person(conn, caller, id)?.owner_id,
            people: Some(vec![id]),
        },
        None => Whose {
            owner_id: caller.user_id(),
            people: own_people(conn, caller)?,
        },
    })
}

/// The people the caller may see of their own account: None for all of them (a signed-in
/// user, an unlimited token), else those a limited token names. The whole-account views
/// (the medication list, low stock, the history) keep to these.
pub fn own_people(conn: &Connection, caller: Caller) -> ServiceResult<Option<Vec<i64>>> {
    match caller {
        Caller::User(_) => Ok(None),
        Caller::Token { token_id, .. } => Ok(api_tokens::limited_people(conn, token_id)?),
    }
}

/// Who logged a dose or made a change: their id and name as others see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub user_id: i64,
    pub name: String,
}

pub fn actor(conn: &Connection, user_id: i64) -> ServiceResult<Actor> {
    let name = people::user_name(conn, user_id)?.unwrap_or_default();
    Ok(Actor { user_id, name })
}

/// Writes a carer's change into the person's audit list (`action` like `dose.logged`,
/// `subject` what it was about, e.g. the medication's name). The owner's own changes to their
/// own data are not listed.
pub fn audit(
    conn: &Connection,
    access: &Access,
    action: &str,
    subject: &str,
    now: DateTime<Utc>,
) -> ServiceResult<()> {
    if access.is_owner() {
        return Ok(());
    }
    let who = actor(conn, access.user_id)?;
    people::audit(
        conn,
        access.person_id,
        who.user_id,
        &who.name,
        action,
        subject,
        Stamp::from(now),
    )?;
    Ok(())
}
