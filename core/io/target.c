/* target.c - opening nop, file and block-device targets safely. */
#include "io/target.h"
#include "util/mountinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *const kind_names[] = { "nop", "file", "block",
					  "nvme_char" };

const char *bb_target_kind_name(enum bb_target_kind k)
{
	return (unsigned)k < bb_array_size(kind_names) ? kind_names[k] : "?";
}

int bb_dev_names(dev_t dev, char *disk, size_t dlen, char *part, size_t plen)
{
	char link[PATH_MAX], target[PATH_MAX], p[PATH_MAX];
	ssize_t n;
	char *base, *slash;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	snprintf(part, plen, "%s", base);
	snprintf(p, sizeof(p), "%s/partition", link);
	if (access(p, F_OK) == 0) {
		/* .../block/<disk>/<part>: the disk is the parent folder */
		if (base > target)
			base[-1] = '\0';
		slash = strrchr(target, '/');
		snprintf(disk, dlen, "%s", slash ? slash + 1 : target);
	} else {
		snprintf(disk, dlen, "%s", part);
	}
	return 0;
}

bool bb_dev_can_poll(dev_t dev, char *why, size_t len)
{
	char disk[64], part[64], path[PATH_MAX], val[32];
	int ret;

	if (major(dev) == 0) {
		snprintf(why, len,
			 "the filesystem has no block device (dev %u:%u, e.g. "
			 "tmpfs or overlay), so nothing can poll",
			 major(dev), minor(dev));
		return false;
	}
	ret = bb_dev_names(dev, disk, sizeof(disk), part, sizeof(part));
	if (ret) {
		snprintf(why, len, "no sysfs entry for device %u:%u: %s",
			 major(dev), minor(dev), strerror(-ret));
		return false;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/queue/io_poll", disk);
	ret = bb_read_text(path, val, sizeof(val));
	if (ret) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(-ret));
		return false;
	}
	if (strcmp(val, "1") != 0 && !strncmp(disk, "nvme", 4))
		return bb_nvme_can_poll(disk, why, len);
	if (strcmp(val, "1") != 0) {
		snprintf(why, len,
			 "%s is %s: the device has no poll queues (for NVMe, "
			 "load the driver with poll queues: nvme.poll_queues=N "
			 "on the kernel command line or modprobe nvme "
			 "poll_queues=N)",
			 path, val);
		return false;
	}
	why[0] = '\0';
	return true;
}

/* Is dev mounted?  The mount point of its first mount in mnt. */
static bool dev_mounted(dev_t dev, char *mnt, size_t len)
{
	struct bb_mount *m = malloc(sizeof(*m));
	bool found;

	if (!m)
		return false;
	found = bb_mountinfo_find_dev(dev, m) > 0;
	if (found)
		snprintf(mnt, len, "%s", m->point);
	free(m);
	return found;
}

