//! Passkeys (issue 27): WebAuthn credentials made and checked by `webauthn-rs`. A passkey
//! signs its account in without an e-mail address or password (a discoverable credential: the
//! authenticator names the account by its user handle), and stands in for the code after the
//! password when two-factor is on.
//!
//! The relying party is `public_url`: its host is the RP id and it is the one origin accepted.
//! Without `public_url`, or with one that names an IP address (which browsers refuse as an
//! RP id), there are no passkeys on the server: the sign-in page is told so and the routes
//! answer 404 `passkeys_not_configured`.
//!
//! Each ceremony's state (its challenge) stays in this process, keyed by a random id the
//! client sends back; it lasts five minutes and is taken out at its first use, whatever the
//! outcome, so an answer can never be replayed and nothing the client sends is trusted as
//! state.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration as StdDuration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chrono::{DateTime, Duration, Utc};
use rand_core::{OsRng, RngCore};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use webauthn_rs::prelude::{
    DiscoverableAuthentication, PasskeyRegistration, PublicKeyCredential, RegisterPublicKeyCredential, Url,
    Uuid, Webauthn, WebauthnBuilder, WebauthnError,
};

use crate::config::Settings;
use crate::db::{Db, Stamp};
use crate::security::codes;
use crate::services::{ErrorCode, Problem, ServiceError, ServiceResult, conflict, not_found, rejected};
use crate::store::passkeys::{self as store, StoredPasskey};
use crate::store::users::{self, User};

/// How long a ceremony may take, from its options to its answer.
pub const CEREMONY_MINUTES: i64 = 5;
/// Ceremonies under way, at most (each start past it drops the oldest).
const MAX_PENDING: usize = 1000;
/// Passkeys per account, at most.
pub const MAX_PER_ACCOUNT: i64 = 20;
/// The longest name, in characters.
pub const NAME_MAX_CHARS: usize = 64;
/// What a password made by an OpenID Connect sign-in starts with: nobody knows it.
const UNUSABLE_PASSWORD: &str = "!oidc:";

enum Step {
    Register {
        user_id: i64,
        state: PasskeyRegistration,
    },
    SignIn {
        state: DiscoverableAuthentication,
    },
}

struct Ceremony {
    step: Step,
    started: DateTime<Utc>,
}

/// The relying party and the ceremonies under way.
pub struct Passkeys {
    webauthn: Webauthn,
    pending: Mutex<HashMap<String, Ceremony>>,
}

/// What the browser needs for `navigator.credentials.create()` or `.get()`, and the id of the
/// ceremony to send back with its answer.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CeremonyOptions {
    /// Send it back with the authenticator's answer; it works once, for five minutes.
    pub ceremony: String,
    /// `PublicKeyCredentialCreationOptions` or `PublicKeyCredentialRequestOptions` as JSON
    /// (binary fields in unpadded base64url).
    #[schema(value_type = Object)]
    pub public_key: Value,
}

/// An authenticator's answer to a sign-in ceremony.
#[derive(Debug, Clone, Deserialize, ToSchema)]
pub struct Assertion {
    /// The `ceremony` of `POST /api/auth/passkeys/login/options`.
    #[schema(max_length = 100)]
    pub ceremony: String,
    /// The `PublicKeyCredential` from `navigator.credentials.get()` as JSON (binary fields in
    /// unpadded base64url): `id`, `rawId`, `type` and `response` with `authenticatorData`,
    /// `clientDataJSON`, `signature` and `userHandle`.
    #[schema(value_type = Object)]
    pub credential: Value,
}

/// A passkey as listed.
#[derive(Debug, Serialize, ToSchema)]
pub struct PasskeyView {
    pub id: i64,
    pub name: String,
    /// RFC 3339, UTC.
    #[schema(value_type = String)]
    pub created_at: Stamp,
    /// When it last signed in, null if never.
    #[schema(required = true, value_type = Option<String>)]
    pub last_used_at: Option<Stamp>,
}

impl From<StoredPasskey> for PasskeyView {
    fn from(p: StoredPasskey) -> PasskeyView {
        PasskeyView {
            id: p.id,
            name: p.name,
            created_at: p.created_at,
            last_used_at: p.last_used_at,
        }
    }
}

