-- SPDX-License-Identifier: GPL-2.0-only
-- 009_queued_index.sql - the claim's index: the queued jobs by id.  A
-- claim (and every idle daemon's poll of the queue, each second on a
-- shared store) picks the oldest queued job: "WHERE state = 'queued' ...
-- ORDER BY id LIMIT 1".  PostgreSQL planned it as a walk of the primary
-- key from the oldest job, filtering every finished one on the way (10,050
-- rows for an empty queue in bench/store_pg.sh: a claim of 4 ms p50 after
-- 10,000 jobs, growing with the store's history); with this partial index
-- it reads the queued jobs only.  sqlite gets the same index.
CREATE INDEX jobs_queued ON jobs (id) WHERE state = 'queued';
