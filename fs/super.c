// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS super block, mount options (fs_context) and module entry points.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/module.h>
#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/seq_file.h>
#include <linux/statfs.h>
#include <linux/cpumask.h>
#include <linux/backing-dev.h>
#include <linux/slab.h>
#include <crypto/algapi.h>
#include "orfs_fs.h"

/* Opt_port, Opt_inline, ...: one per ORFS_MOUNT_OPT() of mount_opts.h. */
enum orfs_param {
#define ORFS_MOUNT_OPT(n, ...)	Opt_##n,
#include "mount_opts.h"
#undef ORFS_MOUNT_OPT
};

/* regcache=: how O_DIRECT buffers are registered (net/regcache.c). */
static const struct constant_table orfs_regcache_modes[] = {
#define ORFS_REGCACHE_MODE(n, value)	{ #n, value },
#include "mount_opts.h"
#undef ORFS_REGCACHE_MODE
	{}
};

static const char *orfs_regcache_name(enum orfs_rc_mode mode)
{
	const struct constant_table *t;

	for (t = orfs_regcache_modes; t->name; t++)
		if (t->value == mode)
			return t->name;
	return "?";
}

/* The fs_parser type of each kind of ORFS_MOUNT_OPT() (mount_opts.h). */
#define ORFS_FSPARAM_U32(name, opt, modes)	fsparam_u32(name, opt)
#define ORFS_FSPARAM_FLAG(name, opt, modes)	fsparam_flag(name, opt)
#define ORFS_FSPARAM_FLAG_NO(name, opt, modes)	fsparam_flag_no(name, opt)
#define ORFS_FSPARAM_STRING(name, opt, modes)	fsparam_string(name, opt)
#define ORFS_FSPARAM_ENUM(name, opt, modes)	fsparam_enum(name, opt, modes)

static const struct fs_parameter_spec orfs_fs_parameters[] = {
#define ORFS_MOUNT_OPT(n, k, ...) \
	ORFS_FSPARAM_##k(#n, Opt_##n, orfs_##n##_modes),
#include "mount_opts.h"
#undef ORFS_MOUNT_OPT
	{}
};

/* The kinds of ORFS_MOUNT_OPT() (mount_opts.h). */
enum orfs_mo_kind {
	ORFS_MO_U32,
	ORFS_MO_FLAG_NO,
	ORFS_MO_FLAG,
	ORFS_MO_STRING,
	ORFS_MO_ENUM,
};

/**
 * struct orfs_mount_opt - what the generic handler knows of a mount option
 * @off: offset of its field in struct orfs_mount_opts
 * @size: size of that field
 * @kind: ORFS_MO_U32, ORFS_MO_FLAG_NO, ... (only those two are generic)
 * @min: ORFS_MO_U32: the smallest value
 * @max: ORFS_MO_U32: the largest value (U32_MAX: none)
 * @def: the field's default for a new mount, or ORFS_MO_NODEF
 * @unit: the unit error messages give the bounds in, or ""
 */
struct orfs_mount_opt {
	u16		off;
	u16		size;
	enum orfs_mo_kind kind;
	u32		min;
	u32		max;
	u32		def;
	const char	*unit;
};

/* Kinds whose default orfs_init_fs_context() sets itself have none here. */
#define ORFS_MO_DEF_U32(def)		(def)
#define ORFS_MO_DEF_FLAG_NO(def)	(def)
#define ORFS_MO_DEF_FLAG(def)		ORFS_MO_NODEF
#define ORFS_MO_DEF_STRING(def)		ORFS_MO_NODEF
#define ORFS_MO_DEF_ENUM(def)		ORFS_MO_NODEF

/*
 * The size of an option's field, and a build error where the generic
 * handler could not store into it: a number goes into a u32, or a u16 if
 * its maximum fits, a flag into a bool.
 */
#define ORFS_MO_FIELD(f)	sizeof_field(struct orfs_mount_opts, f)
#define ORFS_MO_SIZE_U32(f, hi)						\
	(ORFS_MO_FIELD(f) +						\
	 BUILD_BUG_ON_ZERO(ORFS_MO_FIELD(f) != sizeof(u32) &&		\
			   (ORFS_MO_FIELD(f) != sizeof(u16) || (hi) > U16_MAX)))
