/* Scraping health lines: a pure line parser, and a streaming reader that feeds it a log
 * line by line and aggregates the marker lines of the sample window as they arrive.
 *
 * The parser looks at nothing outside [line, line + len) and copies what it keeps, so
 * the reader can hand it a slice of its read buffer and logs of any size stream through
 * two fixed buffers. */
#include "scrape.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "util.h"

/* Longest number text converted; longer ones (hundreds of digits) are skipped. */
#define NUMBER_MAX 64
#define READ_CHUNK 65536
/* "[HH:MM:SS LVL]" */
#define PREFIX_LEN 14


/* Duration suffixes as value * mul / div in ms; both factors are exact doubles, so
 * 5821us gives the same double as the literal 5.821. Microseconds come as "us" or with
 * either of the two code points that look like mu (MICRO SIGN, GREEK SMALL LETTER MU). */
static const struct {
    const char *suffix;
    double mul, div;
} units[] = {
    {"ms", 1, 1},   {"s", 1000, 1},        {"us", 1, 1e3},
    {"ns", 1, 1e6}, {"\xc2\xb5s", 1, 1e3}, {"\xce\xbcs", 1, 1e3},
};

/* NUL counts as a blank so that a stray one splits tokens rather than hiding the rest. */
static bool is_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f' || c == 0;
}

/* Not <ctype.h>: its classes follow the locale and a negative char is undefined. */
static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_upper(unsigned char c)
{
    return c >= 'A' && c <= 'Z';
}

/* The WORD of a "(WORD)" flag: an upper-case letter, then upper case, digits or '_'. */
static bool is_flag_word(const char *s, size_t n)
{
    if (n == 0 || n >= SCRAPE_KEY_MAX || !is_upper((unsigned char)s[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_upper(c) && !is_digit(c) && c != '_')
            return false;
    }
    return true;
}

/* Length of the number at the start of s ([+-]digits[.digits][e[+-]digits]), 0 if none.
 * Scanned here rather than by strtod, which would also take "inf", "nan" and hex. */
static size_t scan_number(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    for (; i < n && is_digit((unsigned char)s[i]); i++)
        digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && is_digit((unsigned char)s[i]); i++)
            digits++;
    if (digits == 0)
        return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < n && (s[j] == '+' || s[j] == '-'))
            j++;
        if (j < n && is_digit((unsigned char)s[j])) {
            while (j < n && is_digit((unsigned char)s[j]))
                j++;
            i = j;
        }
    }
    return i;
}

/* Converts n bytes already checked by scan_number; fails when out of range (1e400). */
static int number_value(const char *s, size_t n, double *out)
{
    char buf[NUMBER_MAX + 1];
    if (n > NUMBER_MAX)
        return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return parse_double(buf, out);
}

/* Types the text after '=': 412, 0.8%, 1/1875, 11ms. Fills all of v but its key. */
static int parse_value(const char *s, size_t n, struct scrape_value *v)
{
    size_t k = scan_number(s, n);
    if (k == 0 || number_value(s, k, &v->value) < 0)
        return -1;
    const char *rest = s + k;
    size_t rn = n - k;
    v->total = 0;
    v->percent = NAN;
    if (rn == 0) {
        v->type = SCRAPE_NUMBER;
        return 0;
    }
    if (rn == 1 && rest[0] == '%') {
        v->type = SCRAPE_PERCENT;
        return 0;
    }
    if (rest[0] == '/') {
        size_t d = scan_number(rest + 1, rn - 1);
        if (d == 0 || d != rn - 1 || number_value(rest + 1, d, &v->total) < 0)
            return -1;
        v->type = SCRAPE_RATIO;
        return 0;
    }
    for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
        if (strlen(units[i].suffix) != rn || memcmp(rest, units[i].suffix, rn) != 0)
            continue;
        double ms = v->value * units[i].mul / units[i].div;
        if (!isfinite(ms))
            return -1;
        v->value = ms;
        v->type = SCRAPE_DURATION_MS;
        return 0;
    }
    return -1;
}

