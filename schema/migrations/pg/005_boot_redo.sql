-- SPDX-License-Identifier: GPL-2.0-only
-- 005_boot_redo.sql - redoing an interrupted boot: the twin of
-- ../005_boot_redo.sql in PostgreSQL's dialect.
ALTER TABLE runs ADD COLUMN discarded TEXT;
ALTER TABLE job_boots ADD COLUMN redone BIGINT NOT NULL DEFAULT 0
	CHECK (redone >= 0);
