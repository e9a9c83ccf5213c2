// SPDX-License-Identifier: GPL-2.0-only
/* jobgroup.c - one job on several fleet hosts (jobgroup.h): the
 * selector's keys and its match against a registered daemon, a group's
 * state from its children's, the combined block of the per-host
 * comparisons. */
#include <biobench/abstats.h>
#include <biobench/common.h>
#include <biobench/jobgroup.h>

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEV_PREFIX "device."

static const char *const host_keys[] = {
	"name", "hostname", "kernel", "kernel_version", "machine", "cmdline",
	"cpu_model", "microcode", "cpus", "memory_bytes", "governor",
};
static const char *const dev_keys[] = {
	"name", "path", "model", "serial", "firmware", "size_bytes",
	"rotational", "scheduler", "io_poll",
};

static bool in_list(const char *k, const char *const *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(k, l[i]))
			return true;
	return false;
}

bool bb_group_key_ok(const char *key)
{
	if (!key)
		return false;
	if (!strncmp(key, DEV_PREFIX, strlen(DEV_PREFIX)))
		return in_list(key + strlen(DEV_PREFIX), dev_keys,
			       bb_array_size(dev_keys));
	return in_list(key, host_keys, bb_array_size(host_keys));
}

const char *bb_group_keys(void)
{
	return "name, hostname, kernel, kernel_version, machine, cmdline, "
	       "cpu_model, microcode, cpus, memory_bytes, governor, "
	       "device.name, device.path, device.model, device.serial, "
	       "device.firmware, device.size_bytes, device.rotational, "
	       "device.scheduler, device.io_poll";
}

/* Whether the text of o's member key matches glob. */
static bool field_match(struct json_object *o, const char *key,
			const char *glob)
{
	struct json_object *v;
	const char *text;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v) || !v)
		return false;
	text = json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) :
		       json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
	return !fnmatch(glob, text, 0);
}

static const char *jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	return o && json_object_object_get_ex(o, key, &v) &&
			       json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* Whether device d matches every device key of sel. */
static bool dev_match(struct json_object *sel, struct json_object *d)
{
	json_object_object_foreach(sel, key, val)
	{
		if (strncmp(key, DEV_PREFIX, strlen(DEV_PREFIX)))
			continue;
		if (!field_match(d, key + strlen(DEV_PREFIX),
				 json_object_get_string(val)))
			return false;
	}
	return true;
}

/* The device of target among devs (a /dev path: by path, or by name),
 * or NULL. */
static struct json_object *target_dev(struct json_object *devs,
				      const char *target)
{
	const char *base;

	if (!target || strncmp(target, "/dev/", 5))
		return NULL;
	base = target + 5;
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		const char *p = jstr(d, "path"), *n = jstr(d, "name");

		if ((p && !strcmp(p, target)) || (n && !strcmp(n, base)))
			return d;
	}
	return NULL;
}

bool bb_group_match(struct json_object *sel, const char *name,
		    struct json_object *host, struct json_object *devices,
		    const char *target)
{
	struct json_object *devs = devices, *d;
	bool want_dev = false;

	if (!sel || !json_object_is_type(sel, json_type_object))
		return false;
	json_object_object_foreach(sel, key, val)
	{
		const char *glob = json_object_get_string(val);

		if (!strncmp(key, DEV_PREFIX, strlen(DEV_PREFIX))) {
			want_dev = true;
			continue;
		}
		if (!strcmp(key, "name")) {
			if (!name || fnmatch(glob, name, 0))
				return false;
		} else if (!field_match(host, key, glob)) {
			return false;
		}
	}
	if (!want_dev)
		return true;
	if (devs && json_object_is_type(devs, json_type_object))
		json_object_object_get_ex(devices, "devices", &devs);
	if (!devs || !json_object_is_type(devs, json_type_array))
		return false;
	d = target_dev(devs, target);
	if (d)
		return dev_match(sel, d);
	for (size_t i = 0; i < json_object_array_length(devs); i++)
		if (dev_match(sel, json_object_array_get_idx(devs, i)))
			return true;
	return false;
}

/* ---- the group's state ----------------------------------------------- */

const char *bb_group_state(const char *const *states, size_t n)
{
	size_t queued = 0, active = 0, failed = 0, interrupted = 0;
	size_t cancelled = 0;

	for (size_t i = 0; i < n; i++) {
		const char *s = states[i] ? states[i] : "";

		if (!strcmp(s, "queued"))
			queued++;
		else if (!strcmp(s, "running") || !strcmp(s, "rebooting"))
			active++;
		else if (!strcmp(s, "failed"))
			failed++;
		else if (!strcmp(s, "interrupted"))
			interrupted++;
		else if (!strcmp(s, "cancelled"))
			cancelled++;
	}
	if (active || (queued && queued < n))
		return "running";
	if (queued)
		return "queued";
	if (failed)
		return "failed";
	if (interrupted)
		return "interrupted";
	if (cancelled)
		return "cancelled";
	return "done";
}

