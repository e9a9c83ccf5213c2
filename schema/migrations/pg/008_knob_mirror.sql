-- SPDX-License-Identifier: GPL-2.0-only
-- 008_knob_mirror.sql - knob journal rows mirrored from each daemon's
-- local journal: the twin of ../008_knob_mirror.sql in PostgreSQL's
-- dialect.
ALTER TABLE knob_journal ADD COLUMN host TEXT;
ALTER TABLE knob_journal ADD COLUMN local_id BIGINT;
CREATE UNIQUE INDEX knob_journal_mirror
	ON knob_journal (host, local_id, created_ms)
	WHERE local_id IS NOT NULL;
