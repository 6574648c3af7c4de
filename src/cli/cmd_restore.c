/* loopbench restore FILE|DIR...: put back config files that a loopbench which died
 * (SIGKILL, OOM, power loss) left edited, from the journals beside them. */
#include <dirent.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "commands.h"
#include "options.h"
#include "journal.h"
#include "msg.h"
#include "util.h"

const char cmd_restore_usage[] =
    "usage: loopbench restore [--force] FILE|DIR...\n"
    "\n"
    "Put back the original of each config FILE (or of every file with a journal directly\n"
    "in DIR) that a loopbench which did not finish left edited, from its journal\n"
    "DIR/.NAME.loopbench-journal, and remove the journal. The original is put back when the\n"
    "file holds it, a version loopbench wrote or saw its target write, or a save the\n"
    "target made of one (the values loopbench set, every other value of the original\n"
    "kept); a file that is not JSON (a save cut short) is first kept beside it as\n"
    "NAME.loopbench-kept-TIME. Any other file was changed by someone else: it is left as\n"
    "it is, and so is the journal holding its original.\n"
    "\n"
    "options:\n"
    "  --force    put the original back all the same, keeping what the file holds beside\n"
    "             it as NAME.loopbench-kept-TIME (a new file, mode 0600); both paths are\n"
    "             printed\n"
    "\n"
    "exit status: 0 every file restored or nothing to do, 1 a file was refused or could\n"
    "not be restored, 2 bad usage or no such FILE or DIR. See docs/reliability.md.\n";

/* Recover one file; prints what happened. Returns an exit status. */
static int restore_file(const char *file, bool force)
{
    struct journal_recovery rec = {0};
    struct lb_error err;
    char *lock_path;
    int lock = journal_lock(file, &lock_path, &err);
    int rc = lock < 0 ? -1 : journal_recover(file, force, &rec, &err);
    journal_unlock(lock_path, lock);
    free(lock_path);
    if (rc < 0) {
        msg_error("%s", err.msg);
    } else if (!rec.found) {
        printf("'%s': no journal, nothing to restore\n", file);
    } else if (!rec.restored) {
        printf("'%s': already its original, journal removed\n", file);
    } else if (rec.kept) {
        printf(
            "'%s': restored its original, journal removed; what it held (%s) kept as '%s'\n", file,
            rec.held == JOURNAL_HELD_CUT ? "not JSON: a save cut short" : "changed by someone else",
            rec.kept);
    } else {
        printf("'%s': restored its original%s, journal removed\n", file,
               rec.held == JOURNAL_HELD_CUT       ? " (it was empty: a save cut short)"
               : rec.held == JOURNAL_HELD_MISSING ? " (it was missing)"
                                                  : "");
    }
    journal_recovery_release(&rec);
    return rc < 0 ? LB_EXIT_FAILURE : LB_EXIT_OK;
}

static int restore_dir(const char *dir, bool force)
{
    DIR *d = opendir(dir);
    if (!d) {
        msg_error("cannot open directory '%s'", dir);
        return LB_EXIT_FAILURE;
    }
    int status = LB_EXIT_OK;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *file = journal_file_for(dir, e->d_name);
        if (!file)
            continue;
        n++;
        if (restore_file(file, force) != LB_EXIT_OK)
            status = LB_EXIT_FAILURE;
        free(file);
    }
    closedir(d);
    if (n == 0)
        printf("'%s': no journals, nothing to restore\n", dir);
    return status;
}

int cmd_restore(int argc, char **argv)
{
    static const enum cli_option accepts[] = {OPT_FORCE, OPT_END};
    bool force = false;
    for (int c; (c = cli_getopt(argc, argv, accepts)) != -1;) {
        if (c != OPT_FORCE)
            return cli_bad_option("restore", argc, argv);
        force = true;
    }
    if (optind >= argc)
        return msg_usage_error("restore", "restore: missing FILE or DIR argument");

    int status = LB_EXIT_OK;
    for (int i = optind; i < argc; i++) {
        struct stat st;
        char *jp = journal_path_for(argv[i]);
        bool has_journal = access(jp, F_OK) == 0;
        free(jp);
        int rc;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            rc = restore_dir(argv[i], force);
        else if (has_journal || access(argv[i], F_OK) == 0)
            rc = restore_file(argv[i], force);
        else
            rc = msg_usage_error("restore", "restore: no such file or directory '%s'", argv[i]);
        if (rc > status)
            status = rc;
    }
    return status;
}
