-- Stock notices (issue 29): a stock batch is announced `EXPIRY_NOTICE_DAYS` before its expiry
-- date (`batch_expiring`) and once more when it has expired (`batch_expired`); each notice is a
-- reminder row and a delivery of its own kind. Only the text of the two kind constraints
-- changes, by SQLite's documented procedure (as 0009_plain_checks and 0023_prescriptions did):
-- the new ones accept every value the old ones did, and the two new kinds.
PRAGMA writable_schema = ON;

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (kind = ''dose'' OR kind = ''one_off'' OR kind = ''low_stock'' OR kind = ''refill'')',
    'CHECK (kind = ''dose'' OR kind = ''one_off'' OR kind = ''low_stock'' OR kind = ''refill'' OR kind = ''batch_expiring'' OR kind = ''batch_expired'')')
WHERE type = 'table' AND name = 'reminders';

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (kind = ''reminder'' OR kind = ''repeat'' OR kind = ''low_stock'' OR kind = ''test'' OR kind = ''refill'')',
    'CHECK (kind = ''reminder'' OR kind = ''repeat'' OR kind = ''low_stock'' OR kind = ''test'' OR kind = ''refill'' OR kind = ''batch_expiring'' OR kind = ''batch_expired'')')
WHERE type = 'table' AND name = 'deliveries';

PRAGMA writable_schema = RESET;

-- The expiry date a batch was last announced for ("expires soon", then "has expired"), so each
-- is said once per batch; a batch whose expiry date is changed is announced for the new one.
ALTER TABLE stock_batches ADD COLUMN expiry_noticed_for TEXT;
ALTER TABLE stock_batches ADD COLUMN expired_noticed_for TEXT;
