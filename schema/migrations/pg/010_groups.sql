-- SPDX-License-Identifier: GPL-2.0-only
-- 010_groups.sql - one job on several fleet hosts, a parent and its
-- children: the twin of ../010_groups.sql in PostgreSQL's dialect.
ALTER TABLE jobs ADD COLUMN group_id BIGINT REFERENCES jobs (id);
ALTER TABLE jobs ADD COLUMN is_group BIGINT NOT NULL DEFAULT 0;
CREATE INDEX jobs_group ON jobs (group_id);
