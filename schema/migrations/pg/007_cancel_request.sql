-- SPDX-License-Identifier: GPL-2.0-only
-- 007_cancel_request.sql - a cancel asked of a job another daemon runs:
-- the twin of ../007_cancel_request.sql in PostgreSQL's dialect.
ALTER TABLE jobs ADD COLUMN cancel_requested_ms BIGINT;
ALTER TABLE jobs ADD COLUMN cancel_requested_by TEXT;
