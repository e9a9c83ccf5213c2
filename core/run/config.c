// SPDX-License-Identifier: GPL-2.0-only
/* config.c - the default configuration and the names of the config enums. */
#include <biobench/config.h>

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

void bb_config_default(struct bb_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->target, BB_TARGET_NOP_NAME);
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
