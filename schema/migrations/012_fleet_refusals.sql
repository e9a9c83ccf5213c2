-- SPDX-License-Identifier: GPL-2.0-only
-- 012_fleet_refusals.sql - a fleet host that cannot run a job addressed
-- to no host (its allow-list refuses the target, the target is not
-- there) records why and leaves the job queued for another host; the
-- job fails, with every host's reason, only when no live host is left
-- that has not refused it (daemon/store/fleet.c).  Its claims skip the
-- jobs it refused.
CREATE TABLE job_refusals (
	job_id INTEGER NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	host TEXT NOT NULL,
	reason TEXT NOT NULL,
	at_ms INTEGER NOT NULL,
	PRIMARY KEY (job_id, host)
);
