/* Unit tests of src/measure/journal.c and its use by src/measure/confedit.c: the journal holds the
 * original before the first edit, recovery puts it back when the file is the original
 * or a version that is ours, and refuses (naming the journal) for anything else. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "confedit.h"
#include "journal.h"
#include "platform/files.h"
#include "platform/platform.h"
#include "profile.h"
#include "testlib.h"
#include "util.h"

#define JPATH ".cfg.json.loopbench-journal"

/* No final newline, a blank line and a NUL-free CRLF: the journal must keep it all. */
static const char original[] = "{ \"a\": 1,\r\n\n\"settings\": {\"w\": \"2\"}}";

static void put(const char *path, const char *text, unsigned mode)
{
    struct lb_error err;
    ck_assert_msg(write_file_atomic(path, text, strlen(text), mode, &err) == 0, "%s", err.msg);
}

static void assert_file(const char *path, const char *want, unsigned mode)
{
    char *got;
    size_t len;
    struct lb_error err;
    struct stat st;
    ck_assert_msg(read_file(path, &got, &len, &err) == 0, "%s", err.msg);
    ck_assert_msg(len == strlen(want) && memcmp(got, want, len) == 0, "%s: got [%s]", path, got);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, testlib_mode_kept(mode));
    free(got);
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* cfg.json with mode 0640 and a journal of it; the caller releases j. */
static void journaled(struct journal *j)
{
    struct lb_error err;
    testlib_case_dir();
    put("cfg.json", original, 0640);
    /* The mode as confedit would pass it: the one stat reports. */
    ck_assert_msg(journal_create(j, "cfg.json", original, strlen(original),
                                 testlib_mode_kept(0640), &err) == 0,
                  "%s", err.msg);
}

START_TEST(test_paths)
{
    /* Keyed to the real path: a missing file by its directory's. */
    const char *dir = testlib_case_dir();
    char *want = path_join(dir, JPATH);
    char *p = journal_path_for("cfg.json");
    ck_assert_str_eq(p, want);
    free(p);
    free(want);
    p = journal_path_for("a/b/cfg.json");
    ck_assert_str_eq(p, "a/b/" JPATH);
    free(p);
    p = journal_file_for("a/b", JPATH);
    ck_assert_str_eq(p, "a/b/cfg.json");
    free(p);
    ck_assert_ptr_null(journal_file_for("a", "cfg.json"));
    ck_assert_ptr_null(journal_file_for("a", ".loopbench-journal"));
}
END_TEST

START_TEST(test_create_and_load)
{
    struct journal j, k;
    struct lb_error err;
    bool found;
    journaled(&j);
    struct stat st;
    ck_assert_int_eq(stat(JPATH, &st), 0);
    ck_assert_uint_eq(st.st_mode & 07777, testlib_mode_kept(0600)); /* may hold secrets */
    ck_assert_int_eq(journal_add(&j, "v1", 2, NULL, &err), 0);
    ck_assert_int_eq(journal_add(&j, "v1", 2, NULL, &err), 0); /* recorded once */
    ck_assert_msg(journal_load("cfg.json", &k, &found, &err) == 0, "%s", err.msg);
    ck_assert(found);
    ck_assert_uint_eq(k.original_len, strlen(original));
    ck_assert_mem_eq(k.original, original, strlen(original));
    ck_assert_uint_eq(k.mode, testlib_mode_kept(0640));
    ck_assert_uint_eq(k.n_known, 1);
    ck_assert(journal_is_ours(&k, "v1", 2));
    ck_assert(journal_is_ours(&k, original, strlen(original)));
    ck_assert(!journal_is_ours(&k, "v2", 2));
    journal_release(&k);
    journal_release(&j);
}
END_TEST

/* journal_recover of cfg.json into *r, which the caller releases. */
static int recover(bool force, struct journal_recovery *r, struct lb_error *err)
{
    return journal_recover("cfg.json", force, r, err);
}

