-- SPDX-License-Identifier: GPL-2.0-only
-- 006_fleet.sql - pull scheduling: many daemons on one database.
--
-- daemons: the registry, one row per daemon host name (config host_name),
-- written at its start and refreshed by its heartbeat: host metadata as
-- the hosts table holds it (bb_host_info), its devices and allow-list
-- summary, its version, when it started and was last seen, the job it
-- runs (NULL: idle).
--
-- jobs.for_host: the daemon a job is addressed to (NULL: any);
-- jobs.claimed_by: the daemon that claimed it (a queued job claimed is
-- its claimer's to start; NULL for jobs of a single daemon before 006);
-- jobs.lease_ms: until when the claim holds, renewed by the claimer's
-- heartbeat while the job runs; a running job past its lease is
-- interrupted by any daemon's sweep (boot jobs excepted: their host
-- recovers them after its reboot).
CREATE TABLE daemons (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	host TEXT,
	devices TEXT,
	version TEXT NOT NULL DEFAULT '',
	pid INTEGER,
	started_ms INTEGER NOT NULL,
	last_seen_ms INTEGER NOT NULL,
	running_job_id INTEGER REFERENCES jobs (id) ON DELETE SET NULL
);
ALTER TABLE jobs ADD COLUMN for_host TEXT;
ALTER TABLE jobs ADD COLUMN claimed_by TEXT;
ALTER TABLE jobs ADD COLUMN lease_ms INTEGER;
CREATE INDEX jobs_claim ON jobs (state, claimed_by, id);
