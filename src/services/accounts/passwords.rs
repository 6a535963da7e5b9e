//! Hashing and checking passwords, off the async runtime and bounded in memory.

use crate::security::password;

/// Password hashes running at once. Each argon2 run holds 19 MiB: without a bound, a flood
/// of sign-in requests could exhaust a Raspberry Pi's memory and stop the reminders.
static HASHING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(4);

/// Argon2 takes tens of milliseconds of CPU: never on the async runtime.
pub async fn hash_password(input: String) -> Result<String, String> {
    let _permit = HASHING.acquire().await.map_err(|e| e.to_string())?;
    tokio::task::spawn_blocking(move || password::hash(&input).map_err(|e| e.to_string()))
        .await
        .map_err(|e| e.to_string())?
}

/// Checks a password off the async runtime; an unknown account costs the same time.
pub async fn check_password(input: String, stored: Option<String>) -> bool {
    if input.len() > password::MAX_LENGTH {
        return false;
    }
    let Ok(_permit) = HASHING.acquire().await else {
        return false;
    };
    tokio::task::spawn_blocking(move || match stored {
        Some(hash) => password::verify(&input, &hash),
        None => {
            password::verify_dummy(&input);
            false
        }
    })
    .await
    .unwrap_or(false)
}