#define ORFS_MO_SIZE_FLAG_NO(f, hi)					\
	(ORFS_MO_FIELD(f) +						\
	 BUILD_BUG_ON_ZERO(!__same_type(((struct orfs_mount_opts *)0)->f, bool)))
#define ORFS_MO_SIZE_FLAG(f, hi)	ORFS_MO_FIELD(f)
#define ORFS_MO_SIZE_STRING(f, hi)	ORFS_MO_FIELD(f)
#define ORFS_MO_SIZE_ENUM(f, hi)	ORFS_MO_FIELD(f)

static const struct orfs_mount_opt orfs_mount_opt_table[] = {
#define ORFS_MOUNT_OPT(n, k, f, a, lo, hi, u, d, h)			\
	[Opt_##n] = {							\
		.off = offsetof(struct orfs_mount_opts, f),		\
		.size = ORFS_MO_SIZE_##k(f, hi),			\
		.kind = ORFS_MO_##k,					\
		.min = lo,						\
		.max = hi,						\
		.def = ORFS_MO_DEF_##k(d),				\
		.unit = u,						\
	},
#include "mount_opts.h"
#undef ORFS_MOUNT_OPT
};

/* mount_opts.h repeats these limits of net/ for its host program. */
static_assert(ORFS_MNT_NCONNECT_MAX == ORFS_NCONNECT_MAX);
static_assert(ORFS_MNT_NCONNECT_DEFAULT == ORFS_NCONNECT_DEFAULT);
static_assert(ORFS_MNT_RC_BATCH_MAX == ORFS_RC_BATCH_MAX);
static_assert(ORFS_MNT_RC_PAGES_DEFAULT == ORFS_RC_DEFAULT_MAX_PAGES);
static_assert(ORFS_MNT_BUSY_POLL_MAX_US == ORFS_BUSY_POLL_MAX_US);
static_assert(ORFS_RC_PAGES_MAX == U32_MAX);

/* Store @v in @d's field of @o: a u16 or a u32 (checked above). */
static void orfs_mo_store(struct orfs_mount_opts *o,
			  const struct orfs_mount_opt *d, u32 v)
{
	void *field = (char *)o + d->off;

	if (d->size == sizeof(u16))
		*(u16 *)field = v;
	else
		*(u32 *)field = v;
}

/* A new mount's options: the default of every option that has one. */
static void orfs_mo_defaults(struct orfs_mount_opts *o)
{
	const struct orfs_mount_opt *d;

	for (d = orfs_mount_opt_table;
	     d < orfs_mount_opt_table + ARRAY_SIZE(orfs_mount_opt_table); d++) {
		if (d->def == ORFS_MO_NODEF)
			continue;
		if (d->kind == ORFS_MO_FLAG_NO)
			*(bool *)((char *)o + d->off) = d->def;
		else
			orfs_mo_store(o, d, d->def);
	}
}

/**
 * orfs_mo_check() - is @key=@v within its bounds
 * @fc: the context, for error reporting
 * @d: the option
 * @key: its name, as given
 * @v: its value
 *
 * Return: 0, or -EINVAL with "key=v: must be min..max unit" (or "must be
 * at least min" for an option without a maximum) in the context's log.
 */
static int orfs_mo_check(struct fs_context *fc, const struct orfs_mount_opt *d,
			 const char *key, u32 v)
{
	if (v >= d->min && v <= d->max)
		return 0;
	if (d->max == U32_MAX)
		return invalfc(fc, "%s=%u: must be at least %u", key, v, d->min);
	return invalfc(fc, "%s=%u: must be %u..%u%s%s", key, v, d->min, d->max,
		       d->unit[0] ? " " : "", d->unit);
}

/**
 * orfs_parse_generic() - a number or a flag, by its table entry
 * @fc: the context, for error reporting
 * @opt: the option (Opt_*)
 * @key: its name, as given
 * @result: what fs_parse() made of the value
 * @o: gets the value
 *
 * Return: 0 or -EINVAL with a message in the context's log.
 */
