-- A reminder's e-mail is not given up after its tries while its dose can still be taken:
-- it is tried again (the wait capped) until the dose's grace ends. NULL: only the tries.
ALTER TABLE mail_outbox ADD COLUMN retry_until TEXT;
