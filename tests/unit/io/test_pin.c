// SPDX-License-Identifier: GPL-2.0-only
/* test_pin.c - core/io/pin.c: the one canonicaliser of target paths and
 * the pinned open every target goes through (issue 12, finding 4), on
 * real files, symlinks and a FIFO in a temporary directory.
 *
 *   - bb_target_canonical(): realpath of an existing path; directory +
 *     name for a missing file; a dangling symlink, a trailing '/', a
 *     missing directory and a name of "." or ".." refused (the two
 *     canonicalisers the daemon had disagreed on the first two);
 *   - bb_target_pin_open(): what is checked is what is opened - the path
 *     renamed away and replaced by another file after the pin, the reopen
 *     still gives the pinned inode; a symlink anywhere in a canonical path
 *     is refused (ELOOP), not followed; the last component a symlink is
 *     refused too; a FIFO is pinned without blocking (O_PATH) and seen as
 *     a FIFO;
 *   - bb_target_pin_create(): O_EXCL in the pinned directory - a symlink
 *     put at the name after the pin makes it fail (EEXIST), its target
 *     untouched; bb_target_pin_unlink_created() removes only that file;
 *   - bb_target_open(): a FIFO target refused at once naming its type,
 *     with an alarm that would fire if the open blocked.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "helpers.h"

#include "io/target.h"
#include <biobench/options.h>
#include <biobench/targetpath.h>

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>

struct fx {
	char dir[PATH_MAX];   /* realpath of the temporary directory */
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char tmpl[] = "/tmp/bb-test-pin.XXXXXX";

	assert_non_null(f);
	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, f->dir));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	run("rm -rf '%s'", f->dir);
	free(f);
	return 0;
}

static void p(char *buf, const struct fx *f, const char *rel)
{
	snprintf(buf, PATH_MAX, "%s/%s", f->dir, rel);
}

static void test_canonical(void **state)
{
	struct fx *f = *state;
	char a[PATH_MAX], b[PATH_MAX], out[PATH_MAX], why[512];

	p(a, f, "file.dat");
	put(a, "x");
	/* through a symlinked directory and ".." */
	p(b, f, "sub");
	assert_int_equal(mkdir(b, 0755), 0);
	p(b, f, "ln");
	assert_int_equal(symlink(f->dir, b), 0);
	p(b, f, "ln/sub/../file.dat");
	assert_int_equal(bb_target_canonical(b, out, sizeof(out), why,
					     sizeof(why)), 0);
	assert_string_equal(out, a);
	/* missing file: its directory resolved, plus its name */
	p(b, f, "ln/new.dat");
	assert_int_equal(bb_target_canonical(b, out, sizeof(out), why,
					     sizeof(why)), 0);
	p(a, f, "new.dat");
	assert_string_equal(out, a);
	/* refused: dangling symlink, trailing '/', missing directory, "." */
	p(a, f, "dangling.dat");
	assert_int_equal(symlink("/nonexistent/target", a), 0);
	assert_int_equal(bb_target_canonical(a, out, sizeof(out), why,
					     sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "symlink to a missing file"));
	p(a, f, "new.dat/");
	assert_int_equal(bb_target_canonical(a, out, sizeof(out), why,
					     sizeof(why)), -EISDIR);
	assert_non_null(strstr(why, "ends with '/'"));
	p(a, f, "file.dat/");
	assert_int_equal(bb_target_canonical(a, out, sizeof(out), why,
					     sizeof(why)), -EISDIR);
	p(a, f, "nodir/x.dat");
	assert_int_equal(bb_target_canonical(a, out, sizeof(out), why,
					     sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "nodir"));
	p(a, f, "sub/..");
	assert_int_equal(bb_target_canonical(a, out, sizeof(out), why,
					     sizeof(why)), 0); /* exists: f->dir */
	assert_string_equal(out, f->dir);
	p(a, f, "missing/..");
	assert_true(bb_target_canonical(a, out, sizeof(out), why,
					sizeof(why)) < 0);
	assert_int_equal(bb_target_canonical("", out, sizeof(out), why,
					     sizeof(why)), -EINVAL);
}

static void test_pin_checks_what_it_opens(void **state)
{
	struct fx *f = *state;
	struct bb_target_pin pin;
	char a[PATH_MAX], moved[PATH_MAX], err[512], buf[16] = "";
	struct stat st;
	int fd;

	p(a, f, "pinned.dat");
	put(a, "original");
	assert_int_equal(bb_target_pin_open(&pin, a, true, err, sizeof(err)),
			 0);
	assert_true(pin.fd >= 0);
	assert_true(S_ISREG(pin.st.st_mode));
	/* swapped after the check */
	p(moved, f, "moved.dat");
	assert_int_equal(rename(a, moved), 0);
	put(a, "impostor");
	fd = bb_target_pin_reopen(&pin, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 8);
	assert_string_equal(buf, "original");
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_ino, pin.st.st_ino);
	close(fd);
	bb_target_pin_close(&pin);
	assert_int_equal(pin.fd, -1);
	assert_int_equal(pin.dirfd, -1);
}

