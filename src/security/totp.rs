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

/// The QR code of the provisioning URL as an SVG data URL, drawn here: the secret never
/// leaves the instance. (SVG, not PNG: a few hundred bytes of text, and no image encoder in
/// the binary.)
pub fn qr_data_url(secret: &str, account: &str) -> Option<String> {
    use base64::Engine;
    let url = build(secret, account)?.to_url().ok()?;
    let code = qrcodegen::QrCode::encode_text(&url, qrcodegen::QrCodeEcc::Medium).ok()?;
    Some(format!(
        "data:image/svg+xml;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(svg(&code))
    ))
}

/// The code as an SVG: one path of unit squares on a white square with a four-module margin.
fn svg(code: &qrcodegen::QrCode) -> String {
    const MARGIN: i32 = 4;
    let size = code.size();
    let side = size + 2 * MARGIN;
    // Six pixels a module: sharp at the 200 px the app shows it, and a size of its own.
    let px = side * 6;
    let mut path = String::new();
    for y in 0..size {
        for x in 0..size {
            if code.get_module(x, y) {
                path.push_str(&format!("M{},{}h1v1h-1z", x + MARGIN, y + MARGIN));
            }
        }
    }
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{px}\" height=\"{px}\" viewBox=\"0 0 {side} {side}\" shape-rendering=\"crispEdges\">\
         <rect width=\"{side}\" height=\"{side}\" fill=\"#fff\"/><path d=\"{path}\" fill=\"#000\"/></svg>"
    )
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
    fn qr_codes_are_svg_data_urls_of_the_provisioning_url() {
        use base64::Engine;
        let secret = new_secret();
        let url = qr_data_url(&secret, "someone@example.com").unwrap();
        let svg = url.strip_prefix("data:image/svg+xml;base64,").unwrap();
        let svg = String::from_utf8(base64::engine::general_purpose::STANDARD.decode(svg).unwrap()).unwrap();
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
            "{svg}"
        );
        // The same modules as the code of the provisioning URL, drawn once each.
        let code = qrcodegen::QrCode::encode_text(
            &build(&secret, "someone@example.com").unwrap().to_url().unwrap(),
            qrcodegen::QrCodeEcc::Medium,
        )
        .unwrap();
        let dark = (0..code.size())
            .flat_map(|y| (0..code.size()).map(move |x| (x, y)))
            .filter(|(x, y)| code.get_module(*x, *y))
            .count();
        assert_eq!(svg.matches("h1v1h-1z").count(), dark);
        assert!(
            svg.contains(&format!("M{},{}h1v1h-1z", 4, 4)),
            "the finder pattern's corner"
        );
    }
}
