-- Home Assistant by MQTT discovery (issue 28): which people are published, the owner's
-- choice per person and off by default, so that a shared broker sees nobody's medicines
-- unasked.
ALTER TABLE people ADD COLUMN home_assistant INTEGER NOT NULL DEFAULT 0
    CHECK (home_assistant = 0 OR home_assistant = 1);
