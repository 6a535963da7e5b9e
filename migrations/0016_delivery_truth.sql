-- Reminders that can reach the person, said truthfully (issue 23, item 2).

-- "If no device takes a push, send it by e-mail": the person's choice. It applies only while
-- e-mail notifications are on, so it is on by default exactly when they are.
ALTER TABLE notification_preferences ADD COLUMN email_fallback INTEGER NOT NULL DEFAULT 1 CHECK (email_fallback IN (0, 1));

-- What happened to a delivery, as a code and its values (JSON) the app translates; the
-- English `error` stays for other readers. NULL on rows written before this version.
ALTER TABLE deliveries ADD COLUMN result_code TEXT;
ALTER TABLE deliveries ADD COLUMN result_params TEXT;
