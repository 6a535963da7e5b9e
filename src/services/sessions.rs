//! Sessions signed out one by one (`POST /api/auth/logout`). The list is kept in the
//! database, so it survives a restart, and in memory, so that checking a token on every
//! request costs no query.

use std::collections::HashMap;
use std::sync::RwLock;

use rusqlite::Connection;

use crate::store::sessions;

#[derive(Default)]
pub struct RevokedSessions {
    /// Token id → its expiry (Unix seconds).
    ids: RwLock<HashMap<String, i64>>,
}

impl RevokedSessions {
    /// The signed-out tokens still unexpired at `now` (Unix seconds).
    pub fn load(conn: &Connection, now: i64) -> rusqlite::Result<RevokedSessions> {
        let ids = sessions::unexpired(conn, now)?.into_iter().collect();
        Ok(RevokedSessions {
            ids: RwLock::new(ids),
        })
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(id)
    }

    /// Adds a token the database now lists, and drops the expired ones.
    pub fn remember(&self, id: String, expires_at: i64, now: i64) {
        let mut ids = self.ids.write().unwrap_or_else(|p| p.into_inner());
        ids.retain(|_, expiry| *expiry >= now);
        ids.insert(id, expires_at);
    }
}
