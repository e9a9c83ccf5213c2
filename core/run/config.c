/* config.c - the default configuration and the names of the config enums. */
#include <biobench/config.h>

#include <errno.h>
#include <string.h>

static const char *const rw_names[BB_RW__COUNT] = {
	"read", "write", "randread", "randwrite", "randrw",
};
static const char *const mode_names[BB_MODE__COUNT] = {
	"irq", "poll", "sqpoll",
};
static const char *const engine_names[BB_ENGINE__COUNT] = {
	"io_uring", "uring_cmd",
};
static const char *const completion_names[BB_COMPLETION__COUNT] = {
	"inline", "thread",
};
static const char *const lat_names[BB_LAT__COUNT] = {
	"off", "io", "batch",
};
static const char *const model_names[BB_MODEL__COUNT] = {
	"bio", "none",
};
static const char *const nop_kind_names[BB_NOP__COUNT] = {
	"plain", "file",
};

void bb_config_default(struct bb_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->target, BB_TARGET_NOP_NAME);
	cfg->ntargets = 1;
	cfg->size = 0;
	cfg->offset = 0;
	cfg->direct = true;
	cfg->allow_write = false;

	cfg->rw = BB_RW_RANDREAD;
	cfg->rwmixread = 50;
	cfg->bs = 4096;
	cfg->iodepth = 128;
	cfg->runtime_ns = 5ull * 1000000000ull;
	cfg->number_ios = 0;
	cfg->ramp_ns = 0;
	cfg->threads = 1;
	cfg->ncpus = 0;
	cfg->seed = 0x5eed;
	cfg->verify = false;

	cfg->engine = BB_ENGINE_IO_URING;
	cfg->mode = BB_MODE_IRQ;
	cfg->fixedbufs = true;
	cfg->registerfiles = true;
	cfg->submit_batch = 32;
	cfg->complete_batch = 32;
	cfg->sqpoll_cpu = -1;
	cfg->completion = BB_COMPLETION_INLINE;
	cfg->completion_cpu = -1;
	cfg->lat = BB_LAT_BATCH;
	cfg->inject_ns = 0;
	cfg->nop_kind = BB_NOP_PLAIN;

	cfg->model = BB_MODEL_BIO;
	cfg->bio_cache = BB_CACHE_ALL;
	cfg->split_check = BB_SPLIT_CHECK_ITER;
	cfg->bio_layout = BB_LAYOUT_VEC_EARLY;
	bb_limits_clear(&cfg->limits); /* validated later by the engine */
	cfg->limits_set = 0;

	cfg->json = false;
	cfg->quiet = false;
}

const char *bb_rw_name(enum bb_rw v)
{
	return (unsigned)v < BB_RW__COUNT ? rw_names[v] : "?";
}

const char *bb_mode_name(enum bb_mode v)
{
	return (unsigned)v < BB_MODE__COUNT ? mode_names[v] : "?";
}

const char *bb_engine_name(enum bb_engine v)
{
	return (unsigned)v < BB_ENGINE__COUNT ? engine_names[v] : "?";
}

const char *bb_completion_name(enum bb_completion v)
{
	return (unsigned)v < BB_COMPLETION__COUNT ? completion_names[v] : "?";
}

const char *bb_lat_mode_name(enum bb_lat_mode v)
{
	return (unsigned)v < BB_LAT__COUNT ? lat_names[v] : "?";
}

const char *bb_model_name(enum bb_model v)
{
	return (unsigned)v < BB_MODEL__COUNT ? model_names[v] : "?";
}

const char *bb_nop_kind_name(enum bb_nop_kind v)
{
	return (unsigned)v < BB_NOP__COUNT ? nop_kind_names[v] : "?";
}

/* Bytes the list uses, its final empty string excluded. */
static size_t targets_len(const struct bb_config *cfg)
{
	size_t used = 0;

	for (unsigned i = 0; i < cfg->ntargets && used < sizeof(cfg->target);
	     i++)
		used += strnlen(cfg->target + used,
				sizeof(cfg->target) - used) + 1;
	return used;
}

int bb_config_set_target(struct bb_config *cfg, const char *path)
{
	size_t n = strlen(path);

	if (!n)
		return -EINVAL;
	if (n + 2 > sizeof(cfg->target))
		return -E2BIG;
	/* all of it: two configs with the same targets compare equal */
	memset(cfg->target, 0, sizeof(cfg->target));
	memcpy(cfg->target, path, n + 1);
	cfg->ntargets = 1;
	return 0;
}

int bb_config_add_target(struct bb_config *cfg, const char *path)
{
	size_t used = targets_len(cfg), n = strlen(path);

	if (!n)
		return -EINVAL;
	if (cfg->ntargets >= BB_MAX_TARGETS ||
	    used + n + 2 > sizeof(cfg->target))
		return -E2BIG;
	memcpy(cfg->target + used, path, n + 1);
	cfg->target[used + n + 1] = '\0';
	cfg->ntargets++;
	return 0;
}

const char *bb_config_next_target(const struct bb_config *cfg, const char *p)
{
	const char *end = cfg->target + sizeof(cfg->target);
	unsigned i = 0;

	for (const char *q = cfg->target; q < end && *q; i++) {
		const char *next = q + strnlen(q, (size_t)(end - q)) + 1;

		if (q == p)
			return i + 1 < cfg->ntargets && next < end && *next ?
				       next : NULL;
		q = next;
	}
	return NULL;
}

unsigned bb_spread_targets(unsigned nfiles, unsigned nthreads,
			   unsigned thread,
			   unsigned files[BB_MAX_TARGETS_PER_THREAD])
{
	unsigned per = nfiles ? nthreads / nfiles : 0, rem = 0, j = 0, n = 0;

	if (!per)
		per = 1;
	else
		rem = nthreads - per * nfiles;
	for (unsigned i = 0; i < nfiles; i++) {
		unsigned limit = per + (rem > 0 ? 1 : 0);

		for (unsigned k = 0; k < limit; k++) {
			if ((j + k) % nthreads != thread)
				continue;
			if (n < BB_MAX_TARGETS_PER_THREAD)
				files[n++] = i;
		}
		if (rem)
			rem--;
		j += limit;
	}
	return n;
}
