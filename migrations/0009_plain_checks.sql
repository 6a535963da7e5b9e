-- The same CHECK constraints, written as comparisons. SQLite checks `x IN (a, b, c)` (more
-- than two values) by building a temporary b-tree for every row it writes, which was most of
-- the time spent planning reminders and a good part of logging a dose. Only the text of the
-- constraints changes, by SQLite's documented procedure for changing constraints without
-- rebuilding a table (https://www.sqlite.org/lang_altertable.html#otheralter): the new ones
-- accept exactly the values the old ones did, so every existing row satisfies them, and a
-- connection that still holds the old text checks the same thing.
PRAGMA writable_schema = ON;

UPDATE sqlite_schema
SET sql = replace(replace(sql,
    'CHECK (kind IN (''dose'', ''one_off'', ''low_stock''))',
    'CHECK (kind = ''dose'' OR kind = ''one_off'' OR kind = ''low_stock'')'),
    'CHECK (status IN (''scheduled'', ''sent'', ''cancelled'', ''failed''))',
    'CHECK (status = ''scheduled'' OR status = ''sent'' OR status = ''cancelled'' OR status = ''failed'')')
WHERE type = 'table' AND name = 'reminders';

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (status IN (''taken'', ''skipped'', ''missed''))',
    'CHECK (status = ''taken'' OR status = ''skipped'' OR status = ''missed'')')
WHERE type = 'table' AND name = 'dose_history';

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (kind IN (''initial'', ''dose'', ''dose_reverted'', ''adjustment'', ''correction''))',
    'CHECK (kind = ''initial'' OR kind = ''dose'' OR kind = ''dose_reverted'' OR kind = ''adjustment'' OR kind = ''correction'')')
WHERE type = 'table' AND name = 'stock_ledger';

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (kind IN (''reminder'', ''repeat'', ''low_stock'', ''test''))',
    'CHECK (kind = ''reminder'' OR kind = ''repeat'' OR kind = ''low_stock'' OR kind = ''test'')')
WHERE type = 'table' AND name = 'deliveries';

-- Off again, and this connection reads the schema anew.
PRAGMA writable_schema = RESET;
