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
    "usage: loopbench restore FILE|DIR...\n"
    "\n"
    "Put back the original of each config FILE (or of every file with a journal directly\n"
    "in DIR) that a loopbench which did not finish left edited, from its journal\n"
    "DIR/.NAME.loopbench-journal, and remove the journal. A file whose content is neither\n"
    "its original nor a version loopbench wrote or saw its target write was changed by\n"
    "someone else: it is left as it is, and so is the journal holding its original.\n"
    "\n"
    "exit status: 0 every file restored or nothing to do, 1 a file was refused or could\n"
    "not be restored, 2 bad usage or no such FILE or DIR. See docs/reliability.md.\n";

/* Recover one file; prints what happened. Returns an exit status. */
static int restore_file(const char *file)
{
    bool found, restored;
    struct lb_error err;
    char *lock_path;
    int lock = journal_lock(file, &lock_path, &err);
    int rc = lock < 0 ? -1 : journal_recover(file, &found, &restored, &err);
    journal_unlock(lock_path, lock);
    free(lock_path);
    if (rc < 0) {
        msg_error("%s", err.msg);
        return LB_EXIT_FAILURE;
    }
    if (!found)
        printf("'%s': no journal, nothing to restore\n", file);
    else if (restored)
        printf("'%s': restored its original, journal removed\n", file);
    else
        printf("'%s': already its original, journal removed\n", file);
    return LB_EXIT_OK;
}

static int restore_dir(const char *dir)
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
        if (restore_file(file) != LB_EXIT_OK)
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
    static const enum cli_option none[] = {OPT_END};
    if (cli_getopt(argc, argv, none) != -1)
        return cli_bad_option("restore", argc, argv);
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
            rc = restore_dir(argv[i]);
        else if (has_journal || access(argv[i], F_OK) == 0)
            rc = restore_file(argv[i]);
        else
            rc = msg_usage_error("restore", "restore: no such file or directory '%s'", argv[i]);
        if (rc > status)
            status = rc;
    }
    return status;
}
