// SPDX-License-Identifier: GPL-2.0
/*
 * mount.orfs - mount helper for ORFS, called by mount(8) as
 *
 *	mount.orfs HOST:/PATH MOUNTPOINT [-fnsv] [-o OPTIONS]
 *
 * The kernel cannot resolve host names, so this helper resolves HOST (an
 * IPv4/IPv6 literal or a name) and passes "ADDRESS:/PATH" to mount(2), as
 * mount.nfs does.  Generic options (ro, nosuid, ...) become mount flags;
 * the rest go to the file system.
 *
 * secretfile=PATH reads the shared secret from PATH (which must not be
 * accessible by group or others) and hands it to the kernel as
 * secret=<hex>, so that the secret never appears on a command line.  Its
 * value is never printed, not even with -v.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../include/orfs_proto.h"

struct flag_opt {
	const char	*name;
	unsigned long	set;
	unsigned long	clear;
};

/* Options mount(8) passes through that are mount flags, not ORFS options. */
static const struct flag_opt flag_opts[] = {
	{ "ro", MS_RDONLY, 0 },		{ "rw", 0, MS_RDONLY },
	{ "nosuid", MS_NOSUID, 0 },	{ "suid", 0, MS_NOSUID },
	{ "nodev", MS_NODEV, 0 },	{ "dev", 0, MS_NODEV },
	{ "noexec", MS_NOEXEC, 0 },	{ "exec", 0, MS_NOEXEC },
	{ "sync", MS_SYNCHRONOUS, 0 },	{ "async", 0, MS_SYNCHRONOUS },
	{ "noatime", MS_NOATIME, 0 },	{ "atime", 0, MS_NOATIME },
	{ "nodiratime", MS_NODIRATIME, 0 }, { "diratime", 0, MS_NODIRATIME },
	{ "relatime", MS_RELATIME, 0 },	{ "norelatime", 0, MS_RELATIME },
	{ "strictatime", MS_STRICTATIME, 0 },
	{ "remount", MS_REMOUNT, 0 },
	/* userspace-only options mount(8) may leave in */
	{ "defaults", 0, 0 }, { "auto", 0, 0 }, { "noauto", 0, 0 },
	{ "user", 0, 0 }, { "nouser", 0, 0 }, { "users", 0, 0 },
	{ "nofail", 0, 0 }, { "_netdev", 0, 0 },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int verbose;

static void usage(void)
{
	fprintf(stderr,
		"usage: mount.orfs HOST:/PATH MOUNTPOINT [-fnsv] [-o OPTIONS]\n"
		"  HOST is a name, an IPv4 address or [an IPv6 address].\n"
		"  See the ORFS admin guide for the options.\n");
	exit(EXIT_FAILURE);
}

/**
 * read_secret() - secretfile=PATH: the secret as a secret=<hex> option
 * @path: the file: a regular file owned by root or the caller, with no
 *	permission for group or others
 * @out: gets "secret=" and two hex digits per byte of the secret, which is
 *	the file's contents less one trailing newline (as orfsd
 *	--secret-file reads it)
 * @len: size of @out
 *
 * Return: 0, or -1 after printing why.
 */
static int read_secret(const char *path, char *out, size_t len)
{
	unsigned char buf[ORFS_SECRET_MAX + 2];
	const char *why = NULL;
	struct stat st;
	size_t n = 0, i;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, "mount.orfs: secretfile %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		why = strerror(errno);
	} else if (!S_ISREG(st.st_mode)) {
		why = "not a regular file";
	} else if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		fprintf(stderr,
			"mount.orfs: secretfile %s: group or others may access it (mode %04o); chmod 600 it\n",
			path, (unsigned int)(st.st_mode & 07777));
		close(fd);
		return -1;
	} else if (st.st_uid != 0 && st.st_uid != getuid()) {
		why = "owned by another user";
	}
	while (!why && n < sizeof(buf)) {
		r = read(fd, buf + n, sizeof(buf) - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			why = strerror(errno);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!why && n && buf[n - 1] == '\n')
		n--;
	if (!why && (n < ORFS_SECRET_MIN || n > ORFS_SECRET_MAX))
		why = n ? "a secret is 16 to 256 bytes" : "empty";
	if (!why && strlen("secret=") + 2 * n + 1 > len)
		why = "too long";
	if (why) {
		fprintf(stderr, "mount.orfs: secretfile %s: %s\n", path, why);
		explicit_bzero(buf, sizeof(buf));
		return -1;
	}
	strcpy(out, "secret=");
	for (i = 0; i < n; i++)
		sprintf(out + strlen("secret=") + 2 * i, "%02x", buf[i]);
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

/* Splits OPTIONS into mount flags and the data string for the kernel. */
static int split_options(const char *opts, unsigned long *flags, char *data, size_t len)
{
	char *copy = strdup(opts ? opts : ""), *tok, *save = NULL;
	char secret[sizeof("secret=") + 2 * ORFS_SECRET_MAX];
	int nsecret = 0, ret = 0;
	size_t used = 0;
	size_t i;

	if (!copy)
		return -ENOMEM;
	data[0] = '\0';
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strncmp(tok, "secret=", 7) || !strncmp(tok, "secretfile=", 11)) {
			if (nsecret++) {
				fprintf(stderr, "mount.orfs: give secret= or secretfile= once\n");
				ret = -EINVAL;
				break;
			}
			if (tok[6] == '=') {
				snprintf(secret, sizeof(secret), "%s", tok);
			} else if (read_secret(tok + 11, secret, sizeof(secret))) {
				ret = -EINVAL;
				break;
			}
			tok = secret;
		}
		for (i = 0; i < ARRAY_SIZE(flag_opts); i++)
			if (!strcmp(tok, flag_opts[i].name))
				break;
		if (i < ARRAY_SIZE(flag_opts)) {
			*flags = (*flags | flag_opts[i].set) & ~flag_opts[i].clear;
			continue;
		}
		if (!strncmp(tok, "x-", 2))	/* userspace annotations */
			continue;
		if (used + strlen(tok) + 2 > len) {
			ret = -E2BIG;
			break;
		}
		used += sprintf(data + used, "%s%s", used ? "," : "", tok);
	}
	explicit_bzero(secret, sizeof(secret));
	explicit_bzero(copy, strlen(opts ? opts : ""));
	free(copy);
	return ret;
}

