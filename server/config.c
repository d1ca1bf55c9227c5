// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd configuration: the config file, then the command line, and the
 * rules between the two.  What each option is and how its value is parsed
 * is the table of options.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "config.h"
#include "options.h"
#include "orfs_proto.h"

const char *orfs_config_default_file = ORFS_CONFIG_DEFAULT;

/* ---- the config file ---- */

/* Largest config file read; anything bigger is surely not one. */
#define CONFIG_FILE_MAX	(1 << 20)

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* Cut a comment: '#' at the start of the line or after a blank. */
static void strip_comment(char *s)
{
	char *p;

	for (p = s; *p; p++) {
		if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			return;
		}
	}
}

/**
 * file_line() - apply one line of the config file
 * @cfg: the configuration
 * @ps: origins
 * @file: the file's name, for messages
 * @lineno: the line's number, for messages
 * @line: the line, NUL-terminated, modified in place (values stay pointed
 *	to by @cfg, so the buffer must live as long as @cfg)
 *
 * Return: 0 or a negative errno after logging "FILE:LINE: problem".
 */
static int file_line(struct orfs_config *cfg, struct parse_state *ps,
		     const char *file, unsigned int lineno, char *line)
{
	char msg[256];
	const struct opt_ctx ctx = {
		.cfg = cfg, .ps = ps, .src = SRC_FILE, .dash = "",
		.msg = msg, .msg_len = sizeof(msg),
	};
	const struct orfs_opt *o;
	char *key, *val, *eq;
	int err;

	strip_comment(line);
	key = trim(line);
	if (!*key)
		return 0;
	eq = strchr(key, '=');
	if (!eq) {
		log_err("%s:%u: expected 'key = value', got '%s'", file, lineno,
			key);
		return -EINVAL;
	}
	*eq = '\0';
	val = trim(eq + 1);
	key = trim(key);
	if (!*key) {
		log_err("%s:%u: missing key before '='", file, lineno);
		return -EINVAL;
	}
	o = orfs_opt_find(key);
	if (!o) {
		log_err("%s:%u: unknown key '%s'", file, lineno, key);
		return -EINVAL;
	}
	if (o->flags & OPTF_CMDLINE) {
		log_err("%s:%u: '%s' is a command line option only", file,
			lineno, key);
		return -EINVAL;
	}
	if (!*val) {
		log_err("%s:%u: missing value for '%s'", file, lineno, key);
		return -EINVAL;
	}
	err = orfs_opt_apply(&ctx, o, val);
	if (err)
		log_err("%s:%u: %s", file, lineno, msg);
	return err;
}

/* Read all of @path into a NUL-terminated buffer; NULL after logging why. */
static char *read_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		log_err("config file %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(CONFIG_FILE_MAX + 1);
	if (!buf) {
		log_err("config file %s: out of memory", path);
		goto out;
	}
	len = fread(buf, 1, CONFIG_FILE_MAX + 1, f);
	if (ferror(f)) {
		log_err("config file %s: %s", path, strerror(errno ? errno : EIO));
		goto fail;
	}
	if (len > CONFIG_FILE_MAX) {
		log_err("config file %s: larger than %d bytes", path,
			CONFIG_FILE_MAX);
		goto fail;
	}
	if (memchr(buf, '\0', len)) {
		log_err("config file %s: contains a NUL byte", path);
		goto fail;
	}
	buf[len] = '\0';
	goto out;
fail:
	free(buf);
	buf = NULL;
out:
	fclose(f);
	return buf;
}

/* Apply every line of @path; the text stays in cfg->file_text. */
static int load_file(struct orfs_config *cfg, struct parse_state *ps,
		     const char *path)
{
	unsigned int lineno = 0;
	char *line, *nl;

	cfg->file_text = read_file(path);
	if (!cfg->file_text)
		return -EINVAL;
	cfg->config_used = path;
	for (line = cfg->file_text; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		lineno++;
		if (file_line(cfg, ps, path, lineno, line))
			return -EINVAL;
	}
	return 0;
}

/* ---- the command line ---- */

/* One command line option, as getopt returned it. */
struct cmd_opt {
	const struct orfs_opt	*o;
	const char		*arg;
};

/*
 * Pass 1: collect the options without applying them (the file comes
 * first), applying only the command line's own: --config, --help and
 * --version.
 */
static int collect_opts(struct orfs_config *cfg, int argc, char **argv,
			struct cmd_opt *cmd, int *ncmd)
{
	const struct option *lo;
	const char *shorts;
	struct parse_state ps = { 0 };
	char msg[256];
	const struct opt_ctx ctx = {
		.cfg = cfg, .ps = &ps, .src = SRC_CMDLINE, .dash = "--",
		.msg = msg, .msg_len = sizeof(msg),
	};
	const struct orfs_opt *o;
	int c;

