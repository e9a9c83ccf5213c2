/* SPDX-License-Identifier: GPL-2.0-only */
/* options.h - the run option table.  Each option is declared once (long
 * name, JSON field name, type, default, allowed range or values, help
 * text); that one table drives command-line parsing, JSON parsing of a
 * job's workload / variant fields, validation, `--help`, and the JSON
 * Schema of the options (layout-independent). */
#ifndef BB_OPTIONS_H
#define BB_OPTIONS_H

#include <biobench/config.h>

#include <json-c/json.h>
#include <stdio.h>

/* Parse `biobench run` arguments (argv[0] is the subcommand name; options
 * in any order, the target as the last non-option argument; "--opt=value"
 * and "--opt value" both work; boolean options accept --opt, --no-opt,
 * --opt=0/1/true/false).  cfg must hold the defaults (bb_config_default).
 * Returns 0, 1 if --help was asked (nothing else done), or -EINVAL with a
 * one-line message in err naming the option and what is allowed, e.g.
 *   "--bs: '3x' is not a size (examples: 512, 4k, 64k, 1m)"
 *   "--bio-cache: 'fast' is not one of off, task, irq, irq_fast, all"
 * After parsing, bb_config_check() is applied. */
int bb_options_parse(int argc, char **argv, struct bb_config *cfg,
		     char *err, size_t errlen);

/* How many words of argv the long option argv[i] takes, by the rules of
 * bb_options_parse: 2 for "--opt value" (a non-boolean option without
 * "=" followed by a word that does not start with "--"), else 1; 0 when
 * argv[i] is not a long option ("--" alone is not).  Unknown options take
 * 1 (bb_options_parse names them).  For callers that pass some words of a
 * command line on to bb_options_parse (biobench tiou). */
int bb_options_words(int argc, char **argv, int i);

/* Set one option by name: the long option name without dashes
 * ("max-sectors-kb") or its JSON field name ("max_sectors_kb"); value is
 * the text form.  Returns 0 or -EINVAL (message as above, naming the
 * field as given) or -ENOENT for an unknown name. */
int bb_options_set(struct bb_config *cfg, const char *name,
		   const char *value, char *err, size_t errlen);

/* Set options from a JSON object ({"bs": "4k", "iodepth": 32, ...}):
 * numbers, strings and booleans are accepted where they make sense.  path
 * prefixes field names in messages ("workload.bs: ..."; NULL or "" for
 * none).  "target" is accepted here (JSON only); json/quiet/help are
 * command line only.  Unknown fields are -EINVAL.  bb_config_check() is
 * NOT applied: call it once all layers (workload, variant) are set. */
int bb_options_from_json(struct bb_config *cfg, struct json_object *obj,
			 const char *path, char *err, size_t errlen);

/* Whether field is the JSON name of a run option (the job parser's
 * "unknown field" check). */
bool bb_option_json_known(const char *field);

/* The run option nearest to a mistyped name (bb_nearest): its JSON field
 * name when json, else its long option name ("iodepth" for "iodpeth");
 * NULL when none is close enough to be a typo of it. */
const char *bb_option_nearest(const char *name, bool json);

/* Set one option from a JSON value: key is its JSON field name, path the
 * prefix naming it in messages ("variants.B"; NULL or "" for none).
 * Returns 0; -ENOENT for an unknown key (nothing set); or -EINVAL.  On
 * error field receives the path of what is wrong ("variants.B.bs", or
 * deeper: "workload.cpus[1]") and err the message naming it, text values
 * quoted as JSON strings ("variants.B.bio_cache: \"fast\" is not one of
 * off, task, ..."). */
int bb_option_from_json(struct bb_config *cfg, const char *path,
			const char *key, struct json_object *val, char *field,
			size_t flen, char *err, size_t errlen);

/* Cross-field checks (bs multiple of 512 and of the logical block size,
 * iodepth 1..65536, threads <= BB_MAX_THREADS, batches clamped to iodepth,
 * rwmixread 0..100, poll + thread completion
 * refused, ...).  Returns 0 or -EINVAL with a message naming the option as
 * on the command line ("--bs: 3000 is not a multiple of 512"). */
int bb_config_check(struct bb_config *cfg, char *err, size_t errlen);

/* bb_config_check for callers that name options their own way (a job:
 * "variants.B.bs"): on failure field receives the offending option's JSON
 * field name ("bs"; "" when the message is about several options) and err
 * the message without it. */
int bb_config_check_field(struct bb_config *cfg, char *field, size_t flen,
			  char *err, size_t errlen);

/* The run options for `biobench run --help`: how values are written, then
 * every option by group with its default and allowed values (no usage
 * line: the command prints its own). */
void bb_options_help(FILE *f);

/* The JSON Schema ("properties") of the options, generated from the
 * table, and the effective configuration as JSON (sizes and masks as
 * integers in bytes, durations as seconds, enums by name, cpus as an
 * array; queue-limit options only when given).  bb_config_to_json()'s
 * output is accepted by bb_options_from_json(). */
struct json_object *bb_options_json_schema(void);
struct json_object *bb_config_to_json(const struct bb_config *cfg);

/* Parsers for fio-style values, shared with other code:
 * sizes "4k", "64K", "1m", "2g", "512" (bytes, binary multiples);
 * durations "5s", "500ms", "1m", "2h", "10" (seconds); lists "0,2-3". */
int bb_parse_size(const char *s, uint64_t *out);
int bb_parse_duration_ns(const char *s, uint64_t *out);
int bb_parse_cpulist(const char *s, int *cpus, unsigned max, unsigned *n);

#endif