/* @data for printing: secret=<hidden> instead of the secret. */
static void redact(const char *data, char *out, size_t len)
{
	const char *p = strstr(data, "secret=");

	while (p && p != data && p[-1] != ',')
		p = strstr(p + 1, "secret=");
	if (!p) {
		snprintf(out, len, "%s", data);
		return;
	}
	snprintf(out, len, "%.*ssecret=<hidden>%s", (int)(p - data), data,
		 strchr(p, ',') ? strchr(p, ',') : "");
}

/* Resolves HOST into a numeric address string suitable for the kernel. */
static int resolve(const char *host, char *out, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int ret;

	ret = getaddrinfo(host, NULL, &hints, &res);
	if (ret) {
		fprintf(stderr, "mount.orfs: cannot resolve %s: %s\n", host, gai_strerror(ret));
		return -1;
	}
	/* Prefer IPv4, like most RoCE deployments. */
	for (ai = res; ai; ai = ai->ai_next)
		if (ai->ai_family == AF_INET)
			break;
	if (!ai)
		ai = res;
	if (ai->ai_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr, out, len);
	} else {
		char v6[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr,
			  v6, sizeof(v6));
		snprintf(out, len, "[%s]", v6);
	}
	freeaddrinfo(res);
	return 0;
}

int main(int argc, char **argv)
{
	char host[256], addr[INET6_ADDRSTRLEN + 2], source[1100], data[4096];
	char shown[4096];
	int err = 0;
	const char *spec, *dir, *path, *opts = NULL;
	unsigned long flags = 0;
	int fake = 0, c;
	size_t hlen;

	if (argc < 3)
		usage();
	spec = argv[1];
	dir = argv[2];
	optind = 3;
	while ((c = getopt(argc, argv, "fnsvo:")) != -1) {
		switch (c) {
		case 'f':
			fake = 1;
			break;
		case 'n':
		case 's':
			break;
		case 'v':
			verbose = 1;
			break;
		case 'o':
			opts = optarg;
			break;
		default:
			usage();
		}
	}

	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb[1] != ':')
			usage();
		hlen = rb - spec - 1;
		if (hlen >= sizeof(host))
			usage();
		memcpy(host, spec + 1, hlen);
		path = rb + 2;
	} else {
		const char *colon = strchr(spec, ':');

		if (!colon || colon == spec)
			usage();
		hlen = colon - spec;
		if (hlen >= sizeof(host))
			usage();
		memcpy(host, spec, hlen);
		path = colon + 1;
	}
	host[hlen] = '\0';
	if (path[0] != '/') {
		fprintf(stderr, "mount.orfs: %s: the path must start with '/'\n", spec);
		return EXIT_FAILURE;
	}
	if (resolve(host, addr, sizeof(addr)))
		return EXIT_FAILURE;
	if ((size_t)snprintf(source, sizeof(source), "%s:%s", addr, path) >= sizeof(source)) {
		fprintf(stderr, "mount.orfs: path too long\n");
		return EXIT_FAILURE;
	}
	err = split_options(opts, &flags, data, sizeof(data));
	if (err) {
		if (err != -EINVAL)
			fprintf(stderr, "mount.orfs: options too long\n");
		return EXIT_FAILURE;
	}
	if (verbose) {
		redact(data, shown, sizeof(shown));
		fprintf(stderr, "mount.orfs: mount(\"%s\", \"%s\", \"orfs\", 0x%lx, \"%s\")\n",
			source, dir, flags, shown);
	}
	if (!fake && mount(source, dir, "orfs", flags, data))
		err = errno;
	explicit_bzero(data, sizeof(data));
	if (err) {
		fprintf(stderr, "mount.orfs: mounting %s on %s failed: %s\n", spec, dir,
			strerror(err));
		if (err == ENODEV)
			fprintf(stderr, "mount.orfs: is the orfs module loaded? (modprobe orfs)\n");
		else
			fprintf(stderr, "mount.orfs: the kernel log (dmesg) says why\n");
		return 32;	/* mount(8): mount failure */
	}
	return 0;
}