/* The files in the current directory kept by a recovery: how many. */
static size_t kept_files(void)
{
    size_t n = 0;
    DIR *d = opendir(".");
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, "cfg.json.loopbench-kept-", 24) == 0;
    closedir(d);
    return n;
}

/* The original back in cfg.json, with its mode, and the journal gone. */
static void assert_put_back(void)
{
    assert_file("cfg.json", original, 0640);
    ck_assert(!exists(JPATH));
}

/* What loopbench wrote, or what its target rewrote while loopbench watched, comes back. */
START_TEST(test_recover_ours)
{
    static const char *const versions[] = {"written by loopbench", "rewritten by the target"};
    for (size_t i = 0; i < 2; i++) {
        struct journal j;
        struct journal_recovery r;
        struct lb_error err;
        journaled(&j);
        ck_assert_int_eq(journal_add(&j, versions[i], strlen(versions[i]), NULL, &err), 0);
        put("cfg.json", versions[i], 0600);
        ck_assert_msg(recover(false, &r, &err) == 0, "%s", err.msg);
        ck_assert(r.found && r.restored && r.held == JOURNAL_HELD_OURS && !r.kept);
        assert_put_back();
        journal_recovery_release(&r);
        journal_release(&j);
    }
}
END_TEST

START_TEST(test_recover_refuses_foreign_change)
{
    struct journal j;
    struct journal_recovery r;
    struct lb_error err;
    journaled(&j);
    ck_assert_int_eq(journal_add(&j, "ours", 4, NULL, &err), 0);
    put("cfg.json", "{\"the operator's\": \"edit\"}", 0644);
    ck_assert_int_eq(recover(false, &r, &err), -1);
    ck_assert(r.found && !r.restored && r.held == JOURNAL_HELD_FOREIGN && !r.kept);
    ck_assert_msg(strstr(err.msg, "changed by someone else") && strstr(err.msg, JPATH "'") &&
                      strstr(err.msg, "; to put it back, keeping this content beside it: "
                                      "loopbench restore --force 'cfg.json'"),
                  "%s", err.msg);
    assert_file("cfg.json", "{\"the operator's\": \"edit\"}", 0644);
    ck_assert(exists(JPATH)); /* still holds the original */
    ck_assert_uint_eq(kept_files(), 0);
    journal_recovery_release(&r);
    journal_release(&j);
}
END_TEST

/* Refused, unless forced: there is nothing to keep. */
START_TEST(test_recover_missing_file)
{
    struct journal j;
    struct journal_recovery r;
    struct lb_error err;
    journaled(&j);
    unlink("cfg.json");
    ck_assert_int_eq(recover(false, &r, &err), -1);
    ck_assert_msg(strstr(err.msg, "is missing") && strstr(err.msg, JPATH) &&
                      strstr(err.msg, "loopbench restore --force 'cfg.json'"),
                  "%s", err.msg);
    ck_assert(!exists("cfg.json") && exists(JPATH));
    journal_recovery_release(&r);
    ck_assert_msg(recover(true, &r, &err) == 0, "%s", err.msg);
    ck_assert(r.found && r.restored && r.held == JOURNAL_HELD_MISSING && !r.kept);
    assert_put_back();
    ck_assert_uint_eq(kept_files(), 0);
    journal_recovery_release(&r);
    journal_release(&j);
}
END_TEST

START_TEST(test_recover_already_original)
{
    struct journal j;
    struct journal_recovery r;
    struct lb_error err;
    journaled(&j);
    struct stat before, after;
    ck_assert_int_eq(stat("cfg.json", &before), 0);
    ck_assert_int_eq(recover(false, &r, &err), 0);
    ck_assert(r.found && !r.restored && r.held == JOURNAL_HELD_ORIGINAL);
    ck_assert_int_eq(stat("cfg.json", &after), 0);
    ck_assert_int_eq(before.st_ino, after.st_ino); /* not rewritten */
    ck_assert(!exists(JPATH));
    journal_recovery_release(&r);
    journal_release(&j);
}
END_TEST

