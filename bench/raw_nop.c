// SPDX-License-Identifier: GPL-2.0-only
/* raw_nop.c - the reference for `biobench run nop`: a minimal raw liburing
 * NOP loop in the style of fio's t/io_uring (no bio model, no stats beyond
 * a count).
 *
 *   queue depth 128, submit batch 32, complete batch 32;
 *   ring flags COOP_TASKRUN | SINGLE_ISSUER | DEFER_TASKRUN, dropping flags
 *   from the last one while the kernel answers -EINVAL; the ring fd is
 *   registered (t/io_uring -X1);
 *   loop: prepare up to a batch of NOPs, io_uring_submit_and_wait (waiting
 *   for complete_batch CQEs only when the queue is full), peek a batch of
 *   CQEs, advance the CQ.
 *
 * Runs --runtime seconds or --number-ops NOPs, then prints ops/s (one
 * "key=value" line, or JSON with --json).  Pin it with --cpu N or taskset.
 * Exit status: 0 ok, 1 error.
 */
#include <errno.h>
#include <getopt.h>
#include <liburing.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REAP_BATCH 64

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct opts {
	unsigned depth;
	unsigned submit_batch;
	unsigned complete_batch;
	double runtime_s;
	uint64_t number_ops;
	int cpu;
	bool register_ring;
	bool json;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: raw_nop [--runtime SEC] [--number-ops N] [--depth N]\n"
		"               [--submit-batch N] [--complete-batch N] [--cpu N]\n"
		"               [--no-register-ring] [--json]\n"
		"A raw liburing NOP loop (t/io_uring style); prints ops/s.\n"
		"defaults: --runtime 3 --depth 128 --submit-batch 32 "
		"--complete-batch 32\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "runtime", required_argument, NULL, 't' },
		{ "number-ops", required_argument, NULL, 'n' },
		{ "depth", required_argument, NULL, 'd' },
		{ "submit-batch", required_argument, NULL, 's' },
		{ "complete-batch", required_argument, NULL, 'c' },
		{ "cpu", required_argument, NULL, 'p' },
		{ "no-register-ring", no_argument, NULL, 'R' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	*o = (struct opts){ .depth = 128, .submit_batch = 32,
			    .complete_batch = 32, .runtime_s = 3, .cpu = -1,
			    .register_ring = true };
	while ((c = getopt_long(argc, argv, "t:n:d:s:c:p:Rjh", lo, NULL)) != -1) {
		switch (c) {
		case 't': o->runtime_s = strtod(optarg, NULL); break;
		case 'n': o->number_ops = strtoull(optarg, NULL, 0); break;
		case 'd': o->depth = (unsigned)strtoul(optarg, NULL, 0); break;
		case 's': o->submit_batch = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'c': o->complete_batch = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'p': o->cpu = atoi(optarg); break;
		case 'R': o->register_ring = false; break;
		case 'j': o->json = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return -EINVAL;
		}
	}
	if (optind != argc || !o->depth || o->depth > 32768 ||
	    !o->submit_batch || !o->complete_batch ||
	    (!o->number_ops && o->runtime_s <= 0)) {
		usage(stderr);
		return -EINVAL;
	}
	if (o->submit_batch > o->depth)
		o->submit_batch = o->depth;
	if (o->complete_batch > o->depth)
		o->complete_batch = o->depth;
	return 0;
}

/* COOP_TASKRUN | SINGLE_ISSUER | DEFER_TASKRUN; on -EINVAL drop the last
 * flag and retry (DEFER_TASKRUN needs SINGLE_ISSUER). */
static int ring_init(struct io_uring *ring, unsigned depth, unsigned *flags)
{
	static const unsigned tries[] = {
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
			IORING_SETUP_DEFER_TASKRUN,
		IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER,
		IORING_SETUP_COOP_TASKRUN,
		0,
	};
	int ret = -EINVAL;

	for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		p.flags = tries[i];
		ret = io_uring_queue_init_params(depth, ring, &p);
		if (!ret) {
			*flags = p.flags;
			return 0;
		}
		if (ret != -EINVAL)
			break;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct io_uring_cqe *cqes[REAP_BATCH];
	struct io_uring ring;
	struct opts o;
	uint64_t done = 0, submitted = 0, enters = 0, t0, t1, deadline;
	unsigned inflight = 0, flags = 0, loops = 0;
	int ret;

	if (parse(argc, argv, &o))
		return 1;
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("raw_nop: sched_setaffinity");
			return 1;
		}
	}
	ret = ring_init(&ring, o.depth, &flags);
	if (ret) {
		fprintf(stderr, "raw_nop: io_uring_queue_init: %s\n",
			strerror(-ret));
		return 1;
	}
	if (o.register_ring)
		io_uring_register_ring_fd(&ring); /* optional, like -X1 */

	t0 = now_ns();
	deadline = o.number_ops ? UINT64_MAX
				: t0 + (uint64_t)(o.runtime_s * 1e9);
	for (;;) {
		unsigned to_prep = o.depth - inflight, to_wait = 0, n;

		if (o.number_ops && submitted + to_prep > o.number_ops)
			to_prep = (unsigned)(o.number_ops - submitted);
		if (to_prep > o.submit_batch)
			to_prep = o.submit_batch;
		for (unsigned i = 0; i < to_prep; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_nop(sqe);
			sqe->user_data = submitted + i;
		}
		submitted += to_prep;
		inflight += to_prep;
		if (!inflight)
			break;
		/* queue full (or nothing left to issue): wait for a batch */
		if (inflight == o.depth || !to_prep)
			to_wait = inflight < o.complete_batch ? inflight
							      : o.complete_batch;
		ret = io_uring_submit_and_wait(&ring, to_wait);
		enters++;
		if (ret < 0 && ret != -EAGAIN && ret != -EINTR && ret != -EBUSY &&
		    ret != -ETIME) {
			fprintf(stderr, "raw_nop: io_uring_enter: %s\n",
				strerror(-ret));
			return 1;
		}
		do {
			n = io_uring_peek_batch_cqe(&ring, cqes, REAP_BATCH);
			for (unsigned i = 0; i < n; i++) {
				if (cqes[i]->res < 0) {
					fprintf(stderr, "raw_nop: NOP failed: "
						"%s\n", strerror(-cqes[i]->res));
					return 1;
				}
			}
			io_uring_cq_advance(&ring, n);
			inflight -= n;
			done += n;
		} while (n == REAP_BATCH);
		/* the clock every 16 loops (~512 NOPs): negligible */
		if (!o.number_ops && !(++loops & 15) && now_ns() >= deadline)
			o.number_ops = submitted; /* stop issuing, drain */
	}
	t1 = now_ns();
	io_uring_queue_exit(&ring);

	{
		double secs = (double)(t1 - t0) / 1e9;
		double ops = (double)done / secs;

		if (o.json)
			printf("{\"ops\":%llu,\"duration_s\":%.6f,"
			       "\"ops_per_s\":%.1f,\"enters\":%llu,"
			       "\"ring_flags\":%u,\"depth\":%u,"
			       "\"submit_batch\":%u,\"complete_batch\":%u}\n",
			       (unsigned long long)done, secs, ops,
			       (unsigned long long)enters, flags, o.depth,
			       o.submit_batch, o.complete_batch);
		else
			printf("raw_nop: ops=%llu duration_s=%.3f ops/s=%.0f "
			       "(%.1f Mops/s, %.1f ns/op) enters=%llu "
			       "ring_flags=0x%x\n",
			       (unsigned long long)done, secs, ops, ops / 1e6,
			       1e9 / ops, (unsigned long long)enters, flags);
	}
	return 0;
}
