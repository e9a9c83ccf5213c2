-- SPDX-License-Identifier: GPL-2.0-only
-- 008_knob_mirror.sql - knob journal rows mirrored from a daemon's local
-- journal (a PostgreSQL store keeps the journal in a sqlite file on each
-- host: schema/migrations/knobs/): host is the daemon's host name ('' for
-- a handle without one), local_id the row's id in that host's journal.
-- A mirrored row is for the job documents only: no recovery reads it
-- (recovery reads the local journal).  Rows journaled here directly (a
-- sqlite store) have both NULL.  (host, local_id, created_ms) names a
-- mirrored row: a journal file made anew starts its ids again.
ALTER TABLE knob_journal ADD COLUMN host TEXT;
ALTER TABLE knob_journal ADD COLUMN local_id INTEGER;
CREATE UNIQUE INDEX knob_journal_mirror
	ON knob_journal (host, local_id, created_ms)
	WHERE local_id IS NOT NULL;