/// A passkey that proved itself: its account (whose address and verification the caller
/// checks) and the passkey.
pub struct Verified {
    pub user: User,
    pub passkey_id: i64,
}

fn not_configured() -> ServiceError {
    not_found(
        ErrorCode::PasskeysNotConfigured,
        "Passkeys are not available on this server: its administrator sets public_url to the address people open",
    )
}

/// 404 `passkeys_not_configured` when the server has no passkeys.
pub fn configured(passkeys: Option<&Passkeys>) -> ServiceResult<&Passkeys> {
    passkeys.ok_or_else(not_configured)
}

fn ceremony_invalid() -> Problem {
    Problem::new(
        ErrorCode::PasskeyCeremonyInvalid,
        "This passkey request is unknown, was already used or is older than five minutes; try again",
    )
}

fn passkey_invalid() -> Problem {
    Problem::new(
        ErrorCode::PasskeyInvalid,
        "The passkey's answer could not be verified",
    )
}

/// A sign-in refusal (401) with its problem.
fn refused(problem: Problem) -> ServiceError {
    ServiceError::Unauthorized(problem)
}

/// Why passkeys are off for these settings, if they are.
pub fn unavailable_because(settings: &Settings) -> Option<&'static str> {
    let Some(url) = settings.public_base_url() else {
        return Some("public_url is not set");
    };
    match Url::parse(url) {
        Ok(url) if url.domain().is_some() => None,
        Ok(_) => Some("public_url names an IP address, which browsers do not accept for passkeys"),
        Err(_) => Some("public_url is not a URL"),
    }
}

impl Passkeys {
    /// The relying party of `public_url`; none when it is unset or names no host name.
    pub fn new(settings: &Settings) -> Option<Passkeys> {
        if unavailable_because(settings).is_some() {
            return None;
        }
        let origin = Url::parse(settings.public_base_url()?).ok()?;
        let rp_id = origin.domain()?.to_owned();
        let webauthn = WebauthnBuilder::new(&rp_id, &origin)
            .ok()?
            .rp_name("Pillbox")
            .timeout(StdDuration::from_secs(CEREMONY_MINUTES as u64 * 60))
            .build()
            .ok()?;
        Some(Passkeys {
            webauthn,
            pending: Mutex::new(HashMap::new()),
        })
    }

    fn keep(&self, step: Step, now: DateTime<Utc>) -> String {
        let id = codes::link_token();
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.retain(|_, c| now - c.started < Duration::minutes(CEREMONY_MINUTES));
        if pending.len() >= MAX_PENDING
            && let Some(oldest) = pending
                .iter()
                .min_by_key(|(_, c)| c.started)
                .map(|(k, _)| k.clone())
        {
            pending.remove(&oldest);
        }
        pending.insert(id.clone(), Ceremony { step, started: now });
        id
    }

