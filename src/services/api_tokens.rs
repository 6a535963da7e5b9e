//! API tokens (issue 27): a script or Home Assistant acts for an account without its
//! password. A token is `pbx_` and 32 random bytes (base64url), shown once; only its SHA-256
//! is stored (the secret is high-entropy, so a slow hash would add nothing). It reaches the
//! account's own people (all, or those it names) as a carer of its scope would: `read` is
//! the care circle's `view`, `record` and `manage` are theirs (see `access::Caller`). The
//! routes a token may use are chosen by the HTTP layer; everything about the account itself
//! stays behind a password sign-in.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use rusqlite::Connection;
use serde::Serialize;
use utoipa::ToSchema;

use super::access::Caller;
use super::error::{ErrorCode, Problem, ServiceError, ServiceResult, not_found, rejected, unauthorized};
use crate::db::Stamp;
use crate::security::codes;
use crate::store::api_tokens::{self, ApiToken};
use crate::store::people;

/// What every token starts with, so a client (and the server) tells it from a session.
pub const PREFIX: &str = "pbx_";
/// At most this many tokens per account: enough for every script and device of a home,
/// few enough that a forgotten one shows up in the list.
pub const MAX_PER_ACCOUNT: i64 = 50;
/// The longest name, in characters.
pub const NAME_MAX_CHARS: usize = 100;
/// The shortest and longest lifetime a token can be given, in days (absent: no expiry).
pub const EXPIRY_MIN_DAYS: i64 = 1;
pub const EXPIRY_MAX_DAYS: i64 = 3650;
/// `last_used_at` is written at most this often per token, not on every request.
const LAST_USED_EVERY_SECS: i64 = 60;

/// What a token may do, as a carer's role: `read` (view), `record`, `manage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Read,
    Record,
    Manage,
}

impl Scope {
    pub fn parse(text: &str) -> ServiceResult<Scope> {
        match text {
            "read" => Ok(Scope::Read),
            "record" => Ok(Scope::Record),
            "manage" => Ok(Scope::Manage),
            _ => Err(ServiceError::Invalid(
                Problem::new(
                    ErrorCode::ApiTokenScopeInvalid,
                    "A token's scope is read, record or manage",
                )
                .with_param("value", text),
            )),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Record => "record",
            Scope::Manage => "manage",
        }
    }

    fn stored(text: &str) -> Scope {
        match text {
            "manage" => Scope::Manage,
            "record" => Scope::Record,
            _ => Scope::Read,
        }
    }
}

/// A new token as asked for, its fields read by the edge.
pub struct NewToken {
    pub name: String,
    pub scope: Scope,
    /// None: every person of the account, also those added later.
    pub person_ids: Option<Vec<i64>>,
    pub expires_in_days: Option<i64>,
}

/// A person a token is limited to.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenPerson {
    pub id: i64,
    pub name: String,
}

/// A token as listed: never its secret.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenView {
    pub id: i64,
    pub name: String,
    pub scope: Scope,
    /// The people it is limited to; null for every person of the account.
    #[schema(required = true)]
    pub people: Option<Vec<TokenPerson>>,
    /// RFC 3339, UTC.
    #[schema(value_type = String)]
    pub created_at: Stamp,
    /// When it was last used (to the minute), null if never.
    #[schema(required = true, value_type = Option<String>)]
    pub last_used_at: Option<Stamp>,
    /// When it stops working; null for never.
    #[schema(required = true, value_type = Option<String>)]
    pub expires_at: Option<Stamp>,
}

/// A token just made: the only time its secret is answered.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedToken {
    /// `pbx_…`: send it as `Authorization: Bearer pbx_…`. It is not shown again.
    pub token: String,
    #[serde(flatten)]
    pub view: TokenView,
}

fn view(token: ApiToken, names: &HashMap<i64, String>) -> TokenView {
    TokenView {
        id: token.id,
        name: token.name,
        scope: Scope::stored(&token.scope),
        people: token.people.map(|ids| {
            ids.into_iter()
                .map(|id| TokenPerson {
                    id,
                    name: names.get(&id).cloned().unwrap_or_default(),
                })
                .collect()
        }),
        created_at: token.created_at,
        last_used_at: token.last_used_at,
        expires_at: token.expires_at,
    }
}

/// The account's people by id, with their names.
fn own_people(conn: &Connection, user_id: i64) -> ServiceResult<HashMap<i64, String>> {
    Ok(people::own(conn, user_id)?
        .into_iter()
        .map(|person| (person.id, person.name))
        .collect())
}

fn checked_name(name: &str) -> ServiceResult<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(rejected(ErrorCode::ApiTokenNameRequired, "Give the token a name"));
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Err(ServiceError::Invalid(
            Problem::new(
                ErrorCode::ApiTokenNameTooLong,
                format!("A token's name has at most {NAME_MAX_CHARS} characters"),
            )
            .with_param("max", NAME_MAX_CHARS),
        ));
    }
    Ok(name.to_owned())
}

fn expiry(days: Option<i64>, now: DateTime<Utc>) -> ServiceResult<Option<Stamp>> {
    let Some(days) = days else {
        return Ok(None);
    };
    if !(EXPIRY_MIN_DAYS..=EXPIRY_MAX_DAYS).contains(&days) {
        return Err(ServiceError::Invalid(
            Problem::new(
                ErrorCode::ApiTokenExpiryInvalid,
                format!(
                    "A token expires after {EXPIRY_MIN_DAYS} to {EXPIRY_MAX_DAYS} days; leave it out for no expiry"
                ),
            )
            .with_param("min", EXPIRY_MIN_DAYS)
            .with_param("max", EXPIRY_MAX_DAYS)
            .with_param("value", days),
        ));
    }
    Ok(Some(Stamp::from(now + Duration::days(days))))
}