static int orfs_parse_generic(struct fs_context *fc, int opt, const char *key,
			      const struct fs_parse_result *result,
			      struct orfs_mount_opts *o)
{
	const struct orfs_mount_opt *d = &orfs_mount_opt_table[opt];
	int ret;

	switch (d->kind) {
	case ORFS_MO_FLAG_NO:
		*(bool *)((char *)o + d->off) = !result->negated;
		return 0;
	case ORFS_MO_U32:
		ret = orfs_mo_check(fc, d, key, result->uint_32);
		if (ret)
			return ret;
		orfs_mo_store(o, d, result->uint_32);
		return 0;
	default:
		/* The other kinds have handlers of their own. */
		WARN_ON_ONCE(1);
		return -EINVAL;
	}
}

static void orfs_free_opts(struct orfs_mount_opts *o)
{
	kfree(o->host);
	kfree(o->path);
	kfree_sensitive(o->secret);
	o->host = NULL;
	o->path = NULL;
	o->secret = NULL;
	o->secret_len = 0;
}

/**
 * orfs_parse_secret() - secret=<hex>: the shared secret
 * @fc: the context, for error reporting
 * @param: the parameter; its string is wiped once decoded
 * @o: gets the secret
 *
 * Neither the value nor any part of it is ever logged.
 *
 * Return: 0, -EINVAL with a message, -ENOMEM.
 */
static int orfs_parse_secret(struct fs_context *fc, struct fs_parameter *param,
			     struct orfs_mount_opts *o)
{
	u8 *secret;
	u32 len;
	int ret;

	ret = orfs_auth_parse_secret(param->string, &secret, &len);
	memzero_explicit(param->string, strlen(param->string));
	if (ret == -EINVAL)
		return invalfc(fc, "secret: must be %u to %u bytes written as hex digits",
			       ORFS_SECRET_MIN, ORFS_SECRET_MAX);
	if (ret)
		return ret;
	kfree_sensitive(o->secret);
	o->secret = secret;
	o->secret_len = len;
	return 0;
}

/**
 * orfs_parse_busy_poll() - parse busy_poll=auto|N
 * @fc: the context, for error reporting
 * @val: the value
 * @out: gets ORFS_BUSY_POLL_AUTO or N microseconds
 *
 * Return: 0 or -EINVAL with a message in the context's log.
 */
static int orfs_parse_busy_poll(struct fs_context *fc, const char *val, u32 *out)
{
	u32 us;

	if (!strcmp(val, "auto")) {
		*out = ORFS_BUSY_POLL_AUTO;
		return 0;
	}
	if (kstrtou32(val, 10, &us) || us > ORFS_BUSY_POLL_MAX_US)
		return invalfc(fc, "busy_poll=%s: must be auto or 0..%u microseconds",
			       val, ORFS_BUSY_POLL_MAX_US);
	*out = us;
	return 0;
}

/**
 * orfs_parse_source() - split "host:/path" and parse the host address
 * @fc: the context, for error reporting
 * @src: the source string
 * @o: filled with host, path and address (port set later)
 *
 * The kernel does not resolve names: the host is an IPv4 literal or an
 * IPv6 literal in brackets.  mount.orfs resolves host names.
 *
 * Return: 0 or -EINVAL with a message in the context's log.
 */
