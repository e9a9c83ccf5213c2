/* cmd_ab.c - `biobench ab`: A and B run interleaved (ABAB...) on this
 * machine, printed side by side with the statistical verdict. */
#include "abstats.h"
#include "cli.h"
#include "engine.h"
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AB_MAX_OVERRIDES 16
#define AB_MAX_REPEAT 1000

struct ab_side {
	const char *kv[AB_MAX_OVERRIDES];
	unsigned nkv;
	struct bb_config cfg;
	double iops[AB_MAX_REPEAT];
	double p99[AB_MAX_REPEAT];
	double cpu_ns[AB_MAX_REPEAT];
	struct bb_cache_counters cache;
	struct bb_split_counters split;
	char label[256];
};

static void ab_usage(FILE *f)
{
	fprintf(f,
		"usage: biobench ab [RUN OPTIONS] --a KEY=VAL [--a KEY=VAL...] "
		"--b KEY=VAL [--b ...] [--repeat N] [--warmup N] "
		"[--min-effect PCT] TARGET\n\n"
		"Runs the workload given by the run options as variant A and "
		"variant B, each with its\nKEY=VAL overrides (any run option by "
		"its JSON name, e.g. bio_cache=off, iodepth=32),\ninterleaved "
		"A B A B ... after the warm-up pairs, and prints both side by "
		"side with the\nchange of B against A, its confidence interval "
		"and a verdict.\n\n"
		"  --a KEY=VAL       an override for variant A (repeatable)\n"
		"  --b KEY=VAL       an override for variant B (repeatable)\n"
		"  --repeat N        measured pairs (default 5, 2..%d)\n"
		"  --warmup N        discarded pairs first (default 1)\n"
		"  --min-effect PCT  smallest change that matters, percent "
		"(default 1)\n\n"
		"Run options (see `biobench run --help` for all):\n",
		AB_MAX_REPEAT);
	bb_options_help(f);
}

static int apply_overrides(struct ab_side *s, const char *name, char *err,
			   size_t len)
{
	size_t off = 0;

	s->label[0] = '\0';
	for (unsigned i = 0; i < s->nkv; i++) {
		char key[128];
		const char *eq = strchr(s->kv[i], '=');
		int ret;

		if (!eq || eq == s->kv[i] || (size_t)(eq - s->kv[i]) >= sizeof(key)) {
			snprintf(err, len,
				 "--%s: '%s' is not KEY=VAL (e.g. bio_cache=off)",
				 name, s->kv[i]);
			return -EINVAL;
		}
		memcpy(key, s->kv[i], (size_t)(eq - s->kv[i]));
		key[eq - s->kv[i]] = '\0';
		ret = bb_options_set(&s->cfg, key, eq + 1, err, len);
		if (ret == -ENOENT) {
			snprintf(err, len,
				 "--%s: unknown option '%s' (see biobench run "
				 "--help)",
				 name, key);
			return -EINVAL;
		}
		if (ret)
			return ret;
		off += (size_t)snprintf(s->label + off,
					off < sizeof(s->label) ?
						sizeof(s->label) - off : 0,
					"%s%s", i ? " " : "", s->kv[i]);
	}
	return bb_config_check(&s->cfg, err, len);
}

static int run_one(struct ab_side *s, unsigned i, bool keep, char *err,
		   size_t len)
{
	struct bb_result r;
	int ret = bb_run(&s->cfg, &r, NULL, NULL, err, len);

	if (!ret && keep) {
		double ios = (double)r.io.ios;

		s->iops[i] = bb_result_iops(&r);
		s->p99[i] = (double)bb_hist_percentile(&r.lat, 99.0);
		s->cpu_ns[i] = ios > 0 ?
			(double)(r.cpu_submit.usr_ns + r.cpu_submit.sys_ns +
				 r.cpu_completion.usr_ns +
				 r.cpu_completion.sys_ns) / ios : 0;
		bb_cache_counters_add(&s->cache, &r.cache);
		bb_cache_counters_add(&s->cache, &r.split_cache);
		bb_split_counters_add(&s->split, &r.split);
	}
	bb_result_free(&r);
	return ret;
}

