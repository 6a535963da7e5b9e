//! Sign-in through an OpenID Connect provider: the authorization-code flow with PKCE (S256),
//! `state` and `nonce`, the ID token checked by the `openidconnect` crate against the
//! provider's keys (fetched again once when a token names a key it does not know), and a
//! one-time code (60 s, single use) that the app exchanges for an ordinary session, so no
//! session token ever appears in a URL.
//!
//! A first sign-in whose verified e-mail address belongs to an account that is not linked yet
//! returns with a one-time link code instead (also 60 s, single use). The app trades it for
//! what the linking page shows and a linking secret it keeps in memory; the account's own
//! password (and second factor, when on) then links the identity and signs in.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreIdToken, CoreProviderMetadata};
use openidconnect::{
    AsyncHttpClient, AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken,
    EndpointMaybeSet, EndpointNotSet, EndpointSet, HttpRequest, HttpResponse, IssuerUrl, Nonce,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, SignatureVerificationError, TokenResponse,
};
use rusqlite::Connection;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::config::{OidcSettings, Settings};
use crate::db::{Db, Stamp};
use crate::domain::words::Lang;
use crate::security::codes;
use crate::services::accounts::{Accounts, Second};
use crate::services::{ErrorCode, Problem, ServiceError, ServiceResult, user_settings};
use crate::store::{oidc as identities, users};

/// How the password of an account made for a provider's identity begins: no password
/// matches it until its holder sets one.
pub const UNUSABLE_PASSWORD: &str = "!oidc:";

/// How long a sign-in may stay at the provider.
const SIGN_IN_MINUTES: i64 = 10;
/// How long the code the app exchanges for a session lasts.
const CODE_SECONDS: i64 = 60;
/// Sign-ins waiting at the provider, at most (each start past it drops the oldest).
const MAX_PENDING: usize = 1000;
/// How long the linking page may wait for the account's password once it has opened.
const LINK_MINUTES: i64 = 10;
/// Links waiting for a password, at most (each past it drops the oldest).
const MAX_LINKS: usize = 1000;

type Provider = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

struct Pending {
    nonce: Nonce,
    verifier: PkceCodeVerifier,
    return_to: Option<String>,
    /// The app's language at the start: a new account is made in it.
    language: Option<Lang>,
    started: DateTime<Utc>,
}

struct Ticket {
    user_id: i64,
    expires: DateTime<Utc>,
}

/// An identity the provider vouched for that may be linked to the account with its verified
/// address, once that account's password is given.
#[derive(Clone)]
struct Link {
    user_id: i64,
    subject: String,
    email: String,
    expires: DateTime<Utc>,
}

/// The provider as this server uses it, with the sign-ins under way.
pub struct Oidc {
    settings: OidcSettings,
    issuer: String,
    redirect: RedirectUrl,
    http: Http,
    /// Discovered on first use; discovered again when a token is signed with an unknown key.
    provider: tokio::sync::Mutex<Option<Provider>>,
    pending: Mutex<HashMap<String, Pending>>,
    tickets: Mutex<HashMap<String, Ticket>>,
    /// Link codes from the provider's return (60 s, single use), by their hash.
    link_codes: Mutex<HashMap<String, Link>>,
    /// Links the linking page opened, waiting for the account's password, by their hash.
    links: Mutex<HashMap<String, Link>>,
}

