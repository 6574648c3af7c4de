/* What a setter makes of a value: the config document, a string with placeholders replaced
 * (setter.h). */
#include "setter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "settings/server.eventLoopIdleWaitMs": keys hold dots, so slashes separate them. */
static char *key_path_string(char *const *key_path, size_t depth)
{
    size_t len = 1;
    for (size_t i = 0; i < depth; i++)
        len += strlen(key_path[i]) + 1;
    char *s = xmalloc(len);
    size_t at = 0;
    for (size_t i = 0; i < depth; i++) {
        size_t n = strlen(key_path[i]);
        if (i > 0)
            s[at++] = '/';
        memcpy(s + at, key_path[i], n);
        at += n;
    }
    s[at] = '\0';
    return s;
}

json_t *setter_json_parent(json_t *doc, char *const *key_path, size_t depth, size_t *bad,
                           bool *missing)
{
    json_t *o = doc;
    for (size_t i = 0; i + 1 < depth; i++) {
        json_t *next = json_object_get(o, key_path[i]);
        if (!json_is_object(next)) {
            *bad = i;
            *missing = next == NULL;
            return NULL;
        }
        o = next;
    }
    return o;
}

/* value as a new JSON number, or NULL if it is not exactly one. */
static json_t *number_new(const char *value)
{
    json_t *v = json_loads(value, JSON_DECODE_ANY, NULL);
    if (v && !json_is_number(v)) {
        json_decref(v);
        return NULL;
    }
    return v;
}

json_t *setter_json_value(const char *value, enum setter_type type)
{
    return type == SETTER_NUMBER ? number_new(value) : json_string(value);
}

bool setter_is_number(const char *value)
{
    json_t *v = number_new(value);
    json_decref(v);
    return v != NULL;
}

/* jansson prints reals with 17 significant digits, which turns 0.1 into
 * 0.10000000000000001; the fewest digits from 15 that give back every real in the
 * document exactly keep the file as the operator would write it. 0: no reals. */
static int real_precision(json_t *v)
{
    int prec = 0;
    if (json_is_real(v)) {
        double x = json_real_value(v);
        char buf[40];
        for (prec = 15; prec < 17; prec++) {
            snprintf(buf, sizeof(buf), "%.*g", prec, x);
            if (strtod(buf, NULL) == x)
                break;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            int p = real_precision(e);
            prec = p > prec ? p : prec;
        }
    } else if (json_is_object(v)) {
        const char *key;
        json_t *e;
        json_object_foreach(v, key, e) {
            int p = real_precision(e);
            prec = p > prec ? p : prec;
        }
    }
    return prec;
}

int setter_set_json(const char *text, size_t len, char *const *key_path, size_t depth,
                    const char *value, enum setter_type type, char **out, size_t *out_len,
                    struct lb_error *err)
{
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, 0, &jerr);
    if (!doc)
        return lb_fail(err, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
    char *kp = key_path_string(key_path, depth);
    int rc = -1;
    size_t bad;
    bool missing;
    json_t *parent, *v;
    char *dumped;
    if (!json_is_object(doc)) {
        lb_fail(err, "not a JSON object");
        goto out;
    }
    if (depth == 0) {
        lb_fail(err, "empty key path");
        goto out;
    }
    parent = setter_json_parent(doc, key_path, depth, &bad, &missing);
    if (!parent) {
        if (missing)
            lb_fail(err, "missing parent '%s' of key path '%s'", key_path[bad], kp);
        else
            lb_fail(err, "parent '%s' of key path '%s' is not an object", key_path[bad], kp);
        goto out;
    }
    v = setter_json_value(value, type);
    if (!v) {
        lb_fail(err, "value '%s' for key path '%s' is not %s", value, kp,
                type == SETTER_NUMBER ? "a JSON number" : "valid UTF-8");
        goto out;
    }
    if (json_object_set_new(parent, key_path[depth - 1], v) < 0) {
        lb_fail(err, "key path '%s' is not valid UTF-8", kp);
        goto out;
    }
    dumped = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(real_precision(doc)));
    if (!dumped) {
        lb_fail(err, "cannot encode the document with key path '%s'", kp);
        goto out;
    }
    *out = xasprintf("%s\n", dumped);
    *out_len = strlen(*out);
    free(dumped);
    rc = 0;
out:
    free(kp);
    json_decref(doc);
    return rc;
}

char *setter_subst(const char *s, const char *const *from, const char *const *to, size_t n,
                   size_t *hits)
{
    size_t cap = strlen(s) + 1, len = 0;
    char *out = xmalloc(cap);
    while (*s) {
        const char *piece = s;
        size_t piece_len = 1, skip = 1;
        for (size_t i = 0; i < n; i++) {
            size_t fl = strlen(from[i]);
            if (fl > 0 && strncmp(s, from[i], fl) == 0) {
                piece = to[i];
                piece_len = strlen(to[i]);
                skip = fl;
                if (hits)
                    hits[i]++;
                break;
            }
        }
        if (len + piece_len + 1 > cap) {
            cap = 2 * (len + piece_len + 1);
            out = xrealloc(out, cap);
        }
        memcpy(out + len, piece, piece_len);
        len += piece_len;
        s += skip;
    }
    out[len] = '\0';
    return out;
}