static double median(const double *v, unsigned n)
{
	struct bb_ab_summary sum;

	return bb_ab_summarize(v, n, &sum) ? 0.0 : sum.median;
}

static void fmt_iops(char *b, size_t n, double v)
{
	if (v >= 1e6)
		snprintf(b, n, "%.3fM", v / 1e6);
	else if (v >= 1e3)
		snprintf(b, n, "%.1fK", v / 1e3);
	else
		snprintf(b, n, "%.0f", v);
}

static void print_table(struct ab_side *a, struct ab_side *b, unsigned n)
{
	char x[32], y[32];

	printf("\n%-22s %22s %22s\n", "", "A", "B");
	printf("%-22s %22.22s %22.22s\n", "overrides", a->label, b->label);
	for (unsigned i = 0; i < n; i++) {
		char name[32];

		fmt_iops(x, sizeof(x), a->iops[i]);
		fmt_iops(y, sizeof(y), b->iops[i]);
		snprintf(name, sizeof(name), "pair %u IOPS", i + 1);
		printf("%-22s %22s %22s\n", name, x, y);
	}
	fmt_iops(x, sizeof(x), median(a->iops, n));
	fmt_iops(y, sizeof(y), median(b->iops, n));
	printf("%-22s %22s %22s\n", "median IOPS", x, y);
	printf("%-22s %20.1fus %20.1fus\n", "median p99 latency",
	       median(a->p99, n) / 1e3, median(b->p99, n) / 1e3);
	printf("%-22s %22.1f %22.1f\n", "median CPU ns / I/O",
	       median(a->cpu_ns, n), median(b->cpu_ns, n));
#define ROW(label, field)                                                   \
	printf("%-22s %22llu %22llu\n", label,                              \
	       (unsigned long long)a->cache.field,                          \
	       (unsigned long long)b->cache.field)
	ROW("bio cache hits", alloc_hit);
	ROW("bio cache misses", alloc_miss);
	ROW("slab allocations", alloc_slab);
	ROW("irq list splices", splice);
	ROW("puts to task list", put_task);
	ROW("puts to irq list", put_irq);
	ROW("frees", free);
#undef ROW
	printf("%-22s %22llu %22llu\n", "split pieces",
	       (unsigned long long)a->split.pieces,
	       (unsigned long long)b->split.pieces);
}

