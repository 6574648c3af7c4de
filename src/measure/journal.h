/* The journal: what loopbench needs to put an operator's config file back after it
 * died without restoring it (SIGKILL, OOM, power loss).
 *
 * Before the first edit of FILE, its original bytes and mode are written, synced, to
 * a hidden file beside it, DIR/.NAME.loopbench-journal, together with the hashes of
 * every version of FILE that is "ours": each version loopbench writes (recorded
 * before it is written) and each complete version loopbench saw in the file while its
 * target ran (a target such as refshard or ModernUO rewrites its own config at
 * start-up), and the values loopbench wrote at each key path. Recovery restores the
 * original when FILE holds the original, one of those versions, or a save of one the
 * target made that loopbench did not see (judged on the JSON: journal_recover); a
 * FILE that is not JSON (a save cut short) is kept beside it first. Anything else was
 * changed by someone else and is left alone unless forced. The format is in
 * docs/reliability.md. */
#ifndef LOOPBENCH_JOURNAL_H
#define LOOPBENCH_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "msg.h"

/* The largest config file loopbench edits, and so the largest original a journal holds
 * (read back bounded: a target may have put a FIFO or a huge file in its place), and the
 * largest journal, which adds a line per version loopbench wrote. */
#define CONFIG_SIZE_MAX (64ULL << 20)
#define JOURNAL_SIZE_MAX (CONFIG_SIZE_MAX + (4ULL << 20))

struct journal {
    char *path;     /* the journal file */
    char *file;     /* the config file it journals */
    char *original; /* its original bytes */
    size_t original_len;
    unsigned mode;     /* its original permission bits */
    char (*known)[17]; /* hashes of the versions that are ours */
    size_t n_known;
    json_t *written; /* [key path, value] pairs loopbench wrote; NULL in a version 1 journal */
};

/* The journal's path for file: DIR/.NAME.loopbench-journal, where DIR/NAME is file's
 * real path (a file reached through links has one journal, beside the file itself).
 * New string, caller frees. journal_load also finds a journal an older loopbench left
 * beside the path as given. */
char *journal_path_for(const char *file);

/* Lock file: DIR/.NAME.loopbench-lock beside file's real path, as the journal, so two
 * links to one file lock each other out; held (util.h lock_take) by the one loopbench
 * that may edit, recover or restore file. Returns its descriptor and *lock_path (new
 * string, caller frees, after journal_unlock), or -1 with err naming the loopbench
 * holding it (*lock_path is set either way). */
int journal_lock(const char *file, char **lock_path, struct lb_error *err);
void journal_unlock(const char *lock_path, int fd);

/* The config file a directory entry name in dir journals (new string, caller frees),
 * or NULL when name is not a journal's. */
char *journal_file_for(const char *dir, const char *name);

/* Write a new journal for file holding its original bytes and mode, synced (and its
 * directory synced) before returning. j is initialised; journal_release it. */
int journal_create(struct journal *j, const char *file, const char *original, size_t len,
                   unsigned mode, struct lb_error *err);

/* Count data as ours, and the [key path, value] pairs of written (NULL: none) as values
 * loopbench wrote; rewrites the journal (synced) when either is new. */
int journal_add(struct journal *j, const void *data, size_t len, const json_t *written,
                struct lb_error *err);

/* Whether data is the original or a version recorded as ours. */
bool journal_is_ours(const struct journal *j, const void *data, size_t len);

/* Read file's journal. *found false (and j untouched) when there is none. */
int journal_load(const char *file, struct journal *j, bool *found, struct lb_error *err);

/* Remove the journal file. Its directory is not synced: a journal that comes back
 * after a power loss finds the original in place and is simply removed again. */
int journal_remove(const struct journal *j, struct lb_error *err);

/* Replace file atomically with data and mode, through symlinks so that a config
 * linked from elsewhere stays a link. */
int journal_write_file(const char *file, const void *data, size_t len, unsigned mode,
                       struct lb_error *err);

/* What the file held at recovery. */
enum journal_held {
    JOURNAL_HELD_ORIGINAL,
    JOURNAL_HELD_OURS,    /* a version loopbench wrote or saw, or a save the target made of one */
    JOURNAL_HELD_CUT,     /* not JSON (empty, or a prefix): a save the kill cut short */
    JOURNAL_HELD_FOREIGN, /* changed by someone else */
    JOURNAL_HELD_MISSING,
};

struct journal_recovery {
    bool found;    /* file had a journal */
    bool restored; /* the original was written back (else the file was it already) */
    enum journal_held held;
    char *kept; /* where what the file held was kept (new string), or NULL */
};

/* If file has a journal, put the original back and remove the journal (the caller holds
 * journal_lock). A file that is not JSON (a save cut short) is first kept beside it,
 * NAME.loopbench-kept-TIME (TIME in UTC; never over a file that exists, nor through a
 * link; mode 0600), unless it is empty. A file changed by someone else, or missing, is
 * left as it is and recovery fails, the message naming the journal that holds the
 * original and saying how to force it; force puts the original back all the same,
 * keeping the file's content beside it first. Release r with journal_recovery_release
 * whatever is returned. */
int journal_recover(const char *file, bool force, struct journal_recovery *r, struct lb_error *err);
void journal_recovery_release(struct journal_recovery *r);

void journal_release(struct journal *j);

#endif