/// What the provider's return leads to: the one-time code, and the page to open then (it
/// travels in the app's address, beside the code).
pub struct Returned {
    pub code: String,
    pub return_to: Option<String>,
    /// A sign-in code for `POST /api/auth/oidc/exchange`, or a link code for the linking page.
    pub kind: ReturnKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnKind {
    SignIn,
    Link,
}

/// What the linking page shows, and the secret that links (kept in the app's memory, never
/// in an address).
#[derive(Debug, Serialize, ToSchema)]
pub struct LinkOffer {
    /// Sent back with the password to `POST /api/auth/oidc/link`; valid 10 minutes.
    pub link: String,
    /// The provider's label ("Sign in with <label>").
    pub provider: String,
    /// The address the provider gave for the identity.
    pub identity_email: String,
    /// The Pillbox account it would be linked to.
    pub account_email: String,
}

/// An identity linked to the account, as Settings → Security shows it.
#[derive(Debug, Serialize, ToSchema)]
pub struct LinkedIdentity {
    pub id: i64,
    /// The provider's issuer URL.
    pub issuer: String,
    /// The provider's label when it is the one this server signs in with now.
    pub label: Option<String>,
    /// The address the provider gave when it was linked.
    pub email: Option<String>,
    /// When it was linked (RFC 3339, UTC).
    #[schema(value_type = String)]
    pub linked_at: Stamp,
    /// When it last signed in; null if never since it was linked.
    #[schema(required = true, value_type = Option<String>)]
    pub last_used_at: Option<Stamp>,
}

/// The identities linked to the account, oldest first. `provider` is this server's issuer and
/// label, when one is set up.
pub fn identities_of(
    conn: &Connection,
    user_id: i64,
    provider: Option<(&str, &str)>,
) -> ServiceResult<Vec<LinkedIdentity>> {
    Ok(identities::of_user(conn, user_id)?
        .into_iter()
        .map(|row| LinkedIdentity {
            label: provider
                .filter(|(issuer, _)| *issuer == row.issuer)
                .map(|(_, label)| label.to_owned()),
            id: row.id,
            issuer: row.issuer,
            email: row.email,
            linked_at: row.created_at,
            last_used_at: row.last_used_at,
        })
        .collect())
}

/// Unlinks one of the account's identities, while another way to sign in remains (409
/// `oidc_last_sign_in` otherwise); another account's id is 404 `oidc_identity_not_found`.
pub fn unlink(conn: &mut Connection, user_id: i64, id: i64) -> ServiceResult<()> {
    let tx = conn.transaction()?;
    if !identities::of_user(&tx, user_id)?.iter().any(|row| row.id == id) {
        return Err(ServiceError::NotFound(Problem::new(
            ErrorCode::OidcIdentityNotFound,
            "No identity of your account has this id",
        )));
    }
    if !identities::other_sign_in_remains(&tx, user_id)? {
        tracing::warn!(
            user_id,
            identity = id,
            "OpenID Connect unlink refused: no other way to sign in remains"
        );
        return Err(ServiceError::Conflict(Problem::new(
            ErrorCode::OidcLastSignIn,
            "This is the only way to sign in to your account: set a password first (\"Forgot password\" on the sign-in page), then unlink it",
        )));
    }
    identities::unlink(&tx, user_id, id)?;
    tx.commit()?;
    tracing::info!(user_id, identity = id, "OpenID Connect identity unlinked");
    Ok(())
}

fn failed(message: impl Into<String>) -> ServiceError {
    ServiceError::Unauthorized(Problem::new(ErrorCode::OidcFailed, message))
}

fn link_invalid() -> ServiceError {
    tracing::warn!("OpenID Connect link refused: unknown, used or expired link");
    ServiceError::Unauthorized(Problem::new(
        ErrorCode::OidcCodeInvalid,
        "This link request was already used or is too old; sign in with the provider again",
    ))
}

/// Drops expired entries, and the oldest when the map is full.
fn make_room(map: &mut HashMap<String, Link>, now: DateTime<Utc>) {
    map.retain(|_, l| l.expires > now);
    if map.len() >= MAX_LINKS
        && let Some(oldest) = map.iter().min_by_key(|(_, l)| l.expires).map(|(k, _)| k.clone())
    {
        map.remove(&oldest);
    }
}

/// A path of this app (never another host, `//host` or `/\host`).
pub fn same_origin_path(path: &str) -> Option<String> {
    let ok = path.starts_with('/')
        && !path.starts_with("//")
        && !path.starts_with("/\\")
        && path.len() <= 512
        && !path.chars().any(char::is_control);
    ok.then(|| path.to_owned())
}

impl Oidc {
    /// The provider of `settings`, when one is set up.
    pub fn new(settings: &Settings) -> Option<Oidc> {
        let oidc = &settings.oidc;
        let issuer = oidc.issuer.clone()?;
        let redirect = RedirectUrl::new(format!("{}/api/auth/oidc/callback", settings.link_base())).ok()?;
        let http = reqwest::Client::builder()
            .timeout(StdDuration::from_secs(10))
            // Redirects are not followed: the provider's endpoints answer themselves.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .ok()?;
        Some(Oidc {
            settings: oidc.clone(),
            issuer,
            redirect,
            http: Http(http),
            provider: tokio::sync::Mutex::new(None),
            pending: Mutex::new(HashMap::new()),
            tickets: Mutex::new(HashMap::new()),
            link_codes: Mutex::new(HashMap::new()),
            links: Mutex::new(HashMap::new()),
        })
    }