static void test_pin_refuses_symlinks(void **state)
{
	struct fx *f = *state;
	struct bb_target_pin pin;
	char a[PATH_MAX], l[PATH_MAX], err[512];

	p(a, f, "real");
	assert_int_equal(mkdir(a, 0755), 0);
	p(a, f, "real/x.dat");
	put(a, "x");
	p(l, f, "linkdir");
	assert_int_equal(symlink("real", l), 0);
	/* canonical mode: a symlink in a directory component */
	p(a, f, "linkdir/x.dat");
	assert_int_equal(bb_target_pin_open(&pin, a, true, err, sizeof(err)),
			 -ELOOP);
	assert_non_null(strstr(err, "symlink"));
	assert_int_equal(pin.fd, -1);
	assert_int_equal(pin.dirfd, -1);
	/* canonical mode: the last component a symlink */
	p(l, f, "real/link.dat");
	assert_int_equal(symlink("x.dat", l), 0);
	assert_int_equal(bb_target_pin_open(&pin, l, true, err, sizeof(err)),
			 -ELOOP);
	/* not canonical in form: refused in canonical mode */
	p(a, f, "real/../real/x.dat");
	assert_int_equal(bb_target_pin_open(&pin, a, true, err, sizeof(err)),
			 -EINVAL);
	/* without it (the CLI): canonicalized first, then pinned */
	p(a, f, "linkdir/x.dat");
	assert_int_equal(bb_target_pin_open(&pin, a, false, err, sizeof(err)),
			 0);
	p(a, f, "real/x.dat");
	assert_string_equal(pin.path, a);
	bb_target_pin_close(&pin);
}

static void test_pin_create_excl(void **state)
{
	struct fx *f = *state;
	struct bb_target_pin pin;
	char a[PATH_MAX], victim[PATH_MAX], err[512], buf[16] = "";
	struct stat st;
	int fd;

	p(a, f, "new.dat");
	assert_int_equal(bb_target_pin_open(&pin, a, true, err, sizeof(err)),
			 0);
	assert_int_equal(pin.fd, -1);
	/* a symlink put at the name after the pin: not followed */
	p(victim, f, "victim.dat");
	put(victim, "precious");
	assert_int_equal(symlink(victim, a), 0);
	assert_int_equal(bb_target_pin_create(&pin, O_RDWR, 0644), -EEXIST);
	fd = open(victim, O_RDONLY);
	assert_int_equal(read(fd, buf, sizeof(buf) - 1), 8);
	close(fd);
	assert_string_equal(buf, "precious");
	assert_int_equal(unlink(a), 0);
	/* the name free again: created, and removed by unlink_created */
	assert_int_equal(bb_target_pin_create(&pin, O_RDWR, 0644), 0);
	assert_true(pin.created);
	assert_int_equal(stat(a, &st), 0);
	bb_target_pin_unlink_created(&pin);
	assert_int_equal(stat(a, &st), -1);
	bb_target_pin_close(&pin);
	/* unlink_created leaves alone a file that replaced the created one */
	assert_int_equal(bb_target_pin_open(&pin, a, true, err, sizeof(err)),
			 0);
	assert_int_equal(bb_target_pin_create(&pin, O_RDWR, 0644), 0);
	assert_int_equal(unlink(a), 0);
	put(a, "someone else's");
	bb_target_pin_unlink_created(&pin);
	assert_int_equal(stat(a, &st), 0);
	bb_target_pin_close(&pin);
}

static void on_alarm(int sig)
{
	(void)sig;
	fail_msg("blocked on the FIFO");
}

static void test_fifo_never_blocks(void **state)
{
	struct fx *f = *state;
	struct bb_target_pin pin;
	struct bb_target t;
	struct bb_config cfg;
	char a[PATH_MAX], err[512];

	p(a, f, "fifo.dat");
	assert_int_equal(mkfifo(a, 0644), 0);
	signal(SIGALRM, on_alarm);
	alarm(5);
	assert_int_equal(bb_target_pin_open(&pin, a, true, err, sizeof(err)),
			 0);
	assert_true(S_ISFIFO(pin.st.st_mode));
	bb_target_pin_close(&pin);
	for (int w = 0; w < 2; w++) {
		bb_config_default(&cfg);
		cfg.direct = false;
		if (w) {
			cfg.rw = BB_RW_RANDWRITE;
			cfg.allow_write = true;
			cfg.size = 1 << 20;
		}
		snprintf(cfg.target, sizeof(cfg.target), "%s", a);
		assert_int_equal(bb_target_open(&t, &cfg, err, sizeof(err)),
				 -EINVAL);
		if (!strstr(err, "is a FIFO"))
			fail_msg("FIFO refusal: '%s'", err);
	}
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_canonical, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pin_checks_what_it_opens,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_pin_refuses_symlinks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_pin_create_excl, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fifo_never_blocks, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
