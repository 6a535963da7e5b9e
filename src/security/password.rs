//! Passwords are hashed with argon2id (the argon2 crate's defaults: 19 MiB, 2 passes).

use std::sync::LazyLock;

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use rand_core::OsRng;

pub const MIN_LENGTH: usize = 6;
/// Longer inputs are refused before hashing: argon2 time must not be the caller's to choose.
pub const MAX_LENGTH: usize = 1024;

pub fn hash(password: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)?
        .to_string())
}

pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A hash to verify against when the account does not exist, so that an unknown address
/// costs the same time as a wrong password and timing reveals nothing.
static DUMMY: LazyLock<String> = LazyLock::new(|| hash("pillbox-dummy-password").unwrap_or_default());

pub fn verify_dummy(password: &str) {
    let _ = verify(password, &DUMMY);
}

#[cfg(test)]
mod tests {
    #[test]
    fn hashes_verify_only_their_password() {
        let stored = super::hash("correct horse").unwrap();
        assert!(stored.starts_with("$argon2id$"));
        assert!(super::verify("correct horse", &stored));
        assert!(!super::verify("correct horsE", &stored));
        assert!(!super::verify("correct horse", "not a hash"));
        assert_ne!(super::hash("correct horse").unwrap(), stored, "salted");
    }
}
