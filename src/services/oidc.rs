//! Sign-in through an OpenID Connect provider: the authorization-code flow with PKCE (S256),
//! `state` and `nonce`, the ID token checked by the `openidconnect` crate against the
//! provider's keys (fetched again once when a token names a key it does not know), and a
//! one-time code (60 s, single use) that the app exchanges for an ordinary session, so no
//! session token ever appears in a URL.

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
use serde_json::Value;

use crate::config::{OidcSettings, Settings};
use crate::db::{Db, Stamp};
use crate::security::codes;
use crate::services::{ErrorCode, Problem, ServiceError, ServiceResult};
use crate::store::{oidc as identities, users};

/// How long a sign-in may stay at the provider.
const SIGN_IN_MINUTES: i64 = 10;
/// How long the code the app exchanges for a session lasts.
const CODE_SECONDS: i64 = 60;
/// Sign-ins waiting at the provider, at most (each start past it drops the oldest).
const MAX_PENDING: usize = 1000;

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
    started: DateTime<Utc>,
}

struct Ticket {
    user_id: i64,
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
}

/// A sign-in the provider vouched for: the one-time code the app exchanges, and the page to
/// open then (it travels in the app's address, beside the code).
pub struct Returned {
    pub code: String,
    pub return_to: Option<String>,
}

fn failed(message: impl Into<String>) -> ServiceError {
    ServiceError::Unauthorized(Problem::new(ErrorCode::OidcFailed, message))
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
        })
    }

    /// "Sign in with <label>".
    pub fn button_label(&self) -> &str {
        &self.settings.button_label
    }

    pub fn password_login_disabled(&self) -> bool {
        self.settings.disable_password_login
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
    /// this app) when it succeeds.
    pub async fn start(&self, return_to: Option<&str>, now: DateTime<Utc>) -> ServiceResult<String> {
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
        let user_id = self.account_of(db, identity, now).await?;
        let code = codes::link_token();
        let mut tickets = self.tickets.lock().unwrap_or_else(|e| e.into_inner());
        tickets.retain(|_, t| t.expires > now);
        tickets.insert(
            codes::hash_link_token(&code),
            Ticket {
                user_id,
                expires: now + Duration::seconds(CODE_SECONDS),
            },
        );
        Ok(Returned {
            code,
            return_to: pending.return_to,
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

    /// The account linked to the identity; else a new one when `auto_register` is on.
    async fn account_of(&self, db: &Db, identity: Identity, now: DateTime<Utc>) -> ServiceResult<i64> {
        let issuer = self.issuer.clone();
        let auto_register = self.settings.auto_register;
        db.write(move |conn| {
            let tx = conn.transaction()?;
            let at = Stamp::from(now);
            if let Some(user_id) = identities::user_of(&tx, &issuer, &identity.subject)? {
                identities::used(&tx, &issuer, &identity.subject, at)?;
                tx.commit()?;
                return Ok(user_id);
            }
            if !auto_register {
                tracing::warn!(subject = %identity.subject, "OpenID Connect sign-in refused: unknown identity, oidc.auto_register is off");
                return Err(ServiceError::Forbidden(Problem::new(
                    ErrorCode::OidcNotAllowed,
                    "This server has no account for you yet, and the administrator has not allowed new accounts from the provider",
                )));
            }
            let Some(email) = identity.email.as_deref().filter(|_| identity.email_verified) else {
                tracing::warn!(subject = %identity.subject, "OpenID Connect sign-in refused: no verified e-mail address to make an account with");
                return Err(failed("The provider gave no verified e-mail address for a new account"));
            };
            // A password nobody knows: the account signs in through the provider until its
            // holder sets one (forgotten password).
            let unusable = format!("!oidc:{}", codes::link_token());
            let Some(user) = users::insert(&tx, email, &unusable, true, at)? else {
                tracing::warn!(subject = %identity.subject, "OpenID Connect sign-in refused: the address belongs to an account not linked to this identity");
                return Err(ServiceError::Conflict(Problem::new(
                    ErrorCode::OidcNotAllowed,
                    "An account with your e-mail address exists: sign in with its password",
                )));
            };
            identities::link(&tx, user.id, &issuer, &identity.subject, Some(email), at)?;
            tx.commit()?;
            tracing::info!(user_id = user.id, "account made for a new OpenID Connect identity");
            Ok(user.id)
        })
        .await
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
