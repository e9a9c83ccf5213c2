// SPDX-License-Identifier: GPL-2.0-only
/* boot.c - boot-interleaved kernel A/B: the running kernel's facts, the
 * match against a variant's "boot", the recovery decision (see boot.h). */
#include <biobench/boot.h>

#include <biobench/common.h>
#include <biobench/hostinfo.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

int bb_boot_facts_read(struct bb_boot_facts *f)
{
	struct utsname u;
	struct timespec ts;
	char up[64] = "";
	int ret = 0;

	memset(f, 0, sizeof(*f));
	if (!uname(&u))
		snprintf(f->release, sizeof(f->release), "%s", u.release);
	else
		ret = -errno;
	if (bb_read_text("/proc/cmdline", f->cmdline, sizeof(f->cmdline)) < 0)
		ret = ret ? ret : -ENOENT;
	f->cmdline[strcspn(f->cmdline, "\n")] = '\0';
	if (bb_boot_id(f->boot_id, sizeof(f->boot_id)))
		ret = ret ? ret : -ENOENT;
	if (bb_read_text("/proc/uptime", up, sizeof(up)) >= 0 &&
	    !clock_gettime(CLOCK_REALTIME, &ts)) {
		double s = strtod(up, NULL);

		if (s > 0)
			f->booted_ms = (int64_t)ts.tv_sec * 1000 +
				       ts.tv_nsec / 1000000 -
				       (int64_t)(s * 1000);
	}
	return ret;
}

const char *bb_boot_release(const struct bb_job_boot *b, char *buf,
			    size_t len)
{
	const char *base;

	if (b->release[0])
		return b->release;
	base = strrchr(b->kernel, '/');
	base = base ? base + 1 : b->kernel;
	if (!strncmp(base, "vmlinuz-", 8) && base[8]) {
		snprintf(buf, len, "%s", base + 8);
		return buf;
	}
	if (len)
		buf[0] = '\0';
	return buf;
}

/* Whether word (len n) is a blank-separated word of line. */
static bool has_word(const char *line, const char *word, size_t n)
{
	const char *p = line;

	while (*p) {
		size_t m;

		p += strspn(p, " \t\n");
		m = strcspn(p, " \t\n");
		if (m == n && !memcmp(p, word, n))
			return true;
		p += m;
	}
	return false;
}

bool bb_boot_matches(const struct bb_job_boot *b, const struct bb_boot_facts *f,
		     char *why, size_t len)
{
	char rel[BB_BOOT_RELEASE_MAX];
	const char *want = bb_boot_release(b, rel, sizeof(rel));
	const char *p = b->cmdline;

	if (len)
		why[0] = '\0';
	if (want[0] && strcmp(want, f->release)) {
		snprintf(why, len, "release %s, not %s", f->release, want);
		return false;
	}
	while (*p) {
		size_t m;

		p += strspn(p, " \t\n");
		m = strcspn(p, " \t\n");
		if (m && !has_word(f->cmdline, p, m)) {
			snprintf(why, len,
				 "command line \"%.300s\" lacks \"%.*s\"",
				 f->cmdline, (int)(m > 200 ? 200 : m), p);
			return false;
		}
		p += m;
	}
	return true;
}

enum bb_boot_decision bb_boot_recover_decide(const struct bb_boot_progress *p,
					     const struct bb_job_boot *expect,
					     const struct bb_boot_facts *now,
					     char *why, size_t len)
{
	char diff[512];

	if (len)
		why[0] = '\0';
	if (!now->boot_id[0]) {
		snprintf(why, len, "cannot read the boot id of this boot: "
			 "cannot tell that the host rebooted into %s",
			 p->variant);
		return BB_BOOT_FAIL;
	}
	if (!strcmp(now->boot_id, p->boot_id_before)) {
		snprintf(why, len, "the host did not reboot into %s (boot %u "
			 "of %u): boot id %s unchanged", p->variant,
			 p->boot + 1, p->boots, now->boot_id);
		return BB_BOOT_FAIL;
	}
	if (p->deadline_ms && now->booted_ms > p->deadline_ms) {
		snprintf(why, len, "the boot into %s (boot %u of %u) came up "
			 "%lld s after its deadline (boot_timeout)",
			 p->variant, p->boot + 1, p->boots,
			 (long long)((now->booted_ms - p->deadline_ms) / 1000));
		return BB_BOOT_FAIL;
	}
	if (!bb_boot_matches(expect, now, diff, sizeof(diff))) {
		snprintf(why, len, "boot %u of %u came up on the wrong kernel "
			 "for variant %s (%s): kernel %s, %s", p->boot + 1,
			 p->boots, p->variant, expect->kernel, now->release,
			 diff);
		return BB_BOOT_FAIL;
	}
	return BB_BOOT_CONTINUE;
}

enum bb_boot_redo bb_boot_redo_decide(const struct bb_boot_progress *p,
				      const struct bb_job_boot *expect,
				      const struct bb_boot_facts *now,
				      char *why, size_t len)
{
	char diff[512];

	if (p->redone >= BB_BOOT_REDO_MAX) {
		snprintf(why, len, "boot %u of %u (%s) was interrupted, and "
			 "the job has redone %u interrupted boot%s already: "
			 "a kernel that takes the host down under the "
			 "workload?", p->boot + 1, p->boots, p->variant,
			 p->redone, p->redone == 1 ? "" : "s");
		return BB_BOOT_REDO_FAIL;
	}
	if (bb_boot_matches(expect, now, diff, sizeof(diff))) {
		snprintf(why, len, "boot %u of %u (%s) was interrupted: redone "
			 "from its first run on this boot (%s, boot id %s)",
			 p->boot + 1, p->boots, p->variant, now->release,
			 now->boot_id[0] ? now->boot_id : "unknown");
		return BB_BOOT_REDO_HERE;
	}
	snprintf(why, len, "boot %u of %u (%s) was interrupted, and this "
		 "kernel is not %s's (%s): rebooting into it to redo the boot",
		 p->boot + 1, p->boots, p->variant, p->variant, diff);
	return BB_BOOT_REDO_REBOOT;
}

void bb_boot_progress_text(const struct bb_boot_progress *p, char *buf,
			   size_t len)
{
	snprintf(buf, len, "rebooting into %s (boot %u of %u)", p->variant,
		 p->boot + 1, p->boots);
}
