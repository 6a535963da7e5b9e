-- Stock batches with expiry dates (issue 29). A medication whose stock is entered as batches
-- counts, in `inventories.current_quantity`, the sum of its batches' `remaining` that are not
-- `expired`; `expired` is set once the person's day is past `expires_on` (the last day the
-- batch may be used). Medications without batches keep the single count; nothing existing
-- changes.
CREATE TABLE stock_batches (
    id            INTEGER PRIMARY KEY,
    medication_id INTEGER NOT NULL REFERENCES medications (id) ON DELETE CASCADE,
    quantity      INTEGER NOT NULL CHECK (quantity > 0),
    remaining     INTEGER NOT NULL CHECK (remaining >= 0),
    expires_on    TEXT    NOT NULL,
    lot           TEXT,
    expired       INTEGER NOT NULL DEFAULT 0 CHECK (expired = 0 OR expired = 1),
    created_at    TEXT    NOT NULL,
    updated_at    TEXT    NOT NULL
) STRICT;
CREATE INDEX stock_batches_medication ON stock_batches (medication_id, expires_on, id);
CREATE INDEX stock_batches_unexpired ON stock_batches (expires_on) WHERE expired = 0;

-- What a dose took from which batch, so undoing it gives back to the same batches.
CREATE TABLE batch_draws (
    history_id INTEGER NOT NULL REFERENCES dose_history_rows (id) ON DELETE CASCADE,
    batch_id   INTEGER NOT NULL REFERENCES stock_batches (id) ON DELETE CASCADE,
    quantity   INTEGER NOT NULL CHECK (quantity > 0),
    PRIMARY KEY (history_id, batch_id)
) STRICT;
CREATE INDEX batch_draws_batch ON batch_draws (batch_id);

-- The ledger names the batch a move came from or went to; the lot is kept as text so a
-- deleted batch's rows still say which it was.
ALTER TABLE stock_ledger ADD COLUMN batch_id INTEGER;
ALTER TABLE stock_ledger ADD COLUMN lot TEXT;
