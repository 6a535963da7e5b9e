-- A schedule's rules beyond frequency, times, weekdays and start date (issue 15): interval,
-- every N days, cycles, end date, tapering steps, as-needed limits, wall or elapsed clock,
-- grace before a dose counts as missed, and follow-up overrides. One JSON object, `{}` when
-- none is set; the server validates it (domain/schedule.rs `Rules::check`).
ALTER TABLE medications ADD COLUMN schedule_rules TEXT NOT NULL DEFAULT '{}';
