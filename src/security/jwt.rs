//! Compact JSON Web Tokens (RFC 7519) for the two kinds the server makes: HS256 session
//! tokens and ES256 VAPID tokens for Web Push (RFC 8292). Each key is used with one
//! algorithm only, so a token's `alg` can never pick a weaker check.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hmac::{Hmac, Mac};
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::Sha256;

/// The headers as earlier releases wrote them, byte for byte.
const HS256_HEADER: &str = r#"{"typ":"JWT","alg":"HS256"}"#;
const ES256_HEADER: &str = r#"{"typ":"JWT","alg":"ES256"}"#;

fn hmac(key: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length.
    Hmac::<Sha256>::new_from_slice(key).unwrap_or_else(|_| unreachable!())
}

fn signing_input(header: &str, claims: &impl Serialize) -> Result<String, serde_json::Error> {
    Ok(format!(
        "{}.{}",
        B64.encode(header),
        B64.encode(serde_json::to_vec(claims)?)
    ))
}

/// `claims` signed with HMAC-SHA-256 under `key`.
pub fn sign_hs256(claims: &impl Serialize, key: &[u8]) -> Result<String, serde_json::Error> {
    let input = signing_input(HS256_HEADER, claims)?;
    let mut mac = hmac(key);
    mac.update(input.as_bytes());
    Ok(format!("{input}.{}", B64.encode(mac.finalize().into_bytes())))
}

/// The claims of a token that is well formed, says HS256 and carries a valid signature
/// under `key`. Expiry is the caller's to check, against its own clock.
pub fn verify_hs256<T: DeserializeOwned>(token: &str, key: &[u8]) -> Option<T> {
    let (input, signature) = token.rsplit_once('.')?;
    let (header, payload) = input.split_once('.')?;
    let mut mac = hmac(key);
    mac.update(input.as_bytes());
    // Constant time: the comparison tells nothing about how much of a forgery was right.
    mac.verify_slice(&B64.decode(signature).ok()?).ok()?;
    let header: serde_json::Value = serde_json::from_slice(&B64.decode(header).ok()?).ok()?;
    if header.get("alg")?.as_str()? != "HS256" {
        return None;
    }
    serde_json::from_slice(&B64.decode(payload).ok()?).ok()
}

/// `claims` signed with ECDSA P-256 and SHA-256 (`r || s`, RFC 7518 3.4).
pub fn sign_es256(claims: &impl Serialize, key: &SigningKey) -> Result<String, serde_json::Error> {
    let input = signing_input(ES256_HEADER, claims)?;
    let signature: Signature = key.sign(input.as_bytes());
    Ok(format!("{input}.{}", B64.encode(signature.to_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::VerifyingKey;
    use p256::ecdsa::signature::Verifier;
    use serde_json::{Value, json};

    #[test]
    fn hs256_round_trips_and_refuses_forgeries() {
        let key = b"0123456789abcdef0123456789abcdef";
        let token = sign_hs256(&json!({ "sub": 7 }), key).unwrap();
        assert_eq!(verify_hs256::<Value>(&token, key).unwrap()["sub"], 7);
        assert!(verify_hs256::<Value>(&token, b"another key").is_none());
        let (input, _) = token.rsplit_once('.').unwrap();
        assert!(verify_hs256::<Value>(&format!("{input}."), key).is_none());
        assert!(verify_hs256::<Value>(input, key).is_none());

        // The same claims under another header: `alg: none` and the like are refused even
        // when the MAC over them is right.
        let none = format!(
            "{}.{}",
            B64.encode(r#"{"alg":"none"}"#),
            input.split_once('.').unwrap().1
        );
        let mut mac = hmac(key);
        mac.update(none.as_bytes());
        let signed = format!("{none}.{}", B64.encode(mac.finalize().into_bytes()));
        assert!(verify_hs256::<Value>(&signed, key).is_none());
    }

    #[test]
    fn hs256_reads_tokens_of_earlier_releases() {
        // Made by jsonwebtoken 11 (HS256) before this module replaced it: a user's session
        // survives the upgrade.
        let key = b"0123456789abcdef0123456789abcdef";
        let token = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJzdWIiOjQyLCJ2ZXIiOjMsImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAyNTkyMDAwLCJqdGkiOiJhYmMifQ.P16v1yhFAb3BpEFMY_9DKd-Wbw0L0cHAQW2tZvzRaJg";
        let claims: Value = verify_hs256(token, key).unwrap();
        assert_eq!(claims["sub"], 42);
        assert_eq!(claims["jti"], "abc");
    }

    #[test]
    fn es256_signatures_verify_with_the_public_key() {
        let key = SigningKey::from_slice(&[7u8; 32]).unwrap();
        let token = sign_es256(&json!({ "aud": "https://push.example" }), &key).unwrap();
        let (input, signature) = token.rsplit_once('.').unwrap();
        let signature = Signature::from_slice(&B64.decode(signature).unwrap()).unwrap();
        VerifyingKey::from(&key)
            .verify(input.as_bytes(), &signature)
            .unwrap();
        let header = B64.decode(input.split('.').next().unwrap()).unwrap();
        assert_eq!(header, ES256_HEADER.as_bytes());
    }
}
