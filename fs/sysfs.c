// SPDX-License-Identifier: GPL-2.0
/*
 * Per-mount sysfs: /sys/fs/orfs/<major>:<minor>/, named after the mount's
 * anonymous device number (the st_dev of its files, as in mountinfo).
 *
 *	server     address and port
 *	inline_size negotiated inline threshold, bytes
 *	credits    requests the server lets us keep in flight
 *	counters   "name value" lines: stalls, timeouts, bytes by mechanism...
 *	requests   "opcode count" lines: requests sent, by opcode
 *	connections one line per connection: "N up|down requests R
 *		   inflight U credits C grants G", R counting the requests
 *		   that took it since the mount
 *	ping       write N: send N NULL requests one after another; read:
 *		   "count N mean_us X median_us M min_us Y max_us Z" of the
 *		   last run
 *	stats_version the version of the statistics files' formats: 1
 *	ops/<opcode> one line per opcode: "calls C errors E retrans R
 *		   time_ns T buckets B0 ... B23", the calls that ended, how
 *		   many failed, the retransmissions, the sum of their
 *		   latencies and their log2-microsecond latency histogram
 *		   (orfs_lat_bucket()); one file each, since all of them
 *		   would not fit in a page
 */
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include "orfs_fs.h"

struct orfs_sysfs_attr {
	struct attribute attr;
	ssize_t (*show)(struct orfs_sb_info *sbi, char *buf);
	ssize_t (*store)(struct orfs_sb_info *sbi, const char *buf, size_t len);
};

#define ORFS_ATTR_RO(name) \
static struct orfs_sysfs_attr orfs_attr_##name = __ATTR_RO(name)
#define ORFS_ATTR_RW(name) \
static struct orfs_sysfs_attr orfs_attr_##name = __ATTR(name, 0600, name##_show, name##_store)

/**
 * struct orfs_op_attr - the file ops/<opcode>
 * @a: its attribute; @a.show is NULL, which tells orfs_sysfs_show() to
 *	call orfs_op_show()
 * @op: the opcode
 */
struct orfs_op_attr {
	struct orfs_sysfs_attr	a;
	u16			op;
};

/* Filled by orfs_sysfs_init(), read-only after. */
static struct orfs_op_attr orfs_op_attrs[ORFS_OP_MAX];
static struct attribute *orfs_op_attr_list[ORFS_OP_MAX + 1];

