-- SPDX-License-Identifier: GPL-2.0-only
-- 004_boots.sql - boot-interleaved kernel A/B: the twin of
-- ../004_boots.sql in PostgreSQL's dialect.  PostgreSQL alters a CHECK in
-- place: no table rebuild (the identity sequence, the foreign keys
-- pointing at jobs and the indexes stay as they are).
ALTER TABLE jobs DROP CONSTRAINT jobs_state_check,
	ADD CONSTRAINT jobs_state_check
	CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled',
			 'interrupted', 'rebooting'));

CREATE TABLE job_boots (
	job_id BIGINT PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
	boot BIGINT NOT NULL CHECK (boot >= 0),
	boots BIGINT NOT NULL CHECK (boots >= 1),
	variant TEXT NOT NULL,
	boot_id_before TEXT NOT NULL,
	deadline_ms BIGINT NOT NULL,
	updated_ms BIGINT NOT NULL
);
