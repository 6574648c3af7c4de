/* The options of every command, each spelled once (options.c: its name, whether it takes
 * a value, its short letter): a command lists those it takes, so an option is written
 * and parsed the same way wherever it appears; and the checks of the values commands
 * share, each a usage error that names the command, the option and the value. */
#ifndef LOOPBENCH_OPTIONS_H
#define LOOPBENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum cli_option {
    OPT_END = 0,     /* ends a command's list */
    OPT_REFUSED = 1, /* cli_getopt_spec: a value refused, and said so */
    /* the ones with a short letter: the letter */
    OPT_FORMAT = 'f',
    OPT_REPEAT = 'n',
    OPT_OUTPUT = 'o',
    OPT_QUIET = 'q',
    OPT_SETTINGS = 's',
    OPT_SAMPLE = 't',
    OPT_WARMUP = 'w',
    /* long only (the spec's that no other command takes have none: options.c) */
    OPT_ALPHA = 256,
    OPT_API_URL,
    OPT_BUDGET,
    OPT_DRIFT,
    OPT_DRY_RUN,
    OPT_FAIL_ON,
    OPT_FORCE,
    OPT_GITHUB,
    OPT_GUARD,
    OPT_INTERVAL,
    OPT_JSON,
    OPT_KEEP_GOING,
    OPT_LOG,
    OPT_MARKER,
    OPT_MAX_INCREASE,
    OPT_MAX_P,
    OPT_MAX_RUNS,
    OPT_MAX_TIME,
    OPT_METRIC,
    OPT_MIN_MAGNITUDE,
    OPT_MIN_SEGMENT,
    OPT_MINIMIZE,
    OPT_NO_CHARTS,
    OPT_NO_PLOTS,
    OPT_PID,
    OPT_PLOTS,
    OPT_POOL,
    OPT_PRIMARY,
    OPT_RANGE,
    OPT_RECENT,
    OPT_REFERENCE,
    OPT_RESUME,
    OPT_SAME_HOST,
    OPT_TIE,
    OPT_TITLE,
    OPT_TRIM,
    OPT_VARIANT,
    OPT_WEBHOOK,
};

/* getopt_long over the options listed in accepts (ended by OPT_END), a short option for
 * each that has a letter: the next option's enum cli_option, '?' or ':' for one unknown,
 * given a value it does not take, or missing its value (cli_bad_option says which), -1
 * after the last. Call it with the same list until it returns -1; main has set optind
 * and opterr. */
int cli_getopt(int argc, char **argv, const enum cli_option *accepts);
struct campaign_spec;
/* cli_getopt for a command that fills a campaign spec (run): besides accepts, the spec's
 * options, each stored into spec as it comes (options.c binds it to its field), a value
 * refused said as cli_bad_value says it (OPT_REFUSED returned, cmd naming the command);
 * the others returned as cli_getopt returns them. *first, when NULL, is set to the first
 * of the spec's options given ("--settings"). */
int cli_getopt_spec(int argc, char **argv, const enum cli_option *accepts, const char *cmd,
                    struct campaign_spec *spec, const char **first);
/* The spec's options as a command's help lists them, each with its text: the first ones,
 * or with late those listed after the command's own; but those in omit (ended by OPT_END;
 * NULL: none), which the command refuses or lists as its own. */
void cli_spec_usage(FILE *out, bool late, const enum cli_option *omit);
/* "--NAME" of opt, NULL for none: a static buffer the next call overwrites. */
const char *cli_option_name(int opt);

/* Say which option is at fault after cli_getopt returned '?' or ':', as one line plus a
 * usage hint: an unknown option (with the nearest the command takes, "did you mean"), an
 * abbreviation that fits several, a value given to an option that takes none, a missing
 * value. Returns LB_EXIT_USAGE. */
int cli_bad_option(const char *cmd, int argc, char **argv);
/* Say that arg, the value of option opt of command cmd, is not one it takes: "CMD: --NAME
 * 'ARG': expected EXPECTED", the option as the user spelled it, the value's control
 * characters escaped. Returns LB_EXIT_USAGE. */
int cli_bad_value(const char *cmd, int opt, const char *arg, const char *expected);

/* The values commands share, checked: LB_EXIT_OK with *out set, or cli_bad_value's
 * status after saying why. A percentage from 0 to 10000, as a fraction. */
int cli_percent(const char *cmd, int opt, const char *arg, double *out);
/* A probability, strictly between 0 and 1. */
int cli_probability(const char *cmd, int opt, const char *arg, double *out);
/* A whole number from lo to hi (range says so to the user: "from 2 to 1000"). */
int cli_count(const char *cmd, int opt, const char *arg, long lo, long hi, const char *range,
              size_t *out);
/* Seconds from lo to hi (lo itself only when lo is 0). */
int cli_seconds(const char *cmd, int opt, const char *arg, double lo, double hi, double *out);

/* Where option opt would have a command write: path's directory exists (it is never made:
 * a typo would otherwise leave a tree of directories behind), and path is "-" only when
 * dash_is_stdout. LB_EXIT_OK, or a usage error naming the directory. */
int cli_output_parent(const char *cmd, int opt, const char *path, bool dash_is_stdout);

/* What a command prints, where its output has formats: `-f/--format NAME`, and `--json`
 * the same as `-f json`. CLI_TEXT is for people at a terminal: no Markdown escapes, no
 * chart code. */
enum cli_format { CLI_DEFAULT = 0, CLI_TEXT, CLI_MD, CLI_CSV, CLI_JSON };
#define CLI_FORMATS(f) (1u << (f))
/* From option opt (OPT_FORMAT with arg, or OPT_JSON) into *out, when one of the formats
 * `allowed` (a set of CLI_FORMATS) names; else a usage error listing them. */
int cli_format(const char *cmd, int opt, const char *arg, unsigned allowed,
               enum cli_format *out);
/* The format to write when none was asked for: text on a terminal, else `otherwise`
 * (Markdown for a pipe, a file or a CI log). */
enum cli_format cli_format_default(enum cli_format asked, enum cli_format otherwise);

#endif