/* ---- the combined block ------------------------------------------------ */

static double jnum(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v ||
	    (!json_object_is_type(v, json_type_double) &&
	     !json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

static struct json_object *jd(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static struct json_object *host_change(const char *host, double change)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "host", json_object_new_string(host));
	json_object_object_add(o, "change", jd(change));
	return o;
}

static void pct(char *buf, size_t len, double f)
{
	snprintf(buf, len, "%+.1f%%", 100 * f);
}

/* The block of one baseline/variant pair: rows[idx] of that pair. */
static struct json_object *combine_one(struct json_object *rows,
				       const size_t *idx, size_t k,
				       double confidence)
{
	struct json_object *o = json_object_new_object();
	struct json_object *effects = json_object_new_array();
	struct json_object *dis = json_object_new_array();
	struct json_object *first = json_object_array_get_idx(rows, idx[0]);
	double sum = 0, sum2 = 0, sw = 0, swy = 0, mn = INFINITY, mx = -INFINITY;
	size_t imn = 0, imx = 0, nw = 0, pos = 0, neg = 0;
	const char *common = NULL, *verdict;
	bool same = true;
	char text[512], a[32], b[32], c[32], d[32];
	size_t off;

	json_object_object_add(o, "baseline",
			       json_object_new_string(jstr(first, "baseline") ?
						      jstr(first, "baseline") : ""));
	json_object_object_add(o, "variant",
			       json_object_new_string(jstr(first, "variant") ?
						      jstr(first, "variant") : ""));
	json_object_object_add(o, "hosts", json_object_new_int64((int64_t)k));
	for (size_t i = 0; i < k; i++) {
		struct json_object *r = json_object_array_get_idx(rows, idx[i]);
		const char *h = jstr(r, "host") ? jstr(r, "host") : "?";
		const char *v = jstr(r, "verdict") ? jstr(r, "verdict") : "";
		double ch = jnum(r, "change"), y = log1p(ch);
		double lo = jnum(r, "ci_lo"), hi = jnum(r, "ci_hi");
		double lvl = jnum(r, "ci_level"), se, z;

		json_object_array_add(effects, host_change(h, ch));
		sum += y;
		sum2 += y * y;
		if (ch < mn) {
			mn = ch;
			imn = idx[i];
		}
		if (ch > mx) {
			mx = ch;
			imx = idx[i];
		}
		if (!common)
			common = v;
		else if (strcmp(common, v))
			same = false;
		if (!strcmp(v, "faster") || !strcmp(v, "slower")) {
			pos += ch > 0;
			neg += ch < 0;
		}
		/* the host's standard error from its interval: half its log
		 * width over the normal quantile of its real coverage */
		z = bb_ab_norm_quantile(0.5 + lvl / 2);
		se = (log1p(hi) - log1p(lo)) / (2 * z);
		if (isfinite(se) && se > 0) {
			sw += 1 / (se * se);
			swy += y / (se * se);
			nw++;
		}
	}
	json_object_object_add(o, "effects", effects);
	json_object_object_add(o, "min", host_change(
		jstr(json_object_array_get_idx(rows, imn), "host"), mn));
	json_object_object_add(o, "max", host_change(
		jstr(json_object_array_get_idx(rows, imx), "host"), mx));
	json_object_object_add(o, "spread_sd", k >= 2 ? jd(sqrt(fmax(0,
		(sum2 - sum * sum / (double)k) / (double)(k - 1)))) : NULL);
	if (nw) {
		struct json_object *p = json_object_new_object();
		double m = swy / sw, se = 1 / sqrt(sw), q = 0, i2;
		double z = bb_ab_norm_quantile(0.5 + confidence / 2);

		for (size_t i = 0; i < k; i++) {
			struct json_object *r =
				json_object_array_get_idx(rows, idx[i]);
			double y = log1p(jnum(r, "change"));
			double l = jnum(r, "ci_lo"), h = jnum(r, "ci_hi");
			double zz = bb_ab_norm_quantile(
				0.5 + jnum(r, "ci_level") / 2);
			double s = (log1p(h) - log1p(l)) / (2 * zz);

			if (isfinite(s) && s > 0)
				q += (y - m) * (y - m) / (s * s);
		}
		i2 = q > 0 && nw > 1 ? fmax(0, (q - (double)(nw - 1)) / q) : 0;
		json_object_object_add(p, "change", jd(expm1(m)));
		json_object_object_add(p, "ci_lo", jd(expm1(m - z * se)));
		json_object_object_add(p, "ci_hi", jd(expm1(m + z * se)));
		json_object_object_add(p, "ci_level", jd(confidence));
		json_object_object_add(p, "hosts",
				       json_object_new_int64((int64_t)nw));
		json_object_object_add(p, "q", jd(q));
		json_object_object_add(p, "i2", jd(i2));
		json_object_object_add(p, "method", json_object_new_string(
			"fixed-effect inverse-variance mean of the hosts' log "
			"effects (each host's SE from its interval)"));
		json_object_object_add(o, "pooled", p);
	} else {
		json_object_object_add(o, "pooled", NULL);
	}
	json_object_object_add(o, "disagree",
			       json_object_new_boolean(pos && neg));
	for (size_t i = 0; pos && neg && i < k; i++) {
		struct json_object *r = json_object_array_get_idx(rows, idx[i]);
		const char *v = jstr(r, "verdict") ? jstr(r, "verdict") : "";
		struct json_object *one;

		if (strcmp(v, "faster") && strcmp(v, "slower"))
			continue;
		one = host_change(jstr(r, "host") ? jstr(r, "host") : "?",
				  jnum(r, "change"));
		json_object_object_add(one, "verdict",
				       json_object_new_string(v));
		json_object_array_add(dis, one);
	}
	json_object_object_add(o, "disagreeing", dis);
	verdict = pos && neg ? "disagree" : same ? common : "mixed";
	json_object_object_add(o, "verdict", json_object_new_string(verdict));
	pct(a, sizeof(a), mn);
	pct(b, sizeof(b), mx);
	off = (size_t)snprintf(text, sizeof(text), "%s vs %s on %zu host%s: %s",
			       jstr(first, "variant") ? jstr(first, "variant") : "?",
			       jstr(first, "baseline") ? jstr(first, "baseline") : "?",
			       k, k == 1 ? "" : "s", a);
	if (k > 1 && off < sizeof(text))
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					" .. %s", b);
	if (nw && off < sizeof(text)) {
		double m = swy / sw, se = 1 / sqrt(sw);
		double z = bb_ab_norm_quantile(0.5 + confidence / 2);

		pct(a, sizeof(a), expm1(m));
		pct(c, sizeof(c), expm1(m - z * se));
		pct(d, sizeof(d), expm1(m + z * se));
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					", pooled %s (%g%% CI %s .. %s)", a,
					100 * confidence, c, d);
	}
	if (off < sizeof(text)) {
		if (pos && neg)
			snprintf(text + off, sizeof(text) - off,
				 ": the hosts disagree (significant changes "
				 "of opposite signs)");
		else if (same)
			snprintf(text + off, sizeof(text) - off, ": %s on %s",
				 !strcmp(common, "no_change") ? "no change" :
								common,
				 k == 1 ? "the host" : "all");
		else
			snprintf(text + off, sizeof(text) - off,
				 ": the hosts' verdicts differ");
	}
	json_object_object_add(o, "text", json_object_new_string(text));
	return o;
}