/* "[HH:MM:SS LVL]" at the start of s: its length, or 0 when it is not there whole. */
static size_t parse_prefix(const char *s, size_t n, int *tod, int *level)
{
    if (n < PREFIX_LEN || s[0] != '[' || s[3] != ':' || s[6] != ':' || s[9] != ' ' || s[13] != ']')
        return 0;
    int f[3];
    for (int i = 0; i < 3; i++) {
        unsigned char hi = (unsigned char)s[1 + 3 * i], lo = (unsigned char)s[2 + 3 * i];
        if (!is_digit(hi) || !is_digit(lo))
            return 0;
        f[i] = (hi - '0') * 10 + (lo - '0');
    }
    if (f[0] > 23 || f[1] > 59 || f[2] > 59)
        return 0;
    for (int l = 0; l < LOG_LEVELS; l++) {
        if (memcmp(s + 10, log_level_name((enum log_level)l), 3) == 0) {
            *tod = f[0] * 3600 + f[1] * 60 + f[2];
            *level = l;
            return PREFIX_LEN;
        }
    }
    return 0;
}

/* memmem, which not every C library has. */
static const char *find(const char *hay, size_t n, const char *needle, size_t m)
{
    if (m == 0 || m > n)
        return NULL;
    const char *last = hay + (n - m);
    for (const char *p = hay; p <= last; p++) {
        p = memchr(p, needle[0], (size_t)(last - p) + 1);
        if (!p)
            return NULL;
        if (memcmp(p, needle, m) == 0)
            return p;
    }
    return NULL;
}

struct line_parse {
    struct scrape_line *line;
    size_t cap;
    size_t last_ratio; /* index of the ratio the previous token stored, or SIZE_MAX */
};

/* Stores v, replacing an earlier value of the same key (the last one wins). Returns its
 * index, or SIZE_MAX when the line already holds SCRAPE_VALUES_MAX other keys. */
static size_t line_put(struct line_parse *p, const struct scrape_value *v)
{
    struct scrape_line *l = p->line;
    for (size_t i = 0; i < l->n_values; i++) {
        if (strcmp(l->values[i].key, v->key) == 0) {
            l->values[i] = *v;
            return i;
        }
    }
    if (l->n_values == SCRAPE_VALUES_MAX) {
        l->n_dropped++;
        return SIZE_MAX;
    }
    if (l->n_values == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 16;
        l->values = xrealloc(l->values, p->cap * sizeof(*l->values));
    }
    l->values[l->n_values] = *v;
    return l->n_values++;
}

/* "(95.6%)" right after a ratio is that ratio's percent; "(SUSPENDED)" is a flag. */
static void parse_paren(struct line_parse *p, const char *s, size_t n, size_t ratio)
{
    struct scrape_value v = {0};
    if (ratio != SIZE_MAX && parse_value(s, n, &v) == 0 && v.type == SCRAPE_PERCENT) {
        p->line->values[ratio].percent = v.value;
        return;
    }
    if (!is_flag_word(s, n))
        return;
    memcpy(v.key, s, n);
    v.type = SCRAPE_FLAG;
    v.value = 1;
    v.total = 0;
    v.percent = NAN;
    line_put(p, &v);
}

static void parse_token(struct line_parse *p, const char *t, size_t n)
{
    size_t ratio = p->last_ratio;
    p->last_ratio = SIZE_MAX;
    if (n >= 3 && t[0] == '(' && t[n - 1] == ')') {
        parse_paren(p, t + 1, n - 2, ratio);
        return;
    }
    const char *eq = memchr(t, '=', n);
    if (!eq)
        return;
    size_t kn = (size_t)(eq - t);
    struct scrape_value v = {0};
    if (!scrape_is_key(t, kn) || parse_value(eq + 1, n - kn - 1, &v) < 0)
        return;
    memcpy(v.key, t, kn);
    size_t i = line_put(p, &v);
    if (v.type == SCRAPE_RATIO)
        p->last_ratio = i;
}

/* scrape_parse_line into room, an array of SCRAPE_VALUES_MAX values the caller owns (NULL:
 * a new array), so that a stream parses line after line without allocating. */