static int orfs_parse_source(struct fs_context *fc, const char *src,
			     struct orfs_mount_opts *o)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&o->addr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&o->addr;
	const char *colon, *host = src;
	size_t hlen;

	if (src[0] == '[') {
		const char *rb = strchr(src, ']');

		if (!rb || rb[1] != ':')
			return invalfc(fc, "source \"%s\": expected [ipv6]:/path", src);
		host = src + 1;
		hlen = rb - host;
		colon = rb + 1;
	} else {
		colon = strchr(src, ':');
		if (!colon)
			return invalfc(fc, "source \"%s\": expected host:/path", src);
		hlen = colon - src;
	}
	if (colon[1] != '/')
		return invalfc(fc, "source \"%s\": the path must start with '/'", src);
	if (strlen(colon + 1) > ORFS_PATH_MAX)
		return invalfc(fc, "source \"%s\": path longer than %u bytes", src,
			       ORFS_PATH_MAX);

	memset(&o->addr, 0, sizeof(o->addr));
	if (in4_pton(host, hlen, (u8 *)&sin->sin_addr, -1, NULL) && hlen) {
		sin->sin_family = AF_INET;
	} else if (in6_pton(host, hlen, (u8 *)&sin6->sin6_addr, -1, NULL) && hlen) {
		sin6->sin6_family = AF_INET6;
	} else {
		return invalfc(fc, "source \"%s\": \"%.*s\" is not an IP address (use mount.orfs to resolve host names)",
			       src, (int)hlen, host);
	}

	o->host = kstrndup(host, hlen, GFP_KERNEL);
	o->path = kstrdup(colon + 1, GFP_KERNEL);
	if (!o->host || !o->path)
		return -ENOMEM;
	return 0;
}

/**
 * orfs_parse_param() - one mount option (fs_context_operations.parse_param)
 * @fc: the context; fc->fs_private gets the value
 * @param: the option
 *
 * The source, and the ORFS_MOUNT_OPT()s of mount_opts.h: numbers
 * and flags by their table entry (orfs_parse_generic()), the others here.
 *
 * Context: process (mount(2), fsconfig(2)).
 * Return: 0 or a negative errno, with a message in the context's log.
 */
static int orfs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct orfs_mount_opts *o = fc->fs_private;
	const struct orfs_mount_opt *d;
	struct fs_parse_result result;
	int opt, ret;

	if (!strcmp(param->key, "source")) {
		if (param->type != fs_value_is_string)
			return invalfc(fc, "bad source");
		if (fc->purpose == FS_CONTEXT_FOR_RECONFIGURE)
			return 0;	/* the server cannot change on remount */
		if (fc->source)
			return invalfc(fc, "multiple sources");
		orfs_free_opts(o);
		if (orfs_parse_source(fc, param->string, o))
			return -EINVAL;
		fc->source = param->string;
		param->string = NULL;
		return 0;
	}

	opt = fs_parse(fc, orfs_fs_parameters, param, &result);
	if (opt < 0)
		return opt;

	switch (opt) {
	case Opt_actimeo:
		ret = orfs_mo_check(fc, &orfs_mount_opt_table[opt], param->key,
				    result.uint_32);
		if (ret)
			return ret;
		o->acregmin = result.uint_32;
		o->acregmax = result.uint_32;
		o->acdirmin = result.uint_32;
		o->acdirmax = result.uint_32;
		break;
	case Opt_rsize:
	case Opt_wsize:
		d = &orfs_mount_opt_table[opt];
		if (result.uint_32 < d->min || result.uint_32 > d->max ||
		    result.uint_32 % PAGE_SIZE)
			return invalfc(fc, "%s=%u: must be a multiple of %lu in %u..%u",
				       param->key, result.uint_32, PAGE_SIZE,
				       d->min, d->max);
		orfs_mo_store(o, d, result.uint_32);
		break;
	case Opt_busy_poll:
		return orfs_parse_busy_poll(fc, param->string, &o->busy_poll);
	case Opt_soft:
		o->soft = true;
		break;
	case Opt_hard:
		o->soft = false;
		break;
	case Opt_regcache:
		o->rc_mode = result.uint_32;
		break;
	case Opt_secret:
		return orfs_parse_secret(fc, param, o);
	case Opt_addr:
		/*
		 * Shown in /proc/mounts, so mount(8) hands it back on remount.
		 * The address always comes from the source.
		 */
		break;
	default:
		return orfs_parse_generic(fc, opt, param->key, &result, o);
	}
	return 0;
}