struct json_object *bb_group_combine(struct json_object *rows,
				     double confidence)
{
	struct json_object *out = json_object_new_array();
	size_t n = rows && json_object_is_type(rows, json_type_array) ?
			   json_object_array_length(rows) : 0;
	size_t idx[BB_GROUP_MAX_HOSTS * 8], k;
	bool done[BB_GROUP_MAX_HOSTS * 8] = { false };

	if (!out)
		return NULL;
	if (!(confidence > 0 && confidence < 1))
		confidence = 0.95;
	n = bb_min(n, bb_array_size(idx));
	for (size_t i = 0; i < n; i++) {
		struct json_object *r = json_object_array_get_idx(rows, i);
		const char *ba = jstr(r, "baseline"), *va = jstr(r, "variant");

		if (done[i] || !isfinite(jnum(r, "change")) || !ba || !va)
			continue;
		k = 0;
		for (size_t j = i; j < n; j++) {
			struct json_object *s = json_object_array_get_idx(rows,
									  j);
			const char *bs = jstr(s, "baseline");
			const char *vs = jstr(s, "variant");

			if (done[j] || !isfinite(jnum(s, "change")) || !bs ||
			    !vs || strcmp(ba, bs) || strcmp(va, vs))
				continue;
			done[j] = true;
			idx[k++] = j;
		}
		json_object_array_add(out, combine_one(rows, idx, k,
						       confidence));
	}
	return out;
}
