//! Instance secrets kept in the data directory: the JWT signing key and the VAPID key pair
//! for Web Push. Generated on first start (mode 0600) and reused afterwards, so push and
//! sign-in work with no manual set-up.

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use p256::elliptic_curve::sec1::ToEncodedPoint;
use rand_core::{OsRng, RngCore};

use crate::config::VapidSettings;

pub const JWT_KEY_FILE: &str = "jwt.key";
pub const VAPID_KEY_FILE: &str = "vapid_private.key";
const MIN_JWT_KEY_BYTES: usize = 32;

pub struct Secrets {
    pub jwt_key: Vec<u8>,
    pub vapid: VapidKeys,
}

impl std::fmt::Debug for Secrets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Secrets")
            .field("vapid_public_key", &self.vapid.public_key)
            .finish_non_exhaustive()
    }
}

/// A P-256 key pair in the form browsers and push services expect: base64url without
/// padding, the public key as an uncompressed point (65 bytes), the private key as the
/// 32-byte scalar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VapidKeys {
    pub public_key: String,
    pub private_key: String,
}

impl VapidKeys {
    pub fn generate() -> VapidKeys {
        Self::from_secret(&p256::SecretKey::random(&mut OsRng))
    }

    fn from_secret(secret: &p256::SecretKey) -> VapidKeys {
        let public = secret.public_key().to_encoded_point(false);
        VapidKeys {
            public_key: B64.encode(public.as_bytes()),
            private_key: B64.encode(secret.to_bytes()),
        }
    }

    /// Rebuilds the pair from a base64url private key, checking it is a valid P-256 scalar.
    pub fn from_private_key(private_key: &str) -> Result<VapidKeys, String> {
        let bytes = B64
            .decode(private_key.trim().trim_end_matches('='))
            .map_err(|e| format!("not base64url: {e}"))?;
        let secret = p256::SecretKey::from_slice(&bytes).map_err(|_| "not a P-256 private key".to_owned())?;
        Ok(Self::from_secret(&secret))
    }
}

/// Loads the secrets from the data directory, creating missing ones. Keys given in the
/// configuration (`vapid.private_key`) win over the files.
pub fn load_or_create(data_dir: &Path, vapid: &VapidSettings) -> Result<Secrets, String> {
    let jwt_key = read_or_create(&data_dir.join(JWT_KEY_FILE), || {
        let mut key = [0u8; 64];
        OsRng.fill_bytes(&mut key);
        B64.encode(key)
    })?;
    // A short key (an empty file from a full disk) would let anyone sign sessions: refuse it.
    let jwt_key = B64
        .decode(jwt_key.trim())
        .ok()
        .filter(|key| key.len() >= MIN_JWT_KEY_BYTES)
        .ok_or_else(|| {
            format!(
                "{} is damaged or too short; delete it so a new one is made (this signs everyone out)",
                data_dir.join(JWT_KEY_FILE).display()
            )
        })?;

    let vapid = match &vapid.private_key {
        Some(private_key) => {
            let keys = VapidKeys::from_private_key(private_key).map_err(|e| {
                format!("vapid.private_key is invalid: {e}; run `pillbox gen-vapid` for a new pair")
            })?;
            if let Some(public_key) = &vapid.public_key
                && public_key.trim_end_matches('=') != keys.public_key
            {
                return Err(
                    "vapid.public_key does not belong to vapid.private_key; set both from one \
                            `pillbox gen-vapid` run, or leave public_key out"
                        .into(),
                );
            }
            keys
        }
        None => {
            if vapid.public_key.is_some() {
                return Err(
                    "vapid.public_key is set without vapid.private_key; set both, or neither to use \
                            the key pair in the data directory"
                        .into(),
                );
            }
            let path = data_dir.join(VAPID_KEY_FILE);
            let private_key = read_or_create(&path, || VapidKeys::generate().private_key)?;
            VapidKeys::from_private_key(&private_key).map_err(|e| {
                format!(
                    "{} is damaged ({e}); run `pillbox gen-vapid --write --force`",
                    path.display()
                )
            })?
        }
    };
    Ok(Secrets { jwt_key, vapid })
}