static int orfs_statfs(struct dentry *dentry, struct kstatfs *buf)
{
	struct orfs_sb_info *sbi = ORFS_SB(dentry->d_sb);
	struct orfs_fh_req req = { .fh = ORFS_I(d_inode(dentry))->fh };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_STATFS, .body = &req, .body_len = sizeof(req),
	};
	const struct orfs_statfs_rep *sr;
	struct orfs_reply rep;
	int ret;

	ret = orfs_call(sbi->clnt, &msg, &rep);
	if (ret)
		return ret;
	sr = rep.body;
	buf->f_type = ORFS_SUPER_MAGIC;
	buf->f_bsize = le32_to_cpu(sr->bsize);
	buf->f_frsize = le32_to_cpu(sr->frsize);
	buf->f_blocks = le64_to_cpu(sr->blocks);
	buf->f_bfree = le64_to_cpu(sr->bfree);
	buf->f_bavail = le64_to_cpu(sr->bavail);
	buf->f_files = le64_to_cpu(sr->files);
	buf->f_ffree = le64_to_cpu(sr->ffree);
	buf->f_namelen = min_t(u32, le32_to_cpu(sr->namelen), ORFS_NAME_MAX);
	orfs_reply_put(&rep);
	return 0;
}

static int orfs_show_options(struct seq_file *m, struct dentry *root)
{
	struct orfs_mount_opts *o = &ORFS_SB(root->d_sb)->opts;

	seq_printf(m, ",addr=%s,port=%u,inline=%u,credits=%u,nconnect=%u,rsize=%u,wsize=%u",
		   o->host, o->port, o->inline_size, o->credits, o->nconnect,
		   o->rsize, o->wsize);
	seq_printf(m, ",%s,timeo=%u,retrans=%u,keepalive=%u",
		   o->soft ? "soft" : "hard", o->timeo, o->retrans, o->keepalive);
	if (o->busy_poll == ORFS_BUSY_POLL_AUTO)
		seq_puts(m, ",busy_poll=auto");
	else
		seq_printf(m, ",busy_poll=%u", o->busy_poll);
	seq_printf(m, ",%s", o->cto ? "cto" : "nocto");
	seq_printf(m, ",acregmin=%u,acregmax=%u,acdirmin=%u,acdirmax=%u",
		   o->acregmin, o->acregmax, o->acdirmin, o->acdirmax);
	seq_printf(m, ",regcache=%s,regcache_entries=%u,regcache_pages=%u,regcache_batch=%u",
		   orfs_regcache_name(o->rc_mode), o->rc_entries, o->rc_pages,
		   o->rc_batch);
	seq_puts(m, o->writebehind ? ",writebehind" : ",nowritebehind");
	seq_puts(m, o->openread ? ",openread" : ",noopenread");
	seq_puts(m, o->rdirplus ? ",rdirplus" : ",nordirplus");
	seq_printf(m, ",statahead=%u", o->statahead);
	seq_puts(m, o->bareread ? ",bareread" : ",nobareread");
	if (!o->resvport)
		seq_puts(m, ",noresvport");
	if (o->trusted_fabric)
		seq_puts(m, ",trusted_fabric");
	return 0;
}

static void orfs_evict_inode(struct inode *inode)
{
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	orfs_wb_cred_drop(inode);
}

/* umount -f: stop waiting for a server that may never answer. */
static void orfs_umount_begin(struct super_block *sb)
{
	struct orfs_sb_info *sbi = ORFS_SB(sb);

	pr_warn("forced unmount: failing outstanding requests\n");
	orfs_clnt_abort(sbi->clnt);
}

static const struct super_operations orfs_super_ops = {
	.alloc_inode	= orfs_alloc_inode,
	.free_inode	= orfs_free_inode,
	.evict_inode	= orfs_evict_inode,
	.statfs		= orfs_statfs,
	.show_options	= orfs_show_options,
	.umount_begin	= orfs_umount_begin,
};

