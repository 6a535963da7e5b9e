//! Authenticator-app codes (RFC 6238): SHA-1, 6 digits, 30-second steps, one step of skew.
//! A code is accepted once: the caller stores the step it matched and passes it back.

use totp_rs::{Algorithm, Secret, Totp};

const ISSUER: &str = "Pillbox";

/// A new 160-bit secret, base32 as authenticator apps show it.
pub fn new_secret() -> String {
    Secret::generate().to_base32()
}

fn build(secret: &str, account: &str) -> Option<Totp> {
    let bytes = Secret::try_from_base32(secret).ok()?;
    totp_rs::Builder::new()
        .with_algorithm(Algorithm::SHA1)
        .with_digits(6)
        .with_skew(1)
        .with_step_duration(30)
        .with_secret(bytes)
        .with_issuer(Some(ISSUER))
        .with_account_name(account)
        .build()
        .ok()
}

/// The QR code of the provisioning URL as a PNG data URL, drawn here: the secret never
/// leaves the instance.
pub fn qr_data_url(secret: &str, account: &str) -> Option<String> {
    let png = build(secret, account)?.to_qr_base64().ok()?;
    Some(format!("data:image/png;base64,{png}"))
}

/// The step the code matched at `now` (Unix seconds), if it is valid and newer than
/// `last_used_step`.
pub fn verify(secret: &str, code: &str, now: u64, last_used_step: i64) -> Option<i64> {
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let step = i64::try_from(build(secret, "check")?.check(code, now)?).ok()?;
    (step > last_used_step).then_some(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B, SHA-1, truncated to 6 digits.
    const RFC_SECRET: &str = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"; // "12345678901234567890"

    #[test]
    fn accepts_rfc_vectors_within_one_step() {
        assert_eq!(verify(RFC_SECRET, "287082", 59, 0), Some(1));
        assert_eq!(verify(RFC_SECRET, "081804", 1111111109, 0), Some(37037036));
        // One step late is still accepted, two steps are not.
        assert_eq!(verify(RFC_SECRET, "287082", 59 + 30, 0), Some(1));
        assert_eq!(verify(RFC_SECRET, "287082", 59 + 60, 0), None);
    }

    #[test]
    fn a_code_is_accepted_once() {
        assert_eq!(verify(RFC_SECRET, "287082", 59, 1), None);
        assert_eq!(verify(RFC_SECRET, "28708", 59, 0), None);
        assert_eq!(verify(RFC_SECRET, "28708a", 59, 0), None);
    }

    #[test]
    fn qr_codes_are_png_data_urls() {
        let url = qr_data_url(&new_secret(), "someone@example.com").unwrap();
        assert!(url.starts_with("data:image/png;base64,iVBOR"), "{}", &url[..40]);
    }
}
