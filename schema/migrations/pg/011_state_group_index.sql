-- SPDX-License-Identifier: GPL-2.0-only
-- 011_state_group_index.sql - the counts of /metrics by state without the
-- groups' parents from an index: the twin of ../011_state_group_index.sql
-- in PostgreSQL's dialect.
CREATE INDEX jobs_state_group ON jobs (state, is_group);
