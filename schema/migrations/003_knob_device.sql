-- SPDX-License-Identifier: GPL-2.0-only
-- The device a journaled knob belongs to (issue 12, finding 21): a loop
-- device detached and its name reused for another image must not get the
-- first device's original value at recovery.  dev_major/dev_minor is the
-- whole disk's number, dev_name its sysfs name, dev_ident what tells a
-- reused name apart ("loop:FILE:dev=MAJ:MIN:ino=N", "wwid:...",
-- "serial:...", or '' when the device has none).  NULL for rows journaled
-- before this migration (restored as before).  A row whose device is not
-- the one present at recovery gets not_restorable = why, and stays out of
-- later recoveries.  Plain SQL: ALTER TABLE ... ADD COLUMN only.
ALTER TABLE knob_journal ADD COLUMN dev_major INTEGER;
ALTER TABLE knob_journal ADD COLUMN dev_minor INTEGER;
ALTER TABLE knob_journal ADD COLUMN dev_name TEXT;
ALTER TABLE knob_journal ADD COLUMN dev_ident TEXT;
ALTER TABLE knob_journal ADD COLUMN not_restorable TEXT;
