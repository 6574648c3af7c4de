#include "settings.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_LISTENER "127.0.0.1:2593"

enum setting_type { SETTING_LONG, SETTING_BOOL };

struct setting {
    const char *key;
    const char *def;
    enum setting_type type;
    long min, max;
    size_t offset; /* of the field in struct settings */
};

#define FIELD(f) offsetof(struct settings, f)

static const struct setting table[] = {
    {"server.eventLoopIdleWaitMs", "2", SETTING_LONG, 0, 1000, FIELD(idle_wait_ms)},
    {"server.loopStatsIntervalSeconds", "0", SETTING_LONG, 0, 86400, FIELD(stats_interval_s)},
    {"server.lateWakeThreshold", "1", SETTING_LONG, 0, LONG_MAX, FIELD(late_wake_threshold)},
    {"server.lateWakePercent", "10", SETTING_LONG, 0, 100, FIELD(late_wake_percent)},
    {"server.autoDetectIdleWait", "True", SETTING_BOOL, 0, 1, FIELD(auto_detect_idle_wait)},
    {"refshard.timers", "200", SETTING_LONG, 0, 1000000, FIELD(timers)},
    {"refshard.timerMinMs", "100", SETTING_LONG, 1, 86400000, FIELD(timer_min_ms)},
    {"refshard.timerMaxMs", "5000", SETTING_LONG, 1, 86400000, FIELD(timer_max_ms)},
    {"refshard.workPerTickUs", "0", SETTING_LONG, 0, 1000000, FIELD(work_per_tick_us)},
    {"refshard.workPerTimerUs", "0", SETTING_LONG, 0, 1000000, FIELD(work_per_timer_us)},
    {"refshard.postsPerSecond", "10", SETTING_LONG, 0, 100000, FIELD(posts_per_second)},
};

/* Decimal digits with an optional sign, nothing around them. */
static int parse_long(const char *text, long *out)
{
    const char *p = text + (*text == '-' || *text == '+');
    if (*p < '0' || *p > '9')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_setting(const struct setting *st, const char *text, struct settings *s,
                         const char *path, struct rs_error *err)
{
    if (st->type == SETTING_BOOL) {
        bool *field = (bool *)((char *)s + st->offset);
        if (strcasecmp(text, "true") == 0)
            *field = true;
        else if (strcasecmp(text, "false") == 0)
            *field = false;
        else
            return rs_fail(err,
                           "invalid boolean '%s' for '%s' in '%s' (expected \"True\" or "
                           "\"False\")",
                           text, st->key, path);
        return 0;
    }
    long v;
    if (parse_long(text, &v) < 0)
        return rs_fail(err, "invalid number '%s' for '%s' in '%s'", text, st->key, path);
    if (v < st->min || v > st->max)
        return rs_fail(err, "value %ld out of range for '%s' in '%s' (expected %ld to %ld)", v,
                       st->key, path, st->min, st->max);
    *(long *)((char *)s + st->offset) = v;
    return 0;
}

/* Each setting from the "settings" object, the missing ones added with their defaults. */
static int load_settings(json_t *root, struct settings *s, const char *path, unsigned *added,
                         struct rs_error *err)
{
    json_t *obj = json_object_get(root, "settings");
    if (!obj) {
        obj = json_object();
        json_object_set_new(root, "settings", obj);
    } else if (!json_is_object(obj)) {
        return rs_fail(err, "invalid 'settings' in '%s' (expected an object)", path);
    }

    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        const struct setting *st = &table[i];
        json_t *v = json_object_get(obj, st->key);
        if (!v) {
            json_object_set_new(obj, st->key, json_string(st->def));
            (*added)++;
            v = json_object_get(obj, st->key);
        }
        if (!json_is_string(v))
            return rs_fail(err,
                           "invalid value for '%s' in '%s' (expected a string such as "
                           "\"%s\")",
                           st->key, path, st->def);
        if (parse_setting(st, json_string_value(v), s, path, err) < 0)
            return -1;
    }
    if (s->timer_max_ms < s->timer_min_ms)
        return rs_fail(err,
                       "value %ld too small for 'refshard.timerMaxMs' in '%s' (expected at "
                       "least refshard.timerMinMs, %ld)",
                       s->timer_max_ms, path, s->timer_min_ms);
    return 0;
}

