-- SPDX-License-Identifier: GPL-2.0-only
-- 007_cancel_request.sql - a cancel asked of a job that another daemon of
-- the fleet runs (two columns of its own, added to the jobs table as it
-- is: nothing here depends on the columns before them).
--
-- jobs.cancel_requested_ms: when a daemon that does not run the job was
-- asked to cancel it (POST /api/v1/jobs/ID/cancel answered 202
-- cancelling); the job's claimer reads it at its next heartbeat and
-- cancels the job as a local cancel does.  NULL: never asked.
-- jobs.cancel_requested_by: the host name of the daemon that was asked.
ALTER TABLE jobs ADD COLUMN cancel_requested_ms INTEGER;
ALTER TABLE jobs ADD COLUMN cancel_requested_by TEXT;
