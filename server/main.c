// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd - the ORFS server.
 *
 * Startup: read the config file and the options, open the export, then
 * (unless --foreground) fork.
 * The child builds the RDMA listener and only then tells the parent, which
 * exits 0; if the child fails, its message is already on the terminal and
 * the parent exits with the child's status (1).  The child then detaches
 * (setsid, stdio to /dev/null, logging to syslog).  No verbs resource and no
 * io_uring exists before the fork, so there are no fork-after-verbs issues.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blockcache.h"
#include "config.h"
#include "diskio.h"
#include "drc.h"
#include "export.h"
#include "filecache.h"
#include "log.h"
#include "orfs_proto.h"
#include "rdma.h"
#include "stats.h"
#include "unifier.h"

/* io_uring submission ring entries (the completion ring gets twice). */
#define ORFS_URING_ENTRIES	256

/**
 * daemon_fork() - fork; the parent waits for the child's verdict
 *
 * Return: in the child, the write end of the status pipe.  The parent never
 * returns: it exits 0 once the child writes a byte, or with the child's exit
 * status (1 if none) when the pipe closes without one.
 */
static int daemon_fork(void)
{
	sigset_t set;
	int fds[2], status;
	pid_t pid;
	char c;
	ssize_t n;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		log_err("pipe: %s", strerror(errno));
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		log_err("fork: %s", strerror(errno));
		exit(1);
	}
	if (pid == 0) {
		close(fds[0]);
		if (setsid() < 0)
			log_warn("setsid: %s", strerror(errno));
		return fds[1];
	}
	close(fds[1]);
	/* The parent may be interrupted while it waits. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	do {
		n = read(fds[0], &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n == 1)
		_exit(0);
	if (waitpid(pid, &status, 0) == pid && WIFEXITED(status))
		_exit(WEXITSTATUS(status) ? WEXITSTATUS(status) : 1);
	_exit(1);
}

/* The listener is up: detach from the terminal and release the parent. */
static void daemon_ready(int fd)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	orfs_log_use_syslog(true);
	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		if (null > STDERR_FILENO)
			close(null);
	}
	if (chdir("/") < 0)
		log_warn("chdir /: %s", strerror(errno));
	if (write(fd, "", 1) != 1)
		log_warn("cannot notify the parent process: %s", strerror(errno));
	close(fd);
}

static int write_pidfile(const char *path)
{
	FILE *f = fopen(path, "we");

	if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f)) {
		log_err("pidfile %s: %s", path, strerror(errno));
		if (f)
			unlink(path);
		return -1;
	}
	return 0;
}

/* @path made absolute against the current directory; caller frees. */
static char *abs_path(const char *path)
{
	char *cwd, *abs = NULL;

	if (path[0] == '/')
		return strdup(path);
	cwd = getcwd(NULL, 0);
	if (cwd && asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	free(cwd);
	return abs;
}

/* Log who may connect: the allow-list, or a warning that anyone may. */
static void log_allow_list(const struct orfs_acl *acl, const char *addr)
{
	char buf[1024], e[ORFS_ACL_ENTRY_STRLEN];
	size_t i, off = 0;

	if (!acl->n) {
		log_warn("no allow-list (--allow): every client that can reach %s may connect",
			 addr);
		return;
	}
	buf[0] = '\0';
	for (i = 0; i < acl->n && off < sizeof(buf); i++) {
		orfs_acl_format_entry(&acl->entries[i], e, sizeof(e));
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
					i ? ", " : "", e);
	}
	log_info("clients allowed from: %s%s", buf,
		 off >= sizeof(buf) ? " ..." : "");
}

/* Block SIGTERM/SIGINT/SIGUSR1 (read from a signalfd); ignore SIGPIPE. */
static void setup_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/**
 * disk_setup() - choose the engine for backing-file I/O (--io-engine)
 * @disk: to set up
 * @engine: the configured choice
 *
 * @export_fd: the export's directory
 *
 * auto: io_uring if the kernel lets orfsd use it, else the synchronous
 * engine, with a warning saying why.  On a memory file system (tmpfs,
 * ramfs) auto is synchronous: reading and writing it is a copy that never
 * waits for a device, and io_uring hands every such request to a worker
 * thread (these file systems cannot say they would not block), which
 * costs more than the copy.
 *
 * Return: 0, or -1 after logging a startup error (io_uring demanded but
 * not available).
 */