/* Sends MOUNT for the export sub-path; fills the root handle and attributes. */
static int orfs_mount_export(struct orfs_sb_info *sbi, struct orfs_attr *attr)
{
	u32 plen = strlen(sbi->opts.path);
	struct orfs_mount_req req = { .path_len = cpu_to_le32(plen) };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_MOUNT, .body = &req, .body_len = sizeof(req),
		.tail = sbi->opts.path, .tail_len = plen,
	};
	const struct orfs_mount_rep *mr;
	struct orfs_reply rep;
	int ret;

	ret = orfs_call(sbi->clnt, &msg, &rep);
	if (ret)
		return ret;
	mr = rep.body;
	if (orfs_fh_check(&mr->root) || !S_ISDIR(le32_to_cpu(mr->attr.mode))) {
		pr_err("MOUNT reply is malformed\n");
		ret = -EIO;
	} else {
		sbi->root_fh = mr->root;
		*attr = mr->attr;
	}
	orfs_reply_put(&rep);
	return ret;
}

static void orfs_set_port(struct orfs_mount_opts *o)
{
	if (o->addr.ss_family == AF_INET)
		((struct sockaddr_in *)&o->addr)->sin_port = htons(o->port);
	else
		((struct sockaddr_in6 *)&o->addr)->sin6_port = htons(o->port);
}

/* The readahead window follows rsize. */
static void orfs_apply_iosize(struct super_block *sb)
{
	struct orfs_mount_opts *o = &ORFS_SB(sb)->opts;

	sb->s_bdi->ra_pages = o->rsize >> PAGE_SHIFT;
	sb->s_bdi->io_pages = o->rsize >> PAGE_SHIFT;
}

static int orfs_check_ac(struct fs_context *fc, const struct orfs_mount_opts *o)
{
	if (o->acregmin > o->acregmax)
		return invalfc(fc, "acregmin=%u is above acregmax=%u", o->acregmin, o->acregmax);
	if (o->acdirmin > o->acdirmax)
		return invalfc(fc, "acdirmin=%u is above acdirmax=%u", o->acdirmin, o->acdirmax);
	return 0;
}

static int orfs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct orfs_sb_info *sbi = sb->s_fs_info;
	struct orfs_conn_opts copts = {};
	struct orfs_attr attr;
	struct inode *root;
	int ret;

	sb->s_magic = ORFS_SUPER_MAGIC;
	sb->s_op = &orfs_super_ops;
	sb->s_d_op = &orfs_dentry_operations;
	sb->s_xattr = orfs_xattr_handlers;
	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_time_gran = 1;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;

	/*
	 * A BDI of our own: without it write-back never runs (the no-op BDI
	 * cannot write back) and dirty throttling has nothing to act on.
	 * Named after the mount's device number, as /sys/fs/orfs/ is, so
	 * that an admin finds /sys/class/bdi/orfs-<major>:<minor>/ (the
	 * readahead window, read_ahead_kb, is tuned there).
	 */
	ret = super_setup_bdi_name(sb, "orfs-%u:%u", MAJOR(sb->s_dev), MINOR(sb->s_dev));
	if (ret)
		return ret;
	orfs_apply_iosize(sb);

	orfs_set_port(&sbi->opts);
	copts.dst = sbi->opts.addr;
	copts.inline_size = sbi->opts.inline_size;
	copts.credits = sbi->opts.credits;
	copts.timeo = msecs_to_jiffies(sbi->opts.timeo * 100);
	copts.connect_timeo = ORFS_DEF_CONNECT_MS;
	copts.stats = &sbi->stats;
	copts.nconnect = sbi->opts.nconnect;
	copts.retrans = sbi->opts.retrans;
	copts.soft = sbi->opts.soft;
	copts.keepalive = sbi->opts.keepalive;
	copts.busy_poll = sbi->opts.busy_poll;
	copts.bare_read = sbi->opts.bareread;
	copts.resvport = sbi->opts.resvport;
	copts.trusted_fabric = sbi->opts.trusted_fabric;
	if (copts.trusted_fabric)
		pr_warn("%s: trusted_fabric: the server may read and write all of this host's memory\n",
			fc->source);
	copts.io_size = min_t(u32, max(sbi->opts.rsize, sbi->opts.wsize), ORFS_IO_MAX);
	copts.rc_mode = sbi->opts.rc_mode;
	copts.rc_entries = sbi->opts.rc_entries;
	copts.rc_pages = sbi->opts.rc_pages;
	copts.rc_batch = sbi->opts.rc_batch;
	copts.secret = sbi->opts.secret;
	copts.secret_len = sbi->opts.secret_len;
	ret = orfs_stats_init(&sbi->stats);
	if (ret)
		return ret;
	ret = orfs_io_wq_alloc(sb);
	if (ret)
		return ret;
	ret = orfs_clnt_create(&copts, &sbi->clnt);
	if (ret) {
		errorfc(fc, "cannot connect to %s port %u: error %d", sbi->opts.host,
			sbi->opts.port, ret);
		return ret;
	}

	ret = orfs_mount_export(sbi, &attr);
	if (ret) {
		errorfc(fc, "server refused to mount %s: error %d", sbi->opts.path, ret);
		return ret;
	}
	root = orfs_iget(sb, &sbi->root_fh, &attr);
	if (IS_ERR(root))
		return PTR_ERR(root);
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	return orfs_sysfs_register(sb);
}

