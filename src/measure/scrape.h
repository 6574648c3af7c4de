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

#include "health.h"
#include "msg.h"

/* Bytes of a line parsed: a longer line is cut at its last blank before the limit, the
 * rest skipped (a cap, as health.h's, against a hostile log). */
#define SCRAPE_LINE_MAX 65536

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

#endif