static int disk_setup(struct orfs_disk *disk, enum orfs_io_engine engine,
		      int export_fd)
{
	struct statfs sfs;
	int err;

	if (engine == ORFS_IO_SYNC) {
		log_info("backing-file I/O: synchronous (--io-engine sync)");
		orfs_disk_sync_init(disk);
		return 0;
	}
	if (engine == ORFS_IO_AUTO && !fstatfs(export_fd, &sfs) &&
	    (sfs.f_type == TMPFS_MAGIC || sfs.f_type == RAMFS_MAGIC)) {
		log_info("backing-file I/O: synchronous (the export is on a memory file system)");
		orfs_disk_sync_init(disk);
		return 0;
	}
	err = orfs_disk_uring_init(disk, ORFS_URING_ENTRIES);
	if (!err) {
		log_info("backing-file I/O: io_uring");
		return 0;
	}
	if (engine == ORFS_IO_URING) {
		log_err("cannot set up io_uring: %s", strerror(-err));
		return -1;
	}
	log_warn("io_uring is not available (%s): backing-file I/O is synchronous",
		 strerror(-err));
	orfs_disk_sync_init(disk);
	return 0;
}

/**
 * cache_setup() - the block cache over the arena's cache region
 * @arena: the arena (may have no cache region)
 * @block_size: --cache-block-size
 *
 * Return: the cache, or NULL if the region cannot hold one block (logged:
 * READs then go to disk every time), or on error (logged too).
 */
static struct orfs_cache *cache_setup(const struct orfs_arena *arena,
				      uint32_t block_size)
{
	struct orfs_cache_params p = {
		.base = arena->cache_base,
		.size = arena->cache_size,
		.block_size = block_size,
	};
	struct orfs_cache *c;

	if (!arena->base || arena->cache_size < block_size) {
		log_info("no block cache (the arena holds only staging buffers): READs go to disk");
		return NULL;
	}
	c = orfs_cache_create(&p);
	if (!c)
		log_err("cannot set up the block cache: %s", strerror(errno));
	return c;
}

/* Say how the identities of requests are mapped. */
static void log_squash(const struct orfs_squash *sq)
{
	if (sq->all)
		log_info("all squash: every request runs as %u:%u",
			 sq->anon_uid, sq->anon_gid);
	else if (sq->root)
		log_info("root squash: requests of uid 0 run as uid %u, of gid 0 as gid %u",
			 sq->anon_uid, sq->anon_gid);
	else
		log_info("no root squash: the clients' root is root here");
}

/*
 * The open-file cache may keep @want descriptors: raise the soft
 * RLIMIT_NOFILE to the hard one, and keep at most half of it for the cache
 * (connections, the export and disk I/O need the rest).
 */
static uint32_t open_files_limit(uint32_t want)
{
	struct rlimit rl;
	rlim_t room;

	if (!want || getrlimit(RLIMIT_NOFILE, &rl))
		return want;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	room = rl.rlim_cur == RLIM_INFINITY ? want : rl.rlim_cur / 2;
	if (want <= room)
		return want;
	log_warn("--open-files %u: the descriptor limit (RLIMIT_NOFILE %llu) leaves room for %llu; keeping that many",
		 want, (unsigned long long)rl.rlim_cur, (unsigned long long)room);
	return (uint32_t)room;
}

/* --poll's name for @mode, as the log shows it. */
static const char *poll_mode_name(enum orfs_poll_mode mode)
{
	switch (mode) {
	case ORFS_POLL_EVENT:
		return "event";
	case ORFS_POLL_BUSY:
		return "busy";
	case ORFS_POLL_ADAPTIVE:
		break;
	}
	return "adaptive";
}

