//! Random secrets handed to people (links, codes) and how they are stored: only hashes.
//! Link tokens carry 256 bits and are stored as plain SHA-256; short codes (6 digits, 8
//! characters) are keyed with the instance's secret so a copy of the database alone cannot
//! be brute-forced.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use hmac::{Hmac, Mac};
use rand_core::{OsRng, RngCore};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Backup code alphabet: no 0/O, 1/I/L, so codes read back without mistakes.
const BACKUP_ALPHABET: &[u8] = b"23456789ABCDEFGHJKMNPQRSTUVWXYZ";
pub const BACKUP_CODE_LENGTH: usize = 8;
pub const BACKUP_CODE_COUNT: usize = 10;

/// 32 random bytes, base64url: for e-mail verification and take links.
pub fn link_token() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    B64.encode(bytes)
}

pub fn hash_link_token(token: &str) -> String {
    base16ct::lower::encode_string(&Sha256::digest(token.as_bytes()))
}

pub fn six_digit_code() -> String {
    // Rejection sampling keeps every code equally likely.
    loop {
        let n = OsRng.next_u32();
        if n < u32::MAX - (u32::MAX % 1_000_000) {
            return format!("{:06}", n % 1_000_000);
        }
    }
}

pub fn backup_code() -> String {
    (0..BACKUP_CODE_LENGTH)
        .map(|_| {
            loop {
                let byte = (OsRng.next_u32() & 0xff) as usize;
                // 31 letters: reject the top of the byte range for uniformity.
                if byte < 248 {
                    return BACKUP_ALPHABET[byte % BACKUP_ALPHABET.len()] as char;
                }
            }
        })
        .collect()
}

/// How people type backup codes back: any case, spaces or dashes added for readability.
pub fn normalize_backup_code(input: &str) -> String {
    input
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// HMAC-SHA256 of a short code under the instance key, hex.
pub fn hash_code(key: &[u8], purpose: &str, code: &str) -> String {
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(purpose.as_bytes());
    mac.update(b":");
    mac.update(code.as_bytes());
    base16ct::lower::encode_string(&mac.finalize().into_bytes())
}

/// Compares two hashes in time independent of where they differ.
pub fn hashes_equal(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_of_codes() {
        let code = six_digit_code();
        assert!(code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()));
        let backup = backup_code();
        assert_eq!(backup.len(), 8);
        assert!(backup.bytes().all(|b| BACKUP_ALPHABET.contains(&b)));
        assert_eq!(B64.decode(link_token()).unwrap().len(), 32);
        assert_ne!(link_token(), link_token());
    }

    #[test]
    fn hashes_depend_on_key_purpose_and_code() {
        let a = hash_code(b"k1", "email", "123456");
        assert_eq!(a, hash_code(b"k1", "email", "123456"));
        assert_ne!(a, hash_code(b"k2", "email", "123456"));
        assert_ne!(a, hash_code(b"k1", "backup", "123456"));
        assert_ne!(a, hash_code(b"k1", "email", "123457"));
        assert!(hashes_equal(&a, &a.clone()));
        assert!(!hashes_equal(&a, &hash_code(b"k1", "email", "000000")));
    }

    #[test]
    fn backup_codes_are_read_back_leniently() {
        assert_eq!(normalize_backup_code(" abcd-ef23 "), "ABCDEF23");
    }
}
