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
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

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

/* Splits OPTIONS into mount flags and the data string for the kernel. */
static int split_options(const char *opts, unsigned long *flags, char *data, size_t len)
{
	char *copy = strdup(opts ? opts : ""), *tok, *save = NULL;
	size_t used = 0;
	size_t i;

	if (!copy)
		return -ENOMEM;
	data[0] = '\0';
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
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
			free(copy);
			return -E2BIG;
		}
		used += sprintf(data + used, "%s%s", used ? "," : "", tok);
	}
	free(copy);
	return 0;
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
	if (split_options(opts, &flags, data, sizeof(data))) {
		fprintf(stderr, "mount.orfs: options too long\n");
		return EXIT_FAILURE;
	}
	if (verbose)
		fprintf(stderr, "mount.orfs: mount(\"%s\", \"%s\", \"orfs\", 0x%lx, \"%s\")\n",
			source, dir, flags, data);
	if (fake)
		return 0;
	if (mount(source, dir, "orfs", flags, data)) {
		int err = errno;

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