static void parse_line(const char *line, size_t len, const char *marker, struct scrape_line *out,
                       struct scrape_value *room)
{
    *out = (struct scrape_line){.seconds_of_day = -1, .level = -1, .values = room};
    if (!line || len == 0)
        return;
    const char *s = line;
    size_t n = len;
    if (n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) { /* a byte order mark on line 1 */
        s += 3;
        n -= 3;
    }
    size_t pre = parse_prefix(s, n, &out->seconds_of_day, &out->level);
    out->has_time = pre > 0;
    if (!marker || !*marker)
        return;
    size_t mn = strlen(marker);
    const char *m = find(s + pre, n - pre, marker, mn);
    if (!m)
        return;
    out->is_marker = true;
    struct line_parse p = {.line = out, .cap = room ? SCRAPE_VALUES_MAX : 0,
                           .last_ratio = SIZE_MAX};
    const char *c = m + mn, *end = s + n;
    while (c < end) {
        while (c < end && is_blank((unsigned char)*c))
            c++;
        const char *t = c;
        while (c < end && !is_blank((unsigned char)*c))
            c++;
        if (c > t)
            parse_token(&p, t, (size_t)(c - t));
    }
}

void scrape_parse_line(const char *line, size_t len, const char *marker, struct scrape_line *out)
{
    parse_line(line, len, marker, out, NULL);
}

void scrape_line_release(struct scrape_line *l)
{
    free(l->values);
    l->values = NULL;
    l->n_values = 0;
}

static uint64_t log_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

static int local_seconds_of_day(uint64_t wall_ns)
{
    time_t t = (time_t)(wall_ns / 1000000000ULL);
    struct tm tm;
    localtime_r(&t, &tm);
    return tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec;
}

void scrape_window_mark_start(struct scrape_window_filter *f, const char *log)
{
    f->off_start = log_size(log);
}

void scrape_window_mark_end(struct scrape_window_filter *f, const char *log,
                            uint64_t start_wall_ns, uint64_t end_wall_ns)
{
    f->off_end = log_size(log);
    scrape_window_set_times(f, start_wall_ns, end_wall_ns);
}

void scrape_window_set_times(struct scrape_window_filter *f, uint64_t start_wall_ns,
                             uint64_t end_wall_ns)
{
    f->tod_start = local_seconds_of_day(start_wall_ns);
    f->tod_end = local_seconds_of_day(end_wall_ns);
    f->written_in_window = true;
}

static bool in_window(const struct scrape_window_filter *f, const struct scrape_line *l,
                      uint64_t off)
{
    if (!f)
        return true;
    if (!l->has_time)
        return off >= f->off_start && off < f->off_end;
    if (f->written_in_window && off < f->off_start)
        return false;
    int t = l->seconds_of_day;
    if (f->tod_start <= f->tod_end)
        return t >= f->tod_start && t <= f->tod_end;
    return t >= f->tod_start || t <= f->tod_end;
}

/* Parse one line into l and count it (lines, levels). A line cut at SCRAPE_LINE_MAX
 * loses its last, possibly partial token so that "cps=41|2" never reads as 41. */
static void parse_counted(struct scrape_run *r, const char *marker, const char *s, size_t n,
                          bool cut, struct scrape_line *l, struct scrape_value *room)
{
    if (cut)
        while (n > 0 && !is_blank((unsigned char)s[n - 1]))
            n--;
    parse_line(s, n, marker, l, room);
    r->lines++;
    if (l->level >= 0)
        r->level_counts[l->level]++;
}

/* Aggregate a window's marker line into r. */
static void window_add(struct scrape_run *r, const struct scrape_line *l)
{
    r->n_windows++;
    r->values_dropped += l->n_dropped;
    for (size_t i = 0; i < l->n_values; i++)
        scrape_run_add(r, &l->values[i]);
}

#define DAY_SECONDS 86400

/* How far b lies past a, going forward round the clock. */
static int tod_after(int a, int b)
{
    return ((b - a) % DAY_SECONDS + DAY_SECONDS) % DAY_SECONDS;
}

/* Widen c's span of times of day to hold t, the shorter way round. */
static void class_hold_time(struct scrape_class *c, int t)
{
    int d = tod_after(c->tod, t);
    if (d <= c->tod_span)
        return;
    if (d - c->tod_span <= DAY_SECONDS - d) {
        c->tod_span = d;
    } else {
        c->tod_span += DAY_SECONDS - d;
        c->tod = t;
    }
}

