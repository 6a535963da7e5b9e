-- Missed-dose escalation's delivery (issue 16).

-- A carer's escalation e-mail belongs to its escalation, not to a reminder round: the queue
-- drops it once the dose is handled, and it is queued once.
ALTER TABLE mail_outbox ADD COLUMN escalation_id INTEGER REFERENCES escalations (id) ON DELETE CASCADE;
CREATE UNIQUE INDEX mail_outbox_escalation ON mail_outbox (escalation_id) WHERE escalation_id IS NOT NULL;

-- The engine's escalation pass starts from the few medications that escalate.
CREATE INDEX medications_escalating ON medications (id) WHERE escalation <> '{}';

-- Pushes of an escalation still in doubt (written before they go out, settled after): a
-- server stopped in between sends them again at its next pass.
CREATE INDEX escalations_pending ON escalations (reminder_id) WHERE status = 'pending';