/* ops/<opcode>, the format of the comment at the top.  Context: process. */
static ssize_t orfs_op_show(struct orfs_sb_info *sbi, u16 op, char *buf)
{
	struct orfs_op_stats o;
	unsigned int b;
	int len;

	orfs_stats_sum_op_stats(&sbi->stats, op, &o);
	len = sysfs_emit(buf, "calls %llu errors %llu retrans %llu time_ns %llu buckets",
			 o.calls, o.errors, o.retrans, o.time_ns);
	for (b = 0; b < ORFS_LAT_BUCKETS; b++)
		len += sysfs_emit_at(buf, len, " %llu", o.lat[b]);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static ssize_t orfs_sysfs_show(struct kobject *kobj, struct attribute *attr,
			       char *buf)
{
	struct orfs_sb_info *sbi = container_of(kobj, struct orfs_sb_info, kobj);
	struct orfs_sysfs_attr *a = container_of(attr, struct orfs_sysfs_attr, attr);

	if (!a->show)
		return orfs_op_show(sbi, container_of(a, struct orfs_op_attr, a)->op, buf);
	return a->show(sbi, buf);
}

static ssize_t orfs_sysfs_store(struct kobject *kobj, struct attribute *attr,
				const char *buf, size_t len)
{
	struct orfs_sb_info *sbi = container_of(kobj, struct orfs_sb_info, kobj);
	struct orfs_sysfs_attr *a = container_of(attr, struct orfs_sysfs_attr, attr);

	return a->store ? a->store(sbi, buf, len) : -EPERM;
}

static ssize_t server_show(struct orfs_sb_info *sbi, char *buf)
{
	return sysfs_emit(buf, "%s:%u\n", sbi->opts.host, sbi->opts.port);
}
ORFS_ATTR_RO(server);

static ssize_t inline_size_show(struct orfs_sb_info *sbi, char *buf)
{
	return sysfs_emit(buf, "%u\n", orfs_clnt_inline_size(sbi->clnt));
}
ORFS_ATTR_RO(inline_size);

static ssize_t credits_show(struct orfs_sb_info *sbi, char *buf)
{
	return sysfs_emit(buf, "%u\n", orfs_clnt_credits(sbi->clnt));
}
ORFS_ATTR_RO(credits);

static ssize_t counters_show(struct orfs_sb_info *sbi, char *buf)
{
	int c, len = 0;

	for (c = 0; c < ORFS_CTR_NR; c++)
		len += sysfs_emit_at(buf, len, "%s %llu\n", orfs_counter_name(c),
				     orfs_stats_sum_ctr(&sbi->stats, c));
	return len;
}
ORFS_ATTR_RO(counters);

static ssize_t requests_show(struct orfs_sb_info *sbi, char *buf)
{
	int len = 0;
	u16 op;

	for (op = 0; op < ORFS_OP_MAX; op++)
		len += sysfs_emit_at(buf, len, "%s %llu\n", orfs_op_name(op),
				     orfs_stats_sum_op(&sbi->stats, op));
	return len;
}
ORFS_ATTR_RO(requests);

static ssize_t connections_show(struct orfs_sb_info *sbi, char *buf)
{
	unsigned int i, n = orfs_clnt_nconnect(sbi->clnt);
	struct orfs_conn_info ci;
	int len = 0;

	for (i = 0; i < n; i++) {
		orfs_clnt_conn_info(sbi->clnt, i, &ci);
		len += sysfs_emit_at(buf, len,
				     "%u %s requests %llu inflight %u credits %u grants %u srtt_us %u spin_us %u cpu %d\n",
				     i, ci.up ? "up" : "down", ci.requests, ci.users,
				     ci.credits, ci.grants, ci.srtt_us, ci.spin_us, ci.cpu);
	}
	return len;
}
ORFS_ATTR_RO(connections);

static ssize_t ping_show(struct orfs_sb_info *sbi, char *buf)
{
	ssize_t len;

	mutex_lock(&sbi->ping_mutex);
	len = sysfs_emit(buf, "count %u mean_us %llu.%03llu median_us %llu.%03llu min_us %llu.%03llu max_us %llu.%03llu\n",
			 sbi->ping.count,
			 sbi->ping.mean_ns / 1000, sbi->ping.mean_ns % 1000,
			 sbi->ping.median_ns / 1000, sbi->ping.median_ns % 1000,
			 sbi->ping.min_ns / 1000, sbi->ping.min_ns % 1000,
			 sbi->ping.max_ns / 1000, sbi->ping.max_ns % 1000);
	mutex_unlock(&sbi->ping_mutex);
	return len;
}

/* Context: process; sleeps for the whole measurement. */
static ssize_t ping_store(struct orfs_sb_info *sbi, const char *buf, size_t len)
{
	u32 count;
	int ret;

	ret = kstrtou32(buf, 0, &count);
	if (ret)
		return ret;
	if (count == 0 || count > 1000000)
		return -EINVAL;
	if (mutex_lock_killable(&sbi->ping_mutex))
		return -EINTR;
	ret = orfs_clnt_ping(sbi->clnt, count, &sbi->ping);
	mutex_unlock(&sbi->ping_mutex);
	return ret ? ret : len;
}
ORFS_ATTR_RW(ping);

/* Bump when a statistics file changes its format (orfsstat checks it). */
#define ORFS_STATS_VERSION	1

static ssize_t stats_version_show(struct orfs_sb_info *sbi, char *buf)
{
	return sysfs_emit(buf, "%d\n", ORFS_STATS_VERSION);
}
ORFS_ATTR_RO(stats_version);

static const struct attribute_group orfs_ops_group = {
	.name	= "ops",
	.attrs	= orfs_op_attr_list,
};

static struct attribute *orfs_sysfs_attrs[] = {
	&orfs_attr_server.attr,
	&orfs_attr_inline_size.attr,
	&orfs_attr_credits.attr,
	&orfs_attr_counters.attr,
	&orfs_attr_requests.attr,
	&orfs_attr_connections.attr,
	&orfs_attr_ping.attr,
	&orfs_attr_stats_version.attr,
	NULL,
};

static const struct attribute_group orfs_sysfs_group = {
	.attrs	= orfs_sysfs_attrs,
};

static const struct attribute_group *orfs_sysfs_groups[] = {
	&orfs_sysfs_group,
	&orfs_ops_group,
	NULL,
};

static void orfs_sysfs_release(struct kobject *kobj)
{
	struct orfs_sb_info *sbi = container_of(kobj, struct orfs_sb_info, kobj);

	complete(&sbi->kobj_released);
}

static const struct sysfs_ops orfs_sysfs_ops = {
	.show	= orfs_sysfs_show,
	.store	= orfs_sysfs_store,
};

static struct kobj_type orfs_sb_ktype = {
	.default_groups	= orfs_sysfs_groups,
	.sysfs_ops	= &orfs_sysfs_ops,
	.release	= orfs_sysfs_release,
};

static struct kobject *orfs_sysfs_root;

/**
 * orfs_sysfs_register() - create /sys/fs/orfs/<dev>/ for a mount
 * @sb: the super block; its connection is up
 *
 * Context: process.
 */
int orfs_sysfs_register(struct super_block *sb)
{
	struct orfs_sb_info *sbi = ORFS_SB(sb);
	int ret;

	init_completion(&sbi->kobj_released);
	mutex_init(&sbi->ping_mutex);
	ret = kobject_init_and_add(&sbi->kobj, &orfs_sb_ktype, orfs_sysfs_root,
				   "%u:%u", MAJOR(sb->s_dev), MINOR(sb->s_dev));
	if (ret) {
		kobject_put(&sbi->kobj);
		wait_for_completion(&sbi->kobj_released);
		return ret;
	}
	sbi->sysfs_registered = true;
	return 0;
}

/**
 * orfs_sysfs_unregister() - remove a mount's sysfs directory
 * @sbi: the mount
 *
 * Waits until no reader is inside a show method, so the connection can go.
 *
 * Context: process.
 */
void orfs_sysfs_unregister(struct orfs_sb_info *sbi)
{
	if (!sbi->sysfs_registered)
		return;
	kobject_del(&sbi->kobj);
	kobject_put(&sbi->kobj);
	wait_for_completion(&sbi->kobj_released);
	sbi->sysfs_registered = false;
}

int __init orfs_sysfs_init(void)
{
	unsigned int n = 0;
	u16 op;

	/* An opcode without a name ("?") gets no file. */
	for (op = 0; op < ORFS_OP_MAX; op++) {
		if (!strcmp(orfs_op_name(op), "?"))
			continue;
		orfs_op_attrs[n].a.attr.name = orfs_op_name(op);
		orfs_op_attrs[n].a.attr.mode = 0444;
		orfs_op_attrs[n].op = op;
		orfs_op_attr_list[n] = &orfs_op_attrs[n].a.attr;
		n++;
	}
	orfs_sysfs_root = kobject_create_and_add("orfs", fs_kobj);
	return orfs_sysfs_root ? 0 : -ENOMEM;
}

void orfs_sysfs_exit(void)
{
	kobject_put(orfs_sysfs_root);
	orfs_sysfs_root = NULL;
}