/// Reads a secret file, or creates it with mode 0600 from `make` if it does not exist.
fn read_or_create(path: &Path, make: impl FnOnce() -> String) -> Result<String, String> {
    match fs::read_to_string(path) {
        Ok(contents) => {
            warn_if_readable_by_others(path);
            Ok(contents)
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let contents = make();
            write_secret(path, &contents, false)?;
            Ok(contents)
        }
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Writes a secret file with mode 0600, atomically: a temporary file is written and synced,
/// then renamed into place, so a power cut never leaves a half-written key behind. Without
/// `replace`, an existing file is an error.
pub fn write_secret(path: &Path, contents: &str, replace: bool) -> Result<(), String> {
    if !replace && path.exists() {
        return Err(format!("{} already exists", path.display()));
    }
    let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("secret");
    let temp = path.with_file_name(format!(".{file_name}.tmp"));
    let _ = fs::remove_file(&temp);
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp)
        .and_then(|mut file| {
            file.write_all(format!("{contents}\n").as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| fs::rename(&temp, path))
        .and_then(|()| {
            // The rename is durable once the directory entry is.
            if let Some(dir) = path.parent() {
                fs::File::open(dir)?.sync_all()?;
            }
            Ok(())
        });
    written.map_err(|e| {
        let _ = fs::remove_file(&temp);
        format!("cannot write {}: {e}", path.display())
    })
}

fn warn_if_readable_by_others(path: &Path) {
    if let Ok(meta) = fs::metadata(path)
        && meta.permissions().mode() & 0o077 != 0
    {
        tracing::warn!(
            "{} can be read by other users (mode {:o}); run `chmod 600 {}`",
            path.display(),
            meta.permissions().mode() & 0o777,
            path.display()
        );
    }
}

pub fn vapid_key_path(data_dir: &Path) -> PathBuf {
    data_dir.join(VAPID_KEY_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_vapid_keys_have_the_web_push_shape() {
        let keys = VapidKeys::generate();
        let public = B64.decode(&keys.public_key).unwrap();
        assert_eq!(public.len(), 65);
        assert_eq!(public[0], 0x04, "uncompressed point");
        assert_eq!(B64.decode(&keys.private_key).unwrap().len(), 32);
        assert_eq!(VapidKeys::from_private_key(&keys.private_key).unwrap(), keys);
        assert_ne!(VapidKeys::generate(), keys);
    }

    #[test]
    fn created_once_with_mode_0600_then_reused() {
        let dir = tempfile::tempdir().unwrap();
        let first = load_or_create(dir.path(), &VapidSettings::default()).unwrap();
        for file in [JWT_KEY_FILE, VAPID_KEY_FILE] {
            let mode = fs::metadata(dir.path().join(file)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "{file}");
        }
        let second = load_or_create(dir.path(), &VapidSettings::default()).unwrap();
        assert_eq!(first.jwt_key, second.jwt_key);
        assert_eq!(first.jwt_key.len(), 64);
        assert_eq!(first.vapid, second.vapid);
    }

    #[test]
    fn an_empty_or_short_signing_key_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        for contents in ["", "\n", "c2hvcnQ"] {
            fs::write(dir.path().join(JWT_KEY_FILE), contents).unwrap();
            let err = load_or_create(dir.path(), &VapidSettings::default()).unwrap_err();
            assert!(err.contains("damaged or too short"), "{contents:?}: {err}");
        }
    }

    #[test]
    fn configured_vapid_keys_win_and_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let keys = VapidKeys::generate();
        let settings = VapidSettings {
            private_key: Some(keys.private_key.clone()),
            public_key: Some(keys.public_key.clone()),
            subject: None,
        };
        assert_eq!(load_or_create(dir.path(), &settings).unwrap().vapid, keys);
        assert!(!dir.path().join(VAPID_KEY_FILE).exists());

        let mismatched = VapidSettings {
            public_key: Some(VapidKeys::generate().public_key),
            ..settings
        };
        assert!(
            load_or_create(dir.path(), &mismatched)
                .unwrap_err()
                .contains("does not belong")
        );
        let garbage = VapidSettings {
            private_key: Some("not-a-key".into()),
            public_key: None,
            subject: None,
        };
        assert!(
            load_or_create(dir.path(), &garbage)
                .unwrap_err()
                .contains("gen-vapid")
        );
    }
}