int bb_cmd_ab(int argc, char **argv)
{
	static struct ab_side A, B; /* large; one run per process */
	struct bb_config base;
	struct bb_ab_params params;
	struct bb_ab_result res;
	char **rest, err[512], line[512];
	unsigned nrest = 0, repeat = 5, warmup = 1;
	double min_effect = 0.01;
	int ret;

	rest = calloc((size_t)argc + 1, sizeof(*rest));
	if (!rest)
		return 1;
	rest[nrest++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *val = NULL;
		char *end;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			ab_usage(stdout);
			free(rest);
			return 0;
		}
		if (!strncmp(arg, "--a", 3) || !strncmp(arg, "--b", 3) ||
		    !strncmp(arg, "--repeat", 8) ||
		    !strncmp(arg, "--warmup", 8) ||
		    !strncmp(arg, "--min-effect", 12)) {
			const char *eq = strchr(arg, '=');
			size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
			char name[32];

			if (nlen >= sizeof(name))
				goto pass;
			memcpy(name, arg, nlen);
			name[nlen] = '\0';
			if (strcmp(name, "--a") && strcmp(name, "--b") &&
			    strcmp(name, "--repeat") &&
			    strcmp(name, "--warmup") &&
			    strcmp(name, "--min-effect"))
				goto pass;
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else {
				fprintf(stderr,
					"biobench ab: %s needs a value\n",
					name);
				free(rest);
				return 2;
			}
			if (!strcmp(name, "--a") || !strcmp(name, "--b")) {
				struct ab_side *s = name[2] == 'a' ? &A : &B;

				if (s->nkv == AB_MAX_OVERRIDES) {
					fprintf(stderr,
						"biobench ab: %s: at most %d "
						"overrides\n",
						name, AB_MAX_OVERRIDES);
					free(rest);
					return 2;
				}
				s->kv[s->nkv++] = val;
				continue;
			}
			if (!strcmp(name, "--min-effect")) {
				errno = 0;
				min_effect = strtod(val, &end) / 100.0;
				if (errno || *end || min_effect <= 0 ||
				    min_effect >= 1) {
					fprintf(stderr,
						"biobench ab: --min-effect: "
						"'%s' is not a percentage in "
						"(0, 100)\n",
						val);
					free(rest);
					return 2;
				}
				continue;
			}
			{
				unsigned long v;
				unsigned lo = !strcmp(name, "--repeat") ? 2 : 0;

				errno = 0;
				v = strtoul(val, &end, 10);
				if (errno || *end || !*val || v < lo ||
				    v > AB_MAX_REPEAT) {
					fprintf(stderr,
						"biobench ab: %s: '%s' is out "
						"of range %u..%d\n",
						name, val, lo, AB_MAX_REPEAT);
					free(rest);
					return 2;
				}
				if (!strcmp(name, "--repeat"))
					repeat = (unsigned)v;
				else
					warmup = (unsigned)v;
			}
			continue;
		}
pass:
		rest[nrest++] = argv[i];
	}
	bb_config_default(&base);
	ret = bb_options_parse((int)nrest, rest, &base, err, sizeof(err));
	free(rest);
	if (ret == 1) {
		ab_usage(stdout);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "biobench ab: %s\n", err);
		return 2;
	}
	if (!A.nkv && !B.nkv) {
		fprintf(stderr, "biobench ab: give the variants with --a "
				"KEY=VAL and --b KEY=VAL (e.g. --a "
				"bio_cache=off --b bio_cache=all)\n");
		return 2;
	}
	A.cfg = base;
	B.cfg = base;
	if (apply_overrides(&A, "a", err, sizeof(err)) ||
	    apply_overrides(&B, "b", err, sizeof(err))) {
		fprintf(stderr, "biobench ab: %s\n", err);
		return 2;
	}
	if (!A.nkv)
		snprintf(A.label, sizeof(A.label), "(base)");
	if (!B.nkv)
		snprintf(B.label, sizeof(B.label), "(base)");

	printf("biobench ab: %s, %u warm-up pair(s), %u measured pairs, "
	       "order A B A B ...\n", base.target, warmup, repeat);
	for (unsigned i = 0; i < warmup + repeat; i++) {
		bool keep = i >= warmup;
		unsigned k = keep ? i - warmup : 0;
		char x[32], y[32];

		if (run_one(&A, k, keep, err, sizeof(err)) ||
		    run_one(&B, k, keep, err, sizeof(err))) {
			fprintf(stderr, "biobench ab: %s\n", err);
			return 1;
		}
		if (keep) {
			fmt_iops(x, sizeof(x), A.iops[k]);
			fmt_iops(y, sizeof(y), B.iops[k]);
			printf("  pair %u/%u: A %s IOPS, B %s IOPS\n", k + 1,
			       repeat, x, y);
		} else {
			printf("  warm-up pair %u/%u done\n", i + 1, warmup);
		}
		fflush(stdout);
	}
	print_table(&A, &B, repeat);

	bb_ab_params_init(&params);
	params.higher_is_better = true;
	params.paired = true;
	params.min_effect = min_effect;
	ret = bb_ab_compare(A.iops, repeat, B.iops, repeat, &params, &res);
	if (ret) {
		fprintf(stderr, "biobench ab: statistics: %s\n",
			strerror(-ret));
		return 1;
	}
	bb_ab_format(&res, line, sizeof(line));
	printf("\nverdict (IOPS): %s\n", line);
	return 0;
}
