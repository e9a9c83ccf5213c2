-- SPDX-License-Identifier: GPL-2.0-only
-- knobs/001_knob_journal.sql - the local knob journal of a daemon whose
-- store is a shared PostgreSQL database (config knob_journal, a sqlite
-- file in the daemon's state directory): a knob must be restorable on
-- the host it was changed on whatever happened to the network or the
-- shared database, so the journal is written here first, durably, and
-- the startup recovery reads it from here only.  The columns of the
-- store's knob_journal (001 and 003), without the foreign key (the job
-- is in the shared database), plus:
--   store: the shared store the job_id belongs to (its name without a
--          password), so that a row is only ever mirrored there;
--   rev, mirrored_rev: the row's revision (raised by every change) and
--          the revision last copied to the shared store's knob_journal
--          (for the job documents of every daemon; best-effort).
CREATE TABLE knob_journal (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	job_id INTEGER,
	target TEXT,
	knob TEXT NOT NULL,
	path TEXT NOT NULL,
	original TEXT NOT NULL,
	applied TEXT,
	state TEXT NOT NULL DEFAULT 'pending'
		CHECK (state IN ('pending', 'applied', 'restored')),
	created_ms INTEGER NOT NULL,
	restored_ms INTEGER,
	dev_major INTEGER,
	dev_minor INTEGER,
	dev_name TEXT,
	dev_ident TEXT,
	not_restorable TEXT,
	store TEXT,
	rev INTEGER NOT NULL DEFAULT 1,
	mirrored_rev INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX knob_journal_unrestored ON knob_journal (id)
	WHERE state <> 'restored';
CREATE INDEX knob_journal_unmirrored ON knob_journal (id)
	WHERE mirrored_rev < rev;
