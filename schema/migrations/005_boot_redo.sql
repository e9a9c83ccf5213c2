-- SPDX-License-Identifier: GPL-2.0-only
-- 005_boot_redo.sql - a boot job interrupted in the middle of a boot's
-- runs (the daemon killed or stopped, the host crashed or was rebooted by
-- someone else) is not lost: at the next start biobenchd redoes that boot,
-- on its variant's kernel, from its first run.  The runs the interrupted
-- attempt had finished stay stored but out of the statistics: `discarded`
-- says why (NULL: the run counts).  job_boots.redone counts the boots
-- redone so far, so that a boot that never completes (a kernel that
-- crashes the host under the workload) ends the job instead of looping.
ALTER TABLE runs ADD COLUMN discarded TEXT;
ALTER TABLE job_boots ADD COLUMN redone INTEGER NOT NULL DEFAULT 0
	CHECK (redone >= 0);
