// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd command line parsing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "config.h"
#include "drc.h"
#include "orfs_proto.h"

void orfs_usage(FILE *f)
{
	fprintf(f,
"Usage: orfsd --export DIR [options]\n"
"\n"
"Serve the directory DIR over RDMA to ORFS clients (orfs.ko).\n"
"\n"
"Options:\n"
"  --export DIR            directory to export (required); must be on a\n"
"                          filesystem that supports file handles\n"
"  --listen ADDR[:PORT]    numeric address to listen on (default 0.0.0.0);\n"
"                          IPv6 as [ADDR]:PORT or a bare ADDR\n"
"  --port N                port to listen on (default %u); a port given in\n"
"                          --listen must agree with it\n"
"  -f, --foreground        stay in the foreground and log to stderr\n"
"                          (default: daemonize once listening, log to syslog)\n"
"  --inline BYTES          largest inline threshold granted to a client\n"
"                          (%u..%u, rounded down to a KiB; default %u)\n"
"  --credits N             most requests one client may have in flight\n"
"                          (1..%u, default %u)\n"
"  --drc-entries N         replies kept in the duplicate-request cache, which\n"
"                          answers retransmitted create/remove/rename/link/\n"
"                          setattr requests (0..%u, default %u, about %zu\n"
"                          bytes each; 0 disables it; lost on restart)\n"
"  --drc-per-client N      of which at most N per client (1..%u, default %u)\n"
"  --log-level LEVEL       error, warn, info or debug (default info)\n"
"  --pidfile FILE          write the server's pid to FILE (removed on exit)\n"
"  -h, --help              show this help and exit\n"
"  --version               show the version and exit\n"
"\n"
"Runs as root (file handles need CAP_DAC_READ_SEARCH).  SIGTERM or SIGINT\n"
"disconnects the clients and exits with status 0.  Startup errors exit 1.\n",
		ORFS_DEFAULT_PORT, ORFS_INLINE_MIN, ORFS_INLINE_MAX,
		ORFS_INLINE_DEFAULT, ORFS_CREDITS_MAX, ORFS_CREDITS_DEFAULT,
		ORFS_DRC_ENTRIES_MAX, ORFS_DRC_ENTRIES_DEFAULT,
		orfs_drc_entry_bytes(), ORFS_DRC_PER_CLIENT_MAX,
		ORFS_DRC_PER_CLIENT_DEFAULT);
}

/* Parse a decimal number in [lo, hi]; 0 or -EINVAL. */
static int parse_num(const char *s, unsigned long lo, unsigned long hi,
		     unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/**
 * parse_listen() - split ADDR[:PORT] into host and port
 * @cfg: gets listen_host and listen_port
 * @s: "1.2.3.4", "1.2.3.4:20050", "host:20050", "[::1]:20050", "[::1]"
 *	or a bare IPv6 address such as "::" (no port then)
 *
 * Return: 0 or -EINVAL.
 */
static int parse_listen(struct orfs_config *cfg, const char *s)
{
	const char *host = s, *port = NULL, *colon;
	size_t hlen;
	unsigned long p;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close)
			return -EINVAL;
		host = s + 1;
		hlen = (size_t)(close - host);
		if (close[1] == ':')
			port = close + 2;
		else if (close[1])
			return -EINVAL;
	} else {
		colon = strchr(s, ':');
		if (colon && !strchr(colon + 1, ':')) {
			hlen = (size_t)(colon - s);
			port = colon + 1;
		} else {
			hlen = strlen(s);	/* no colon, or bare IPv6 */
		}
	}
	if (hlen == 0 || hlen >= sizeof(cfg->listen_host))
		return -EINVAL;
	memcpy(cfg->listen_host, host, hlen);
	cfg->listen_host[hlen] = '\0';
	cfg->listen_port = 0;
	if (port) {
		if (parse_num(port, 1, 65535, &p))
			return -EINVAL;
		cfg->listen_port = (uint16_t)p;
	}
	return 0;
}

enum {
	OPT_EXPORT = 256,
	OPT_LISTEN,
	OPT_PORT,
	OPT_INLINE,
	OPT_CREDITS,
	OPT_DRC_ENTRIES,
	OPT_DRC_PER_CLIENT,
	OPT_LOG_LEVEL,
	OPT_PIDFILE,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "export",	required_argument,	NULL, OPT_EXPORT },
	{ "listen",	required_argument,	NULL, OPT_LISTEN },
	{ "port",	required_argument,	NULL, OPT_PORT },
	{ "foreground",	no_argument,		NULL, 'f' },
	{ "inline",	required_argument,	NULL, OPT_INLINE },
	{ "credits",	required_argument,	NULL, OPT_CREDITS },
	{ "drc-entries", required_argument,	NULL, OPT_DRC_ENTRIES },
	{ "drc-per-client", required_argument,	NULL, OPT_DRC_PER_CLIENT },
	{ "log-level",	required_argument,	NULL, OPT_LOG_LEVEL },
	{ "pidfile",	required_argument,	NULL, OPT_PIDFILE },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Apply one option; 0 or -EINVAL after logging why. */
