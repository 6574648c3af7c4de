/* Unit tests of src/measure/journal.c and its use by src/measure/confedit.c: the journal holds the
 * original before the first edit, recovery puts it back when the file is the original
 * or a version that is ours, and refuses (naming the journal) for anything else. */
#include <check.h>
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
    ck_assert_int_eq(journal_add(&j, "v1", 2, &err), 0);
    ck_assert_int_eq(journal_add(&j, "v1", 2, &err), 0); /* recorded once */
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

/* What loopbench wrote, or what its target rewrote while loopbench watched, comes back. */
START_TEST(test_recover_ours)
{
    static const char *const versions[] = {"written by loopbench", "rewritten by the target"};
    for (size_t i = 0; i < 2; i++) {
        struct journal j;
        struct lb_error err;
        bool found, restored;
        journaled(&j);
        ck_assert_int_eq(journal_add(&j, versions[i], strlen(versions[i]), &err), 0);
        put("cfg.json", versions[i], 0600);
        ck_assert_msg(journal_recover("cfg.json", &found, &restored, &err) == 0, "%s", err.msg);
        ck_assert(found && restored);
        assert_file("cfg.json", original, 0640);
        ck_assert(!exists(JPATH));
        journal_release(&j);
    }
}
END_TEST

START_TEST(test_recover_refuses_foreign_change)
{
    struct journal j;
    struct lb_error err;
    bool found, restored;
    journaled(&j);
    ck_assert_int_eq(journal_add(&j, "ours", 4, &err), 0);
    put("cfg.json", "the operator's edit", 0644);
    ck_assert_int_eq(journal_recover("cfg.json", &found, &restored, &err), -1);
    ck_assert(found && !restored);
    ck_assert_msg(strstr(err.msg, "changed by someone else") && strstr(err.msg, JPATH "'"),
                  "%s", err.msg);
    assert_file("cfg.json", "the operator's edit", 0644);
    ck_assert(exists(JPATH)); /* still holds the original */
    journal_release(&j);
}
END_TEST

START_TEST(test_recover_missing_file_refused)
{
    struct journal j;
    struct lb_error err;
    bool found, restored;
    journaled(&j);
    unlink("cfg.json");
    ck_assert_int_eq(journal_recover("cfg.json", &found, &restored, &err), -1);
    ck_assert_msg(strstr(err.msg, JPATH), "%s", err.msg);
    ck_assert(!exists("cfg.json") && exists(JPATH));
    journal_release(&j);
}
END_TEST

START_TEST(test_recover_already_original)
{
    struct journal j;
    struct lb_error err;
    bool found, restored;
    journaled(&j);
    struct stat before, after;
    ck_assert_int_eq(stat("cfg.json", &before), 0);
    ck_assert_int_eq(journal_recover("cfg.json", &found, &restored, &err), 0);
    ck_assert(found && !restored);
    ck_assert_int_eq(stat("cfg.json", &after), 0);
    ck_assert_int_eq(before.st_ino, after.st_ino); /* not rewritten */
    ck_assert(!exists(JPATH));
    journal_release(&j);
}
END_TEST

START_TEST(test_recover_without_journal)
{
    struct lb_error err;
    bool found, restored;
    testlib_case_dir();
    put("cfg.json", original, 0644);
    ck_assert_int_eq(journal_recover("cfg.json", &found, &restored, &err), 0);
    ck_assert(!found && !restored);
    assert_file("cfg.json", original, 0644);
}
END_TEST

/* A damaged journal is never trusted: the config stays as it is. */
START_TEST(test_damaged_journal)
{
    static const char *const damaged[] = {
        "",
        "loopbench-journal 2\n\nx",
        "loopbench-journal 1\nmode 0644\n",
        "loopbench-journal 1\nmode 0644\noriginal 0000000000000000 1\n\nx",
        "loopbench-journal 1\nmode 0644\nbogus\n\n",
    };
    for (size_t i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
        struct lb_error err;
        bool found, restored;
        testlib_case_dir();
        put("cfg.json", "current", 0644);
        put(JPATH, damaged[i], 0600);
        ck_assert_int_eq(journal_recover("cfg.json", &found, &restored, &err), -1);
        ck_assert_msg(strstr(err.msg, "damaged"), "%s", err.msg);
        assert_file("cfg.json", "current", 0644);
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
    ck_assert_msg(confedit_note_target(&ce, &err) == 0, "%s", err.msg);
    ck_assert_msg(confedit_restore(&ce, &err) == 0, "%s", err.msg);
    assert_file("cfg.json", original, 0640);
    ck_assert(!exists(JPATH));
    confedit_release(&ce);

    /* Died after the target rewrote the file: release without restore. */
    ck_assert_msg(confedit_begin(&ce, &p, NULL, &err) == 0, "%s", err.msg);
    ck_assert_msg(confedit_apply(&ce, &p, "0", &err) == 0, "%s", err.msg);
    put("cfg.json", "{\"rewritten\": \"again\"}", 0640);
    ck_assert_msg(confedit_note_target(&ce, &err) == 0, "%s", err.msg);

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
    assert_file("cfg.json", original, 0640);
    ck_assert(!exists(JPATH));
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
    ck_assert_int_eq(journal_add(&j, "{\"edited\": 1}", 13, &err), 0);
    ck_assert_int_eq(rename("real/" JPATH, JPATH), 0);
    journal_release(&j);
    put("real/cfg.json", "{\"edited\": 1}", 0640);

    bool found, restored;
    ck_assert_msg(journal_recover("cfg.json", &found, &restored, &err) == 0, "%s", err.msg);
    ck_assert(found && restored);
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
    tcase_add_test(tc, test_recover_missing_file_refused);
    tcase_add_test(tc, test_recover_already_original);
    tcase_add_test(tc, test_recover_without_journal);
    tcase_add_test(tc, test_damaged_journal);
    tcase_add_test(tc, test_confedit_journals);
    /* Windows' symbolic links need a privilege or developer mode. */
    if (strcmp(plat_name(), "windows") != 0) {
        tcase_add_test(tc, test_links_share_journal_and_lock);
        tcase_add_test(tc, test_legacy_journal_beside_link);
        tcase_add_test(tc, test_lock_link_refused);
    }
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return testlib_run(journal_suite());
}
