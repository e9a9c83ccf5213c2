// SPDX-License-Identifier: GPL-2.0-only
/* test_quiesce.c - the quiescence gate against real foreign load: a child
 * process spinning on one CPU must make that CPU busy, named as the
 * culprit; a job whose runs are all disturbed must leave them out of its
 * statistics when asked to. */
#include <biobench/jobrun.h>
#include <biobench/jobspec.h>
#include <biobench/quiesce.h>

#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static int test_cpu(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 1 ? (int)n - 1 : 0;
}

/* A child that spins on cpu until killed, named "bb-spinner". */
static pid_t spinner(int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;
		volatile unsigned long x = 0;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		sched_setaffinity(0, sizeof(set), &set);
		prctl(PR_SET_NAME, "bb-spinner");
		for (;;)
			x++;
	}
	/* let it run a little before anyone samples */
	usleep(50000);
	return pid;
}

static void stop(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_busy_cpu_is_marked(void **state)
{
	struct bb_quiesce_params p;
	struct bb_quiesce_result r;
	int cpu = test_cpu();
	pid_t pid;

	(void)state;
	bb_quiesce_params_init(&p);
	p.mode = BB_QUIESCE_MARK;
	pid = spinner(cpu);
	assert_int_equal(bb_quiesce_check(&cpu, 1, &p, NULL, &r), 0);
	stop(pid);
	assert_true(r.checked);
	assert_true(r.disturbed);
	assert_int_equal(r.cpu, cpu);
	assert_true(r.busy > 0.5);
	assert_int_equal(r.samples, 1);
	assert_int_equal(r.waited_ns, 0);
	/* named: the spinner, unless something else on this CPU (a build
	 * on a shared machine) used even more of it in the sample */
	print_message("culprit: %s (busy %.0f%%)\n", r.culprit,
		      r.busy * 100);
	assert_true(r.culprit[0] != '\0');
}

static void test_wait_is_bounded(void **state)
{
	struct bb_quiesce_params p;
	struct bb_quiesce_result r;
	int cpu = test_cpu();
	uint64_t t0;
	pid_t pid;

	(void)state;
	bb_quiesce_params_init(&p);
	p.mode = BB_QUIESCE_WAIT;
	p.sample_ns = 50000000ull;
	p.max_wait_ns = 300000000ull;
	pid = spinner(cpu);
	t0 = bb_now_ns();
	assert_int_equal(bb_quiesce_check(&cpu, 1, &p, NULL, &r), 0);
	t0 = bb_now_ns() - t0;
	stop(pid);
	assert_true(r.disturbed);
	assert_true(r.samples >= 2);
	assert_true(r.waited_ns >= p.max_wait_ns);
	/* bounded: one sample past the limit at most, with slack for a
	 * loaded machine */
	assert_true(t0 < p.max_wait_ns + 10 * p.sample_ns);
}

static void test_off_does_nothing(void **state)
{
	struct bb_quiesce_params p;
	struct bb_quiesce_result r;
	uint64_t t0 = bb_now_ns();

	(void)state;
	bb_quiesce_params_init(&p);
	p.mode = BB_QUIESCE_OFF;
	assert_int_equal(bb_quiesce_check(NULL, 0, &p, NULL, &r), 0);
	assert_false(r.checked);
	assert_false(r.disturbed);
	assert_true(bb_now_ns() - t0 < p.sample_ns);
}

static void test_json(void **state)
{
	struct bb_quiesce_params p;
	struct bb_quiesce_result r = { .checked = true, .disturbed = true,
				       .busy = 0.5, .cpu = 1,
				       .samples = 3,
				       .waited_ns = 1500000000ull };
	struct json_object *o, *v;

	(void)state;
	bb_quiesce_params_init(&p);
	snprintf(r.culprit, sizeof(r.culprit), "cc1 (pid 7)");
	o = bb_quiesce_to_json(&r, &p);
	assert_true(json_object_object_get_ex(o, "disturbed", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(o, "waited_s", &v));
	assert_true(json_object_get_double(v) == 1.5);
	assert_true(json_object_object_get_ex(o, "culprit", &v));
	assert_string_equal(json_object_get_string(v), "cc1 (pid 7)");
	assert_true(json_object_object_get_ex(o, "mode", &v));
	assert_string_equal(json_object_get_string(v), "wait");
	json_object_put(o);
}

/* Every run disturbed, exclude_disturbed: every round is dropped, a
 * replacement round is planned for each (up to repeat of them), and no
 * comparison is made from disturbed data. */
static void test_job_excludes_disturbed_rounds(void **state)
{
	char doc[512];
	struct bb_job *job = calloc(1, sizeof(*job));
	struct bb_job_errors errs;
	struct bb_jobrun jr;
	char err[256];
	int cpu = test_cpu();
	pid_t pid;

	(void)state;
	snprintf(doc, sizeof(doc),
		 "{\"name\": \"q\", \"target\": \"nop\", \"workload\": "
		 "{\"number_ios\": 2000, \"iodepth\": 8, \"cpus\": [%d]}, "
		 "\"variants\": {\"A\": {}, \"B\": {}}, \"repeat\": 2, "
		 "\"warmup\": 0, \"quiescence\": {\"mode\": \"mark\", "
		 "\"exclude_disturbed\": true}}",
		 cpu);
	assert_non_null(job);
	assert_int_equal(bb_job_parse_string(job, doc, strlen(doc), &errs), 0);
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	pid = spinner(cpu);
	assert_int_equal(bb_jobrun_exec(&jr, NULL, NULL, err, sizeof(err)), 0);
	stop(pid);
	assert_int_equal(jr.rounds_excluded, 4);
	assert_int_equal(jr.runs_done, 8);
	assert_int_equal(jr.disturbed_runs, 8);
	assert_int_equal(jr.vs[0].n, 0);
	assert_int_equal(jr.vs[1].n, 0);
	assert_false(jr.have_cmp);
	bb_jobrun_free(&jr);
	bb_job_free(job);
	free(job);
}

/* A stall over max_stall marks the run disturbed with the reason; one at
 * the limit does not; a run the gate marked keeps both reasons. */
static void test_stall_marks(void **state)
{
	struct bb_quiesce_params p;
	struct bb_quiesce_result r;
	struct json_object *j;

	(void)state;
	bb_quiesce_params_init(&p);
	memset(&r, 0, sizeof(r));
	assert_false(bb_quiesce_mark_stall(&r, &p, p.max_stall_ns));
	assert_false(r.disturbed);
	assert_string_equal(r.reason, "");
	assert_true(bb_quiesce_mark_stall(&r, &p, 3000000000ull));
	assert_true(r.disturbed);
	assert_string_equal(r.reason, "stalled 3.0 s");
	j = bb_quiesce_to_json(&r, &p);
	assert_string_equal(json_object_get_string(json_object_object_get(j, "reason")),
			    "stalled 3.0 s");
	assert_true(json_object_get_double(json_object_object_get(j, "stalled_s")) == 3.0);
	json_object_put(j);

	memset(&r, 0, sizeof(r));
	r.disturbed = true;
	snprintf(r.reason, sizeof(r.reason), "CPU 1 80 %% busy");
	assert_false(bb_quiesce_mark_stall(&r, &p, 1250000000ull));
	assert_string_equal(r.reason, "CPU 1 80 % busy; stalled 1.2 s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_busy_cpu_is_marked),
		cmocka_unit_test(test_wait_is_bounded),
		cmocka_unit_test(test_off_does_nothing),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_stall_marks),
		cmocka_unit_test(test_job_excludes_disturbed_rounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
