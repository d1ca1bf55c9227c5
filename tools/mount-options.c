// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mount-options: orfs.ko's mount options as the admin guide lists them, a
 * Markdown table made from fs/mount_opts.h, the list the kernel's parser
 * (fs/super.c) is made from.  tools/gen-docs.sh puts the table into
 * Documentation/admin-guide.md (make docs), and checks it is there.
 *
 * Usage: tools/mount-options [--markdown]
 */
#include <stdio.h>
#include <string.h>

#include "mount_opts.h"

/* regcache=: the ORFS_REGCACHE_MODE() names. */
static const char *const regcache_modes[] = {
#define ORFS_REGCACHE_MODE(n, value)	#n,
#include "mount_opts.h"
#undef ORFS_REGCACHE_MODE
	NULL
};

/**
 * struct mount_opt - one ORFS_MOUNT_OPT() as the documentation needs it
 * @name: the option
 * @kind: "U32", "FLAG_NO", "FLAG", "STRING" or "ENUM"
 * @arg: what the value is called ("N", "BYTES"), or ""
 * @min: the smallest value of a number
 * @max: the largest (ORFS_RC_PAGES_MAX: none)
 * @unit: the unit of a number, or ""
 * @def: U32, FLAG_NO: the default (ORFS_MO_NODEF: none)
 * @def_text: the other kinds: the default in words
 * @choices: ENUM: the values, ending with NULL
 * @help: one line on what it does
 */
struct mount_opt {
	const char		*name;
	const char		*kind;
	const char		*arg;
	unsigned long long	min;
	unsigned long long	max;
	const char		*unit;
	unsigned long long	def;
	const char		*def_text;
	const char *const	*choices;
	const char		*help;
};

/* def is a number for U32 and FLAG_NO, words for the other kinds. */
#define DEF_U32(d)		.def = (d)
#define DEF_FLAG_NO(d)		.def = (d)
#define DEF_FLAG(d)		.def_text = (d)
#define DEF_STRING(d)		.def_text = (d)
#define DEF_ENUM(d)		.def_text = (d)
#define CHOICES_U32(c)		.choices = NULL
#define CHOICES_FLAG_NO(c)	.choices = NULL
#define CHOICES_FLAG(c)		.choices = NULL
#define CHOICES_STRING(c)	.choices = NULL
#define CHOICES_ENUM(c)		.choices = (c)

static const struct mount_opt opts[] = {
#define ORFS_MOUNT_OPT(n, k, f, a, lo, hi, u, d, h)			\
	{ .name = #n, .kind = #k, .arg = a, .min = lo, .max = hi,	\
	  .unit = u, DEF_##k(d), CHOICES_##k(n##_modes), .help = h },
#include "mount_opts.h"
#undef ORFS_MOUNT_OPT
};

#define EN_DASH	"\xe2\x80\x93"

/* @v as the admin guide writes a size: "4 KiB", "1 MiB", else bytes. */
static const char *fmt_bytes(unsigned long long v, char *buf, size_t len)
{
	if (v && !(v & ((1ULL << 20) - 1)))
		snprintf(buf, len, "%llu MiB", v >> 20);
	else if (v && !(v & ((1ULL << 10) - 1)))
		snprintf(buf, len, "%llu KiB", v >> 10);
	else
		snprintf(buf, len, "%llu", v);
	return buf;
}

/* @v in @o's unit, bytes as sizes. */
static const char *fmt_value(const struct mount_opt *o, unsigned long long v,
			     char *buf, size_t len)
{
	if (!strcmp(o->unit, "bytes"))
		return fmt_bytes(v, buf, len);
	snprintf(buf, len, "%llu", v);
	return buf;
}

/* @s in a Markdown table cell: '|' escaped. */
static void cell(const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
}

static void option(const struct mount_opt *o)
{
	printf("`%s", o->name);
	if (o->arg[0]) {
		putchar('=');
		cell(o->arg);
	}
	putchar('`');
	if (!strcmp(o->kind, "FLAG_NO"))
		printf(" / `no%s`", o->name);
}

static void default_value(const struct mount_opt *o)
{
	char buf[32];

	if (o->def_text)
		cell(o->def_text);
	else if (!strcmp(o->kind, "FLAG_NO"))
		printf("%s%s", o->def ? "" : "no", o->name);
	else if (o->def != ORFS_MO_NODEF)
		fputs(fmt_value(o, o->def, buf, sizeof(buf)), stdout);
}

static void range(const struct mount_opt *o)
{
	const char *const *c;
	char lo[32], hi[32];

	if (o->choices) {
		for (c = o->choices; *c; c++)
			printf("%s%s", c == o->choices ? "" : c[1] ? ", " : " or ",
			       *c);
		return;
	}
	if (!o->max)
		return;		/* a flag, or a string without bounds */
	if (o->max == ORFS_RC_PAGES_MAX) {
		printf("at least %s", fmt_value(o, o->min, lo, sizeof(lo)));
		return;
	}
	printf("%s" EN_DASH "%s", fmt_value(o, o->min, lo, sizeof(lo)),
	       fmt_value(o, o->max, hi, sizeof(hi)));
	/* (sizes of a KiB and more say their unit already) */
	if (o->unit[0] && (strcmp(o->unit, "bytes") || o->max < 1024))
		printf(" %s", o->unit);
}

int main(int argc, char **argv)
{
	const struct mount_opt *o;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--markdown"))) {
		fprintf(stderr, "usage: %s [--markdown]\n", argv[0]);
		return 2;
	}
	puts("| option | default | range | meaning |\n"
	     "|---|---|---|---|");
	for (o = opts; o < opts + sizeof(opts) / sizeof(opts[0]); o++) {
		fputs("| ", stdout);
		option(o);
		fputs(" | ", stdout);
		default_value(o);
		fputs(" | ", stdout);
		range(o);
		fputs(" | ", stdout);
		cell(o->help);
		puts(" |");
	}
	return 0;
}