    /// Takes a ceremony out (it works once), if it is known and not too old.
    fn take(&self, id: &str, now: DateTime<Utc>) -> Option<Step> {
        self.pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id.trim())
            .filter(|c| now - c.started < Duration::minutes(CEREMONY_MINUTES))
            .map(|c| c.step)
    }

    /// The options of a new passkey for `user`: a discoverable credential that verifies its
    /// user, none of the account's passkeys again.
    pub async fn registration_options(
        &self,
        db: &Db,
        user: &User,
        now: DateTime<Utc>,
    ) -> ServiceResult<CeremonyOptions> {
        let user_id = user.id;
        let fresh = Uuid::from_bytes(random_bytes()).to_string();
        let (handle, existing) = db
            .write(move |conn| {
                let tx = conn.transaction()?;
                let existing = store::list(&tx, user_id)?;
                if existing.len() as i64 >= MAX_PER_ACCOUNT {
                    tracing::warn!(
                        user_id,
                        "passkey registration refused: the account has the most passkeys already"
                    );
                    return Err(limit_reached());
                }
                let handle = store::keep_handle(&tx, user_id, &fresh)?;
                tx.commit()?;
                Ok::<_, ServiceError>((handle, existing))
            })
            .await?;
        let handle = Uuid::parse_str(&handle)
            .map_err(|e| ServiceError::Internal(format!("stored passkey handle of user {user_id}: {e}")))?;
        let exclude = existing.iter().map(|p| p.credential.cred_id().clone()).collect();
        let display = display_name(user);
        let (options, state) = self
            .webauthn
            .start_passkey_registration(handle, &user.email, &display, Some(exclude))
            .map_err(|e| ServiceError::Internal(format!("passkey registration options: {e}")))?;
        let mut public_key = serde_json::to_value(options.public_key)
            .map_err(|e| ServiceError::Internal(format!("passkey registration options: {e}")))?;
        // A passkey that signs in without an e-mail address must live on the authenticator.
        if let Some(selection) = public_key
            .get_mut("authenticatorSelection")
            .and_then(Value::as_object_mut)
        {
            selection.insert("residentKey".into(), Value::from("required"));
            selection.insert("requireResidentKey".into(), Value::from(true));
        }
        let ceremony = self.keep(Step::Register { user_id, state }, now);
        Ok(CeremonyOptions { ceremony, public_key })
    }

    /// Stores the passkey the authenticator made in the account's registration ceremony.
    pub async fn register(
        &self,
        db: &Db,
        user_id: i64,
        ceremony: &str,
        name: &str,
        credential: Value,
        now: DateTime<Utc>,
    ) -> ServiceResult<PasskeyView> {
        let name = valid_name(name)?;
        let state = match self.take(ceremony, now) {
            Some(Step::Register {
                user_id: owner,
                state,
            }) if owner == user_id => state,
            _ => {
                tracing::warn!(
                    user_id,
                    "passkey registration refused: unknown, used, expired or another account's ceremony"
                );
                return Err(ServiceError::Invalid(ceremony_invalid()));
            }
        };
        let credential: RegisterPublicKeyCredential = serde_json::from_value(credential).map_err(|e| {
            tracing::warn!(user_id, error = %e, "passkey registration refused: the answer is not a PublicKeyCredential");
            ServiceError::Invalid(passkey_invalid())
        })?;
        let raw_id = URL_SAFE_NO_PAD.encode(&credential.raw_id);
        let passkey = match self.webauthn.finish_passkey_registration(&credential, &state) {
            Ok(passkey) => passkey,
            Err(e) => {
                // webauthn-rs 0.6 answers an excluded credential (one of the account's) with
                // the error of an unasked-for algorithm: tell the two apart by the id.
                let excluded = matches!(
                    e,
                    WebauthnError::CredentialAlteredAlgFromRequest
                        | WebauthnError::CredentialExcludedFromRequest
                ) && db
                    .read(move |conn| Ok::<_, ServiceError>(store::by_credential_id(conn, &raw_id)?))
                    .await?
                    .is_some_and(|p| p.user_id == user_id);
                if excluded {
                    tracing::warn!(
                        user_id,
                        "passkey registration refused: this credential is registered already"
                    );
                    return Err(already_registered());
                }
                tracing::warn!(user_id, error = %e, "passkey registration refused: the answer does not verify");
                return Err(ServiceError::Invalid(passkey_invalid()));
            }
        };
        let credential_id = URL_SAFE_NO_PAD.encode(passkey.cred_id().as_ref() as &[u8]);
        let at = Stamp::from(now);
        let stored = db
            .write(move |conn| {
                let tx = conn.transaction()?;
                if store::count(&tx, user_id)? >= MAX_PER_ACCOUNT {
                    tracing::warn!(
                        user_id,
                        "passkey registration refused: the account has the most passkeys already"
                    );
                    return Err(limit_reached());
                }
                let Some(id) = store::insert(&tx, user_id, &name, &credential_id, &passkey, at)? else {
                    tracing::warn!(
                        user_id,
                        "passkey registration refused: this credential is registered already"
                    );
                    return Err(already_registered());
                };
                tx.commit()?;
                Ok(PasskeyView {
                    id,
                    name,
                    created_at: at,
                    last_used_at: None,
                })
            })
            .await?;
        tracing::info!(user_id, passkey_id = stored.id, "passkey registered");
        Ok(stored)
    }

    /// The options of a sign-in with any passkey of this server (the authenticator offers
    /// those it holds; no account is named).
    pub fn sign_in_options(&self, now: DateTime<Utc>) -> ServiceResult<CeremonyOptions> {
        let (mut options, state) = self
            .webauthn
            .start_discoverable_authentication()
            .map_err(|e| ServiceError::Internal(format!("passkey sign-in options: {e}")))?;
        // A button asks for the passkey (not the browser's autofill).
        options.mediation = None;
        let public_key = serde_json::to_value(options.public_key)
            .map_err(|e| ServiceError::Internal(format!("passkey sign-in options: {e}")))?;
        let ceremony = self.keep(Step::SignIn { state }, now);
        Ok(CeremonyOptions { ceremony, public_key })
    }

    /// Reads an assertion and finds the account its passkey belongs to, taking its ceremony
    /// out. `None` for a passkey this server does not know (or whose user handle is not its
    /// account's): the caller charges that to the sign-in budget.
    pub async fn identify(
        &self,
        db: &Db,
        answer: Assertion,
        now: DateTime<Utc>,
    ) -> ServiceResult<Identified> {
        let state = match self.take(&answer.ceremony, now) {
            Some(Step::SignIn { state }) => state,
            _ => {
                tracing::warn!("passkey sign-in refused: unknown, used or expired ceremony");
                return Err(refused(ceremony_invalid()));
            }
        };
        let credential: PublicKeyCredential = serde_json::from_value(answer.credential).map_err(|e| {
            tracing::warn!(error = %e, "passkey sign-in refused: the answer is not a PublicKeyCredential");
            refused(passkey_invalid())
        })?;
        let Ok((handle, credential_id)) = self.webauthn.identify_discoverable_authentication(&credential)
        else {
            tracing::warn!("passkey sign-in refused: the answer names no account (no user handle)");
            return Ok(Identified::Unknown);
        };
        let credential_id = URL_SAFE_NO_PAD.encode(credential_id);
        let handle = handle.to_string();
        let found = db
            .read(move |conn| {
                let Some(stored) = store::by_credential_id(conn, &credential_id)? else {
                    return Ok(None);
                };
                if store::handle_of(conn, stored.user_id)?.as_deref() != Some(handle.as_str()) {
                    return Ok(None);
                }
                let user = users::find_by_id(conn, stored.user_id)?;
                Ok::<_, ServiceError>(user.map(|user| (stored, user)))
            })
            .await?;
        Ok(match found {
            Some((stored, user)) => Identified::Known(Box::new(Pending {
                state,
                credential,
                stored,
                user,
            })),
            None => {
                tracing::warn!("passkey sign-in refused: unknown passkey");
                Identified::Unknown
            }
        })
    }

    /// Checks the assertion's signature, challenge, origin, user verification and counter;
    /// then keeps the new counter and the time of use.
    pub async fn verify(
        &self,
        db: &Db,
        pending: Box<Pending>,
        now: DateTime<Utc>,
    ) -> ServiceResult<Verified> {
        let Pending {
            state,
            credential,
            mut stored,
            user,
        } = *pending;
        let (user_id, passkey_id) = (user.id, stored.id);
        let result = self
            .webauthn
            .finish_discoverable_authentication_v2(&credential, state, &stored.credential)
            .map_err(|e| match e {
                WebauthnError::CredentialPossibleCompromise => {
                    tracing::warn!(
                        user_id,
                        passkey_id,
                        "passkey sign-in refused: its signature counter went backwards, so the authenticator may have been copied"
                    );
                    refused(Problem::new(
                        ErrorCode::PasskeyCounterInvalid,
                        "This passkey answered with a counter it used before: it may have been copied. Remove it and add it again",
                    ))
                }
                e => {
                    tracing::warn!(user_id, passkey_id, error = %e, "passkey sign-in refused: the answer does not verify");
                    refused(passkey_invalid())
                }
            })?;
        stored.credential.update_credential(&result);
        let at = Stamp::from(now);
        db.write(move |conn| {
            Ok::<_, ServiceError>(store::record_use(conn, passkey_id, &stored.credential, at)?)
        })
        .await?;
        Ok(Verified { user, passkey_id })
    }
}

