-- Prescriptions and refills (issue 29): a medication's prescription, who prescribed it, the
-- pharmacy that fills it, when it expires and how many refills are left; and the "order a
-- refill" reminder. `ordered_at` is set when the person marks a refill ordered and cleared
-- when stock is added; `reminded_for` is the day (stock runs out, or the prescription
-- expires) the last refill reminder was for, so that one run of stock gets one reminder.
CREATE TABLE prescriptions (
    medication_id      INTEGER PRIMARY KEY REFERENCES medications (id) ON DELETE CASCADE,
    prescriber         TEXT    NOT NULL DEFAULT '',
    pharmacy_name      TEXT    NOT NULL DEFAULT '',
    pharmacy_phone     TEXT    NOT NULL DEFAULT '',
    pharmacy_url       TEXT    NOT NULL DEFAULT '',
    prescribed_on      TEXT,
    expires_on         TEXT,
    refills_authorised INTEGER CHECK (refills_authorised >= 0),
    refills_left       INTEGER CHECK (refills_left >= 0),
    order_days_before  INTEGER NOT NULL DEFAULT 7 CHECK (order_days_before >= 1 AND order_days_before <= 90),
    ordered_at         TEXT,
    reminded_for       TEXT,
    updated_at         TEXT    NOT NULL
) STRICT;

-- A refill reminder is a reminder row and a delivery of its own kind. Only the text of the
-- two constraints changes, by SQLite's documented procedure (see 0009_plain_checks): the new
-- ones accept every value the old ones did, and `refill`.
PRAGMA writable_schema = ON;

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (kind = ''dose'' OR kind = ''one_off'' OR kind = ''low_stock'')',
    'CHECK (kind = ''dose'' OR kind = ''one_off'' OR kind = ''low_stock'' OR kind = ''refill'')')
WHERE type = 'table' AND name = 'reminders';

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (kind = ''reminder'' OR kind = ''repeat'' OR kind = ''low_stock'' OR kind = ''test'')',
    'CHECK (kind = ''reminder'' OR kind = ''repeat'' OR kind = ''low_stock'' OR kind = ''test'' OR kind = ''refill'')')
WHERE type = 'table' AND name = 'deliveries';

PRAGMA writable_schema = RESET;