static int orfs_get_tree(struct fs_context *fc)
{
	struct orfs_mount_opts *o = fc->fs_private;
	struct orfs_sb_info *sbi;

	if (!o->host)
		return invalfc(fc, "no source given; use host:/path");
	if (orfs_check_ac(fc, o))
		return -EINVAL;

	sbi = kzalloc(sizeof(*sbi), GFP_KERNEL);
	if (!sbi)
		return -ENOMEM;
	/* The super block owns the options from here on. */
	sbi->opts = *o;
	o->host = NULL;
	o->path = NULL;
	o->secret = NULL;
	o->secret_len = 0;
	fc->s_fs_info = sbi;
	return get_tree_nodev(fc, orfs_fill_super);
}

static void orfs_free_sbi(struct orfs_sb_info *sbi)
{
	if (!sbi)
		return;
	orfs_sysfs_unregister(sbi);
	/* Its last workers may still be using the client. */
	if (sbi->io_wq)
		destroy_workqueue(sbi->io_wq);
	if (sbi->clnt)
		orfs_clnt_destroy(sbi->clnt);
	orfs_stats_destroy(&sbi->stats);
	orfs_free_opts(&sbi->opts);
	kfree(sbi);
}

static void orfs_free_fc(struct fs_context *fc)
{
	struct orfs_mount_opts *o = fc->fs_private;

	if (o) {
		orfs_free_opts(o);
		kfree(o);
	}
	/* Set only if get_tree failed before a super block took it over. */
	orfs_free_sbi(fc->s_fs_info);
}

/**
 * orfs_reconfigure() - mount -o remount
 * @fc: the context, pre-filled with the options in effect
 *
 * Caching, timeouts and I/O sizes can change on a live mount; what shapes
 * the connections (port, inline, credits, nconnect, keepalive, the
 * server, the shared secret, resvport, trusted_fabric) cannot, and asking to change
 * it fails with EINVAL.  secret= may be given again only with the same value.
 *
 * Context: process; syncs the file system first.
 */
