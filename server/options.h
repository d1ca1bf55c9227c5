/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd's options, private to config.c and options.c.
 *
 * options.c holds the table of options (struct orfs_opt: name, field,
 * type, bounds, default, help line) and what is done with one option: its
 * value parsed into struct orfs_config, its description for --help and the
 * admin guide.  config.c decides where values come from: the config file,
 * then the command line, and the rules between the two (struct
 * parse_state).
 */
#ifndef ORFSD_OPTIONS_H
#define ORFSD_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* Where an option came from (for the override rules). */
enum opt_src {
	SRC_NONE,
	SRC_FILE,
	SRC_CMDLINE,
};

/**
 * struct parse_state - what one orfs_config_parse() call tracks
 * @port_src: who set cfg->port
 * @listen_port_src: who set cfg->listen_port
 * @allow_src: who added the entries now in cfg->acl
 */
struct parse_state {
	enum opt_src	port_src;
	enum opt_src	listen_port_src;
	enum opt_src	allow_src;
};

/**
 * enum opt_type - what an option's value is, and how it is parsed
 * @OPT_STR: any text (it points into argv or into the config file's text)
 * @OPT_PATH: a file name: any text but the empty one
 * @OPT_BOOL: yes or no (parse_bool()); on the command line the value is
 *	optional and a bare --name means yes
 * @OPT_NUM: decimal digits (orfs_parse_dec()) in [min, max], rounded down
 *	to a multiple of round if that is set
 * @OPT_SIZE: bytes, with an optional K, M or G suffix (parse_size()), in
 *	[min, max]; a multiple of align if that is set, a power of two with
 *	OPTF_POW2
 * @OPT_CHOICE: one of the names of choices
 * @OPT_FLAG: no value: sets a bool (--help, --version)
 */
enum opt_type {
	OPT_STR,
	OPT_PATH,
	OPT_BOOL,
	OPT_NUM,
	OPT_SIZE,
	OPT_CHOICE,
	OPT_FLAG,
};

/* struct orfs_opt flags */
#define OPTF_CMDLINE	0x1	/* not a key of the config file */
#define OPTF_INVERT	0x2	/* OPT_BOOL: stores the opposite (no default) */
#define OPTF_POW2	0x4	/* OPT_SIZE: a power of two */
#define OPTF_REQUIRED	0x8	/* no default: must be given */
#define OPTF_OPTARG	0x10	/* OPT_FLAG: takes an optional =VALUE */

/**
 * struct opt_choice - one value of an OPT_CHOICE option
 * @name: as written
 * @value: what the field gets
 */
struct opt_choice {
	const char	*name;
	int		value;
};

struct orfs_opt;

/**
 * struct opt_ctx - where apply_opt() applies an option
 * @cfg: the configuration
 * @ps: the origins of what is set so far
 * @src: SRC_CMDLINE or SRC_FILE
 * @dash: "--" on the command line, "" in the file (for @msg)
 * @msg: on error, gets "invalid --name 'value' (what is expected)"
 * @msg_len: size of @msg
 */
struct opt_ctx {
	struct orfs_config	*cfg;
	struct parse_state	*ps;
	enum opt_src		src;
	const char		*dash;
	char			*msg;
	size_t			msg_len;
};

/**
 * struct orfs_opt - one option of orfsd, on the command line and in the file
 * @name: the long option, and the config file's key
 * @short_name: its one-letter form ('f', 'h'), or 0
 * @type: what its value is
 * @flags: OPTF_*
 * @off: offset of its field in struct orfs_config
 * @size: size of that field
 * @min: OPT_NUM, OPT_SIZE: the smallest value
 * @max: OPT_NUM, OPT_SIZE: the largest value
 * @round: OPT_NUM: the value is rounded down to a multiple of this (0: not)
 * @align: OPT_SIZE: the value must be a multiple of this (0: any)
 * @def: the field's default (OPT_NUM, OPT_SIZE, OPT_CHOICE, OPT_BOOL);
 *	set_defaults() sets it, and --help shows it unless @def_text
 * @choices: OPT_CHOICE: the names, ending with a NULL name
 * @set: for the few options that need code: parses @arg into the
 *	configuration instead of the generic opt_set_value(); on -EINVAL,
 *	may write its own message to ctx->msg
 * @arg: what --help calls the value ("N", "BYTES", "FILE")
 * @unit: the value's unit, in messages and --help, or NULL
 * @expect: what an error message says is expected, where the type does
 *	not say it
 * @def_text: the default in words, where @def does not say it
 * @help: one line on what the option does (--help, the admin guide)
 *
 * The table below is the one description of the options: getopt's
 * options, the config file's keys, the defaults, the checks, the error
 * messages, --help and the admin guide's list (--help=markdown) all
 * come from it.
 */
struct orfs_opt {
	const char		*name;
	char			short_name;
	enum opt_type		type;
	unsigned int		flags;
	size_t			off;
	size_t			size;
	unsigned long long	min;
	unsigned long long	max;
	unsigned long long	round;
	unsigned long long	align;
	unsigned long long	def;
	const struct opt_choice	*choices;
	int			(*set)(const struct opt_ctx *ctx,
				       const struct orfs_opt *o, const char *arg);
	const char		*arg;
	const char		*unit;
	const char		*expect;
	const char		*def_text;
	const char		*help;
};

const struct orfs_opt *orfs_opt_find(const char *name);
const struct orfs_opt *orfs_opt_by_val(int c);
void orfs_opt_getopt(const struct option **lo, const char **shorts);
int orfs_opt_apply(const struct opt_ctx *ctx, const struct orfs_opt *o,
		   const char *arg);
void orfs_opts_set_defaults(struct orfs_config *cfg);

#endif /* ORFSD_OPTIONS_H */
