/* Unit tests of src/measure/confedit.c: JSON edits keep everything else, config files come back
 * byte for byte, every run starts from the operator's original, and argv and the
 * environment get the values where the profile says. */
#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "confedit.h"
#include "platform/files.h"
#include "platform/platform.h"
#include "profile.h"
#include "setter.h"
#include "testlib.h"
#include "util.h"

static void put(const char *path, const char *text, unsigned mode)
{
    struct lb_error err;
    ck_assert_msg(write_file_atomic(path, text, strlen(text), mode, &err) == 0, "%s", err.msg);
}

/* Byte-exact comparison of a file with what it should hold, and its permission bits. */
static void assert_file(const char *path, const char *want, size_t want_len, unsigned mode)
{
    char *got;
    size_t len;
    struct lb_error err;
    struct stat st;
    ck_assert_msg(read_file(path, &got, &len, &err) == 0, "%s", err.msg);
    ck_assert_msg(len == want_len && memcmp(got, want, len) == 0, "%s:\n got: [%s]\nwant: [%s]",
                  path, got, want);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, testlib_mode_kept(mode));
    free(got);
}

static ino_t inode(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return st.st_ino;
}

/* setter_set_json on text, expected to succeed; new string. */
static char *set(const char *text, const char *const *path, size_t depth, const char *value,
                 enum setter_type type)
{
    char *out;
    size_t len;
    struct lb_error err;
    ck_assert_msg(setter_set_json(text, strlen(text), (char *const *)path, depth, value, type, &out,
                                  &len, &err) == 0,
                  "%s", err.msg);
    ck_assert_uint_eq(len, strlen(out));
    return out;
}

static void assert_set_fails(const char *text, const char *const *path, size_t depth,
                             const char *value, enum setter_type type, const char *want)
{
    char *out = NULL;
    size_t len;
    struct lb_error err;
    ck_assert_int_eq(setter_set_json(text, strlen(text), (char *const *)path, depth, value, type,
                                     &out, &len, &err),
                     -1);
    ck_assert_str_eq(err.msg, want);
    ck_assert_ptr_null(out);
}

static const char *const idle_path[] = {"settings", "server.eventLoopIdleWaitMs"};

START_TEST(test_set_string)
{
    char *out = set("{\"settings\": {\"server.eventLoopIdleWaitMs\": \"2\", \"b\": \"x\"}}",
                    idle_path, 2, "8", SETTER_STRING);
    ck_assert_str_eq(out, "{\n"
                          "  \"settings\": {\n"
                          "    \"server.eventLoopIdleWaitMs\": \"8\",\n"
                          "    \"b\": \"x\"\n"
                          "  }\n"
                          "}\n");
    free(out);
}
END_TEST

START_TEST(test_set_number)
{
    static const char *const top[] = {"n"};
    const char *in = "{\"n\": \"2\", \"r\": 0.1}";
    char *out = set(in, top, 1, "4", SETTER_NUMBER);
    ck_assert_str_eq(out, "{\n  \"n\": 4,\n  \"r\": 0.1\n}\n");
    free(out);
    /* Reals keep the digits a person wrote, not 17 of them. */
    out = set(in, top, 1, "0.3", SETTER_NUMBER);
    ck_assert_str_eq(out, "{\n  \"n\": 0.3,\n  \"r\": 0.1\n}\n");
    free(out);
    out = set(in, top, 1, "-2.5e3", SETTER_NUMBER);
    ck_assert_str_eq(out, "{\n  \"n\": -2500.0,\n  \"r\": 0.1\n}\n");
    free(out);
    assert_set_fails(in, top, 1, "fast", SETTER_NUMBER,
                     "value 'fast' for key path 'n' is not a JSON number");
    assert_set_fails(in, top, 1, "0x10", SETTER_NUMBER,
                     "value '0x10' for key path 'n' is not a JSON number");
    ck_assert(setter_is_number("-0.5"));
    ck_assert(!setter_is_number("\"2\""));
    ck_assert(!setter_is_number(""));
}
END_TEST