/// Makes a token for the account; answers it with its secret, once. The people it names
/// must be the account's own (404 `person_not_found` otherwise).
pub fn create(
    conn: &Connection,
    user_id: i64,
    new: NewToken,
    now: DateTime<Utc>,
) -> ServiceResult<CreatedToken> {
    let name = checked_name(&new.name)?;
    let expires_at = expiry(new.expires_in_days, now)?;
    let names = own_people(conn, user_id)?;
    if let Some(ids) = &new.person_ids {
        if ids.is_empty() {
            return Err(rejected(
                ErrorCode::ValidationFailed,
                "person_ids names no one: leave it out for every person of the account",
            ));
        }
        if let Some(stranger) = ids.iter().find(|id| !names.contains_key(id)) {
            return Err(ServiceError::NotFound(
                Problem::new(
                    ErrorCode::PersonNotFound,
                    "A token can be limited only to people of your own account",
                )
                .with_param("person_id", *stranger),
            ));
        }
    }
    if api_tokens::count(conn, user_id)? >= MAX_PER_ACCOUNT {
        return Err(ServiceError::Conflict(
            Problem::new(
                ErrorCode::ApiTokenLimitReached,
                format!(
                    "An account has at most {MAX_PER_ACCOUNT} API tokens: revoke one you no longer use first"
                ),
            )
            .with_param("max", MAX_PER_ACCOUNT),
        ));
    }
    let secret = format!("{PREFIX}{}", codes::link_token());
    let id = api_tokens::insert(
        conn,
        user_id,
        &name,
        new.scope.as_str(),
        &codes::hash_link_token(&secret),
        new.person_ids.as_deref(),
        Stamp::from(now),
        expires_at,
    )?;
    let token = api_tokens::list(conn, user_id)?
        .into_iter()
        .find(|token| token.id == id)
        .ok_or_else(|| ServiceError::Internal("a token just made is not there".into()))?;
    Ok(CreatedToken {
        token: secret,
        view: view(token, &names),
    })
}

/// The account's tokens, oldest first.
pub fn list(conn: &Connection, user_id: i64) -> ServiceResult<Vec<TokenView>> {
    let names = own_people(conn, user_id)?;
    Ok(api_tokens::list(conn, user_id)?
        .into_iter()
        .map(|token| view(token, &names))
        .collect())
}

/// Revokes one of the account's tokens: it is refused from the next request on. 404
/// `api_token_not_found` for an id the account has none of.
pub fn revoke(conn: &Connection, user_id: i64, id: i64) -> ServiceResult<()> {
    if api_tokens::delete(conn, user_id, id)? {
        Ok(())
    } else {
        Err(not_found(ErrorCode::ApiTokenNotFound, "API token not found"))
    }
}

/// A token that was accepted: who it acts for, and whether its last use should be noted.
#[derive(Debug, Clone, Copy)]
pub struct Accepted {
    pub caller: Caller,
    pub note_use: bool,
}

/// Why a token was refused, for the log (the token itself is never logged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    Unknown,
    Expired { token_id: i64 },
}

/// The answer to a refused token (401 `api_token_invalid`).
pub fn refused() -> ServiceError {
    unauthorized(
        ErrorCode::ApiTokenInvalid,
        "This API token is not valid: it was revoked or has expired. Create a new one in Settings → Privacy & Security",
    )
}

/// The caller a token acts as at `now`, or why it is refused. Read from the database on
/// every request, so a revoked token is refused at once.
pub fn authenticate(
    conn: &Connection,
    secret: &str,
    now: DateTime<Utc>,
) -> ServiceResult<Result<Accepted, Refusal>> {
    let Some(token) = api_tokens::by_hash(conn, &codes::hash_link_token(secret))? else {
        return Ok(Err(Refusal::Unknown));
    };
    if token.expires_at.is_some_and(|at| at.instant() <= now) {
        return Ok(Err(Refusal::Expired { token_id: token.id }));
    }
    let note_use = token
        .last_used_at
        .is_none_or(|at| (now - at.instant()).num_seconds() >= LAST_USED_EVERY_SECS);
    Ok(Ok(Accepted {
        caller: Caller::Token {
            token_id: token.id,
            user_id: token.user_id,
        },
        note_use,
    }))
}

/// Notes that the token was used at `now`.
pub fn note_use(conn: &Connection, token_id: i64, now: DateTime<Utc>) -> ServiceResult<()> {
    Ok(api_tokens::touch(conn, token_id, Stamp::from(now))?)
}

/// Whether a bearer credential is an API token rather than a session.
pub fn is_api_token(bearer: &str) -> bool {
    bearer.starts_with(PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(checked_name("  Home Assistant ").unwrap(), "Home Assistant");
        assert!(checked_name("   ").is_err());
        assert!(checked_name(&"x".repeat(NAME_MAX_CHARS)).is_ok());
        assert!(checked_name(&"x".repeat(NAME_MAX_CHARS + 1)).is_err());
    }

    #[test]
    fn expiry_is_in_range_or_absent() {
        let now = Utc::now();
        assert_eq!(expiry(None, now).unwrap(), None);
        assert!(expiry(Some(0), now).is_err());
        assert!(expiry(Some(EXPIRY_MAX_DAYS + 1), now).is_err());
        assert_eq!(
            expiry(Some(1), now).unwrap().map(Stamp::instant),
            Some(now + Duration::days(1))
        );
    }

    #[test]
    fn scopes_are_the_three_names() {
        assert_eq!(Scope::parse("read").unwrap(), Scope::Read);
        assert_eq!(Scope::parse("manage").unwrap(), Scope::Manage);
        assert!(Scope::parse("owner").is_err());
        assert!(Scope::parse("view").is_err());
    }
}