    /// "Sign in with <label>".
    pub fn button_label(&self) -> &str {
        &self.settings.button_label
    }

    pub fn password_login_disabled(&self) -> bool {
        self.settings.disable_password_login
    }

    /// The issuer this server signs in with.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    async fn provider(&self, again: bool) -> ServiceResult<Provider> {
        let mut cached = self.provider.lock().await;
        if let (Some(provider), false) = (cached.as_ref(), again) {
            return Ok(provider.clone());
        }
        let issuer = IssuerUrl::new(self.issuer.clone()).map_err(|e| failed(format!("oidc.issuer: {e}")))?;
        let metadata = CoreProviderMetadata::discover_async(issuer, &self.http)
            .await
            .map_err(|e| {
                tracing::warn!(issuer = %self.issuer, error = %e, "OpenID Connect discovery failed");
                ServiceError::Unavailable(Problem::new(
                    ErrorCode::OidcFailed,
                    "The sign-in provider cannot be reached; try again later",
                ))
            })?;
        let provider = CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(self.settings.client_id.clone().unwrap_or_default()),
            self.settings.client_secret.clone().map(ClientSecret::new),
        )
        .set_redirect_uri(self.redirect.clone());
        *cached = Some(provider.clone());
        Ok(provider)
    }

    /// The provider's sign-in page for a new sign-in, which returns to `return_to` (a path of
    /// this app) when it succeeds. `language` (one the app speaks; anything else is ignored)
    /// is the language of an account made for a new identity.
    pub async fn start(
        &self,
        return_to: Option<&str>,
        language: Option<&str>,
        now: DateTime<Utc>,
    ) -> ServiceResult<String> {
        let language = language.and_then(|l| user_settings::parse_language(l.trim()).ok());
        let provider = self.provider(false).await?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = provider
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .set_pkce_challenge(challenge);
        for scope in self.settings.scopes.split_whitespace().filter(|s| *s != "openid") {
            request = request.add_scope(Scope::new(scope.to_owned()));
        }
        let (url, state, nonce) = request.url();
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.retain(|_, p| now - p.started < Duration::minutes(SIGN_IN_MINUTES));
        if pending.len() >= MAX_PENDING
            && let Some(oldest) = pending
                .iter()
                .min_by_key(|(_, p)| p.started)
                .map(|(k, _)| k.clone())
        {
            pending.remove(&oldest);
        }
        pending.insert(
            state.secret().clone(),
            Pending {
                nonce,
                verifier,
                return_to: return_to.and_then(same_origin_path),
                language,
                started: now,
            },
        );
        Ok(url.to_string())
    }

    /// The provider's return: the code exchanged (with the PKCE verifier), the ID token
    /// checked, and the identity matched to an account. Every refusal is logged with why.
    pub async fn finish(
        &self,
        db: &Db,
        code: &str,
        state: &str,
        now: DateTime<Utc>,
    ) -> ServiceResult<Returned> {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(state);
        let Some(pending) = pending.filter(|p| now - p.started < Duration::minutes(SIGN_IN_MINUTES)) else {
            tracing::warn!("OpenID Connect return refused: unknown, used or expired state");
            return Err(failed(
                "This sign-in is unknown, was already used or took too long; start again",
            ));
        };
        let provider = self.provider(false).await?;
        let tokens = provider
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(|e| failed(format!("The provider has no token endpoint: {e}")))?
            .set_pkce_verifier(pending.verifier)
            .request_async(&self.http)
            .await
            .map_err(|e| {
                tracing::warn!(error = %e, "OpenID Connect return refused: the code exchange failed");
                failed("The provider did not accept this sign-in; start again")
            })?;
        let Some(id_token) = tokens.id_token() else {
            tracing::warn!("OpenID Connect return refused: no ID token");
            return Err(failed("The provider sent no ID token"));
        };
        let identity = match self.verify(&provider, id_token, &pending.nonce) {
            Err(ClaimsVerificationError::SignatureVerification(
                SignatureVerificationError::NoMatchingKey,
            )) => {
                // The provider rotated its keys since they were fetched.
                let provider = self.provider(true).await?;
                self.verify(&provider, id_token, &pending.nonce)
            }
            other => other,
        }
        .map_err(|e| {
            tracing::warn!(error = %e, "OpenID Connect return refused: the ID token does not verify");
            failed("The provider's ID token could not be verified")
        })?;
        if !self.settings.allowed_groups.is_empty()
            && !identity
                .groups
                .iter()
                .any(|g| self.settings.allowed_groups.contains(g))
        {
            tracing::warn!(subject = %identity.subject, "OpenID Connect sign-in refused: in none of oidc.allowed_groups");
            return Err(ServiceError::Forbidden(Problem::new(
                ErrorCode::OidcGroupDenied,
                "Your account at the provider is not in a group allowed to use Pillbox; ask the administrator",
            )));
        }
        let code = codes::link_token();
        let expires = now + Duration::seconds(CODE_SECONDS);
        let kind = match self.account_of(db, identity, pending.language, now).await? {
            Account::SignIn(user_id) => {
                let mut tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
                tickets.retain(|_, t| t.expires > now);
                tickets.insert(codes::hash_link_token(&code), Ticket { user_id, expires });
                ReturnKind::SignIn
            }
            Account::Link {
                user_id,
                subject,
                email,
            } => {
                let mut links = self.link_codes.lock().unwrap_or_else(|e| e.into_inner());
                make_room(&mut links, now);
                links.insert(
                    codes::hash_link_token(&code),
                    Link {
                        user_id,
                        subject,
                        email,
                        expires,
                    },
                );
                ReturnKind::Link
            }
        };
        Ok(Returned {
            code,
            return_to: pending.return_to,
            kind,
        })
    }

    fn verify(
        &self,
        provider: &Provider,
        id_token: &CoreIdToken,
        nonce: &Nonce,
    ) -> Result<Identity, ClaimsVerificationError> {
        let claims = id_token.claims(&provider.id_token_verifier(), nonce)?;
        Ok(Identity {
            subject: claims.subject().to_string(),
            email: claims.email().map(|e| e.to_string()),
            email_verified: claims.email_verified().unwrap_or(false),
            groups: groups_of(id_token, &self.settings.groups_claim),
        })
    }

    /// The account linked to the identity. An unknown identity with a verified address: the
    /// account with that address, to be linked once its password is given, else a new one
    /// (in `language`) when `auto_register` is on.
    async fn account_of(
        &self,
        db: &Db,
        identity: Identity,
        language: Option<Lang>,
        now: DateTime<Utc>,
    ) -> ServiceResult<Account> {
        let issuer = self.issuer.clone();
        let auto_register = self.settings.auto_register;
        db.write(move |conn| {
            let tx = conn.transaction()?;
            let at = Stamp::from(now);
            if let Some(user_id) = identities::user_of(&tx, &issuer, &identity.subject)? {
                identities::used(&tx, &issuer, &identity.subject, at)?;
                tx.commit()?;
                return Ok(Account::SignIn(user_id));
            }
            // An address the provider has not verified names nobody: it neither links nor
            // makes an account (and whether an account has it is not told).
            let Some(email) = identity.email.as_deref().filter(|_| identity.email_verified) else {
                tracing::warn!(subject = %identity.subject, "OpenID Connect sign-in refused: the provider did not verify the e-mail address");
                return Err(ServiceError::Forbidden(Problem::new(
                    ErrorCode::OidcEmailUnverified,
                    "The provider has not verified your e-mail address, so Pillbox can neither link it to an account nor make one; verify it at the provider first",
                )));
            };
            if let Some(user) = users::find_by_email(&tx, email)? {
                tracing::info!(user_id = user.id, subject = %identity.subject, "OpenID Connect identity may be linked to the account with its address: asking for the account's password");
                return Ok(Account::Link {
                    user_id: user.id,
                    subject: identity.subject,
                    email: email.to_owned(),
                });
            }
            if !auto_register {
                tracing::warn!(subject = %identity.subject, "OpenID Connect sign-in refused: unknown identity, oidc.auto_register is off");
                return Err(ServiceError::Forbidden(Problem::new(
                    ErrorCode::OidcNotAllowed,
                    "This server has no account for you yet, and the administrator has not allowed new accounts from the provider",
                )));
            }
            // A password nobody knows: the account signs in through the provider until its
            // holder sets one (forgotten password).
            let unusable = format!("{UNUSABLE_PASSWORD}{}", codes::link_token());
            let Some(user) = users::insert(&tx, email, &unusable, true, at)? else {
                // Made by another request between the lookup and here.
                return Err(failed("An account with your e-mail address was made meanwhile; start again"));
            };
            if let Some(language) = language {
                user_settings::set_language(&tx, user.id, language)?;
            }
            identities::link(&tx, user.id, &issuer, &identity.subject, Some(email), at)?;
            tx.commit()?;
            tracing::info!(user_id = user.id, "account made for a new OpenID Connect identity");
            Ok(Account::SignIn(user.id))
        })
        .await
    }

    /// Opens the linking page: the link code from the provider's return (60 s, single use)
    /// becomes what the page shows and the secret it links with (10 minutes, until linked).
    pub async fn open_link(&self, db: &Db, code: &str, now: DateTime<Utc>) -> ServiceResult<LinkOffer> {
        let link = self
            .link_codes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&codes::hash_link_token(code.trim()));
        let Some(mut link) = link.filter(|l| l.expires > now) else {
            return Err(link_invalid());
        };
        let user_id = link.user_id;
        let account = db
            .read(move |conn| Ok::<_, ServiceError>(users::find_by_id(conn, user_id)?))
            .await?
            .ok_or_else(link_invalid)?;
        let secret = codes::link_token();
        link.expires = now + Duration::minutes(LINK_MINUTES);
        let offer = LinkOffer {
            link: secret.clone(),
            provider: self.settings.button_label.clone(),
            identity_email: link.email.clone(),
            account_email: account.email,
        };
        let mut links = self.links.lock().unwrap_or_else(|e| e.into_inner());
        make_room(&mut links, now);
        links.insert(codes::hash_link_token(&secret), link);
        Ok(offer)
    }

    /// Links the identity of an open link to its account when the account's own password
    /// (and its second factor, when on) is right, and answers the account. A wrong password
    /// links nothing, counts against the sign-in budget, and leaves the link open for another
    /// try.
    pub async fn link(
        &self,
        accounts: &Accounts<'_>,
        client: &str,
        secret: &str,
        password: String,
        code: Option<&str>,
        now: DateTime<Utc>,
    ) -> ServiceResult<i64> {
        let key = codes::hash_link_token(secret.trim());
        let link = {
            let mut links = self.links.lock().unwrap_or_else(|e| e.into_inner());
            links.retain(|_, l| l.expires > now);
            links.get(&key).cloned()
        };
        let Some(link) = link else {
            return Err(link_invalid());
        };
        let user_id = link.user_id;
        let account = accounts
            .db
            .read(move |conn| Ok::<_, ServiceError>(users::find_by_id(conn, user_id)?))
            .await?
            .ok_or_else(link_invalid)?;
        let user = accounts
            .authenticate(client, &account.email, password, Second::of(code, None), None, now)
            .await
            .inspect_err(|e| {
                tracing::warn!(user_id, subject = %link.subject, error = %e, "OpenID Connect link refused: the account's sign-in did not pass");
            })?;
        if user.id != user_id {
            return Err(link_invalid());
        }
        // Used once: a second request with the same secret finds nothing.
        if self
            .links
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key)
            .is_none()
        {
            return Err(link_invalid());
        }
        let issuer = self.issuer.clone();
        let linked = accounts
            .db
            .write(move |conn| {
                identities::link(
                    conn,
                    user_id,
                    &issuer,
                    &link.subject,
                    Some(&link.email),
                    Stamp::from(now),
                )
                .map_err(ServiceError::from)
            })
            .await?;
        if !linked {
            tracing::warn!(
                user_id,
                "OpenID Connect link refused: the identity was linked meanwhile"
            );
            return Err(ServiceError::Conflict(Problem::new(
                ErrorCode::OidcFailed,
                "This identity was linked to an account meanwhile; sign in with the provider again",
            )));
        }
        tracing::info!(
            user_id,
            "OpenID Connect identity linked to an existing account with its password"
        );
        Ok(user_id)
    }

    /// The account of a one-time code from the provider's return; the code works once, for 60 s.
    pub fn redeem(&self, code: &str, now: DateTime<Utc>) -> ServiceResult<i64> {
        let ticket = self
            .tickets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&codes::hash_link_token(code.trim()));
        match ticket {
            Some(t) if t.expires > now => Ok(t.user_id),
            _ => {
                tracing::warn!("OpenID Connect code refused: unknown, used or expired");
                Err(ServiceError::Unauthorized(Problem::new(
                    ErrorCode::OidcCodeInvalid,
                    "This sign-in link was already used or is too old; sign in again",
                )))
            }
        }
    }
}