/* "a.b.c.d:port" */
static int parse_listener(const char *text, struct settings_listener *l, const char *path,
                          struct rs_error *err)
{
    const char *colon = strrchr(text, ':');
    long port;
    if (!colon || (size_t)(colon - text) >= sizeof(l->host) || parse_long(colon + 1, &port) < 0 ||
        port < 0 || port > 65535)
        return rs_fail(err, "invalid listener '%s' in '%s' (expected \"host:port\")", text, path);
    memcpy(l->host, text, (size_t)(colon - text));
    l->host[colon - text] = '\0';
    struct in_addr addr;
    if (inet_pton(AF_INET, l->host, &addr) != 1)
        return rs_fail(err, "invalid listener '%s' in '%s' (expected an IPv4 address)", text, path);
    l->port = (uint16_t)port;
    return 0;
}

static int load_listeners(json_t *root, struct settings *s, const char *path, unsigned *added,
                          struct rs_error *err)
{
    json_t *arr = json_object_get(root, "listeners");
    if (!arr) {
        arr = json_pack("[s]", DEFAULT_LISTENER);
        json_object_set_new(root, "listeners", arr);
        (*added)++;
    }
    if (!json_is_array(arr) || json_array_size(arr) == 0 ||
        json_array_size(arr) > SETTINGS_LISTENERS_MAX)
        return rs_fail(err,
                       "invalid 'listeners' in '%s' (expected an array of 1 to %d "
                       "\"host:port\" strings)",
                       path, SETTINGS_LISTENERS_MAX);
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_string(v))
            return rs_fail(err, "invalid listener in '%s' (expected a \"host:port\" string)", path);
        if (parse_listener(json_string_value(v), &s->listeners[i], path, err) < 0)
            return -1;
    }
    s->n_listeners = (unsigned)json_array_size(arr);
    return 0;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Replace path with root: a temp file beside it, synced, then renamed over it, so a reader
 * (or a crash) never sees half a file. The file keeps its mode. */
static int save(json_t *root, const char *path, struct rs_error *err)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return rs_fail_errno(err, errno, "cannot stat config '%s'", path);
    char *text = json_dumps(root, JSON_INDENT(2));
    size_t tmp_len = strlen(path) + sizeof(".XXXXXX");
    char *tmp = malloc(tmp_len);
    if (!text || !tmp) {
        free(text);
        free(tmp);
        return rs_fail(err, "out of memory writing config '%s'", path);
    }
    snprintf(tmp, tmp_len, "%s.XXXXXX", path);

    int rc = -1;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rs_fail_errno(err, errno, "cannot create a temporary file beside '%s'", path);
        goto out;
    }
    if (write_all(fd, text, strlen(text)) < 0 || write_all(fd, "\n", 1) < 0 ||
        fchmod(fd, st.st_mode & 07777) < 0 || fsync(fd) < 0) {
        rs_fail_errno(err, errno, "cannot write config '%s'", tmp);
        close(fd);
        unlink(tmp);
        goto out;
    }
    close(fd);
    if (rename(tmp, path) < 0) {
        rs_fail_errno(err, errno, "cannot replace config '%s'", path);
        unlink(tmp);
        goto out;
    }
    rc = 0;
out:
    free(tmp);
    free(text);
    return rc;
}

int settings_load(struct settings *s, const char *path, unsigned *added, struct rs_error *err)
{
    *s = (struct settings){0};
    *added = 0;

    FILE *f = fopen(path, "r");
    if (!f)
        return rs_fail_errno(err, errno, "cannot read config '%s'", path);
    json_error_t jerr;
    json_t *root = json_loadf(f, 0, &jerr);
    fclose(f);
    if (!root)
        return rs_fail(err, "invalid JSON in config '%s' line %d column %d: %s", path, jerr.line,
                       jerr.column, jerr.text);

    int rc = -1;
    if (!json_is_object(root)) {
        rs_fail(err, "invalid config '%s' (expected a JSON object)", path);
        goto out;
    }
    if (load_listeners(root, s, path, added, err) < 0 ||
        load_settings(root, s, path, added, err) < 0)
        goto out;
    if (*added > 0 && save(root, path, err) < 0)
        goto out;
    rc = 0;
out:
    json_decref(root);
    return rc;
}