/* ", window N us" for adaptive polling, else "" (in @buf, 32 bytes). */
static const char *poll_window_text(const struct orfs_config *cfg, char *buf)
{
	if (cfg->poll_mode != ORFS_POLL_ADAPTIVE)
		return "";
	snprintf(buf, 32, ", window %u us", cfg->poll_window_us);
	return buf;
}

/*
 * ORFSD_FAULT (fault.h): for tests only, so read from the environment and
 * not the command line.  An unknown value is a startup error; a known one
 * is logged, since it makes orfsd damage replies on purpose.
 */
static int fault_setup(struct orfs_fault *f, struct orfs_server_cfg *scfg)
{
	const char *spec = getenv(ORFS_FAULT_ENV);
	char kinds[256];

	if (orfs_fault_parse(spec, f)) {
		log_err("%s=%s: not a fault (%s, then optionally :COUNT, 1..%u)", ORFS_FAULT_ENV,
			spec, orfs_fault_kinds(kinds, sizeof(kinds)), ORFS_FAULT_COUNT_MAX);
		return -EINVAL;
	}
	if (f->kind == ORFS_FAULT_NONE)
		return 0;
	log_warn("%s=%s: fault injection for testing: the next %u %s replies are damaged (%s)",
		 ORFS_FAULT_ENV, spec, f->left,
		 orfs_fault_target(f->kind), orfs_fault_name(f->kind));
	scfg->fault = f;
	return 0;
}

/**
 * struct orfsd - what main() sets up, in the order it does
 * @cfg: the configuration (config file and command line)
 * @scfg: what the transport gets from it
 * @fault: ORFSD_FAULT, for tests (fault_setup())
 * @exp: the export
 * @pidfile: --pidfile made absolute (the daemon changes to "/"), or NULL
 * @drc: the duplicate-request cache, or NULL (--drc-entries 0)
 * @notify_fd: the daemon's pipe to its waiting parent, or -1
 * @stats: the statistics
 * @arena: the registered arena (zero: --cache-size 0)
 * @cache: the block cache in it, or NULL
 * @disk: the backing-file I/O engine
 * @uni: the Unifier, which serves READs through @cache
 * @files: the open-file cache
 * @srv: the listener, its connections and the event loop
 *
 * main() runs the setup steps below one after the other, and on a failure
 * unwinds what the steps before it set up, in reverse order.  One thread.
 */
struct orfsd {
	struct orfs_config	cfg;
	struct orfs_server_cfg	scfg;
	struct orfs_fault	fault;
	struct orfs_export	exp;
	char			*pidfile;
	struct orfs_drc		*drc;
	int			notify_fd;
	struct orfs_stats	stats;
	struct orfs_arena	arena;
	struct orfs_cache	*cache;
	struct orfs_disk	disk;
	struct orfs_unifier	uni;
	struct orfs_files	files;
	struct orfs_server	*srv;
};

/*
 * The parts of the transport's configuration that need no resource: fault
 * injection, the listen address, and the check that orfsd may take the
 * clients' identities.
 */
static int setup_transport(struct orfsd *d)
{
	memset(&d->scfg, 0, sizeof(d->scfg));
	if (fault_setup(&d->fault, &d->scfg))
		return -1;
	if (orfs_config_addr(&d->cfg, &d->scfg.addr, &d->scfg.addr_len,
			     d->scfg.addr_str, sizeof(d->scfg.addr_str)))
		return -1;
	return orfs_cred_probe() ? -1 : 0;
}

/* The export directory, its file handle key, read-only and squashing. */
static int setup_export(struct orfsd *d)
{
	if (orfs_export_open_key(&d->exp, d->cfg.export_path, d->cfg.fh_key_file))
		return -1;
	d->exp.read_only = d->cfg.read_only;
	d->exp.squash = d->cfg.squash;
	return 0;
}