/// An assertion whose passkey and account were found, waiting for its signature check.
pub struct Pending {
    state: DiscoverableAuthentication,
    credential: PublicKeyCredential,
    stored: StoredPasskey,
    pub user: User,
}

pub enum Identified {
    Known(Box<Pending>),
    Unknown,
}

/// The account's passkeys, oldest first.
pub async fn list(db: &Db, user_id: i64) -> ServiceResult<Vec<PasskeyView>> {
    db.read(move |conn| Ok::<_, ServiceError>(store::list(conn, user_id)?))
        .await
        .map(|all| all.into_iter().map(PasskeyView::from).collect())
}

/// Whether the account has a passkey (then it is offered as the second factor).
pub async fn has_any(db: &Db, user_id: i64) -> ServiceResult<bool> {
    db.read(move |conn| Ok::<_, ServiceError>(store::count(conn, user_id)? > 0))
        .await
}

/// Deletes one of the account's passkeys; another account's id is 404. The last way to sign
/// in stays: an account whose password nobody knows (made by an OpenID Connect sign-in) and
/// that has no identity at a provider any more keeps its last passkey (409).
pub async fn delete(db: &Db, user_id: i64, id: i64) -> ServiceResult<()> {
    db.write(move |conn| {
        let tx = conn.transaction()?;
        let owned = store::list(&tx, user_id)?;
        if !owned.iter().any(|p| p.id == id) {
            tracing::warn!(user_id, passkey_id = id, "passkey deletion refused: not one of the account's");
            return Err(not_found(ErrorCode::PasskeyNotFound, "None of your passkeys has this id"));
        }
        let password_usable = users::find_by_id(&tx, user_id)?.is_some_and(|u| password_usable(&u));
        if owned.len() == 1 && !password_usable && !store::has_oidc_identity(&tx, user_id)? {
            tracing::warn!(user_id, passkey_id = id, "passkey deletion refused: it is the account's last way to sign in");
            return Err(conflict(
                ErrorCode::PasskeyLastSignInMethod,
                "This passkey is the only way left to sign in to your account: set a password (Forgot password) or add another passkey first",
            ));
        }
        store::delete(&tx, user_id, id)?;
        tx.commit()?;
        tracing::info!(user_id, passkey_id = id, "passkey deleted");
        Ok(())
    })
    .await
}

