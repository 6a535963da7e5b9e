//! What an address, a password and a name must be.

use crate::security::password;
use crate::services::{ErrorCode, Problem};

pub const MAX_EMAIL_LENGTH: usize = 254;
pub const MAX_NAME_LENGTH: usize = 100;

/// A trimmed e-mail address that looks deliverable, or the message to show.
pub fn validate_email(input: &str) -> Result<String, Problem> {
    let email = input.trim();
    if email.is_empty() {
        return Err(Problem::new(ErrorCode::EmailRequired, "Email is required"));
    }
    let valid = email.len() <= MAX_EMAIL_LENGTH
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
        && email.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        });
    if valid {
        Ok(email.to_owned())
    } else {
        Err(Problem::new(
            ErrorCode::EmailInvalid,
            "Please enter a valid email address",
        ))
    }
}

pub fn validate_new_password(input: &str) -> Result<(), Problem> {
    // The minimum counts characters (what people see); the maximum counts bytes, the same
    // measure sign-in applies, so every password that can be set can be used.
    if input.chars().count() < password::MIN_LENGTH {
        Err(Problem::new(
            ErrorCode::PasswordTooShort,
            "Password must be at least 6 characters long",
        ))
    } else if input.len() > password::MAX_LENGTH {
        Err(Problem::new(
            ErrorCode::PasswordTooLong,
            "Password must be at most 1024 bytes long",
        ))
    } else {
        Ok(())
    }
}

/// The key an account's sign-in budget and limits are kept under.
pub(super) fn account_key(email: &str) -> String {
    email.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_validation() {
        assert_eq!(
            validate_email("  Someone@Example.org "),
            Ok("Someone@Example.org".into())
        );
        for bad in ["", "plain", "a@b", "a@@b.c", "a b@c.d", "@c.d", "a@.c", "a@c."] {
            assert!(validate_email(bad).is_err(), "{bad}");
        }
        assert_eq!(
            validate_email("").map_err(|p| p.code),
            Err(ErrorCode::EmailRequired)
        );
        assert_eq!(
            validate_email("plain").map_err(|p| p.code),
            Err(ErrorCode::EmailInvalid)
        );
    }

    #[test]
    fn password_rules() {
        assert_eq!(
            validate_new_password("12345"),
            Err(Problem::new(
                ErrorCode::PasswordTooShort,
                "Password must be at least 6 characters long"
            ))
        );
        assert_eq!(validate_new_password("123456"), Ok(()));
        assert_eq!(validate_new_password("ÄÖÜäöü"), Ok(()), "counted in characters");
        assert!(
            validate_new_password(&"é".repeat(600)).is_err(),
            "1200 bytes could never sign in"
        );
    }
}
