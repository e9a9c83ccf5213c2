-- SPDX-License-Identifier: GPL-2.0-only
-- 003_knob_device.sql - the device a journaled knob belongs to: the twin
-- of ../003_knob_device.sql in PostgreSQL's dialect.
ALTER TABLE knob_journal ADD COLUMN dev_major BIGINT;
ALTER TABLE knob_journal ADD COLUMN dev_minor BIGINT;
ALTER TABLE knob_journal ADD COLUMN dev_name TEXT;
ALTER TABLE knob_journal ADD COLUMN dev_ident TEXT;
ALTER TABLE knob_journal ADD COLUMN not_restorable TEXT;
