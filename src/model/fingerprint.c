#include "fingerprint.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

const char *const fingerprint_fields[FINGERPRINT_FIELDS] = {
    "cpu_model", "logical_cpus", "kernel", "virtualization", "runner_image"};

void fingerprint_value(const struct plat_host_facts *h, size_t f, char *buf, size_t size)
{
    const char *s = NULL;
    switch (f) {
    case 0:
        s = h->cpu_model;
        break;
    case 1:
        snprintf(buf, size, "%d", h->logical_cpus);
        return;
    case 2:
        s = h->kernel;
        break;
    case 3:
        s = h->virtualization;
        break;
    case 4: /* the image is what the job runs on; the runner's own name is not a host fact */
        snprintf(buf, size, "%s%s%s", h->runner_image_os ? h->runner_image_os : "",
                 h->runner_image_os && h->runner_image_version ? " " : "",
                 h->runner_image_version ? h->runner_image_version : "");
        return;
    }
    snprintf(buf, size, "%s", s ? s : "");
}

/* The words of a CPU's model that tell it from another: its vendor's name and marks,
 * the words "CPU" and "Processor", a core count and the nominal clock go. */
static void model_words(const char *model, char *buf, size_t size)
{
    static const char *const dropped[] = {"AMD", "Intel", "CPU", "Processor"};
    size_t len = 0;
    buf[0] = '\0';
    for (const char *p = model; *p;) {
        size_t n = strcspn(p, " ");
        char word[64];
        snprintf(word, sizeof(word), "%.*s", (int)(n < 63 ? n : 63), p);
        p += n + (p[n] == ' ');
        if (strcmp(word, "@") == 0)
            break;
        for (char *m, *e; (m = strchr(word, '(')) && (e = strchr(m, ')'));) /* (R), (TM) */
            memmove(m, e + 1, strlen(e + 1) + 1);
        bool drop = !*word || strstr(word, "-Core");
        for (size_t k = 0; k < ARRAY_SIZE(dropped) && !drop; k++)
            drop = strcmp(word, dropped[k]) == 0;
        if (!drop && len < size)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "", word);
    }
}

/* A string snprintf cut at size - 1 bytes, cut again to end on a whole UTF-8 character. */
static void cut_utf8(char *s, size_t size)
{
    size_t len = size - 1, lead = len;
    while (lead > 0 && ((unsigned char)s[lead - 1] & 0xc0) == 0x80)
        lead--;
    if (lead == 0)
        return;
    unsigned char c = (unsigned char)s[--lead];
    size_t need = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    if (lead + need > len)
        s[lead] = '\0';
}

void fingerprint_compute(const struct plat_host_facts *h, struct host_fingerprint *out)
{
    uint64_t hash = FNV1A64_OFFSET;
    char value[2 * PLAT_RUNNER_NAME_MAX + 256];
    for (size_t f = 0; f < FINGERPRINT_FIELDS; f++) {
        fingerprint_value(h, f, value, sizeof(value));
        hash = hash_fnv1a64(fingerprint_fields[f], strlen(fingerprint_fields[f]), hash);
        hash = hash_fnv1a64("=", 1, hash);
        hash = hash_fnv1a64(value, strlen(value), hash);
        hash = hash_fnv1a64("\n", 1, hash);
    }
    snprintf(out->id, sizeof(out->id), "%08x", (unsigned)((hash >> 32) ^ (hash & 0xffffffffu)));

    char model[128], kernel[32], image[sizeof(value)];
    model_words(h->cpu_model ? h->cpu_model : "", model, sizeof(model));
    /* the release to its minor version: what a reader tells kernels by */
    const char *k = h->kernel ? h->kernel : "";
    const char *dot = strchr(k, '.');
    size_t klen = dot ? strcspn(dot + 1, ".-+_ ") + (size_t)(dot + 1 - k) : strcspn(k, "-+_ ");
    snprintf(kernel, sizeof(kernel), "%.*s", (int)(klen < 31 ? klen : 31), k);
    fingerprint_value(h, 4, image, sizeof(image));
    if (snprintf(out->short_name, sizeof(out->short_name), "%s x%d, %s%s%s%s%s",
                 *model ? model : "unknown CPU", h->logical_cpus,
                 *kernel ? kernel : "unknown kernel", h->virtualization ? ", " : "",
                 h->virtualization ? h->virtualization : "", *image ? ", " : "",
                 image) >= (int)sizeof(out->short_name))
        cut_utf8(out->short_name, sizeof(out->short_name));
}

int fingerprint_first_difference(const struct plat_host_facts *a,
                                 const struct plat_host_facts *b)
{
    char va[2 * PLAT_RUNNER_NAME_MAX + 256], vb[sizeof(va)];
    for (size_t f = 0; f < FINGERPRINT_FIELDS; f++) {
        fingerprint_value(a, f, va, sizeof(va));
        fingerprint_value(b, f, vb, sizeof(vb));
        if (strcmp(va, vb) != 0)
            return (int)f;
    }
    return -1;
}

json_t *fingerprint_json(const struct host_fingerprint *fp)
{
    json_t *fields = json_array();
    for (size_t f = 0; f < FINGERPRINT_FIELDS; f++)
        json_array_append_new(fields, json_string(fingerprint_fields[f]));
    return json_pack("{s:s, s:s, s:o}", "id", fp->id, "short", fp->short_name, "fields", fields);
}
