/* Applying a setting's value to a target's config files, for the run: the document,
 * argv and environment a value makes are computed in model/setter.h.
 *
 * Config files are the operator's: their original bytes and mode are read once, before
 * the first edit, every run's file is built from those original bytes (so a target
 * that rewrites its own config, as ModernUO does, cannot make runs differ), every write
 * is atomic (temp file in the same directory, fsync, rename), and confedit_restore()
 * puts the original bytes and mode back. A journal beside each file (journal.h) lets a
 * later loopbench put it back when this one dies before restoring it. */
#ifndef LOOPBENCH_CONFEDIT_H
#define LOOPBENCH_CONFEDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "journal.h"
#include "msg.h"
#include "platform/platform.h"
#include "profile.h"
#include "util.h"

struct confedit_file {
    char *path;
    char *real;     /* path's real path at the start: where every version is written */
    char *link;     /* the text of the symbolic link path was at the start, or NULL */
    char *original; /* the original bytes */
    size_t original_len;
    unsigned mode;          /* the original permission bits */
    bool written;           /* loopbench has replaced it at least once */
    struct journal journal; /* .path set once made, before the first write */
    char *lock_path;        /* journal_lock's, held from begin to release */
    int lock_fd;
    struct plat_file_stamp seen; /* the file at the last look (confedit_note_target) */
};

struct confedit {
    struct confedit_file *files; /* one per distinct config file in the profile */
    size_t n_files;
};

/* Take every config file the profile's knob and fixed settings name: lock it against
 * other loopbench processes (held until confedit_release), put back its original if a
 * loopbench that died left it edited (adding a line saying so to notes, when not
 * NULL), then read its original bytes and mode. Nothing else is written. Fails at a
 * file locked by another loopbench, or changed by someone else since a dead one
 * edited it (left as it is, with its journal). */
int confedit_begin(struct confedit *ce, const struct profile *p, struct strv *notes,
                   struct lb_error *err);

/* Write every config file as its original with the fixed settings and the knob at
 * value applied. The first write of a file creates its journal; every version is
 * recorded in the journal before it is written. */
int confedit_apply(struct confedit *ce, const struct profile *p, const char *value,
                   struct lb_error *err);

/* Record what the target wrote to every file written, as ours in its journal (synced
 * before this returns): called while the target runs and after it stops, so that a
 * target that rewrites its own config does not make a later recovery refuse. A version
 * is recorded once its write has settled (two reads 50 ms apart agree; a file still
 * changing after 2 s is left for the next look) and only when it is JSON: a save under
 * way (truncated, half written) is never taken for the target's. if_changed: only files
 * whose size, mtime or inode changed since the last look are read (a tick of the
 * warm-up; else every file). A config that was a symbolic link and that the target
 * replaced with a file (a save by rename) is made the link again. */
int confedit_note_target(struct confedit *ce, bool if_changed, struct lb_error *err);

/* Put back the original bytes and mode of every file written and remove its journal.
 * Keeps going on error (every file gets its chance) and reports the first failure. */
int confedit_restore(struct confedit *ce, struct lb_error *err);

void confedit_release(struct confedit *ce);

#endif