START_TEST(test_recover_without_journal)
{
    struct journal_recovery r;
    struct lb_error err;
    testlib_case_dir();
    put("cfg.json", original, 0644);
    ck_assert_int_eq(recover(true, &r, &err), 0);
    ck_assert(!r.found && !r.restored);
    assert_file("cfg.json", original, 0644);
    journal_recovery_release(&r);
}
END_TEST

/* pair as journal_add takes it: [["settings", "w"], value]. */
static json_t *w_pair(json_t *value)
{
    return json_pack("[[s,s],o]", "settings", "w", value);
}

/* The target loaded a version loopbench wrote and saved it again, which loopbench did
 * not see (killed first): put back when every key path loopbench wrote holds a value it
 * wrote there and every other value of the original is unchanged, however it is
 * formatted and whatever the target added; refused when anything else changed. */
START_TEST(test_recover_saved_from_ours)
{
    static const struct {
        const char *text;
        bool ours;
    } cases[] = {
        {"{\"settings\": {\"added\": [1], \"w\": \"4\"},\n    \"a\": 1, \"savedBy\": {\"x\": 1}}",
         true},
        {"{\"a\":1,\"settings\":{\"w\":\"0\"}}", true},
        {"{\"a\": 1, \"settings\": {\"w\": \"7\"}}", false}, /* a value loopbench never wrote */
        {"{\"a\": 1, \"settings\": {\"w\": 4}}", false},     /* nor that one: a number */
        {"{\"a\": 1, \"settings\": {}}", false},             /* the knob gone */
        {"{\"a\": 2, \"settings\": {\"w\": \"4\"}}", false}, /* an operator's value changed */
        {"{\"settings\": {\"w\": \"4\"}}", false},           /* ... or gone */
        {"{\"a\": 1, \"settings\": [\"w\", \"4\"]}", false},
        {"[{\"a\": 1, \"settings\": {\"w\": \"4\"}}]", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct journal j;
        struct journal_recovery r;
        struct lb_error err;
        journaled(&j);
        json_t *written = json_array();
        json_array_append_new(written, w_pair(json_string("4")));
        ck_assert_int_eq(journal_add(&j, "{\"w\": 4}", 8, written, &err), 0);
        json_array_clear(written);
        json_array_append_new(written, w_pair(json_string("0")));
        ck_assert_int_eq(journal_add(&j, "{\"w\": 0}", 8, written, &err), 0);
        json_decref(written);
        put("cfg.json", cases[i].text, 0640);
        int rc = recover(false, &r, &err);
        ck_assert_msg(rc == (cases[i].ours ? 0 : -1), "case %zu: %s", i, err.msg);
        if (cases[i].ours) {
            ck_assert(r.restored && r.held == JOURNAL_HELD_OURS && !r.kept);
            assert_put_back();
        } else {
            ck_assert_int_eq(r.held, JOURNAL_HELD_FOREIGN);
            assert_file("cfg.json", cases[i].text, 0640);
            ck_assert(exists(JPATH));
        }
        ck_assert_uint_eq(kept_files(), 0);
        journal_recovery_release(&r);
        journal_release(&j);
    }
}
END_TEST

/* The written pairs survive the journal's round trip, once each. */
START_TEST(test_written_round_trip)
{
    struct journal j, k;
    struct lb_error err;
    bool found;
    journaled(&j);
    json_t *written =
        json_pack("[o,[[s],i],[[s],f]]", w_pair(json_string("a\nb\"\xc3\xa9")), "n", 2, "r", 0.5);
    ck_assert_int_eq(journal_add(&j, "v1", 2, written, &err), 0);
    ck_assert_int_eq(journal_add(&j, "v2", 2, written, &err), 0);
    ck_assert_msg(journal_load("cfg.json", &k, &found, &err) == 0, "%s", err.msg);
    ck_assert(found && json_equal(k.written, written));
    json_decref(written);
    journal_release(&k);
    journal_release(&j);
}
END_TEST

/* A save the kill cut short (the target was killed with loopbench half-way through its
 * write) is not JSON: the original goes back, and what the file held is kept beside it,
 * unless it is empty (the save had only truncated it). */
START_TEST(test_recover_cut_save)
{
    static const char *const cut[] = {"", "{\n    \"a\": 1,\n    \"sett"};
    for (size_t i = 0; i < 2; i++) {
        struct journal j;
        struct journal_recovery r;
        struct lb_error err;
        journaled(&j);
        put("cfg.json", cut[i], 0640);
        ck_assert_msg(recover(false, &r, &err) == 0, "%s", err.msg);
        ck_assert(r.found && r.restored && r.held == JOURNAL_HELD_CUT);
        assert_put_back();
        if (i == 0) {
            ck_assert_ptr_null(r.kept);
            ck_assert_uint_eq(kept_files(), 0);
        } else {
            /* beside the file's real path */
            ck_assert_ptr_nonnull(r.kept);
            char *dir = plat_realpath("."), *kept_dir = path_dirname(r.kept);
            ck_assert_str_eq(kept_dir, dir);
            ck_assert_msg(strncmp(path_basename(r.kept), "cfg.json.loopbench-kept-", 24) == 0, "%s",
                          r.kept);
            assert_file(r.kept, cut[i], 0600);
            ck_assert_uint_eq(kept_files(), 1);
            free(kept_dir);
            free(dir);
        }
        journal_recovery_release(&r);
        journal_release(&j);
    }
}
END_TEST

/* cfg.json.loopbench-kept-TIME for the UTC second s seconds from now. */
static char *kept_name(int s)
{
    char stamp[32];
    format_utc(wall_ns() + (uint64_t)s * NS_PER_SEC, true, stamp, sizeof(stamp));
    return xasprintf("cfg.json.loopbench-kept-%s", stamp);
}

/* --force: what the file holds is kept beside it, in a new file (never over one that is
 * there), exactly; then the original goes back and the journal goes. */
START_TEST(test_force_keeps_beside)
{
    static const char foreign[] = "{\"the operator's\": \"edit\"}\n";
    struct journal j;
    struct journal_recovery r;
    struct lb_error err;
    journaled(&j);
    put("cfg.json", foreign, 0644);
    /* The names of this second and the next two are taken (named once: a loaded host
     * can move the clock past a second between two looks). */
    char *taken[3];
    for (int s = 0; s < 3; s++) {
        taken[s] = kept_name(s);
        put(taken[s], "taken", 0644);
    }
    ck_assert_msg(recover(true, &r, &err) == 0, "%s", err.msg);
    ck_assert(r.found && r.restored && r.held == JOURNAL_HELD_FOREIGN && r.kept);
    assert_file(r.kept, foreign, 0600);
    for (int s = 0; s < 3; s++) {
        assert_file(taken[s], "taken", 0644);
        ck_assert_str_ne(path_basename(r.kept), taken[s]);
        free(taken[s]);
    }
    assert_put_back();
    journal_recovery_release(&r);
    journal_release(&j);
}
END_TEST

/* A link planted at the kept name is never written through. */
START_TEST(test_kept_never_through_a_link)
{
    struct journal j;
    struct journal_recovery r;
    struct lb_error err;
    journaled(&j);
    put("cfg.json", "{\"b\": 2}", 0644);
    put("victim", "precious", 0600);
    char *planted[3];
    for (int s = 0; s < 3; s++) {
        planted[s] = kept_name(s);
        ck_assert_int_eq(symlink("victim", planted[s]), 0);
    }
    ck_assert_msg(recover(true, &r, &err) == 0, "%s", err.msg);
    struct stat st;
    ck_assert(r.kept && lstat(r.kept, &st) == 0 && S_ISREG(st.st_mode));
    assert_file(r.kept, "{\"b\": 2}", 0600);
    assert_file("victim", "precious", 0600);
    for (int s = 0; s < 3; s++) {
        char *text = plat_link_text(planted[s]);
        ck_assert_msg(text && strcmp(text, "victim") == 0, "%s is no longer the link", planted[s]);
        free(text);
        free(planted[s]);
    }
    assert_file("cfg.json", original, 0640);
    journal_recovery_release(&r);
    journal_release(&j);
}
END_TEST

/* A journal a loopbench before 0.x wrote (version 1, no written lines) is still read:
 * its versions are ours, a cut save is kept and put right, and anything else refused. */
START_TEST(test_reads_version_1)
{
    static const char ours[] = "{\"settings\": {\"w\": \"4\"}, \"a\": 1}\n";
    char oh[17], vh[17];
    hash_fnv1a64_hex(original, strlen(original), oh);
    hash_fnv1a64_hex(ours, strlen(ours), vh);
    char *v1 = xasprintf("loopbench-journal 1\nmode 0640\noriginal %s %zu\nours %s\n\n%s", oh,
                         strlen(original), vh, original);
    static const struct {
        const char *text;
        int rc;
        enum journal_held held;
    } cases[] = {
        {ours, 0, JOURNAL_HELD_OURS},
        {"{\"settings\": {\"w\": \"4\"}, \"a\": 1, \"added\": 1}", -1, JOURNAL_HELD_FOREIGN},
        {"{\"settings\": {\"w\"", 0, JOURNAL_HELD_CUT},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct journal_recovery r;
        struct lb_error err;
        testlib_case_dir();
        put("cfg.json", cases[i].text, 0640);
        put(JPATH, v1, 0600);
        ck_assert_int_eq(recover(false, &r, &err), cases[i].rc);
        ck_assert_int_eq(r.held, cases[i].held);
        if (cases[i].rc == 0)
            assert_file("cfg.json", original, 0640);
        journal_recovery_release(&r);
    }
    free(v1);
}
END_TEST

/* A damaged journal is never trusted: the config stays as it is, even forced. */
START_TEST(test_damaged_journal)
{
    char hash[17];
    hash_fnv1a64_hex("x", 1, hash);
    char *bad[] = {
        xstrdup(""),
        xstrdup("loopbench-journal 3\n\nx"),
        xstrdup("loopbench-journal 1\nmode 0644\n"),
        xstrdup("loopbench-journal 1\nmode 0644\noriginal 0000000000000000 1\n\nx"),
        xstrdup("loopbench-journal 1\nmode 0644\nbogus\n\n"),
        /* written lines only in version 2, and only [key path, string or number] */
        xasprintf("loopbench-journal 1\nmode 0644\noriginal %s 1\nwritten [[\"a\"],\"1\"]\n\nx",
                  hash),
        xasprintf("loopbench-journal 2\nmode 0644\noriginal %s 1\nwritten [[\"a\"]]\n\nx", hash),
        xasprintf("loopbench-journal 2\nmode 0644\noriginal %s 1\nwritten [[],1]\n\nx", hash),
        xasprintf("loopbench-journal 2\nmode 0644\noriginal %s 1\nwritten [[1],1]\n\nx", hash),
        xasprintf("loopbench-journal 2\nmode 0644\noriginal %s 1\nwritten [[\"a\"],null]\n\nx",
                  hash),
        xasprintf("loopbench-journal 2\nmode 0644\noriginal %s 1\nwritten [\"a\",1]\n\nx", hash),
        xasprintf("loopbench-journal 2\nmode 0644\noriginal %s 1\nwritten {\n\nx", hash),
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct journal_recovery r;
        struct lb_error err;
        testlib_case_dir();
        put("cfg.json", "current", 0644);
        put(JPATH, bad[i], 0600);
        ck_assert_int_eq(recover(true, &r, &err), -1);
        ck_assert_msg(strstr(err.msg, "damaged"), "case %zu: %s", i, err.msg);
        assert_file("cfg.json", "current", 0644);
        ck_assert_uint_eq(kept_files(), 0);
        journal_recovery_release(&r);
        free(bad[i]);
    }
}
END_TEST

static const char profile_json[] =
    "{\"command\": [\"./srv\"],"
    " \"knob\": {\"name\": \"w\", \"values\": [\"0\", \"4\"], \"config\": {\"file\": "
    "\"cfg.json\", \"path\": [\"settings\", \"w\"]}},"
    " \"ready\": {\"delay\": 0}}";

/* confedit journals before its first write, keeps the journal current and removes it
 * after restoring; a campaign that died is put back by the next confedit_begin, and
 * two cannot hold one file at once. */
START_TEST(test_confedit_journals)
{
    struct profile p;
    struct confedit ce;
    struct lb_error err;
    testlib_case_dir();
    put("cfg.json", original, 0640);
    put("p.json", profile_json, 0644);
    ck_assert_msg(profile_load("p.json", &p, &err) == 0, "%s", err.msg);

    ck_assert_msg(confedit_begin(&ce, &p, NULL, &err) == 0, "%s", err.msg);
    ck_assert(!exists(JPATH)); /* nothing edited yet */
    ck_assert_msg(confedit_apply(&ce, &p, "4", &err) == 0, "%s", err.msg);
    ck_assert(exists(JPATH));
    put("cfg.json", "{\"rewritten\": \"by the target\"}", 0640);
    ck_assert_msg(confedit_note_target(&ce, false, &err) == 0, "%s", err.msg);
    ck_assert_msg(confedit_restore(&ce, &err) == 0, "%s", err.msg);
    assert_put_back();
    confedit_release(&ce);

    /* Died after the target rewrote the file: release without restore. */
    ck_assert_msg(confedit_begin(&ce, &p, NULL, &err) == 0, "%s", err.msg);
    ck_assert_msg(confedit_apply(&ce, &p, "0", &err) == 0, "%s", err.msg);
    put("cfg.json", "{\"rewritten\": \"again\"}", 0640);
    ck_assert_msg(confedit_note_target(&ce, false, &err) == 0, "%s", err.msg);

    /* While one holds the file, another cannot take it, nor touch its journal. */
    struct confedit again;
    struct strv notes = {0};
    ck_assert_int_eq(confedit_begin(&again, &p, &notes, &err), -1);
    char *held = xasprintf("is in use by another loopbench (pid %ld, lock ", (long)getpid());
    ck_assert_msg(strstr(err.msg, held), "%s", err.msg);
    free(held);
    ck_assert(exists(JPATH));
    ck_assert_uint_eq(notes.n, 0);

    /* Its lock dies with it; the next one puts the original back before reading it. */
    confedit_release(&ce);
    ck_assert_msg(confedit_begin(&again, &p, &notes, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(notes.n, 1);
    ck_assert_msg(strstr(notes.v[0], "restored from journal"), "%s", notes.v[0]);
    assert_put_back();
    ck_assert_uint_eq(again.files[0].original_len, strlen(original));
    ck_assert(memcmp(again.files[0].original, original, strlen(original)) == 0);
    confedit_release(&again);
    ck_assert(!exists(".cfg.json.loopbench-lock"));
    strv_release(&notes);
    profile_release(&p);
}
END_TEST

/* real/cfg.json (mode 0640) reached through two links, one beside it, one in other/. */
static const char *linked_twice(void)
{
    const char *dir = testlib_case_dir();
    ck_assert_int_eq(plat_mkdir("real", 0755), 0);
    ck_assert_int_eq(plat_mkdir("other", 0755), 0);
    put("real/cfg.json", original, 0640);
    ck_assert_int_eq(symlink("real/cfg.json", "cfg.json"), 0);
    ck_assert_int_eq(symlink("../real/cfg.json", "other/cfg.json"), 0);
    return dir;
}

/* Two links to one file have one journal and one lock, beside the file itself: a
 * loopbench editing it through one link locks out one coming through the other. */
START_TEST(test_links_share_journal_and_lock)
{
    const char *dir = linked_twice();
    char *a = journal_path_for("cfg.json"), *b = journal_path_for("other/cfg.json");
    char *want = path_join(dir, "real/" JPATH);
    ck_assert_str_eq(a, want);
    ck_assert_str_eq(b, want);
    free(a);
    free(b);
    free(want);

    struct lb_error err;
    char *held_path, *other_path;
    int held = journal_lock("cfg.json", &held_path, &err);
    ck_assert_msg(held >= 0, "%s", err.msg);
    ck_assert(exists("real/.cfg.json.loopbench-lock"));
    ck_assert_int_eq(journal_lock("other/cfg.json", &other_path, &err), -1);
    char *says = xasprintf("config 'other/cfg.json' is in use by another loopbench (pid %ld, "
                           "lock '%s')", (long)getpid(), held_path);
    ck_assert_msg(strstr(err.msg, says), "%s", err.msg);
    free(says);
    free(other_path);
    journal_unlock(held_path, held);
    free(held_path);
    ck_assert(!exists("real/.cfg.json.loopbench-lock"));
}
END_TEST

/* A journal an older loopbench left beside the link it was given is still found, and
 * recovery removes it. */
START_TEST(test_legacy_journal_beside_link)
{
    linked_twice();
    struct journal j;
    struct lb_error err;
    ck_assert_msg(journal_create(&j, "cfg.json", original, strlen(original),
                                 testlib_mode_kept(0640), &err) == 0,
                  "%s", err.msg);
    ck_assert_int_eq(journal_add(&j, "{\"edited\": 1}", 13, NULL, &err), 0);
    ck_assert_int_eq(rename("real/" JPATH, JPATH), 0);
    journal_release(&j);
    put("real/cfg.json", "{\"edited\": 1}", 0640);

    struct journal_recovery r;
    ck_assert_msg(recover(false, &r, &err) == 0, "%s", err.msg);
    ck_assert(r.found && r.restored);
    journal_recovery_release(&r);
    assert_file("real/cfg.json", original, 0640);
    ck_assert(!exists(JPATH));
    ck_assert(!exists("real/" JPATH));
}
END_TEST

/* A lock path planted as a link to a victim file: refused, the victim untouched (a hard
 * link too: tests/e2e/hostile-files.sh). */
START_TEST(test_lock_link_refused)
{
    testlib_case_dir();
    put("cfg.json", original, 0640);
    put("victim", "precious", 0600);
    ck_assert_int_eq(symlink("victim", ".cfg.json.loopbench-lock"), 0);
    struct lb_error err;
    char *lock_path;
    ck_assert_int_eq(journal_lock("cfg.json", &lock_path, &err), -1);
    ck_assert_msg(strstr(err.msg, "is a symbolic link"), "%s", err.msg);
    free(lock_path);
    assert_file("victim", "precious", 0600);
}
END_TEST

static Suite *journal_suite(void)
{
    Suite *s = suite_create("journal");
    TCase *tc = tcase_create("journal");
    tcase_add_unchecked_fixture(tc, testlib_root_make, testlib_root_remove);
    tcase_add_test(tc, test_paths);
    tcase_add_test(tc, test_create_and_load);
    tcase_add_test(tc, test_recover_ours);
    tcase_add_test(tc, test_recover_refuses_foreign_change);
    tcase_add_test(tc, test_recover_missing_file);
    tcase_add_test(tc, test_recover_already_original);
    tcase_add_test(tc, test_recover_without_journal);
    tcase_add_test(tc, test_recover_saved_from_ours);
    tcase_add_test(tc, test_written_round_trip);
    tcase_add_test(tc, test_recover_cut_save);
    tcase_add_test(tc, test_force_keeps_beside);
    tcase_add_test(tc, test_reads_version_1);
    tcase_add_test(tc, test_damaged_journal);
    tcase_add_test(tc, test_confedit_journals);
    /* Windows' symbolic links need a privilege or developer mode. */
    if (strcmp(plat_name(), "windows") != 0) {
        tcase_add_test(tc, test_links_share_journal_and_lock);
        tcase_add_test(tc, test_legacy_journal_beside_link);
        tcase_add_test(tc, test_lock_link_refused);
        tcase_add_test(tc, test_kept_never_through_a_link);
    }
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return testlib_run(journal_suite());
}
