-- SPDX-License-Identifier: GPL-2.0-only
-- 009_queued_index.sql - the claim's index, the queued jobs by id: the
-- twin of ../009_queued_index.sql in PostgreSQL's dialect.
CREATE INDEX jobs_queued ON jobs (id) WHERE state = 'queued';