static int orfs_reconfigure(struct fs_context *fc)
{
	struct super_block *sb = fc->root->d_sb;
	struct orfs_sb_info *sbi = ORFS_SB(sb);
	struct orfs_mount_opts *n = fc->fs_private, *o = &sbi->opts;

	if (n->port != o->port || n->inline_size != o->inline_size ||
	    n->credits != o->credits || n->nconnect != o->nconnect ||
	    n->keepalive != o->keepalive || n->rc_mode != o->rc_mode ||
	    n->rc_entries != o->rc_entries || n->rc_pages != o->rc_pages ||
	    n->rc_batch != o->rc_batch || n->trusted_fabric != o->trusted_fabric ||
	    n->resvport != o->resvport)
		return invalfc(fc, "port, inline, credits, nconnect, keepalive, regcache*, resvport and trusted_fabric cannot change on remount");
	if (n->secret && (n->secret_len != o->secret_len ||
			  crypto_memneq(n->secret, o->secret, n->secret_len)))
		return invalfc(fc, "secret cannot change on remount");
	if (orfs_check_ac(fc, n))
		return -EINVAL;
	sync_filesystem(sb);
	o->timeo = n->timeo;
	o->retrans = n->retrans;
	o->soft = n->soft;
	o->acregmin = n->acregmin;
	o->acregmax = n->acregmax;
	o->acdirmin = n->acdirmin;
	o->acdirmax = n->acdirmax;
	o->cto = n->cto;
	WRITE_ONCE(o->writebehind, n->writebehind);
	WRITE_ONCE(o->openread, n->openread);
	WRITE_ONCE(o->rdirplus, n->rdirplus);
	WRITE_ONCE(o->statahead, n->statahead);
	o->rsize = n->rsize;
	o->wsize = n->wsize;
	o->busy_poll = n->busy_poll;
	o->bareread = n->bareread;
	orfs_apply_iosize(sb);
	orfs_clnt_set_timeouts(sbi->clnt, msecs_to_jiffies(o->timeo * 100), o->retrans,
			       o->soft);
	orfs_clnt_set_live_opts(sbi->clnt, o->busy_poll, o->bareread);
	return 0;
}

static const struct fs_context_operations orfs_context_ops = {
	.free		= orfs_free_fc,
	.parse_param	= orfs_parse_param,
	.get_tree	= orfs_get_tree,
	.reconfigure	= orfs_reconfigure,
};

static int orfs_init_fs_context(struct fs_context *fc)
{
	struct orfs_mount_opts *o;

	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o)
		return -ENOMEM;
	if (fc->purpose == FS_CONTEXT_FOR_RECONFIGURE) {
		/* Start from what is in effect; only given options change. */
		*o = ORFS_SB(fc->root->d_sb)->opts;
		o->host = NULL;
		o->path = NULL;
		o->secret = NULL;	/* set only if given again */
		o->secret_len = 0;
	} else {
		orfs_mo_defaults(o);	/* the numbers and flag_no flags */
		o->nconnect = min_t(unsigned int, o->nconnect, num_online_cpus());
		o->soft = false;			/* hard */
		o->busy_poll = ORFS_BUSY_POLL_AUTO;	/* busy_poll=auto */
		o->rc_mode = ORFS_RC_FMRD;		/* regcache=fmrd */
	}
	fc->fs_private = o;
	fc->ops = &orfs_context_ops;
	return 0;
}

static void orfs_kill_sb(struct super_block *sb)
{
	struct orfs_sb_info *sbi = ORFS_SB(sb);

	/* Workers of early-completed O_DIRECT READs still use the client. */
	if (sbi)
		wait_var_event(&sbi->dio_early, !atomic_read(&sbi->dio_early));
	kill_anon_super(sb);
	orfs_free_sbi(sbi);
}

static struct file_system_type orfs_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "orfs",
	.init_fs_context	= orfs_init_fs_context,
	.parameters		= orfs_fs_parameters,
	.kill_sb		= orfs_kill_sb,
};
MODULE_ALIAS_FS("orfs");

static int __init orfs_init(void)
{
	int ret;

	ret = orfs_inode_cache_init();
	if (ret)
		return ret;
	ret = orfs_net_init();
	if (ret)
		goto out_cache;
	ret = orfs_sysfs_init();
	if (ret)
		goto out_net;
	ret = register_filesystem(&orfs_fs_type);
	if (ret)
		goto out_sysfs;
	pr_info("ORFS client loaded (protocol %u)\n", ORFS_PROTO_VERSION);
	return 0;

out_sysfs:
	orfs_sysfs_exit();
out_net:
	orfs_net_exit();
out_cache:
	orfs_inode_cache_exit();
	return ret;
}

static void __exit orfs_exit(void)
{
	unregister_filesystem(&orfs_fs_type);
	orfs_sysfs_exit();
	orfs_net_exit();
	orfs_inode_cache_exit();
}

module_init(orfs_init);
module_exit(orfs_exit);

MODULE_AUTHOR("The ORFS developers");
MODULE_DESCRIPTION("ORFS: RDMA distributed file system client");
MODULE_LICENSE("GPL");
