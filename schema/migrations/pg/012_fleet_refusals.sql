-- SPDX-License-Identifier: GPL-2.0-only
-- 012_fleet_refusals.sql - the hosts that refused a job addressed to no
-- host, and why: the twin of ../012_fleet_refusals.sql in PostgreSQL's
-- dialect.  Also the database's clock, bb_now_ms(): leases are set and
-- checked against it, never against a host's, so that a host whose clock
-- runs ahead does not take the others' jobs for lost (sqlite, one host,
-- has the same function on its own clock: daemon/store/sqlite.c).
CREATE TABLE job_refusals (
	job_id BIGINT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	host TEXT NOT NULL,
	reason TEXT NOT NULL,
	at_ms BIGINT NOT NULL,
	PRIMARY KEY (job_id, host)
);
CREATE FUNCTION bb_now_ms() RETURNS BIGINT LANGUAGE sql STABLE
	AS 'SELECT (extract(epoch FROM now()) * 1000)::bigint';