/* Room for one more class: two stamped classes become one, the pair next to each other
 * with the narrowest span together, never the first nor the latest, where the window's
 * edges usually fall (a line of the second before it, a line of the second after it that
 * arrived before it was closed). */
static void classes_make_room(struct scrape_stream *s)
{
    size_t last = s->n_classes - 1;
    while (!s->classes[last].has_time)
        last--;
    size_t into = SIZE_MAX, gone = SIZE_MAX, prev = SIZE_MAX, first = SIZE_MAX;
    int best = DAY_SECONDS;
    for (size_t i = 0; i < last; i++) {
        if (!s->classes[i].has_time)
            continue;
        if (first != SIZE_MAX && prev != SIZE_MAX) {
            struct scrape_class both = s->classes[prev];
            class_hold_time(&both, s->classes[i].tod);
            class_hold_time(&both, (s->classes[i].tod + s->classes[i].tod_span) % DAY_SECONDS);
            if (both.tod_span < best) {
                best = both.tod_span;
                into = prev;
                gone = i;
            }
        }
        if (first == SIZE_MAX)
            first = i;
        else
            prev = i;
    }
    struct scrape_class *a = &s->classes[into], *b = &s->classes[gone];
    class_hold_time(a, b->tod);
    class_hold_time(a, (b->tod + b->tod_span) % DAY_SECONDS);
    a->off_last = a->off_last > b->off_last ? a->off_last : b->off_last;
    scrape_run_merge(&a->run, &b->run);
    scrape_run_release(&b->run);
    memmove(b, b + 1, (size_t)(s->classes + s->n_classes - (b + 1)) * sizeof(*b));
    s->n_classes--;
}

/* The class a kept line goes in: its own, else a new one, made room for when the classes
 * are all taken (a slot is kept for the unstamped class). */
static struct scrape_class *class_for(struct scrape_stream *s, const struct scrape_line *l,
                                      uint64_t off)
{
    bool unstamped = false;
    for (size_t i = s->n_classes; i-- > 0;) {
        struct scrape_class *c = &s->classes[i];
        unstamped |= !c->has_time;
        if (c->has_time == l->has_time &&
            (!l->has_time || tod_after(c->tod, l->seconds_of_day) <= c->tod_span))
            return c;
    }
    if (s->n_classes == SCRAPE_CLASSES_MAX - (unstamped || !l->has_time ? 0u : 1u))
        classes_make_room(s);
    struct scrape_class *c = &s->classes[s->n_classes++];
    *c = (struct scrape_class){.has_time = l->has_time, .tod = l->seconds_of_day,
                               .off_first = off};
    return c;
}

static void stream_drop_kept(struct scrape_stream *s)
{
    scrape_run_release(&s->kept);
    for (size_t i = 0; i < s->n_classes; i++)
        scrape_run_release(&s->classes[i].run);
    s->n_classes = 0;
}

/* One complete line of the stream, starting at offset off: counted, and kept when it is
 * a marker line the window known so far may hold. */
static void stream_line(struct scrape_stream *s, const char *line, size_t n, bool cut,
                        uint64_t off)
{
    if (s->line_hook)
        s->line_hook(s->hook_ctx, line, n);
    if (s->so_far && s->so_far->off_start != s->opened) {
        stream_drop_kept(s);
        s->opened = s->so_far->off_start;
    }
    struct scrape_line l;
    parse_counted(&s->counted, s->marker, line, n, cut, &l, s->values);
    if (l.is_marker && in_window(s->so_far, &l, off)) {
        struct scrape_class *c = class_for(s, &l, off);
        c->off_last = off;
        window_add(&c->run, &l);
        window_add(&s->kept, &l);
    }
}

enum fate { FATE_IN, FATE_OUT, FATE_PARTLY };

/* Where f puts all the lines of c: a class's lines start between its first and last
 * offsets, and a stamped one's times lie in its span. */