START_TEST(test_set_nested_adds_leaf)
{
    static const char *const deep[] = {"a", "b", "new"};
    char *out = set("{\"a\": {\"b\": {\"c\": 1}, \"d\": 2}}", deep, 3, "x", SETTER_STRING);
    ck_assert_str_eq(out, "{\n"
                          "  \"a\": {\n"
                          "    \"b\": {\n"
                          "      \"c\": 1,\n"
                          "      \"new\": \"x\"\n"
                          "    },\n"
                          "    \"d\": 2\n"
                          "  }\n"
                          "}\n");
    free(out);
}
END_TEST

/* A server keeps settings it does not know (ModernUO's extension data): so must we, and
 * in the order they were. */
START_TEST(test_set_keeps_order_and_unknown_keys)
{
    static const char *const path[] = {"alpha", "b"};
    char *out = set("{\"zeta\": true, \"alpha\": {\"y\": null, \"b\": \"old\"}, "
                    "\"ext\": [1, {\"k\": \"v\"}], \"unicode\": \"caf\xc3\xa9\"}",
                    path, 2, "new", SETTER_STRING);
    ck_assert_str_eq(out, "{\n"
                          "  \"zeta\": true,\n"
                          "  \"alpha\": {\n"
                          "    \"y\": null,\n"
                          "    \"b\": \"new\"\n"
                          "  },\n"
                          "  \"ext\": [\n"
                          "    1,\n"
                          "    {\n"
                          "      \"k\": \"v\"\n"
                          "    }\n"
                          "  ],\n"
                          "  \"unicode\": \"caf\xc3\xa9\"\n"
                          "}\n");
    free(out);
}
END_TEST

START_TEST(test_set_errors)
{
    const char *cfg = "{\"listeners\": [\"0.0.0.0:2593\"], \"settings\": {}}";
    static const char *const missing[] = {"setting", "x"};
    static const char *const not_object[] = {"listeners", "x"};
    assert_set_fails(cfg, missing, 2, "1", SETTER_STRING,
                     "missing parent 'setting' of key path 'setting/x'");
    assert_set_fails(cfg, not_object, 2, "1", SETTER_STRING,
                     "parent 'listeners' of key path 'listeners/x' is not an object");
    assert_set_fails("[1]", idle_path, 2, "1", SETTER_STRING, "not a JSON object");
    assert_set_fails("{\"a\": }", idle_path, 2, "1", SETTER_STRING,
                     "line 1 column 7: unexpected token near '}'");
}
END_TEST

/* A profile written into the current directory and loaded. */
static void load(const char *json, struct profile *p)
{
    struct lb_error err;
    put("p.json", json, 0644);
    ck_assert_msg(profile_load("p.json", p, &err) == 0, "%s", err.msg);
}

/* Odd spacing, CRLF, no final newline: none of it may survive anywhere but in restore. */
static const char odd_config[] = "{ \"listeners\":[\"0.0.0.0:2593\"],\r\n"
                                 "\t\"settings\" : {\"server.eventLoopIdleWaitMs\":\"2\"} ,"
                                 "\"ext\":{\"keep\":1}}";

static const char config_profile[] =
    "{\"command\": [\"./srv\"],"
    " \"knob\": {\"name\": \"idle\", \"values\": [\"0\", \"4\"], \"config\": {\"file\": "
    "\"cfg.json\", \"path\": [\"settings\", \"server.eventLoopIdleWaitMs\"]}},"
    " \"fixed\": [{\"name\": \"stats\", \"value\": \"15\", \"config\": {\"file\": \"cfg.json\","
    " \"path\": [\"settings\", \"server.loopStatsIntervalSeconds\"], \"type\": \"number\"}}],"
    " \"ready\": {\"delay\": 0}}";

static char *applied(const char *value)
{
    return xasprintf("{\n"
                     "  \"listeners\": [\n"
                     "    \"0.0.0.0:2593\"\n"
                     "  ],\n"
                     "  \"settings\": {\n"
                     "    \"server.eventLoopIdleWaitMs\": \"%s\",\n"
                     "    \"server.loopStatsIntervalSeconds\": 15\n"
                     "  },\n"
                     "  \"ext\": {\n"
                     "    \"keep\": 1\n"
                     "  }\n"
                     "}\n",
                     value);
}