/* --pidfile, made absolute now: the daemon changes to "/". */
static int setup_pidfile(struct orfsd *d)
{
	if (!d->cfg.pidfile)
		return 0;
	d->pidfile = abs_path(d->cfg.pidfile);
	if (!d->pidfile) {
		log_err("pidfile %s: %s", d->cfg.pidfile, strerror(errno));
		return -1;
	}
	return 0;
}

/* The duplicate-request cache, unless --drc-entries 0. */
static int setup_drc(struct orfsd *d)
{
	if (!d->cfg.drc_entries)
		return 0;
	d->drc = orfs_drc_create(d->cfg.drc_entries, d->cfg.drc_per_client);
	return d->drc ? 0 : -1;
}

/* What every connection gets: the export, its limits, who may connect. */
static void setup_access(struct orfsd *d)
{
	d->scfg.exp = &d->exp;
	d->scfg.inline_max = d->cfg.inline_max;
	d->scfg.credits = d->cfg.credits;
	d->scfg.drc = d->drc;
	d->scfg.acl = &d->cfg.acl;
	d->scfg.secret = d->cfg.secret.len ? &d->cfg.secret : NULL;
	d->scfg.limits = (struct orfs_limits){
		.max_conns = d->cfg.max_conns,
		.max_addr_conns = d->cfg.max_addr_conns,
		.insecure = d->cfg.insecure,
		.handshake_ms = d->cfg.handshake_secs * 1000U,
		.stall_ms = d->cfg.stall_secs * 1000U,
	};
}

/* The registered arena, unless --cache-size 0. */
static int setup_arena(struct orfsd *d)
{
	if (!d->cfg.cache_size) {
		log_info("--cache-size 0: no arena, so inline I/O only and no block cache");
		return 0;
	}
	if (orfs_arena_init(&d->arena, (size_t)d->cfg.cache_size,
			    d->cfg.grant_size, d->cfg.grants, d->cfg.staging_size))
		return -1;
	d->scfg.arena = &d->arena;
	d->stats.staging_buffers = d->arena.nslots;
	d->stats.staging_free = d->arena.free_slots;
	return 0;
}

/* The block cache in the arena, where it has room for one block. */
static int setup_cache(struct orfsd *d)
{
	if (!d->cfg.cache_size)
		return 0;
	d->cache = cache_setup(&d->arena, d->cfg.cache_block_size);
	if (!d->cache && d->arena.cache_size >= d->cfg.cache_block_size)
		return -1;
	return 0;
}

/* The Unifier over the cache and the disk, and the open-file cache. */
static int setup_unifier(struct orfsd *d)
{
	if (orfs_unifier_init(&d->uni, d->cache, &d->disk, &d->stats,
			      d->cfg.direct_io) ||
	    orfs_files_init(&d->files, open_files_limit(d->cfg.open_files))) {
		log_err("out of memory");
		return -1;
	}
	d->uni.files = &d->files;
	d->stats.open_files = &d->files;
	return 0;
}

/* The listener: what is left of the transport's configuration, and go. */
static int setup_server(struct orfsd *d)
{
	d->scfg.uni = &d->uni;
	d->scfg.stats = &d->stats;
	d->scfg.poll_mode = d->cfg.poll_mode;
	d->scfg.poll_window_us = d->cfg.poll_window_us;
	d->scfg.windows = d->cfg.windows;
	d->scfg.page_lists = d->cfg.page_lists;
	d->scfg.control_path = d->cfg.control_path;
	return orfs_server_create(&d->srv, &d->scfg) ? -1 : 0;
}