static enum fate class_fate(const struct scrape_window_filter *f, const struct scrape_class *c)
{
    if (!f)
        return FATE_IN;
    bool all, any;
    if (!c->has_time) {
        all = c->off_first >= f->off_start && c->off_last < f->off_end;
        any = c->off_last >= f->off_start && c->off_first < f->off_end;
    } else {
        int span = tod_after(f->tod_start, f->tod_end);
        int from = tod_after(f->tod_start, c->tod);
        bool written = !f->written_in_window || c->off_first >= f->off_start;
        bool some_written = !f->written_in_window || c->off_last >= f->off_start;
        all = written && from + c->tod_span <= span;
        any = some_written && (from <= span || tod_after(c->tod, f->tod_start) <= c->tod_span);
    }
    return all ? FATE_IN : any ? FATE_PARTLY : FATE_OUT;
}

void scrape_stream_init(struct scrape_stream *s, const char *marker)
{
    memset(s, 0, sizeof(*s));
    s->marker = marker;
    s->line = xmalloc(SCRAPE_LINE_MAX);
    s->values = xmalloc(SCRAPE_VALUES_MAX * sizeof(*s->values));
}

void scrape_stream_feed(struct scrape_stream *s, const char *data, size_t len)
{
    const char *c = data, *end = data + len;
    while (c < end) {
        const char *nl = memchr(c, '\n', (size_t)(end - c));
        size_t seg = (size_t)((nl ? nl : end) - c);
        if (nl && s->n == 0 && !s->cut && seg <= SCRAPE_LINE_MAX) {
            /* the whole line is in the chunk: parse it in place */
            stream_line(s, c, seg, false, s->start);
        } else {
            size_t room = SCRAPE_LINE_MAX - s->n;
            memcpy(s->line + s->n, c, seg < room ? seg : room);
            s->n += seg < room ? seg : room;
            s->cut = s->cut || seg > room;
            if (nl)
                stream_line(s, s->line, s->n, s->cut, s->start);
        }
        if (!nl)
            break;
        s->n = 0;
        s->cut = false;
        c = nl + 1;
        s->start = s->pos + (uint64_t)(c - data);
    }
    s->pos += (uint64_t)len;
}

void scrape_stream_finish(struct scrape_stream *s, const struct scrape_window_filter *f,
                          struct scrape_run *out)
{
    if (s->n > 0 || s->cut) /* the last line had no newline */
        stream_line(s, s->line, s->n, s->cut, s->start);
    s->n = 0;
    s->cut = false;
    enum fate fate[SCRAPE_CLASSES_MAX];
    bool all_in = true;
    for (size_t i = 0; i < s->n_classes; i++) {
        fate[i] = class_fate(f, &s->classes[i]);
        all_in = all_in && fate[i] == FATE_IN;
    }
    if (all_in) {
        scrape_run_merge(out, &s->kept);
    } else {
        for (size_t i = 0; i < s->n_classes; i++) {
            if (fate[i] == FATE_IN)
                scrape_run_merge(out, &s->classes[i].run);
            else if (fate[i] == FATE_PARTLY)
                out->lines_dropped += s->classes[i].run.n_windows;
        }
    }
    stream_drop_kept(s);
    out->lines += s->counted.lines;
    for (int l = 0; l < LOG_LEVELS; l++)
        out->level_counts[l] += s->counted.level_counts[l];
    memset(&s->counted, 0, sizeof(s->counted));
}

void scrape_stream_release(struct scrape_stream *s)
{
    stream_drop_kept(s);
    free(s->line);
    free(s->values);
    memset(s, 0, sizeof(*s));
}

/* A file is a stream whose window is known before it is read. */
int scrape_file(const char *path, const char *marker, const struct scrape_window_filter *f,
                struct scrape_run *out, struct lb_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lb_fail_errno(err, errno, "cannot open '%s'", path);
    char *chunk = xmalloc(READ_CHUNK);
    struct scrape_stream s;
    scrape_stream_init(&s, marker);
    s.so_far = f;
    int rc = 0;
    for (;;) {
        ssize_t got = read(fd, chunk, READ_CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = lb_fail_errno(err, errno, "cannot read '%s'", path);
            break;
        }
        if (got == 0)
            break;
        scrape_stream_feed(&s, chunk, (size_t)got);
    }
    if (rc == 0)
        scrape_stream_finish(&s, f, out);
    scrape_stream_release(&s);
    close(fd);
    free(chunk);
    return rc;
}