	orfs_opt_getopt(&lo, &shorts);
	*ncmd = 0;
	optind = 0;	/* GNU: full re-initialisation, so tests can re-parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if (c == '?') {
			/* (a long option's val where it took no value: its name) */
			if (optopt > 0 && optopt < 256)
				log_err("unrecognized option '-%c'", optopt);
			else
				log_err("unrecognized option '%s'", argv[optind - 1]);
			return -EINVAL;
		}
		if (c == ':') {
			log_err("option '%s' requires an argument", argv[optind - 1]);
			return -EINVAL;
		}
		o = orfs_opt_by_val(c);
		if (!(o->flags & OPTF_CMDLINE)) {
			cmd[(*ncmd)++] = (struct cmd_opt){ o, optarg };
		} else if (orfs_opt_apply(&ctx, o, optarg)) {
			log_err("%s", msg);
			return -EINVAL;
		}
	}
	if (cfg->help || cfg->version)
		return 0;
	if (optind < argc) {
		log_err("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/*
 * --port and the port in --listen must agree, unless one comes from the
 * file and the other from the command line, which then wins.
 */
static int check_ports(struct orfs_config *cfg, const struct parse_state *ps)
{
	if (!cfg->port || !cfg->listen_port || cfg->port == cfg->listen_port)
		return 0;
	if (ps->port_src == SRC_FILE && ps->listen_port_src == SRC_CMDLINE) {
		cfg->port = 0;
		return 0;
	}
	if (ps->listen_port_src == SRC_FILE && ps->port_src == SRC_CMDLINE) {
		cfg->listen_port = 0;
		return 0;
	}
	log_err("%sport %u disagrees with the port in %slisten (%u)%s%s",
		ps->port_src == SRC_FILE ? "" : "--", cfg->port,
		ps->port_src == SRC_FILE ? "" : "--", cfg->listen_port,
		ps->port_src == SRC_FILE ? " in " : "",
		ps->port_src == SRC_FILE ? cfg->config_used : "");
	return -EINVAL;
}

/* Read the explicit --config file, or the default one if it exists. */
static int load_config(struct orfs_config *cfg, struct parse_state *ps)
{
	const char *path = cfg->config_file;

	if (!path) {
		path = orfs_config_default_file;
		if (!path || access(path, F_OK))
			return 0;
	}
	if (!*path) {
		log_err("--config: empty file name");
		return -EINVAL;
	}
	return load_file(cfg, ps, path);
}

/* Every field at its default: the table's, and the listen address. */
static void set_defaults(struct orfs_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->listen_host, "0.0.0.0");
	orfs_opts_set_defaults(cfg);
}

/**
 * orfs_config_parse() - read the config file, then the command line
 * @cfg: filled with defaults, then the file's settings, then the options
 * @argc: argument count
 * @argv: arguments
 *
 * The file is --config FILE (which must exist), else
 * orfs_config_default_file if it exists.  Options given on the command
 * line override the file's; a command line --allow replaces the file's
 * allow-list.  Logs a message for every error ("FILE:LINE: problem" for
 * the file).  --help and --version skip the file and the checks.  The
 * --secret-file that wins is read last, into cfg->secret.
 *
 * Return: 0, after which orfs_config_free() must be called, or -EINVAL
 * (nothing to free).
 */
int orfs_config_parse(struct orfs_config *cfg, int argc, char **argv)
{
	struct parse_state ps = { 0 };
	char msg[256];
	const struct opt_ctx ctx = {
		.cfg = cfg, .ps = &ps, .src = SRC_CMDLINE, .dash = "--",
		.msg = msg, .msg_len = sizeof(msg),
	};
	struct cmd_opt *cmd;
	int i, ncmd, err;

	set_defaults(cfg);
	cmd = calloc((size_t)argc + 1, sizeof(*cmd));
	if (!cmd) {
		log_err("out of memory");
		return -EINVAL;
	}
	err = collect_opts(cfg, argc, argv, cmd, &ncmd);
	if (err || cfg->help || cfg->version)
		goto out;
	err = load_config(cfg, &ps);
	if (err)
		goto out;
	for (i = 0; i < ncmd; i++) {
		err = orfs_opt_apply(&ctx, cmd[i].o, cmd[i].arg);
		if (err) {
			log_err("%s", msg);
			goto out;
		}
	}
	if (!cfg->export_path) {
		log_err("--export DIR is required%s", cfg->config_used ?
			" (or 'export = DIR' in the config file)" : "");
		err = -EINVAL;
		goto out;
	}
	err = check_ports(cfg, &ps);
	if (!err && cfg->secret_file) {
		err = orfs_secret_load(cfg->secret_file, &cfg->secret, msg,
				       sizeof(msg));
		if (err)
			log_err("%s", msg);
	}
out:
	free(cmd);
	if (err) {
		orfs_config_free(cfg);
		return -EINVAL;
	}
	return 0;
}

/*
 * Free what orfs_config_parse() allocated (the file's text, the allow-list)
 * and wipe the secret.
 */
void orfs_config_free(struct orfs_config *cfg)
{
	orfs_acl_clear(&cfg->acl);
	orfs_secret_wipe(&cfg->secret);
	cfg->secret_file = NULL;
	free(cfg->file_text);
	cfg->file_text = NULL;
	cfg->export_path = NULL;
	cfg->pidfile = NULL;
	cfg->control_path = NULL;
	cfg->fh_key_file = NULL;
	cfg->config_used = NULL;
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
