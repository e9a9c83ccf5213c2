// SPDX-License-Identifier: GPL-2.0-only
/* test_log.c - the daemon log's escaping (bb_log_escape) and bb_log's
 * records on a real stderr (a pipe): a forged record in a message stays
 * inside one escaped line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void esc_is(const char *in, const char *want)
{
	char out[256];

	bb_log_escape(out, sizeof(out), in);
	if (strcmp(out, want))
		fail_msg("escape of '%s': got '%s', want '%s'", in, out, want);
}

static void test_escape(void **state)
{
	(void)state;
	esc_is("plain text /dev/sda 4k", "plain text /dev/sda 4k");
	esc_is("a\n<0>forged", "a\\n<0>forged");
	esc_is("<3>at the start", "\\x3c3>at the start");
	esc_is("mid <3> stays", "mid <3> stays");
	esc_is("cr\rtab\tesc\x1b]0;title\x07", "cr\\rtab\\tesc\\e]0;title\\x07");
	esc_is("del\x7f nul-less \x01\x1f", "del\\x7f nul-less \\x01\\x1f");
	esc_is("back\\slash", "back\\\\slash");
	/* C1 controls: CSI as one byte (not UTF-8) and as U+009B */
	esc_is("c1 \x9b" "2J", "c1 \\x9b2J");
	esc_is("c1 \xc2\x9b" "2J", "c1 \\xc2\\x9b2J");
	esc_is("\xc2\x85next line", "\\xc2\\x85next line");
	/* UTF-8 above U+009F is kept; broken or overlong forms are not */
	esc_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe",
	       "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe");
	esc_is("\xc0\xaf", "\\xc0\\xaf");
	esc_is("cut \xe2\x82", "cut \\xe2\\x82");
	esc_is("\xed\xa0\x80", "\\xed\\xa0\\x80");
}

static void test_escape_bounds(void **state)
{
	char out[8];

	(void)state;
	/* cut on a whole escape, always terminated */
	assert_int_equal(bb_log_escape(out, sizeof(out), "abc\n\n\n"), 7);
	assert_string_equal(out, "abc\\n\\n");
	assert_int_equal(bb_log_escape(out, 1, "abc"), 0);
	assert_string_equal(out, "");
	assert_int_equal(bb_log_escape(out, sizeof(out), ""), 0);
}

/* bb_log with stderr on a pipe: one record per call. */
static void test_log_record(void **state)
{
	char buf[4096] = "", *nl;
	int p[2], saved;
	ssize_t n;

	(void)state;
	assert_int_equal(pipe(p), 0);
	saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(p[1], 2), 2);
	bb_log(LOG_INFO, "job %d (%s) started", 7, "x\n<0>forged\x1b[2J");
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "<6>job 7 (x\\n<0>forged\\e[2J) started\n");
	nl = strchr(buf, '\n');
	assert_non_null(nl);
	assert_string_equal(nl + 1, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_bounds),
		cmocka_unit_test(test_log_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
