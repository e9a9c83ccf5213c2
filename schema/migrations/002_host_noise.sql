-- SPDX-License-Identifier: GPL-2.0-only
-- 002_host_noise.sql - a host's noise floor (see daemon/store.h).
--
-- Every A/A job ("aa": true) that ends done leaves the spread of its
-- pairs here, for its host, target and metric: the SD of the pairs'
-- log-ratios (log_sd), the pairs behind it and the half-width of the
-- A/A interval (log scale).  Verdicts on the same host, target and metric
-- show the newest row next to them.  Plain SQL (no sqlite-only types or
-- functions), so that it ports to other databases as it is.
CREATE TABLE host_noise (
	id INTEGER PRIMARY KEY,
	host_id INTEGER NOT NULL REFERENCES hosts (id),
	job_id INTEGER REFERENCES jobs (id) ON DELETE SET NULL,
	target TEXT NOT NULL,
	metric TEXT NOT NULL,
	pairs INTEGER NOT NULL CHECK (pairs >= 2),
	log_sd REAL NOT NULL CHECK (log_sd >= 0),
	ci_half REAL,
	created_ms INTEGER NOT NULL
);
CREATE INDEX host_noise_lookup ON host_noise (host_id, target, metric, id);
