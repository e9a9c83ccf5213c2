-- SPDX-License-Identifier: GPL-2.0-only
-- 004_boots.sql - boot-interleaved kernel A/B (issue 17): a job may be
-- "rebooting" (biobenchd armed the next kernel and rebooted the host; the
-- next start checks the kernel that came up and goes on), and job_boots
-- holds a boot job's progress across the reboots.
--
-- The jobs table is rebuilt for its state CHECK (sqlite cannot alter a
-- CHECK): sqlite's documented procedure (create, copy, drop, rename),
-- run by migrate.c with foreign keys off, so that dropping the old table
-- cascades nowhere; runs, events, knob_journal and host_noise keep
-- pointing at "jobs" by name.  The AUTOINCREMENT counter is carried over:
-- an id is never reused.
CREATE TABLE jobs_new (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL DEFAULT '',
	target TEXT NOT NULL,
	state TEXT NOT NULL DEFAULT 'queued'
		CHECK (state IN ('queued', 'running', 'done', 'failed',
				 'cancelled', 'interrupted', 'rebooting')),
	created_ms INTEGER NOT NULL,
	started_ms INTEGER,
	finished_ms INTEGER,
	host_id INTEGER REFERENCES hosts (id),
	device_id INTEGER REFERENCES devices (id),
	runs_planned INTEGER NOT NULL DEFAULT 0 CHECK (runs_planned >= 0),
	runs_done INTEGER NOT NULL DEFAULT 0 CHECK (runs_done >= 0),
	verdict TEXT,
	error TEXT,
	spec TEXT NOT NULL,
	compare TEXT
);
INSERT INTO jobs_new (id, name, target, state, created_ms, started_ms,
		      finished_ms, host_id, device_id, runs_planned,
		      runs_done, verdict, error, spec, compare)
	SELECT id, name, target, state, created_ms, started_ms, finished_ms,
	       host_id, device_id, runs_planned, runs_done, verdict, error,
	       spec, compare FROM jobs;
INSERT INTO sqlite_sequence (name, seq)
	SELECT 'jobs_new', seq FROM sqlite_sequence WHERE name = 'jobs'
	AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'jobs_new');
UPDATE sqlite_sequence SET seq = (SELECT max(seq) FROM sqlite_sequence
				  WHERE name IN ('jobs', 'jobs_new'))
	WHERE name = 'jobs_new';
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
CREATE INDEX jobs_state_id ON jobs (state, id);
CREATE INDEX jobs_target_id ON jobs (target, id);

-- A boot job's progress: the boot expected now (0-based, of boots), its
-- variant, the boot id before the reboot and the deadline of the boot
-- (ms since the epoch); written in the transaction that makes the job
-- rebooting.
CREATE TABLE job_boots (
	job_id INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
	boot INTEGER NOT NULL CHECK (boot >= 0),
	boots INTEGER NOT NULL CHECK (boots >= 1),
	variant TEXT NOT NULL,
	boot_id_before TEXT NOT NULL,
	deadline_ms INTEGER NOT NULL,
	updated_ms INTEGER NOT NULL
);