static int apply_opt(struct orfs_config *cfg, int c, const char *arg)
{
	unsigned long v;

	switch (c) {
	case OPT_EXPORT:
		cfg->export_path = arg;
		return 0;
	case OPT_LISTEN:
		if (!parse_listen(cfg, arg))
			return 0;
		log_err("invalid --listen '%s' (expected ADDR[:PORT])", arg);
		return -EINVAL;
	case OPT_PORT:
		if (!parse_num(arg, 1, 65535, &v)) {
			cfg->port = (uint16_t)v;
			return 0;
		}
		log_err("invalid --port '%s' (1..65535)", arg);
		return -EINVAL;
	case 'f':
		cfg->foreground = true;
		return 0;
	case OPT_INLINE:
		if (!parse_num(arg, ORFS_INLINE_MIN, ORFS_INLINE_MAX, &v)) {
			cfg->inline_max = (uint32_t)v & ~1023U;
			return 0;
		}
		log_err("invalid --inline '%s' (%u..%u)", arg, ORFS_INLINE_MIN,
			ORFS_INLINE_MAX);
		return -EINVAL;
	case OPT_CREDITS:
		if (!parse_num(arg, 1, ORFS_CREDITS_MAX, &v)) {
			cfg->credits = (uint16_t)v;
			return 0;
		}
		log_err("invalid --credits '%s' (1..%u)", arg, ORFS_CREDITS_MAX);
		return -EINVAL;
	case OPT_DRC_ENTRIES:
		if (!parse_num(arg, 0, ORFS_DRC_ENTRIES_MAX, &v)) {
			cfg->drc_entries = (uint32_t)v;
			return 0;
		}
		log_err("invalid --drc-entries '%s' (0..%u)", arg,
			ORFS_DRC_ENTRIES_MAX);
		return -EINVAL;
	case OPT_DRC_PER_CLIENT:
		if (!parse_num(arg, 1, ORFS_DRC_PER_CLIENT_MAX, &v)) {
			cfg->drc_per_client = (uint32_t)v;
			return 0;
		}
		log_err("invalid --drc-per-client '%s' (1..%u)", arg,
			ORFS_DRC_PER_CLIENT_MAX);
		return -EINVAL;
	case OPT_LOG_LEVEL:
		if (!orfs_log_parse_level(arg, &cfg->log_level))
			return 0;
		log_err("invalid --log-level '%s' (error, warn, info, debug)", arg);
		return -EINVAL;
	case OPT_PIDFILE:
		cfg->pidfile = arg;
		return 0;
	case 'h':
		cfg->help = true;
		return 0;
	case OPT_VERSION:
		cfg->version = true;
		return 0;
	}
	return -EINVAL;
}

/**
 * orfs_config_parse() - parse the command line
 * @cfg: filled with defaults, then the options
 * @argc: argument count
 * @argv: arguments
 *
 * Logs a message for every error.  --help and --version skip the checks
 * of the other options.
 *
 * Return: 0 or -EINVAL.
 */
int orfs_config_parse(struct orfs_config *cfg, int argc, char **argv)
{
	int c;

	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->listen_host, "0.0.0.0");
	cfg->inline_max = ORFS_INLINE_DEFAULT;
	cfg->credits = ORFS_CREDITS_DEFAULT;
	cfg->drc_entries = ORFS_DRC_ENTRIES_DEFAULT;
	cfg->drc_per_client = ORFS_DRC_PER_CLIENT_DEFAULT;
	cfg->log_level = ORFS_LOG_INFO;

	optind = 0;	/* GNU: full re-initialisation, so tests can re-parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fh", long_opts, NULL)) != -1) {
		if (c == '?') {
			if (optopt)
				log_err("unrecognized option '-%c'", optopt);
			else
				log_err("unrecognized option '%s'", argv[optind - 1]);
			return -EINVAL;
		}
		if (c == ':') {
			log_err("option '%s' requires an argument", argv[optind - 1]);
			return -EINVAL;
		}
		if (apply_opt(cfg, c, optarg))
			return -EINVAL;
	}
	if (cfg->help || cfg->version)
		return 0;
	if (optind < argc) {
		log_err("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (!cfg->export_path) {
		log_err("--export DIR is required");
		return -EINVAL;
	}
	if (cfg->port && cfg->listen_port && cfg->port != cfg->listen_port) {
		log_err("--port %u disagrees with the port in --listen (%u)",
			cfg->port, cfg->listen_port);
		return -EINVAL;
	}
	return 0;
}

/**
 * orfs_config_addr() - resolve the listen address
 * @cfg: parsed configuration
 * @ss: filled with the address
 * @len: filled with its length
 * @str: filled with "host:port" (IPv6 in brackets) for messages
 * @str_len: size of @str
 *
 * Return: 0, or -EINVAL after logging why.
 */
int orfs_config_addr(const struct orfs_config *cfg,
		     struct sockaddr_storage *ss, socklen_t *len,
		     char *str, size_t str_len)
{
	struct addrinfo hints = {
		.ai_flags = AI_PASSIVE | AI_NUMERICHOST,
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res;
	uint16_t port = cfg->listen_port ? cfg->listen_port :
			cfg->port ? cfg->port : ORFS_DEFAULT_PORT;
	char host[INET6_ADDRSTRLEN];
	int err;

	err = getaddrinfo(cfg->listen_host, NULL, &hints, &res);
	if (err) {
		log_err("cannot resolve listen address '%s': %s",
			cfg->listen_host, gai_strerror(err));
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);

	if (ss->ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_port = htons(port);
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(str, str_len, "[%s]:%u", host, port);
	} else if (ss->ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_port = htons(port);
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(str, str_len, "%s:%u", host, port);
	} else {
		log_err("listen address '%s' is neither IPv4 nor IPv6",
			cfg->listen_host);
		return -EINVAL;
	}
	return 0;
}