START_TEST(test_round_trip_byte_identical)
{
    testlib_case_dir();
    put("cfg.json", odd_config, 0640);
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    load(config_profile, &p);
    ino_t before = inode("cfg.json");

    ck_assert_msg(confedit_begin(&ce, &p, NULL, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(ce.n_files, 1);
    ck_assert_int_eq(inode("cfg.json"), before); /* begin writes nothing */
    ck_assert_msg(confedit_apply(&ce, &p, "4", &err) == 0, "%s", err.msg);
    char *want = applied("4");
    assert_file("cfg.json", want, strlen(want), 0640);
    ck_assert_msg(confedit_restore(&ce, &err) == 0, "%s", err.msg);
    assert_file("cfg.json", odd_config, strlen(odd_config), 0640);
    free(want);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

/* ModernUO rewrites its config at start-up; the operator must still get theirs back. */
START_TEST(test_restore_after_target_rewrote)
{
    testlib_case_dir();
    put("cfg.json", odd_config, 0640);
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    load(config_profile, &p);
    ck_assert_int_eq(confedit_begin(&ce, &p, NULL, &err), 0);
    ck_assert_int_eq(confedit_apply(&ce, &p, "0", &err), 0);
    put("cfg.json", "{\"rewritten\": true}\n", 0600);
    ck_assert_msg(confedit_restore(&ce, &err) == 0, "%s", err.msg);
    assert_file("cfg.json", odd_config, strlen(odd_config), 0640);
    /* Restoring twice is harmless. */
    ck_assert_int_eq(confedit_restore(&ce, &err), 0);
    assert_file("cfg.json", odd_config, strlen(odd_config), 0640);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

START_TEST(test_apply_starts_from_original)
{
    testlib_case_dir();
    put("cfg.json", odd_config, 0640);
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    load(config_profile, &p);
    ck_assert_int_eq(confedit_begin(&ce, &p, NULL, &err), 0);
    ck_assert_int_eq(confedit_apply(&ce, &p, "0", &err), 0);
    /* What a target adds to its config must not leak into the next run. */
    put("cfg.json", "{\"settings\": {\"server.eventLoopIdleWaitMs\": \"0\", \"added\": \"1\"}}",
        0600);
    ck_assert_int_eq(confedit_apply(&ce, &p, "4", &err), 0);
    char *want = applied("4");
    assert_file("cfg.json", want, strlen(want), 0640);
    free(want);
    ck_assert_int_eq(confedit_restore(&ce, &err), 0);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

START_TEST(test_restore_leaves_identical_file_alone)
{
    testlib_case_dir();
    put("cfg.json", odd_config, 0640);
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    load(config_profile, &p);
    ck_assert_int_eq(confedit_begin(&ce, &p, NULL, &err), 0);
    ck_assert_int_eq(confedit_apply(&ce, &p, "4", &err), 0);
    /* The original put back in place, as an editor would. */
    FILE *f = fopen("cfg.json", "w");
    ck_assert_ptr_nonnull(f);
    fputs(odd_config, f);
    fclose(f);
    ino_t same = inode("cfg.json");
    ck_assert_int_eq(confedit_restore(&ce, &err), 0);
    ck_assert_int_eq(inode("cfg.json"), same);
    /* A mode change alone is restored. */
    ck_assert_int_eq(chmod("cfg.json", 0644), 0);
    ck_assert_int_eq(confedit_restore(&ce, &err), 0);
    assert_file("cfg.json", odd_config, strlen(odd_config), 0640);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

/* One file that cannot be restored must not keep the others from being restored. */
START_TEST(test_restore_keeps_going)
{
    const char *dir = testlib_case_dir();
    put("a.json", "{\"a\": 1}", 0644);
    put("b.json", "{\"b\": 1}", 0644);
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    load("{\"command\": [\"./srv\"],"
         " \"knob\": {\"name\": \"b\", \"values\": [\"0\"], \"config\": {\"file\": \"b.json\","
         " \"path\": [\"b\"]}},"
         " \"fixed\": [{\"name\": \"a\", \"value\": \"0\", \"config\": {\"file\": \"a.json\","
         " \"path\": [\"a\"]}}],"
         " \"ready\": {\"delay\": 0}}",
         &p);
    ck_assert_int_eq(confedit_begin(&ce, &p, NULL, &err), 0);
    ck_assert_uint_eq(ce.n_files, 2);
    ck_assert_int_eq(confedit_apply(&ce, &p, "0", &err), 0);
    /* a.json is restored first and fails: a directory stands in its place. */
    ck_assert_int_eq(unlink("a.json"), 0);
    ck_assert_int_eq(plat_mkdir("a.json", 0755), 0);
    put("a.json/inside", "x", 0644);
    ck_assert_int_eq(confedit_restore(&ce, &err), -1);
    /* The reason is the system's ("Is a directory" on Linux, "Permission denied" on
     * Windows), and so is the separator before the name. */
    char *want = xasprintf("cannot replace '%s", dir);
    ck_assert_msg(strncmp(err.msg, want, strlen(want)) == 0 && strstr(err.msg, "a.json': "),
                  "%s", err.msg);
    assert_file("b.json", "{\"b\": 1}", 8, 0644);
    free(want);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

/* cfg.json, a symbolic link to real/cfg.json holding odd_config, taken by ce for p. */
static void begin_linked(struct profile *p, struct confedit *ce)
{
    struct lb_error err;
    testlib_case_dir();
    ck_assert_int_eq(plat_mkdir("real", 0755), 0);
    put("real/cfg.json", odd_config, 0640);
    ck_assert_int_eq(symlink("real/cfg.json", "cfg.json"), 0);
    load(config_profile, p);
    ck_assert_int_eq(confedit_begin(ce, p, NULL, &err), 0);
}

/* cfg.json is the link to real/cfg.json it was, and that holds want (mode 0640). */
static void assert_linked(const char *want)
{
    char *link = plat_link_text("cfg.json");
    ck_assert_msg(link && strcmp(link, "real/cfg.json") == 0,
                  "cfg.json is no link to real/cfg.json");
    free(link);
    assert_file("real/cfg.json", want, strlen(want), 0640);
}

/* An operator's config that is a symlink stays one, pointing where it pointed. */
START_TEST(test_symlinked_config_stays_a_link)
{
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    begin_linked(&p, &ce);
    ck_assert_int_eq(confedit_apply(&ce, &p, "4", &err), 0);
    char *want = applied("4");
    assert_linked(want);
    ck_assert_int_eq(confedit_restore(&ce, &err), 0);
    assert_linked(odd_config);
    free(want);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

/* What a target that saves its config as refshard does leaves at path: a new file
 * renamed over it. */
static void target_saves_by_rename(const char *path)
{
    char *tmp = xasprintf("%s.saved", path);
    put(tmp, "{\"saved by\": \"the target\"}\n", 0600);
    ck_assert_int_eq(rename(tmp, path), 0);
    free(tmp);
}

/* A target that saves its config by renaming a file over it (refshard, when settings are
 * missing) replaces the operator's link: the next run's value and the restore go where
 * the link led, and the link is put back. */
START_TEST(test_link_replaced_by_target)
{
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    begin_linked(&p, &ce);
    ck_assert_int_eq(confedit_apply(&ce, &p, "4", &err), 0);
    target_saves_by_rename("cfg.json");
    ck_assert_int_eq(confedit_apply(&ce, &p, "8", &err), 0);
    char *want = applied("8");
    assert_linked(want);
    target_saves_by_rename("cfg.json");
    ck_assert_msg(confedit_restore(&ce, &err) == 0, "%s", err.msg);
    assert_linked(odd_config);
    free(want);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

START_TEST(test_begin_needs_the_file)
{
    const char *dir = testlib_case_dir();
    put("cfg.json", odd_config, 0640);
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    load(config_profile, &p);
    ck_assert_int_eq(unlink("cfg.json"), 0);
    ck_assert_int_eq(confedit_begin(&ce, &p, NULL, &err), -1);
    char *want = xasprintf("cannot access '%s/cfg.json': No such file or directory", dir);
    ck_assert_str_eq(err.msg, want);
    ck_assert_uint_eq(ce.n_files, 0);
    free(want);
    profile_release(&p);
}
END_TEST

/* The operator's file changed between load and run: the error names it. */
START_TEST(test_apply_error_names_file)
{
    const char *dir = testlib_case_dir();
    put("cfg.json", odd_config, 0640);
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    load(config_profile, &p);
    put("cfg.json", "{\"listeners\": []}", 0640);
    ck_assert_int_eq(confedit_begin(&ce, &p, NULL, &err), 0);
    ck_assert_int_eq(confedit_apply(&ce, &p, "4", &err), -1);
    char *want = xasprintf("config '%s/cfg.json': missing parent 'settings' of key path "
                           "'settings/server.loopStatsIntervalSeconds'",
                           dir);
    ck_assert_str_eq(err.msg, want);
    assert_file("cfg.json", "{\"listeners\": []}", 17, 0640);
    free(want);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

/* What the target saves of applied("4"): loaded, a setting added, saved pretty. */
static const char target_saved[] =
    "{\n    \"settings\": {\n        \"server.eventLoopIdleWaitMs\": "
    "\"4\",\n        \"server.loopStatsIntervalSeconds\": 15,\n"
    "        \"added\": \"by the target\"\n    },\n    "
    "\"listeners\": [\"0.0.0.0:2593\"],\n    \"ext\": {\"keep\": 1}\n}\n";

/* ce (odd_config in cfg.json, p's knob at 4) begun and applied. */
static void begin_applied(struct profile *p, struct confedit *ce)
{
    struct lb_error err;
    testlib_case_dir();
    put("cfg.json", odd_config, 0640);
    load(config_profile, p);
    ck_assert_msg(confedit_begin(ce, p, NULL, &err) == 0, "%s", err.msg);
    ck_assert_msg(confedit_apply(ce, p, "4", &err) == 0, "%s", err.msg);
}

/* A version the target wrote is recorded once it is JSON: a save that has only
 * truncated the file, or written half of it, is never taken for the target's. */
START_TEST(test_note_records_complete_saves)
{
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    begin_applied(&p, &ce);
    const struct journal *j = &ce.files[0].journal;
    size_t n = j->n_known;
    static const char *const cut[] = {"", "{\n    \"settings\": {\n        \"server."};
    for (size_t i = 0; i < 2; i++) {
        put("cfg.json", cut[i], 0640);
        ck_assert_msg(confedit_note_target(&ce, false, &err) == 0, "%s", err.msg);
        ck_assert_uint_eq(j->n_known, n);
        ck_assert(!journal_is_ours(j, cut[i], strlen(cut[i])));
    }
    /* A tick looks again at a file that changed. */
    put("cfg.json", target_saved, 0640);
    ck_assert_msg(confedit_note_target(&ce, true, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(j->n_known, n + 1);
    /* ... on disk before it returns */
    struct journal k;
    bool found;
    ck_assert_msg(journal_load("cfg.json", &k, &found, &err) == 0, "%s", err.msg);
    ck_assert(found && journal_is_ours(&k, target_saved, strlen(target_saved)));
    journal_release(&k);
    ck_assert_int_eq(confedit_restore(&ce, &err), 0);
    assert_file("cfg.json", odd_config, strlen(odd_config), 0640);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

/* A link the target leaves at its config is never followed, nor waited on to settle. */
START_TEST(test_note_ignores_a_link)
{
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    begin_applied(&p, &ce);
    size_t n = ce.files[0].journal.n_known;
    put("victim.json", target_saved, 0600);
    ck_assert_int_eq(unlink("cfg.json"), 0);
    ck_assert_int_eq(symlink("victim.json", "cfg.json"), 0);
    uint64_t start = mono_ns();
    ck_assert_msg(confedit_note_target(&ce, false, &err) == 0, "%s", err.msg);
    ck_assert_msg(mono_ns() - start < NS_PER_SEC, "the look took %.1f s",
                  (double)(mono_ns() - start) / 1e9);
    ck_assert_uint_eq(ce.files[0].journal.n_known, n);
    ck_assert_int_eq(confedit_restore(&ce, &err), 0);
    assert_file("cfg.json", odd_config, strlen(odd_config), 0640);
    assert_file("victim.json", target_saved, strlen(target_saved), 0600);
    confedit_release(&ce);
    profile_release(&p);
}
END_TEST

/* A target saving its config again and again, in place (truncate, half, a pause, the
 * rest), as a thread of the test; changing: a new version at every save (each one's
 * hash in hashes) or the same one. */
struct saver {
    pthread_t thread;
    atomic_bool stop;
    bool changing;
    char (*hashes)[17];
    size_t n_hashes;
};

static void *keep_saving(void *arg)
{
    struct saver *sv = arg;
    for (unsigned long n = 0; !atomic_load(&sv->stop); n++) {
        char *text = sv->changing ? xasprintf("{\"saves\": %lu, \"ext\": {\"keep\": 1}}\n", n)
                                  : xstrdup(target_saved);
        size_t len = strlen(text), half = len / 2;
        sv->hashes = xrealloc(sv->hashes, (sv->n_hashes + 1) * sizeof(*sv->hashes));
        hash_fnv1a64_hex(text, len, sv->hashes[sv->n_hashes++]);
        FILE *f = fopen("cfg.json", "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(text, 1, half, f), half);
        fflush(f);
        plat_sleep(2 * 1000 * 1000);
        ck_assert_uint_eq(fwrite(text + half, 1, len - half, f), len - half);
        ck_assert_int_eq(fclose(f), 0);
        free(text);
        plat_sleep(3 * 1000 * 1000);
    }
    return NULL;
}

/* Every version the journal holds as ours is loopbench's own (applied("4")) or one the
 * saver completed. */
static void assert_only_complete(const struct journal *j, const struct saver *sv)
{
    char *ours = applied("4");
    char mine[17];
    hash_fnv1a64_hex(ours, strlen(ours), mine);
    free(ours);
    for (size_t i = 0; i < j->n_known; i++) {
        bool complete = strcmp(j->known[i], mine) == 0;
        for (size_t k = 0; k < sv->n_hashes && !complete; k++)
            complete = strcmp(j->known[i], sv->hashes[k]) == 0;
        ck_assert_msg(complete, "version %s recorded as ours was never a complete save",
                      j->known[i]);
    }
}

/* Looks taken while the target saves: none records a save half done; one that never
 * settles (a new version every 5 ms) gives up within its bound, recording nothing; once
 * the saves stop, the last is recorded. */
START_TEST(test_note_waits_for_saves_to_settle)
{
    for (int changing = 0; changing < 2; changing++) {
        struct profile p;
        struct confedit ce;
        struct lb_error err;
        begin_applied(&p, &ce);
        struct saver sv = {.changing = changing};
        atomic_init(&sv.stop, false);
        ck_assert_int_eq(pthread_create(&sv.thread, NULL, keep_saving, &sv), 0);
        /* Looks at moments spread over the saves' cycle, whatever each takes. */
        for (int look = 0; look < (changing ? 1 : 30); look++) {
            uint64_t start = mono_ns();
            ck_assert_msg(confedit_note_target(&ce, false, &err) == 0, "%s", err.msg);
            double took = (double)(mono_ns() - start) / 1e9;
            ck_assert_msg(took < 5, "a look took %.1f s", took);
            plat_sleep(1700 * 1000);
        }
        atomic_store(&sv.stop, true);
        ck_assert_int_eq(pthread_join(sv.thread, NULL), 0);
        assert_only_complete(&ce.files[0].journal, &sv);
        ck_assert_msg(confedit_note_target(&ce, false, &err) == 0, "%s", err.msg);
        char *last;
        size_t len;
        ck_assert_int_eq(read_file("cfg.json", &last, &len, &err), 0);
        ck_assert(journal_is_ours(&ce.files[0].journal, last, len));
        free(last);
        ck_assert_int_eq(confedit_restore(&ce, &err), 0);
        free(sv.hashes);
        confedit_release(&ce);
        profile_release(&p);
    }
}
END_TEST

/* Killed before it saw the target's save (loopbench looks at ready, on the warm-up's
 * ticks and at the window's edges, not inside the window): the next confedit_begin puts
 * the original back all the same, since the save is the target's of a version loopbench
 * wrote (its values at the key paths loopbench sets, the rest of the original kept). */
START_TEST(test_recovers_save_never_seen)
{
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    begin_applied(&p, &ce);
    put("cfg.json", target_saved, 0640);
    confedit_release(&ce); /* died: no restore */
    struct strv notes = {0};
    ck_assert_msg(confedit_begin(&ce, &p, &notes, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(notes.n, 1);
    ck_assert_msg(strstr(notes.v[0], "restored from journal"), "%s", notes.v[0]);
    assert_file("cfg.json", odd_config, strlen(odd_config), 0640);
    confedit_release(&ce);
    strv_release(&notes);
    profile_release(&p);
}
END_TEST

/* The shipped ModernUO profile applied to a config of the reference's shape. */
START_TEST(test_modernuo_applied)
{
    testlib_case_dir();
    char *src = xasprintf("%s/../../profiles/modernuo.json", testlib_data());
    char *cfg_src = xasprintf("%s/profiles/modernuo.config.json", testlib_data());
    char *golden_path = xasprintf("%s/profiles/modernuo.config.applied-4.json", testlib_data());
    char *profile_text, *original, *golden;
    size_t original_len, golden_len;
    struct lb_error err;
    ck_assert_int_eq(read_file(src, &profile_text, NULL, &err), 0);
    ck_assert_int_eq(read_file(cfg_src, &original, &original_len, &err), 0);
    ck_assert_int_eq(read_file(golden_path, &golden, &golden_len, &err), 0);
    ck_assert_int_eq(mkdir_p("Distribution/Configuration", 0755, &err), 0);
    put("Distribution/Configuration/modernuo.json", original, 0600);

    struct profile p;
    struct confedit ce;
    load(profile_text, &p);
    ck_assert_int_eq(confedit_begin(&ce, &p, NULL, &err), 0);
    ck_assert_msg(confedit_apply(&ce, &p, "4", &err) == 0, "%s", err.msg);
    assert_file("Distribution/Configuration/modernuo.json", golden, golden_len, 0600);
    ck_assert_int_eq(confedit_restore(&ce, &err), 0);
    assert_file("Distribution/Configuration/modernuo.json", original, original_len, 0600);
    confedit_release(&ce);
    profile_release(&p);
    free(src);
    free(cfg_src);
    free(golden_path);
    free(profile_text);
    free(original);
    free(golden);
}
END_TEST

START_TEST(test_argv)
{
    testlib_case_dir();
    struct profile p;
    struct strv argv;
    struct lb_error err;
    load("{\"command\": [\"./srv\", \"--idle={value}\", \"{value}{value}\", \"-t\", \"{threads}\","
         " \"plain\"],"
         " \"knob\": {\"name\": \"idle\", \"values\": [\"0\", \"8\"], \"argv\": {}},"
         " \"fixed\": [{\"name\": \"threads\", \"value\": \"4\", \"argv\": {}}],"
         " \"ready\": {\"delay\": 0}}",
         &p);
    ck_assert_msg(setter_argv(&p, "8", &argv, &err) == 0, "%s", err.msg);
    const char *want[] = {"./srv", "--idle=8", "88", "-t", "4", "plain"};
    ck_assert_uint_eq(argv.n, ARRAY_SIZE(want));
    for (size_t i = 0; i < ARRAY_SIZE(want); i++)
        ck_assert_str_eq(argv.v[i], want[i]);
    ck_assert_ptr_null(argv.v[argv.n]);
    strv_release(&argv);
    /* A value is inserted literally, never expanded again. */
    ck_assert_int_eq(setter_argv(&p, "{threads}", &argv, &err), 0);
    ck_assert_str_eq(argv.v[1], "--idle={threads}");
    strv_release(&argv);
    /* The profile's command itself is left as it was. */
    ck_assert_str_eq(p.command.v[1], "--idle={value}");
    profile_release(&p);
}
END_TEST

START_TEST(test_envp)
{
    testlib_case_dir();
    struct profile p;
    struct strv envp;
    load("{\"command\": [\"./srv\"], \"env\": {\"B\": \"3\", \"C\": \"4\"},"
         " \"knob\": {\"name\": \"idle\", \"values\": [\"0\"], \"env\": \"A\"},"
         " \"fixed\": [{\"name\": \"d\", \"value\": \"5\", \"env\": \"D\"},"
         "   {\"name\": \"c\", \"value\": \"6\", \"env\": \"C\"}],"
         " \"ready\": {\"delay\": 0}}",
         &p);
    char *base[] = {"A=1", "B=2", "PATH=/bin", "AB=7", NULL};
    setter_envp(&p, "9", base, &envp);
    /* Later entries replace earlier ones of the same name where they stand. */
    const char *want[] = {"A=9", "B=3", "PATH=/bin", "AB=7", "C=6", "D=5"};
    ck_assert_uint_eq(envp.n, ARRAY_SIZE(want));
    for (size_t i = 0; i < ARRAY_SIZE(want); i++)
        ck_assert_str_eq(envp.v[i], want[i]);
    ck_assert_ptr_null(envp.v[envp.n]);
    strv_release(&envp);
    profile_release(&p);
}
END_TEST

START_TEST(test_envp_empty)
{
    testlib_case_dir();
    struct profile p;
    struct strv envp;
    load("{\"command\": [\"./srv\", \"{value}\"],"
         " \"knob\": {\"name\": \"idle\", \"values\": [\"0\"], \"argv\": {}},"
         " \"ready\": {\"delay\": 0}}",
         &p);
    char *base[] = {NULL};
    setter_envp(&p, "0", base, &envp);
    ck_assert_uint_eq(envp.n, 0);
    ck_assert_ptr_nonnull(envp.v); /* execve() needs an array */
    ck_assert_ptr_null(envp.v[0]);
    strv_release(&envp);
    profile_release(&p);
}
END_TEST

static Suite *confedit_suite(void)
{
    Suite *s = suite_create("confedit");
    TCase *json = tcase_create("set_json");
    tcase_add_test(json, test_set_string);
    tcase_add_test(json, test_set_number);
    tcase_add_test(json, test_set_nested_adds_leaf);
    tcase_add_test(json, test_set_keeps_order_and_unknown_keys);
    tcase_add_test(json, test_set_errors);
    suite_add_tcase(s, json);

    TCase *files = tcase_create("files");
    tcase_add_unchecked_fixture(files, testlib_root_make, testlib_root_remove);
    tcase_add_test(files, test_round_trip_byte_identical);
    tcase_add_test(files, test_restore_after_target_rewrote);
    tcase_add_test(files, test_apply_starts_from_original);
    tcase_add_test(files, test_restore_leaves_identical_file_alone);
    tcase_add_test(files, test_restore_keeps_going);
    /* Windows' symbolic links need a privilege or developer mode, and its stat does not
     * see them. */
    if (strcmp(plat_name(), "windows") != 0)
        tcase_add_test(files, test_symlinked_config_stays_a_link);
    if (strcmp(plat_name(), "windows") != 0)
        tcase_add_test(files, test_link_replaced_by_target);
    if (strcmp(plat_name(), "windows") != 0)
        tcase_add_test(files, test_note_ignores_a_link);
    tcase_add_test(files, test_begin_needs_the_file);
    tcase_add_test(files, test_apply_error_names_file);
    tcase_add_test(files, test_note_records_complete_saves);
    tcase_add_test(files, test_note_waits_for_saves_to_settle);
    tcase_add_test(files, test_recovers_save_never_seen);
    tcase_add_test(files, test_modernuo_applied);
    tcase_add_test(files, test_argv);
    tcase_add_test(files, test_envp);
    tcase_add_test(files, test_envp_empty);
    suite_add_tcase(s, files);
    return s;
}

int main(void)
{
    return testlib_run(confedit_suite());
}
