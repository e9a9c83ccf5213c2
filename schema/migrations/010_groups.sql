-- SPDX-License-Identifier: GPL-2.0-only
-- 010_groups.sql - one job on several fleet hosts (a group job).
--
-- A job whose "host" is an array or whose "hosts" is a selector is stored
-- as a parent (is_group = 1) and one child per host: an ordinary job
-- addressed to that host (for_host) whose group_id is the parent's id.
-- The parent is never claimed or run; its state, times and run counts
-- are derived from its children's in the transaction of each child's
-- change (daemon/store/groups.c, core/include/biobench/jobgroup.h).
ALTER TABLE jobs ADD COLUMN group_id INTEGER REFERENCES jobs (id);
ALTER TABLE jobs ADD COLUMN is_group INTEGER NOT NULL DEFAULT 0;
CREATE INDEX jobs_group ON jobs (group_id);
