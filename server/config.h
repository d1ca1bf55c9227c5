/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd command line.
 */
#ifndef ORFSD_CONFIG_H
#define ORFSD_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "acl.h"
#include "arena.h"
#include "auth.h"
#include "cred.h"
#include "log.h"
#include "rdma.h"

#define ORFSD_VERSION	"0.1"

/* --inline is rounded down to a multiple of this. */
#define ORFS_INLINE_GRAIN	1024U

/**
 * enum orfs_io_engine - --io-engine: how backing files are read and written
 * @ORFS_IO_AUTO: io_uring if the kernel lets orfsd use it, else synchronous
 * @ORFS_IO_URING: io_uring, or a startup error
 * @ORFS_IO_SYNC: synchronous system calls in the event loop
 */
enum orfs_io_engine {
	ORFS_IO_AUTO = 0,
	ORFS_IO_URING,
	ORFS_IO_SYNC,
};

/* Config file read when no --config is given, if it exists. */
#define ORFS_CONFIG_DEFAULT	"/etc/orfsd.conf"

/* The default config file actually used (tests point it elsewhere or NULL). */
extern const char *orfs_config_default_file;

/**
 * struct orfs_config - parsed config file and command line
 *
 * Every option except --config, --help and --version may also be a
 * "key = value" line of the config file; strings point into argv or into
 * @file_text.
 *
 * @export_path: --export DIR (required)
 * @listen_host: host part of --listen (default "0.0.0.0")
 * @listen_port: port part of --listen, 0 if none was given
 * @port: --port N (0 if not given)
 * @foreground: --foreground / -f
 * @inline_max: --inline BYTES (largest inline threshold granted)
 * @credits: --credits N (most requests in flight per client)
 * @cache_size: --cache-size BYTES (the registered arena; 0: none)
 * @grant_size: --grant-size BYTES (each staging buffer)
 * @grants: --grants N (staging buffers per connection)
 * @open_files: --open-files N (descriptors the open-file cache keeps)
 * @staging_size: --staging-size BYTES (staging part of the arena; 0: half)
 * @cache_block_size: --cache-block-size BYTES (block cache unit)
 * @poll_mode: --poll event|adaptive|busy (enum orfs_poll_mode)
 * @poll_window_us: --poll-window USEC (adaptive polling's window)
 * @io_engine: --io-engine (enum orfs_io_engine)
 * @direct_io: --direct-io: open backing files with O_DIRECT where possible
 * @windows: --memory-windows: zero-copy granted READs through memory
 *	windows where the device has them (server/window.h)
 * @page_lists: --page-lists: accept trusted-fabric clients' page lists
 *	(ORFS_CF_PAGES)
 * @control_path: --control PATH (statistics socket), or NULL
 * @drc_entries: --drc-entries N (replies kept in the duplicate-request
 *	cache, 0 disables it)
 * @drc_per_client: --drc-per-client N (replies kept per client id)
 * @log_level: --log-level
 * @pidfile: --pidfile FILE, or NULL
 * @acl: --allow ADDR[/PREFIX] entries (empty: every address may connect)
 * @read_only: --read-only: modifying requests get EROFS
 * @insecure: --insecure: accept connections from unprivileged source ports
 * @max_conns: --max-connections N (all clients together)
 * @max_addr_conns: --max-connections-per-address N
 * @handshake_secs: --handshake-timeout S
 * @stall_secs: --stall-timeout S
 * @secret_file: --secret-file FILE, or NULL
 * @secret: the secret read from @secret_file (len 0: none); wiped by
 *	orfs_config_free()
 * @squash: --root-squash / --no-root-squash, --all-squash, --anon-uid,
 *	--anon-gid (default: root squash to 65534:65534)
 * @fh_key_file: --fh-key-file FILE (the file handle key), or NULL: the
 *	export root's trusted.orfsd.fh_key attribute
 * @config_file: --config FILE, or NULL
 * @config_used: the config file read, or NULL if none
 * @file_text: its contents, split into lines (owned)
 * @help: --help was given
 * @help_markdown: --help=markdown was: the options as a Markdown table
 * @version: --version was given
 */
struct orfs_config {
	const char		*export_path;
	char			listen_host[256];
	uint16_t		listen_port;
	uint16_t		port;
	bool			foreground;
	uint32_t		inline_max;
	uint16_t		credits;
	unsigned long long	cache_size;
	uint32_t		grant_size;
	uint32_t		grants;
	uint32_t		open_files;
	unsigned long long	staging_size;
	uint32_t		cache_block_size;
	enum orfs_poll_mode	poll_mode;
	uint32_t		poll_window_us;
	enum orfs_io_engine	io_engine;
	bool			direct_io;
	bool			windows;
	bool			page_lists;
	const char		*control_path;
	uint32_t		drc_entries;
	uint32_t		drc_per_client;
	enum orfs_log_level	log_level;
	const char		*pidfile;
	struct orfs_acl		acl;
	bool			read_only;
	bool			insecure;
	uint32_t		max_conns;
	uint32_t		max_addr_conns;
	uint32_t		handshake_secs;
	uint32_t		stall_secs;
	const char		*secret_file;
	struct orfs_secret	secret;
	struct orfs_squash	squash;
	const char		*fh_key_file;
	const char		*config_file;
	const char		*config_used;
	char			*file_text;
	bool			help;
	bool			help_markdown;
	bool			version;
};

int orfs_config_parse(struct orfs_config *cfg, int argc, char **argv);
void orfs_config_free(struct orfs_config *cfg);
int orfs_config_addr(const struct orfs_config *cfg,
		     struct sockaddr_storage *ss, socklen_t *len,
		     char *str, size_t str_len);
void orfs_usage(FILE *f);
void orfs_options_markdown(FILE *f);

#endif /* ORFSD_CONFIG_H */