/* The startup log: what is served, how, and to whom. */
static void log_startup(const struct orfsd *d)
{
	const struct orfs_config *cfg = &d->cfg;
	char window[32];

	log_info("orfsd %s listening on %s, export %s%s (inline <= %u, credits <= %u, arena %llu MiB: %u staging buffers of %u KiB (at most %u per client) and a %zu MiB block cache of %u KiB blocks, duplicate-request cache %u entries, %u per client, %s polling%s)%s%s",
		 ORFSD_VERSION, d->scfg.addr_str, d->exp.path,
		 d->exp.read_only ? " read-only" : "", d->scfg.inline_max,
		 d->scfg.credits, cfg->cache_size >> 20, d->arena.nslots,
		 cfg->grant_size >> 10, cfg->cache_size ? cfg->grants : 0,
		 d->cache ? d->arena.cache_size >> 20 : 0,
		 cfg->cache_block_size >> 10,
		 cfg->drc_entries, cfg->drc_per_client,
		 poll_mode_name(cfg->poll_mode), poll_window_text(cfg, window),
		 cfg->config_used ? ", config " : "",
		 cfg->config_used ? cfg->config_used : "");
	log_allow_list(&cfg->acl, d->scfg.addr_str);
	if (d->scfg.secret)
		log_info("clients must prove the shared secret of %s", cfg->secret_file);
	else
		log_info("no shared secret (--secret-file): clients are not authenticated");
	log_info("%s; at most %u connections, %u per client address",
		 cfg->insecure ? "--insecure: clients may connect from any source port" :
		 "clients must connect from a privileged source port (below 1024)",
		 cfg->max_conns, cfg->max_addr_conns);
	log_squash(&cfg->squash);
}

int main(int argc, char **argv)
{
	struct orfsd d = { .notify_fd = -1 };
	int ret = 1;

	if (orfs_config_parse(&d.cfg, argc, argv)) {
		fprintf(stderr, "Try 'orfsd --help' for more information.\n");
		return 1;
	}
	if (d.cfg.help) {
		if (d.cfg.help_markdown)
			orfs_options_markdown(stdout);
		else
			orfs_usage(stdout);
		ret = 0;
		goto out_config;
	}
	if (d.cfg.version) {
		printf("orfsd %s (ORFS protocol %u..%u)\n", ORFSD_VERSION,
		       ORFS_PROTO_MIN_VERSION, ORFS_PROTO_VERSION);
		ret = 0;
		goto out_config;
	}
	orfs_log_set_level(d.cfg.log_level);
	setup_signals();

	if (setup_transport(&d))
		goto out_config;
	if (setup_export(&d))
		goto out_config;
	if (setup_pidfile(&d) || setup_drc(&d))
		goto out_export;
	setup_access(&d);

	/*
	 * orfsd's own writes are done (the file handle key); what follows
	 * acts for clients, whom quotas bind: no CAP_SYS_RESOURCE from here,
	 * in this thread and every one it starts (cred.c).  No verbs
	 * resource and no io_uring before this: a credential change after
	 * them would make their devices refuse this thread.
	 */
	if (orfs_cred_drop_resource())
		goto out_export;

	/* No verbs resource and no io_uring before this. */
	if (!d.cfg.foreground)
		d.notify_fd = daemon_fork();
	orfs_stats_init(&d.stats);
	if (setup_arena(&d))
		goto out_export;
	if (setup_cache(&d))
		goto out_arena;
	if (disk_setup(&d.disk, d.cfg.io_engine, d.exp.fd))
		goto out_arena;
	if (setup_unifier(&d))
		goto out_disk;
	if (setup_server(&d))
		goto out_disk;
	if (d.pidfile && write_pidfile(d.pidfile)) {
		free(d.pidfile);
		d.pidfile = NULL;
		goto out_server;
	}
	if (d.notify_fd >= 0)
		daemon_ready(d.notify_fd);
	log_startup(&d);

	ret = orfs_server_run(d.srv) ? 1 : 0;
	log_info("exiting");
out_server:
	orfs_server_destroy(d.srv);
	if (d.pidfile)
		unlink(d.pidfile);
out_disk:
	orfs_files_destroy(&d.files);
	orfs_unifier_fini(&d.uni);
	orfs_disk_fini(&d.disk);
out_arena:
	orfs_cache_destroy(d.cache);
	orfs_arena_fini(&d.arena);
out_export:
	free(d.pidfile);
	orfs_drc_destroy(d.drc);
	orfs_export_close(&d.exp);
out_config:
	orfs_config_free(&d.cfg);
	return ret;
}
