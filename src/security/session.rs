//! Session tokens: HS256 JWTs carrying the user id, the user's token version and an id of
//! their own. Bumping the version in the database (password change, 2FA change, signing out
//! everywhere, account deletion) kills every older token; signing out revokes one token by
//! its id.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use rand_core::{OsRng, RngCore};
use serde::{Deserialize, Serialize};

use super::jwt;

/// A PWA on a phone stays signed in; the app refreshes its token on every start.
pub const LIFETIME_SECS: i64 = 30 * 24 * 3600;

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: i64,
    pub ver: i64,
    pub iat: i64,
    pub exp: i64,
    /// 128 random bits naming this token, so that it alone can be signed out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jti: Option<String>,
}

impl Claims {
    /// The id that revokes this one token: its `jti`, or for a token issued before tokens
    /// had one, its user and issue time (tokens of the same second go together).
    pub fn session_id(&self) -> String {
        self.jti
            .clone()
            .unwrap_or_else(|| format!("{}@{}", self.sub, self.iat))
    }
}

fn new_token_id() -> String {
    let mut bytes = [0u8; 16];
    OsRng.fill_bytes(&mut bytes);
    B64.encode(bytes)
}

/// A token issued at `now` (Unix seconds).
pub fn issue(key: &[u8], user_id: i64, token_version: i64, now: i64) -> Result<String, serde_json::Error> {
    let claims = Claims {
        sub: user_id,
        ver: token_version,
        iat: now,
        exp: now + LIFETIME_SECS,
        jti: Some(new_token_id()),
    };
    jwt::sign_hs256(&claims, key)
}

/// The claims of a well-signed token unexpired at `now` (Unix seconds). The caller still
/// checks the version.
pub fn decode(key: &[u8], token: &str, now: i64) -> Option<Claims> {
    // Expiry against the server's clock, not the system's.
    jwt::verify_hs256::<Claims>(token, key).filter(|claims| claims.exp >= now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_reject_tampering() {
        let key = b"0123456789abcdef0123456789abcdef";
        let now = chrono::Utc::now().timestamp();
        let token = issue(key, 42, 3, now).unwrap();
        let claims = decode(key, &token, now).unwrap();
        assert_eq!((claims.sub, claims.ver), (42, 3));
        let again = decode(key, &issue(key, 42, 3, now).unwrap(), now).unwrap();
        assert_ne!(
            claims.session_id(),
            again.session_id(),
            "two tokens of the same second are told apart"
        );
        assert!(decode(b"another key another key another!", &token, now).is_none());
        let mut parts: Vec<&str> = token.split('.').collect();
        let forged = issue(key, 43, 3, now).unwrap();
        parts[1] = forged.split('.').nth(1).unwrap();
        assert!(
            decode(key, &parts.join("."), now).is_none(),
            "payload swapped under an old signature"
        );
    }

    #[test]
    fn expired_tokens_are_refused() {
        let key = b"0123456789abcdef0123456789abcdef";
        let claims = Claims {
            sub: 1,
            ver: 0,
            iat: 0,
            exp: chrono::Utc::now().timestamp() - 1,
            jti: None,
        };
        let token = jwt::sign_hs256(&claims, key).unwrap();
        let now = chrono::Utc::now().timestamp();
        assert!(decode(key, &token, now).is_none());
        let old = decode(key, &token, now - 2).expect("valid on a clock that is behind");
        assert_eq!(
            old.session_id(),
            "1@0",
            "a token without an id is named by user and time"
        );
    }
}
