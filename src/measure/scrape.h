/* Scraping a target's health lines out of its log.
 *
 * A marker line (ModernUO: "loop: ") holds key=value pairs. Values are typed:
 *   cpu=0.8%                -> percent      0.8
 *   slots=1/1875            -> ratio        1 of 1875
 *   tickLagPeak=11ms        -> duration     11 (ms; s, us and ns are converted to ms)
 *   sleeps=5821/6090 (95.6%)-> ratio        5821 of 6090, with its percent 95.6
 *   missed16ms=0, cps=412   -> number
 *   (SUSPENDED)             -> flag         key "SUSPENDED", value 1
 * Unknown keys are kept. The parser is pure (text in, struct out), never reads out of
 * bounds and keeps what it can from a damaged line. */
#ifndef LOOPBENCH_SCRAPE_H
#define LOOPBENCH_SCRAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "msg.h"

#define SCRAPE_KEY_MAX 64
/* Caps that keep a hostile log from costing unbounded time or memory: values kept per
 * line and keys aggregated per run (the rest are dropped), and bytes of a line parsed
 * (a longer line is cut at its last blank before the limit, the rest skipped). */
#define SCRAPE_VALUES_MAX 256
#define SCRAPE_LINE_MAX 65536

enum scrape_type {
    SCRAPE_NUMBER = 0,
    SCRAPE_PERCENT,
    SCRAPE_RATIO,
    SCRAPE_DURATION_MS,
    SCRAPE_FLAG,
};

/* "number", "percent", "ratio", "duration_ms", "flag" */
const char *scrape_type_name(enum scrape_type t);

struct scrape_value {
    char key[SCRAPE_KEY_MAX];
    enum scrape_type type;
    double value;    /* the number; for a ratio the numerator */
    double total;    /* ratio only: the denominator */
    double percent;  /* ratio only: the "(95.6%)" that may follow, else NAN */
};

/* Log levels as ModernUO prints them. */
enum log_level { LOG_VRB, LOG_DBG, LOG_INF, LOG_WRN, LOG_ERR, LOG_FTL, LOG_LEVELS };
const char *log_level_name(enum log_level l); /* "VRB" ... */

struct scrape_line {
    bool has_time;      /* "[HH:MM:SS LVL]" prefix was found */
    int seconds_of_day; /* from HH:MM:SS when has_time, else -1 */
    int level;          /* enum log_level, or -1 */
    bool is_marker;     /* the marker was found in the line */
    struct scrape_value *values; /* new array, freed by scrape_line_release */
    size_t n_values;
    size_t n_dropped;   /* values past SCRAPE_VALUES_MAX */
};

/* Parse one line (len bytes, need not be NUL-terminated). Never fails: a line without
 * a prefix or marker gives has_time/level/is_marker false or -1 and no values. */
void scrape_parse_line(const char *line, size_t len, const char *marker,
                       struct scrape_line *out);
void scrape_line_release(struct scrape_line *l);

/* Which lines of a log belong to the sample window. A line with a timestamp counts when
 * the stamp (local time of day, 1 s resolution) lies in [tod_start, tod_end], wrapping
 * past midnight; a line without one counts when it starts at a byte offset in
 * [off_start, off_end). A NULL filter lets every line count.
 * With written_in_window, a stamped line must also start at or after off_start: when
 * loopbench watched the log grow, a line written before the window began cannot count
 * just because its stamp falls in the window's first second. */
struct scrape_window_filter {
    int tod_start, tod_end;
    uint64_t off_start, off_end;
    bool written_in_window;
};

/* Bracket a sample window on a log that is being written: mark_start records where the
 * log ends when the window opens; mark_end records where it ends when the window closes
 * and the window's wall-clock edges as local times of day, and sets written_in_window. */
void scrape_window_mark_start(struct scrape_window_filter *f, const char *log);
void scrape_window_mark_end(struct scrape_window_filter *f, const char *log,
                            uint64_t start_wall_ns, uint64_t end_wall_ns);
/* The wall-clock edges of the window as local times of day, and written_in_window: what
 * mark_end sets besides off_end (a stream's offsets are counted by its reader). */
void scrape_window_set_times(struct scrape_window_filter *f, uint64_t start_wall_ns,
                             uint64_t end_wall_ns);

/* Per key, aggregated over the windows (marker lines) of one run. */
struct scrape_agg {
    char key[SCRAPE_KEY_MAX];
    enum scrape_type type;
    size_t n;           /* windows that had this key */
    double mean, min, max, sum;
    double total_sum;   /* ratio only: sum of denominators */
};

struct scrape_run {
    size_t n_windows;                  /* marker lines in the window */
    struct scrape_agg *aggs;           /* one per key seen, in first-seen order */
    size_t n_aggs;
    unsigned level_counts[LOG_LEVELS]; /* over the whole log, not only the window */
    unsigned long lines;               /* lines read */
    /* What the bounds left out: marker lines that could not be told in or out of the
     * window (scrape_stream), and values past SCRAPE_VALUES_MAX in a line or keys past it
     * in a run. Both 0 for any ordinary log. */
    unsigned long lines_dropped, values_dropped;
};

