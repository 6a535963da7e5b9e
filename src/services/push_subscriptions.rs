//! A browser's Web Push subscription: checked before it is kept (a real endpoint of an
//! allowed push service, a P-256 public key and an auth secret of the right size), one row
//! per endpoint.

use base64::Engine;
use chrono::{DateTime, Utc};
use rusqlite::Connection;

use super::error::{ErrorCode, ServiceResult, conflict, invalid, rejected};
use crate::db::Stamp;
use crate::store::push_subscriptions;

/// The longest endpoint URL kept, and the most of a user agent.
const MAX_ENDPOINT: usize = 2048;
const MAX_USER_AGENT: usize = 300;
/// Sizes RFC 8291 fixes: an uncompressed P-256 point and a 16-byte auth secret.
const P256DH_BYTES: usize = 65;
const AUTH_BYTES: usize = 16;

/// A subscription as a browser's `PushSubscription.toJSON()` gives it; any part may be
/// missing.
#[derive(Debug, Default)]
pub struct Offered {
    pub endpoint: Option<String>,
    pub p256dh: Option<String>,
    pub auth: Option<String>,
    pub user_agent: Option<String>,
}

/// A subscription fit to keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub endpoint: String,
    pub p256dh: String,
    pub auth: String,
    pub user_agent: Option<String>,
}

fn key_bytes(text: &str) -> Option<Vec<u8>> {
    let trimmed = text.trim().trim_end_matches('=');
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(trimmed)
        .ok()
}

/// Whether `text` is what RFC 8291 asks of `p256dh`: an uncompressed point on P-256. One of
/// the right length that is not on the curve could never be encrypted to, and would only fail
/// when a reminder is sent.
fn is_p256_point(text: &str) -> bool {
    key_bytes(text).is_some_and(|bytes| {
        bytes.len() == P256DH_BYTES && bytes[0] == 4 && p256::PublicKey::from_sec1_bytes(&bytes).is_ok()
    })
}

/// Checks an offered subscription; `endpoint_allowed` says whether the server may call
/// the endpoint (a known push service, or one the operator allows).
pub fn check(offered: Offered, endpoint_allowed: impl Fn(&str) -> bool) -> ServiceResult<Checked> {
    let refuse = || rejected(ErrorCode::InvalidSubscription, "Invalid push subscription");
    let endpoint = offered
        .endpoint
        .map(|e| e.trim().to_owned())
        .filter(|e| !e.is_empty())
        .ok_or_else(refuse)?;
    let (p256dh, auth) = (
        offered.p256dh.ok_or_else(refuse)?,
        offered.auth.ok_or_else(refuse)?,
    );
    if endpoint.len() > MAX_ENDPOINT
        || !is_p256_point(&p256dh)
        || key_bytes(&auth).map(|b| b.len()) != Some(AUTH_BYTES)
    {
        return Err(refuse());
    }
    if !endpoint_allowed(&endpoint) {
        return Err(rejected(
            ErrorCode::PushServiceNotAllowed,
            "This push service is not allowed",
        ));
    }
    Ok(Checked {
        endpoint,
        p256dh: p256dh.trim().to_owned(),
        auth: auth.trim().to_owned(),
        user_agent: offered
            .user_agent
            .map(|ua| ua.chars().take(MAX_USER_AGENT).collect()),
    })
}

/// Keeps a checked subscription for the user; refused when the endpoint is another
/// account's with other keys (see `store::push_subscriptions::upsert`).
pub fn register(conn: &Connection, user_id: i64, sub: &Checked, now: DateTime<Utc>) -> ServiceResult<()> {
    let saved = push_subscriptions::upsert(
        conn,
        user_id,
        &sub.endpoint,
        &sub.p256dh,
        &sub.auth,
        sub.user_agent.as_deref(),
        Stamp::from(now),
    )?;
    if !saved {
        return Err(conflict(
            ErrorCode::SubscriptionTaken,
            "This push subscription belongs to another account",
        ));
    }
    Ok(())
}

/// Forgets one of the user's endpoints; one it does not know is no error.
pub fn unregister(conn: &Connection, user_id: i64, endpoint: Option<&str>) -> ServiceResult<()> {
    let endpoint = endpoint
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .ok_or_else(|| invalid("endpoint is required"))?;
    push_subscriptions::remove(conn, user_id, endpoint)?;
    Ok(())
}

/// Whether `endpoint` is one of the user's subscriptions, and how many the user has.
pub fn status(conn: &Connection, user_id: i64, endpoint: Option<&str>) -> ServiceResult<(bool, usize)> {
    let registered = match endpoint.map(str::trim).filter(|e| !e.is_empty()) {
        Some(endpoint) => push_subscriptions::is_registered(conn, user_id, endpoint)?,
        None => false,
    };
    Ok((registered, push_subscriptions::for_user(conn, user_id)?.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b64(bytes: &[u8]) -> String {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    }

    /// A browser's key: a point on P-256, uncompressed.
    fn point() -> Vec<u8> {
        use p256::elliptic_curve::sec1::ToEncodedPoint;
        let secret = p256::SecretKey::from_slice(&[7u8; 32]).unwrap();
        secret.public_key().to_encoded_point(false).as_bytes().to_vec()
    }

    fn offered() -> Offered {
        Offered {
            endpoint: Some(" https://push.example/abc ".into()),
            p256dh: Some(b64(&point())),
            auth: Some(b64(&[4u8; 16])),
            user_agent: Some("x".repeat(400)),
        }
    }

    fn code(result: ServiceResult<Checked>) -> ErrorCode {
        match result {
            Err(super::super::ServiceError::Invalid(p)) => p.code,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn a_whole_subscription_is_kept_trimmed() {
        let checked = check(offered(), |_| true).unwrap();
        assert_eq!(checked.endpoint, "https://push.example/abc");
        assert_eq!(checked.user_agent.map(|ua| ua.len()), Some(MAX_USER_AGENT));
    }

    #[test]
    fn broken_or_unknown_subscriptions_are_refused_with_their_codes() {
        let short_key = Offered {
            auth: Some("AAAA".into()),
            ..offered()
        };
        assert_eq!(code(check(short_key, |_| true)), ErrorCode::InvalidSubscription);
        // 65 bytes that start as an uncompressed point does, but are not on the curve.
        let mut off_the_curve = point();
        off_the_curve[64] ^= 1;
        let not_a_point = Offered {
            p256dh: Some(b64(&off_the_curve)),
            ..offered()
        };
        assert_eq!(code(check(not_a_point, |_| true)), ErrorCode::InvalidSubscription);
        // The same point compressed (33 bytes): RFC 8291 asks for it uncompressed.
        let compressed = {
            use p256::elliptic_curve::sec1::ToEncodedPoint;
            let secret = p256::SecretKey::from_slice(&[7u8; 32]).unwrap();
            secret.public_key().to_encoded_point(true).as_bytes().to_vec()
        };
        let compressed = Offered {
            p256dh: Some(b64(&compressed)),
            ..offered()
        };
        assert_eq!(code(check(compressed, |_| true)), ErrorCode::InvalidSubscription);
        let no_endpoint = Offered {
            endpoint: Some("  ".into()),
            ..offered()
        };
        assert_eq!(code(check(no_endpoint, |_| true)), ErrorCode::InvalidSubscription);
        assert_eq!(
            code(check(offered(), |_| false)),
            ErrorCode::PushServiceNotAllowed
        );
    }
}