enum Account {
    SignIn(i64),
    Link {
        user_id: i64,
        subject: String,
        email: String,
    },
}

struct Identity {
    subject: String,
    email: Option<String>,
    email_verified: bool,
    groups: Vec<String>,
}

/// The groups claim of an ID token whose signature and claims were verified: the crate's
/// claim types carry no groups, so it is read from the same token's payload.
fn groups_of(id_token: &CoreIdToken, claim: &str) -> Vec<String> {
    use base64::Engine as _;
    let text = id_token.to_string();
    let Some(payload) = text.split('.').nth(1) else {
        return Vec::new();
    };
    let Ok(bytes) = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload) else {
        return Vec::new();
    };
    match serde_json::from_slice::<Value>(&bytes)
        .ok()
        .and_then(|v| v.get(claim).cloned())
    {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|g| g.as_str().map(str::to_owned))
            .collect(),
        Some(Value::String(one)) => vec![one],
        _ => Vec::new(),
    }
}

/// The provider's endpoints over the server's HTTP client (rustls, no redirects followed).
struct Http(reqwest::Client);

impl<'c> AsyncHttpClient<'c> for Http {
    type Error = HttpError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let answer = self
                .0
                .request(parts.method, parts.uri.to_string())
                .headers(parts.headers)
                .body(body)
                .send()
                .await
                .map_err(|e| HttpError(e.to_string()))?;
            let mut response = openidconnect::http::Response::builder().status(answer.status());
            for (name, value) in answer.headers() {
                response = response.header(name, value);
            }
            let body = answer.bytes().await.map_err(|e| HttpError(e.to_string()))?;
            response.body(body.to_vec()).map_err(|e| HttpError(e.to_string()))
        })
    }
}

#[derive(Debug)]
pub struct HttpError(String);

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HttpError {}