static int count_holders(const char *sysdir, char *first, size_t len)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(path, sizeof(path), "%s/holders", sysdir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!n)
			snprintf(first, len, "%s", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* Refuse writes to a device that is in use; the message says why. */
static int check_block_unused(const char *path, dev_t dev, char *err,
			      size_t len)
{
	char sysdir[PATH_MAX], mnt[PATH_MAX], holder[256];
	DIR *d;
	struct dirent *de;

	if (dev_mounted(dev, mnt, sizeof(mnt)))
		return bb_errf(err, len, -EBUSY,
			    "refusing to write to %s: it is mounted on %s",
			    path, mnt);
	snprintf(sysdir, sizeof(sysdir), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	if (count_holders(sysdir, holder, sizeof(holder)))
		return bb_errf(err, len, -EBUSY,
			    "refusing to write to %s: it has holders (%s uses "
			    "it; see %s/holders)",
			    path, holder, sysdir);
	/* A whole disk: check its partitions. */
	d = opendir(sysdir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char pdir[PATH_MAX], pf[PATH_MAX], devstr[32];
		unsigned ma, mi;

		if (de->d_name[0] == '.')
			continue;
		snprintf(pf, sizeof(pf), "%s/%s/partition", sysdir,
			 de->d_name);
		if (access(pf, F_OK))
			continue;
		snprintf(pdir, sizeof(pdir), "%s/%s", sysdir, de->d_name);
		snprintf(pf, sizeof(pf), "%s/dev", pdir);
		if (bb_read_text(pf, devstr, sizeof(devstr)) ||
		    sscanf(devstr, "%u:%u", &ma, &mi) != 2)
			continue;
		if (dev_mounted(makedev(ma, mi), mnt, sizeof(mnt))) {
			closedir(d);
			return bb_errf(err, len, -EBUSY,
				    "refusing to write to %s: its partition "
				    "%s is mounted on %s",
				    path, de->d_name, mnt);
		}
		if (count_holders(pdir, holder, sizeof(holder))) {
			closedir(d);
			return bb_errf(err, len, -EBUSY,
				    "refusing to write to %s: its partition "
				    "%s is in use by %s",
				    path, de->d_name, holder);
		}
	}
	closedir(d);
	return 0;
}

/* Apply the user's synthetic limits on top of lim, then validate. */
static int apply_limits(struct bb_queue_limits *lim,
			const struct bb_config *cfg, bool from_device,
			char *err, size_t len)
{
	const struct bb_queue_limits *u = &cfg->limits;
	unsigned set = cfg->limits_set;
	const char *why = NULL;

	if (!from_device) {
		/* a synthetic device has no hardware limit below the user's
		 * max_sectors_kb; without one it is large, like a fast NVMe
		 * (2 MiB) */
		bb_limits_clear(lim);
		lim->max_hw_sectors = set & BB_LIM_MAX_SECTORS_KB ?
			bb_max(u->max_user_sectors, 8u) : 2048 * 2;
	}
	/* validate derives max_sectors from it, as a sysfs write does */
	if (set & BB_LIM_MAX_SECTORS_KB)
		lim->max_user_sectors = u->max_user_sectors;
	if (set & BB_LIM_MAX_SEGMENTS)
		lim->max_segments = u->max_segments;
	if (set & BB_LIM_MAX_SEGMENT_SIZE)
		lim->max_segment_size = u->max_segment_size;
	if (set & BB_LIM_SEG_BOUNDARY)
		lim->seg_boundary_mask = u->seg_boundary_mask;
	if (set & BB_LIM_VIRT_BOUNDARY)
		lim->virt_boundary_mask = u->virt_boundary_mask;
	if (set & BB_LIM_CHUNK_SECTORS)
		lim->chunk_sectors = u->chunk_sectors;
	if (set & BB_LIM_LBS) {
		lim->logical_block_size = u->logical_block_size;
		if (lim->physical_block_size < lim->logical_block_size)
			lim->physical_block_size = lim->logical_block_size;
	}
	if (bb_limits_validate(lim, &why))
		return bb_errf(err, len, -EINVAL, "queue limits: %s",
			    why ? why : "invalid");
	return 0;
}

static int layout_file(int fd, uint64_t from, uint64_t to, char *err,
		       size_t len, const char *path)
{
	const size_t chunk = 1u << 20;
	char *buf;
	uint64_t off;
	int ret = 0;

	if (posix_memalign((void **)&buf, BB_PAGE_SIZE, chunk))
		return bb_errf(err, len, -ENOMEM, "out of memory");
	for (size_t i = 0; i < chunk; i += 8)
		*(uint64_t *)(buf + i) = 0x6262656e63680000ull ^ i;
	for (off = from & ~(uint64_t)(BB_PAGE_SIZE - 1); off < to;) {
		size_t n = (size_t)bb_min((uint64_t)chunk, to - off);
		ssize_t w = pwrite(fd, buf, n, (off_t)off);

		if (w < 0) {
			ret = bb_errf(err, len, -errno,
				   "%s: cannot lay out the file: %s", path,
				   strerror(errno));
			break;
		}
		off += (uint64_t)w;
	}
	free(buf);
	return ret;
}

/* The block device of an NVMe namespace, from sysfs (/sys/block/X/dev). */
static int nvme_blk_dev(const char *blk, dev_t *dev)
{
	char path[PATH_MAX], val[32];
	unsigned ma, mi;
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", blk);
	ret = bb_read_text(path, val, sizeof(val));
	if (ret)
		return ret;
	if (sscanf(val, "%u:%u", &ma, &mi) != 2)
		return -EINVAL;
	*dev = makedev(ma, mi);
	return 0;
}

/* --engine uring_cmd: the namespace's generic char device.  Fills the
 * target up to the region checks, which the caller shares. */
static int open_nvme_char(struct bb_target *t, const struct bb_config *cfg,
			  uint64_t *devsize, char *err, size_t errlen)
{
	bool writes = bb_rw_writes(cfg->rw);
	struct bb_nvme_ns ns;
	struct stat st;
	int ret;

	if (stat(cfg->target, &st))
		return bb_errf(err, errlen, -errno, "%s: %s", cfg->target,
			    strerror(errno));
	if (!S_ISCHR(st.st_mode)) {
		if (S_ISBLK(st.st_mode) &&
		    bb_nvme_ns_resolve(cfg->target, -1, &ns) == 0 && ns.chr[0])
			return bb_errf(err, errlen, -EINVAL,
				    "--engine uring_cmd: %s is a block device; "
				    "passthrough goes through the namespace's "
				    "generic char device /dev/%s",
				    cfg->target, ns.chr);
		return bb_errf(err, errlen, -EINVAL,
			    "--engine uring_cmd: %s is not a char device: give "
			    "an NVMe generic char device /dev/ngXnY (or use "
			    "--engine io_uring)",
			    cfg->target);
	}
	ret = bb_nvme_ns_resolve(cfg->target, -1, &ns);
	if (ret || strncmp(ns.chr, "ng", 2))
		return bb_errf(err, errlen, -EINVAL,
			    "--engine uring_cmd: %s is not an NVMe generic char "
			    "device (/dev/ngXnY with a /sys/class/nvme-generic "
			    "entry)",
			    cfg->target);
	t->kind = BB_TARGET_NVME_CHAR;
	ret = nvme_blk_dev(ns.blk, &t->dev);
	if (ret)
		return bb_errf(err, errlen, ret,
			    "%s: cannot find the block device %s of the "
			    "namespace in sysfs: %s",
			    cfg->target, ns.blk, strerror(-ret));
	snprintf(t->disk, sizeof(t->disk), "%s", ns.blk);
	snprintf(t->part, sizeof(t->part), "%s", ns.blk);
	if (cfg->mode == BB_MODE_POLL &&
	    !bb_dev_can_poll(t->dev, t->poll_why, sizeof(t->poll_why)))
		return bb_errf(err, errlen, -EOPNOTSUPP,
			    "--mode poll: %s cannot poll: %s", cfg->target,
			    t->poll_why);
	if (writes) {
		char blkpath[80];

		if (!cfg->allow_write)
			return bb_errf(err, errlen, -EPERM,
				    "refusing to write to NVMe namespace %s "
				    "without --allow-write (its data will be "
				    "overwritten)",
				    cfg->target);
		snprintf(blkpath, sizeof(blkpath), "%s (/dev/%s)", cfg->target,
			 ns.blk);
		ret = check_block_unused(blkpath, t->dev, err, errlen);
		if (ret)
			return ret;
	}
	t->fd = open(cfg->target, (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (t->fd < 0)
		return bb_errf(err, errlen, -errno, "%s: %s", cfg->target,
			    strerror(errno));
	ret = bb_nvme_ns_resolve(cfg->target, t->fd, &t->nvme);
	if (ret)
		return bb_errf(err, errlen, ret, "%s: cannot identify the "
			    "namespace: %s", cfg->target, strerror(-ret));
	t->is_nvme = true;
	if (t->nvme.lba_size < 512 || (t->nvme.lba_size & (t->nvme.lba_size - 1)))
		return bb_errf(err, errlen, -EINVAL, "%s: unusable LBA size %u",
			    cfg->target, t->nvme.lba_size);
	t->lba_shift = (unsigned)__builtin_ctz(t->nvme.lba_size);
	*devsize = t->nvme.lba_count << t->lba_shift;
	ret = bb_limits_read_sysfs_dev("/sys", major(t->dev), minor(t->dev),
				       &t->lim);
	if (ret)
		return bb_errf(err, errlen, ret,
			    "%s: cannot read the queue limits of %s from "
			    "sysfs: %s",
			    cfg->target, ns.blk, strerror(-ret));
	/* passthrough is bounded by the controller (MDTS -> max_hw_sectors),
	 * not by the block layer's max_sectors_kb */
	t->lim.max_user_sectors = t->lim.max_hw_sectors;
	ret = apply_limits(&t->lim, cfg, true, err, errlen);
	if (ret)
		return ret;
	if (t->lim.logical_block_size != t->nvme.lba_size)
		return bb_errf(err, errlen, -EINVAL,
			    "%s: the LBA size %u differs from the logical "
			    "block size %u of %s",
			    cfg->target, t->nvme.lba_size,
			    t->lim.logical_block_size, ns.blk);
	return 0;
}

int bb_target_open(struct bb_target *t, const struct bb_config *cfg,
		   char *err, size_t errlen)
{
	bool writes = bb_rw_writes(cfg->rw);
	bool direct = cfg->direct || cfg->mode == BB_MODE_POLL;
	struct stat st;
	uint64_t devsize = 0;
	bool have_st;
	int flags, ret;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	snprintf(t->path, sizeof(t->path), "%s", cfg->target);

	if (strcmp(cfg->target, "nop") == 0) {
		t->kind = BB_TARGET_NOP;
		if (cfg->mode == BB_MODE_POLL)
			return bb_errf(err, errlen, -EOPNOTSUPP,
				    "--mode poll: the nop target has no device "
				    "to poll; use --mode irq or --mode sqpoll");
		if (cfg->verify)
			return bb_errf(err, errlen, -EINVAL,
				    "--verify needs a file or block device "
				    "target (nop moves no data)");
		t->region_off = 0;
		t->region_len = cfg->size ? cfg->size : (1ull << 30);
		t->region_len -= t->region_len % cfg->bs;
		return apply_limits(&t->lim, cfg, false, err, errlen);
	}

	if (cfg->engine == BB_ENGINE_URING_CMD) {
		ret = open_nvme_char(t, cfg, &devsize, err, errlen);
		if (ret) {
			bb_target_close(t);
			return ret;
		}
		goto region;
	}

	/* polled mode: refuse before opening or creating anything */
	if (cfg->mode == BB_MODE_POLL) {
		struct stat ps;
		char dir[PATH_MAX], *slash;
		dev_t pdev;

		if (stat(cfg->target, &ps) == 0) {
			if (S_ISCHR(ps.st_mode))
				return bb_errf(err, errlen, -EINVAL,
					    "%s is a char device: for an NVMe "
					    "generic char device (/dev/ngXnY) "
					    "use --engine uring_cmd",
					    cfg->target);
			pdev = S_ISBLK(ps.st_mode) ? ps.st_rdev : ps.st_dev;
		} else {
			snprintf(dir, sizeof(dir), "%s", cfg->target);
			slash = strrchr(dir, '/');
			if (slash)
				*(slash == dir ? slash + 1 : slash) = '\0';
			else
				snprintf(dir, sizeof(dir), ".");
			if (stat(dir, &ps))
				return bb_errf(err, errlen, -errno, "%s: %s", dir,
					    strerror(errno));
			pdev = ps.st_dev;
		}
		if (!bb_dev_can_poll(pdev, t->poll_why, sizeof(t->poll_why)))
			return bb_errf(err, errlen, -EOPNOTSUPP,
				    "--mode poll: %s cannot poll: %s",
				    cfg->target, t->poll_why);
	}

	have_st = stat(cfg->target, &st) == 0;
	if (have_st && S_ISBLK(st.st_mode)) {
		t->kind = BB_TARGET_BLOCK;
		t->dev = st.st_rdev;
		bb_dev_names(t->dev, t->disk, sizeof(t->disk), t->part,
			     sizeof(t->part));
		if (writes) {
			if (!cfg->allow_write)
				return bb_errf(err, errlen, -EPERM,
					    "refusing to write to block device "
					    "%s without --allow-write (its data "
					    "will be overwritten)",
					    cfg->target);
			ret = check_block_unused(cfg->target, t->dev, err,
						 errlen);
			if (ret)
				return ret;
		}
		flags = (writes ? O_RDWR | O_EXCL : O_RDONLY) |
			(direct ? O_DIRECT : 0);
		t->fd = open(cfg->target, flags | O_CLOEXEC);
		/* a ring of a run that just ended may still hold the device
		 * for a moment (io_uring tears rings down asynchronously) */
		for (int i = 0; t->fd < 0 && errno == EBUSY && writes && i < 50;
		     i++) {
			usleep(20000);
			t->fd = open(cfg->target, flags | O_CLOEXEC);
		}
		if (t->fd < 0) {
			ret = -errno;
			if (writes && ret == -EBUSY)
				return bb_errf(err, errlen, ret,
					    "refusing to write to %s: it cannot "
					    "be opened exclusively (O_EXCL: in "
					    "use by another program or the "
					    "kernel)",
					    cfg->target);
			return bb_errf(err, errlen, ret, "%s: %s", cfg->target,
				    strerror(-ret));
		}
		if (ioctl(t->fd, BLKGETSIZE64, &devsize)) {
			ret = -errno;
			bb_target_close(t);
			return bb_errf(err, errlen, ret, "%s: BLKGETSIZE64: %s",
				    cfg->target, strerror(-ret));
		}
		ret = bb_limits_read_sysfs(cfg->target, &t->lim);
		if (ret) {
			bb_target_close(t);
			return bb_errf(err, errlen, ret,
				    "%s: cannot read queue limits from sysfs: "
				    "%s",
				    cfg->target, strerror(-ret));
		}
		ret = apply_limits(&t->lim, cfg, true, err, errlen);
		if (ret) {
			bb_target_close(t);
			return ret;
		}
	} else if (have_st && S_ISCHR(st.st_mode)) {
		return bb_errf(err, errlen, -EINVAL,
			    "%s is a char device: for an NVMe generic char "
			    "device (/dev/ngXnY) use --engine uring_cmd; "
			    "--engine io_uring takes nop, a file or a block "
			    "device",
			    cfg->target);
	} else {
		bool create = cfg->size != 0;

		t->kind = BB_TARGET_FILE;
		flags = (writes || create ? O_RDWR : O_RDONLY) |
			(create ? O_CREAT : 0) | (direct ? O_DIRECT : 0);
		t->fd = open(cfg->target, flags | O_CLOEXEC, 0644);
		if (t->fd < 0) {
			ret = -errno;
			if (ret == -ENOENT)
				return bb_errf(err, errlen, ret,
					    "%s: no such file (give --size to "
					    "create it, or use nop or a block "
					    "device)",
					    cfg->target);
			if (ret == -EINVAL && direct)
				return bb_errf(err, errlen, ret,
					    "%s: the filesystem does not "
					    "support O_DIRECT (use --direct 0)",
					    cfg->target);
			return bb_errf(err, errlen, ret, "%s: %s", cfg->target,
				    strerror(-ret));
		}
		if (fstat(t->fd, &st) || !S_ISREG(st.st_mode)) {
			bb_target_close(t);
			return bb_errf(err, errlen, -EINVAL,
				    "%s: not a regular file or block device",
				    cfg->target);
		}
		t->dev = st.st_dev;
		if (major(t->dev))
			bb_dev_names(t->dev, t->disk, sizeof(t->disk),
				     t->part, sizeof(t->part));
		devsize = (uint64_t)st.st_size;
		if (create && devsize < cfg->offset + cfg->size) {
			ret = layout_file(t->fd, devsize,
					  cfg->offset + cfg->size, err, errlen,
					  cfg->target);
			if (ret) {
				bb_target_close(t);
				return ret;
			}
			devsize = cfg->offset + cfg->size;
		}
		ret = apply_limits(&t->lim, cfg, false, err, errlen);
		if (ret) {
			bb_target_close(t);
			return ret;
		}
	}

region:
	if (cfg->offset >= devsize) {
		bb_target_close(t);
		return bb_errf(err, errlen, -EINVAL,
			    "--offset %llu is beyond the end of %s (%llu bytes)",
			    (unsigned long long)cfg->offset, cfg->target,
			    (unsigned long long)devsize);
	}
	t->region_off = cfg->offset;
	t->region_len = devsize - cfg->offset;
	if (cfg->size && cfg->size < t->region_len)
		t->region_len = cfg->size;
	t->region_len -= t->region_len % cfg->bs;
	if (t->region_len < cfg->bs) {
		bb_target_close(t);
		return bb_errf(err, errlen, -EINVAL,
			    "%s: the region (%llu bytes from offset %llu) is "
			    "smaller than one block of --bs %u",
			    cfg->target,
			    (unsigned long long)(devsize - cfg->offset),
			    (unsigned long long)cfg->offset, cfg->bs);
	}
	if ((cfg->offset % t->lim.logical_block_size) ||
	    (cfg->bs % t->lim.logical_block_size)) {
		bb_target_close(t);
		return bb_errf(err, errlen, -EINVAL,
			    "--bs %u and --offset %llu must be multiples of "
			    "the logical block size %u of %s",
			    cfg->bs, (unsigned long long)cfg->offset,
			    t->lim.logical_block_size, cfg->target);
	}

	if (t->kind == BB_TARGET_BLOCK && !strncmp(t->disk, "nvme", 4))
		t->is_nvme = bb_nvme_ns_resolve(t->disk, -1, &t->nvme) == 0;
	t->can_poll = bb_dev_can_poll(t->dev, t->poll_why,
				      sizeof(t->poll_why));
	if (cfg->mode == BB_MODE_POLL && !t->can_poll) {
		bb_target_close(t);
		return bb_errf(err, errlen, -EOPNOTSUPP,
			    "--mode poll: %s cannot poll: %s", cfg->target,
			    t->poll_why);
	}
	return 0;
}

void bb_target_close(struct bb_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