fn already_registered() -> ServiceError {
    conflict(
        ErrorCode::PasskeyAlreadyRegistered,
        "This passkey is registered already",
    )
}

/// Whether the account has a password its owner may know: accounts made by an OpenID Connect
/// sign-in store one nobody knows until a password is chosen.
pub fn password_usable(user: &User) -> bool {
    !user.password_hash.starts_with(UNUSABLE_PASSWORD)
}

fn limit_reached() -> ServiceError {
    ServiceError::Conflict(
        Problem::new(
            ErrorCode::PasskeyLimitReached,
            format!("Your account has {MAX_PER_ACCOUNT} passkeys already: delete one first"),
        )
        .with_param("max", MAX_PER_ACCOUNT),
    )
}

fn valid_name(name: &str) -> ServiceResult<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(rejected(
            ErrorCode::PasskeyNameRequired,
            "Give the passkey a name, e.g. the device it is on",
        ));
    }
    if name.chars().count() > NAME_MAX_CHARS {
        return Err(ServiceError::Invalid(
            Problem::new(
                ErrorCode::PasskeyNameTooLong,
                format!("A passkey's name has at most {NAME_MAX_CHARS} characters"),
            )
            .with_param("max", NAME_MAX_CHARS),
        ));
    }
    Ok(name.to_owned())
}

fn display_name(user: &User) -> String {
    let name = format!("{} {}", user.first_name.trim(), user.last_name.trim());
    match name.trim() {
        "" => user.email.clone(),
        name => name.to_owned(),
    }
}

fn random_bytes() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    OsRng.fill_bytes(&mut bytes);
    bytes
}

/// A sign-in refusal for a passkey this server does not know (the same answer as a wrong one).
pub fn unknown_passkey() -> ServiceError {
    refused(passkey_invalid())
}
