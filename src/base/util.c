#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "compat.h"

static void oom(void)
{
    fputs("loopbench: out of memory\n", stderr);
    abort();
}

void *xcheck(void *p)
{
    if (!p)
        oom();
    return p;
}

void free_all(void *const *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(p[i]);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size ? size : 1);
    if (!p)
        oom();
    return p;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        oom();
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    const char *nul = memchr(s, '\0', n);
    size_t len = nul ? (size_t)(nul - s) : n;
    char *p = xmalloc(len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = NULL;
    int n = vasprintf(&p, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom();
    return p;
}

void strv_push_owned(struct strv *sv, char *s)
{
    if (sv->n + 2 > sv->cap) {
        sv->cap = sv->cap ? sv->cap * 2 : 8;
        sv->v = xrealloc(sv->v, sv->cap * sizeof(*sv->v));
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
}

void strv_push(struct strv *sv, const char *s)
{
    strv_push_owned(sv, xstrdup(s));
}

void strv_release(struct strv *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

uint64_t mono_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

uint64_t wall_ns(void)
{
    return clock_ns(CLOCK_REALTIME);
}

int parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int parse_long(const char *s, long min, long max, long *out)
{
    int64_t v;
    if (parse_int64(s, min, max, &v) < 0)
        return -1;
    *out = (long)v;
    return 0;
}

int read_fd(int fd, const char *path, size_t max, char **data, size_t *len, struct lb_error *err)
{
    size_t cap = 4096, n = 0;
    char *buf = xmalloc(cap);
    while (n < max) {
        if (n + 1 >= cap) {
            cap = cap * 2 - 1 < max ? cap * 2 : max + 1;
            buf = xrealloc(buf, cap);
        }
        size_t want = cap - n - 1 < max - n ? cap - n - 1 : max - n;
        ssize_t r = read(fd, buf + n, want);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            return lb_fail_errno(err, e, "cannot read '%s'", path);
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    *data = buf;
    if (len)
        *len = n;
    return 0;
}

int read_file(const char *path, char **data, size_t *len, struct lb_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lb_fail_errno(err, errno, "cannot open '%s'", path);
    int rc = read_fd(fd, path, SIZE_MAX - 1, data, len, err);
    close(fd);
    return rc;
}

char *read_back(FILE *f, size_t *len, struct lb_error *err)
{
    long size = ftell(f);
    char *text = size >= 0 ? xmalloc((size_t)size + 1) : NULL;
    if (!text || fflush(f) != 0 || fseek(f, 0, SEEK_SET) != 0 ||
        fread(text, 1, (size_t)size, f) != (size_t)size) {
        lb_fail_errno(err, errno, "cannot read back a temporary file");
        free(text);
        fclose(f);
        return NULL;
    }
    fclose(f);
    text[size] = '\0';
    if (len)
        *len = (size_t)size;
    return text;
}

char *format_hostport(const char *host, int port)
{
    return xasprintf(strchr(host, ':') ? "[%s]:%d" : "%s:%d", host, port);
}

uint64_t hash_fnv1a64(const void *data, size_t len, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

void hash_fnv1a64_hex(const void *data, size_t len, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)hash_fnv1a64(data, len, FNV1A64_OFFSET));
}

const char *name_of(const char *const *names, size_t n, size_t i)
{
    return i < n && names[i] ? names[i] : "unknown";
}

int name_index(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (names[i] && strcmp(names[i], name) == 0)
            return (int)i;
    return -1;
}

void str_table_init(struct str_table *t, size_t n)
{
    size_t slots = 16;
    while (slots < 2 * n) /* at most half full: probes stay short */
        slots *= 2;
    t->keys = xcalloc(slots, sizeof(*t->keys));
    t->values = xcalloc(slots, sizeof(*t->values));
    t->mask = slots - 1;
}

/* The slot of key: where it is, or the empty one where it would go. */
static size_t str_table_slot(const struct str_table *t, const char *key)
{
    size_t i = (size_t)hash_fnv1a64(key, strlen(key), FNV1A64_OFFSET) & t->mask;
    while (t->keys[i] && strcmp(t->keys[i], key) != 0)
        i = (i + 1) & t->mask;
    return i;
}

size_t str_table_add(struct str_table *t, const char *key, size_t value)
{
    size_t i = str_table_slot(t, key);
    if (!t->keys[i]) {
        t->keys[i] = key;
        t->values[i] = value;
    }
    return t->values[i];
}

long str_table_find(const struct str_table *t, const char *key)
{
    size_t i = str_table_slot(t, key);
    return t->keys[i] ? (long)t->values[i] : -1;
}

void str_table_release(struct str_table *t)
{
    free(t->keys);
    free(t->values);
    memset(t, 0, sizeof(*t));
}

json_t *json_num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

json_t *strv_json(const struct strv *sv)
{
    json_t *a = json_array();
    for (size_t i = 0; i < sv->n; i++)
        json_array_append_new(a, json_string(sv->v[i]));
    return a;
}

void format_utc(uint64_t wall, bool compact, char *out, size_t outlen)
{
    time_t t = (time_t)(wall / NS_PER_SEC);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, outlen, compact ? "%Y%m%dT%H%M%SZ" : "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar (Howard Hinnant's
 * days_from_civil), so parsing needs neither strptime nor timegm, which Windows lacks. */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

int parse_utc(const char *s, uint64_t *wall)
{
    static const unsigned month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    unsigned y, mo, d, h, mi, sec;
    int end = 0;
    if (strlen(s) != 20 || sscanf(s, "%4u-%2u-%2uT%2u:%2u:%2uZ%n", &y, &mo, &d, &h, &mi, &sec, &end) != 6 ||
        end != 20)
        return -1;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] ||
        (mo == 2 && d == 29 && !leap) || h > 23 || mi > 59 || sec > 60)
        return -1;
    int64_t days = days_from_civil(y, mo, d);
    *wall = ((uint64_t)days * 86400 + h * 3600ULL + mi * 60ULL + sec) * NS_PER_SEC;
    return 0;
}