/* A stream keeps the marker lines of its window as aggregates, whatever their number:
 * one over every line kept, which is the window's when all of them turn out to be in it
 * (the figures are then those of the lines added one by one, in order), and one per
 * class of lines whose place in the window is decided together: the lines stamped with
 * one time of day, and the lines without a stamp. When a class is out of the window (a
 * line stamped in the second before it opened, a target logging in another time zone)
 * the window's figures are those of the classes in it, added class by class (a sum may
 * then differ from the one line by line in its last bit). Past SCRAPE_CLASSES_MAX
 * stamped classes a new time of day widens the latest class to a span of times; a class
 * partly in the window is left out, its lines counted in lines_dropped. */
#define SCRAPE_CLASSES_MAX 16

struct scrape_class {
    bool has_time;
    int tod, tod_span;                 /* stamped: the times of day tod .. tod + tod_span */
    uint64_t off_first, off_last;      /* where its first and last lines start */
    struct scrape_run run;
};

/* Scrape one log file into out, which the caller zero-initialises; scraping a second
 * file (stdout, then stderr) into the same out adds to it. Lines longer than the
 * internal limit are truncated, not fatal. Returns -1 only when the file cannot be
 * read. */
int scrape_file(const char *path, const char *marker, const struct scrape_window_filter *f,
                struct scrape_run *out, struct lb_error *err);
/* A log scraped as it arrives, in chunks of any size (capture.c reads the target's
 * pipes into one; scrape_file reads a file into one). Its lines are counted at once; its
 * marker lines are kept (aggregated, see scrape_class) while the window known so far
 * (so_far, read at each line; NULL: any) may hold them, and their classes tested against
 * the window as finally known when the stream finishes. A line's offset is its byte
 * offset in the whole stream, kept or not. so_far may change between feeds; when its
 * off_start moves, the window was opened again and what was kept is dropped. */
struct scrape_stream {
    const char *marker;                        /* borrowed */
    const struct scrape_window_filter *so_far; /* borrowed, may change between feeds */
    /* Called with each complete line before it is scraped (the readiness rule). */
    void (*line_hook)(void *ctx, const char *line, size_t len);
    void *hook_ctx;
    struct scrape_run counted;     /* lines and levels so far */
    uint64_t opened;               /* so_far's off_start when the kept lines were kept */
    struct scrape_run kept;        /* every marker line kept, in order */
    struct scrape_class classes[SCRAPE_CLASSES_MAX];
    size_t n_classes;
    char *line;                    /* the line being assembled, SCRAPE_LINE_MAX bytes */
    struct scrape_value *values;   /* the values of the line parsed, SCRAPE_VALUES_MAX */
    size_t n;
    bool cut;
    uint64_t pos, start;           /* offsets of the next byte and of the current line */
};
void scrape_stream_init(struct scrape_stream *s, const char *marker);
void scrape_stream_feed(struct scrape_stream *s, const char *data, size_t len);
/* The stream ended (a last line without a newline counts): the kept lines that f puts in
 * the window are added to out with the line and level counts, as scrape_file adds. */
void scrape_stream_finish(struct scrape_stream *s, const struct scrape_window_filter *f,
                          struct scrape_run *out);
void scrape_stream_release(struct scrape_stream *s);

void scrape_run_release(struct scrape_run *r);
/* Aggregate one more value into r, as if a window's line had held it. */
void scrape_run_add(struct scrape_run *r, const struct scrape_value *v);
/* Add the windows, aggregates and drop counts of from to into (key by key, in from's
 * order; a key whose type differs from into's is left out, as scrape_run_add does). */
void scrape_run_merge(struct scrape_run *into, const struct scrape_run *from);
/* Look up an aggregate by key; NULL if absent. */
const struct scrape_agg *scrape_run_find(const struct scrape_run *r, const char *key);

/* The aggregates of s as the object results.json keeps under a run's "metrics" and
 * `sample --json` prints (new reference): per key, in first-seen order, {type, windows,
 * mean, min, max, sum} and for a ratio total_sum; an undefined figure (NaN) is null. */
json_t *scrape_run_to_json(const struct scrape_run *s);
/* What the bounds left out of s, {lines, values} (new reference), for results.json's
 * "health_dropped" and `sample --json`; NULL when nothing was (the key is then absent). */
json_t *scrape_dropped_json(const struct scrape_run *s);

/* The inverse (metrics is borrowed): out is overwritten with those aggregates, null
 * read back as NaN, so that scrape_run_to_json gives metrics again; nothing else of out
 * is set (results.json keeps a run's window count and log levels elsewhere). out can
 * still take scrape_run_add and is freed by scrape_run_release. -1 with err naming
 * where, the key and what was expected (an unknown type, a missing figure...); out is
 * then empty. */
int scrape_run_from_json(json_t *metrics, struct scrape_run *out, const char *where,
                         struct lb_error *err);

#endif
