-- SPDX-License-Identifier: GPL-2.0-only
-- 001_init.sql - biobenchd's first schema (see daemon/store.h).
--
-- Applied by the store in one transaction that also sets PRAGMA
-- user_version = 1; no BEGIN/COMMIT here.  Portable to sqlite 3.24 (no
-- STRICT tables, no RETURNING, no json1 functions) so that the packaged
-- daemon runs on older distributions.  Large TEXT columns (spec, compare,
-- result, info) come last in their rows: list queries stop reading a row
-- before them.  Times are ms since the Unix epoch (UTC); ids are
-- INTEGER PRIMARY KEY (jobs AUTOINCREMENT: an id is never reused, so a
-- URL or a list cursor never points at another job).

-- A host's metadata (bb_host_info), deduplicated on the canonical JSON
-- text (keys sorted): the same host gives the same row.
CREATE TABLE hosts (
	id INTEGER PRIMARY KEY,
	hostname TEXT,
	kernel TEXT,
	kernel_version TEXT,
	machine TEXT,
	cmdline TEXT,
	cpu_model TEXT,
	cpus INTEGER,
	memory_bytes INTEGER,
	governor TEXT,
	first_seen_ms INTEGER NOT NULL,
	info TEXT NOT NULL UNIQUE
);

-- The device a target runs on (bb_target_device_info), deduplicated the
-- same way; limits is the JSON snapshot of its queue limits.
CREATE TABLE devices (
	id INTEGER PRIMARY KEY,
	kind TEXT,
	path TEXT,
	name TEXT,
	model TEXT,
	serial TEXT,
	firmware TEXT,
	first_seen_ms INTEGER NOT NULL,
	limits TEXT,
	info TEXT NOT NULL UNIQUE
);

CREATE TABLE jobs (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	name TEXT NOT NULL DEFAULT '',
	target TEXT NOT NULL,
	state TEXT NOT NULL DEFAULT 'queued'
		CHECK (state IN ('queued', 'running', 'done', 'failed',
				 'cancelled', 'interrupted')),
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
-- lists by state, newest first, and the FIFO of queued jobs
CREATE INDEX jobs_state_id ON jobs (state, id);
-- /metrics: the newest run per target
CREATE INDEX jobs_target_id ON jobs (target, id);

CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	seq INTEGER NOT NULL CHECK (seq >= 0),
	round INTEGER NOT NULL DEFAULT 0,
	variant TEXT NOT NULL,
	warmup INTEGER NOT NULL DEFAULT 0 CHECK (warmup IN (0, 1)),
	state TEXT NOT NULL CHECK (state IN ('done', 'failed', 'cancelled')),
	error TEXT,
	metric REAL,
	iops REAL,
	bw_bytes_s REAL,
	lat_p50_ns INTEGER,
	lat_p99_ns INTEGER,
	cpu_per_io_ns REAL,
	started_ms INTEGER,
	duration_ns INTEGER,
	device_id INTEGER REFERENCES devices (id),
	result TEXT,
	UNIQUE (job_id, seq)
);

-- Per-second samples of a run (t_ms: end of the interval, ms since the
-- start of the measured interval).
CREATE TABLE samples (
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	t_ms INTEGER NOT NULL,
	ios INTEGER NOT NULL,
	bytes INTEGER NOT NULL,
	PRIMARY KEY (run_id, t_ms)
) WITHOUT ROWID;

-- The non-zero buckets of a run's latency histogram (core/stats.h layout).
CREATE TABLE lat_hist (
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	bucket INTEGER NOT NULL CHECK (bucket >= 0),
	count INTEGER NOT NULL CHECK (count > 0),
	PRIMARY KEY (run_id, bucket)
) WITHOUT ROWID;

-- sysfs knobs: journaled (pending) before being changed, applied after the
-- write, restored after the original went back.  A row outlives its job
-- (SET NULL) until restored: it holds the value to write back.
CREATE TABLE knob_journal (
	id INTEGER PRIMARY KEY,
	job_id INTEGER REFERENCES jobs (id) ON DELETE SET NULL,
	target TEXT,
	knob TEXT NOT NULL,
	path TEXT NOT NULL,
	original TEXT NOT NULL,
	applied TEXT,
	state TEXT NOT NULL DEFAULT 'pending'
		CHECK (state IN ('pending', 'applied', 'restored')),
	created_ms INTEGER NOT NULL,
	restored_ms INTEGER
);
CREATE INDEX knob_journal_job ON knob_journal (job_id, id);
CREATE INDEX knob_journal_unrestored ON knob_journal (id)
	WHERE state <> 'restored';

CREATE TABLE events (
	id INTEGER PRIMARY KEY,
	ts_ms INTEGER NOT NULL,
	job_id INTEGER REFERENCES jobs (id) ON DELETE CASCADE,
	level TEXT NOT NULL CHECK (level IN ('info', 'warning', 'error')),
	message TEXT NOT NULL
);
CREATE INDEX events_job ON events (job_id, id);
