/* The environment a target starts with: a base, what is passed on purpose, never a
 * credential or a CI control file. */
#include "targetenv.h"

#include <string.h>

/* What a server may need from the environment it is started in, and why. Names are
 * matched without regard to case (Windows spells them as it likes). */
static const char *const base_names[] = {
    /* the command is found through it, and so is every program it runs */
    "PATH",
    /* where a program keeps its per-user files (dotnet, a shell's rc) */
    "HOME",
    /* who it runs as, for programs that ask the environment, and its shell */
    "USER", "LOGNAME", "SHELL",
    /* the locale: how it reads and writes text (and LC_*, below) */
    "LANG", "LANGUAGE",
    /* the time zone of its log's timestamps; where it makes temporary files */
    "TZ", "TMPDIR",
    /* some programs refuse to start without one, even on a pipe */
    "TERM",
    /* where per-user files and sockets go when not under HOME */
    "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME",
    /* Windows: without SystemRoot, Winsock and much of Win32 fail; the rest are where
     * programs and per-user files are, and what the runtimes read of the machine */
    "SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERPROFILE",
    "USERNAME", "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PROGRAMFILES", "COMPUTERNAME",
    "NUMBER_OF_PROCESSORS", "PROCESSOR_ARCHITECTURE", "OS", NULL,
};

/* Never handed over, whatever is asked: the files a GitHub Actions step writes to steer
 * the job (a target that appends to GITHUB_ENV sets variables for the steps after it). */
static const char *const control_files[] = {"GITHUB_ENV",  "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY",
                                            "GITHUB_PATH", "GITHUB_STATE",  NULL};

/* ...nor anything under these prefixes, */
static const struct {
    const char *prefix, *why;
} prefixes[] = {
    {"ACTIONS_", "GitHub Actions' runtime tokens and URLs are under ACTIONS_"},
    {"AWS_", "AWS credentials are under AWS_"},
    {"GIT_CONFIG_", "git settings under GIT_CONFIG_ can carry a checkout's credentials "
                    "(http.extraheader)"},
};

/* ...nor a name with one of these in it, */
static const char *const parts[] = {"TOKEN",      "SECRET",  "PASSWORD", "PASSWD",
                                    "CREDENTIAL", "ASKPASS", NULL};

/* ...nor one with one of these as a word between underscores (API_KEY, SSH_AUTH_SOCK). */
static const char *const words[] = {"KEY", "AUTH", "APIKEY", NULL};

static char upper(char c)
{
    return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* Whether the first len bytes of s are word (upper case), without regard to case. */
static bool same(const char *s, size_t len, const char *word)
{
    size_t i = 0;
    for (; i < len && word[i]; i++)
        if (upper(s[i]) != word[i])
            return false;
    return i == len && !word[i];
}

static bool has_part(const char *name, size_t len, const char *part)
{
    size_t n = strlen(part);
    for (size_t i = 0; i + n <= len; i++)
        if (same(name + i, n, part))
            return true;
    return false;
}

/* The length of the name of entry ("NAME=value", or a bare name). */
static size_t name_len(const char *entry)
{
    return strcspn(entry, "=");
}

bool targetenv_name_valid(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

static bool base_n(const char *name, size_t len)
{
    if (len > 3 && same(name, 3, "LC_"))
        return true;
    for (size_t i = 0; base_names[i]; i++)
        if (same(name, len, base_names[i]))
            return true;
    return false;
}

bool targetenv_base(const char *name)
{
    return base_n(name, name_len(name));
}

static const char *refused_n(const char *name, size_t len)
{
    for (size_t i = 0; control_files[i]; i++)
        if (same(name, len, control_files[i]))
            return "a GitHub Actions file that steers the job";
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
        size_t n = strlen(prefixes[i].prefix);
        if (len >= n && same(name, n, prefixes[i].prefix))
            return prefixes[i].why;
    }
    for (size_t i = 0; parts[i]; i++)
        if (has_part(name, len, parts[i]))
            return "a name that holds TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL or ASKPASS "
                   "looks like a credential";
    for (size_t start = 0; start < len;) {
        size_t n = 0;
        while (start + n < len && name[start + n] != '_')
            n++;
        for (size_t i = 0; words[i]; i++)
            if (same(name + start, n, words[i]))
                return "a name with KEY, AUTH or APIKEY as a word looks like a credential";
        start += n + 1;
    }
    return NULL;
}

const char *targetenv_refused(const char *name)
{
    return refused_n(name, name_len(name));
}

int targetenv_check(const char *name, const char *what, struct lb_error *err)
{
    if (!targetenv_name_valid(name))
        return lb_fail(err,
                       "%s '%s': expected a variable name (a letter or '_', then letters, "
                       "digits or '_')",
                       what, name);
    const char *why = targetenv_refused(name);
    if (why)
        return lb_fail(err,
                       "%s '%s': never passed to a target: %s (set a value in the "
                       "profile's env if the target needs one)",
                       what, name, why);
    return 0;
}

static bool asked(const char *name, size_t len, const struct strv *pass)
{
    for (size_t i = 0; pass && i < pass->n; i++)
        if (strlen(pass->v[i]) == len && memcmp(pass->v[i], name, len) == 0)
            return true;
    return false;
}

void targetenv_select(char *const *base, const struct strv *pass, struct strv *env,
                      struct strv *passed, size_t *withheld)
{
    memset(env, 0, sizeof(*env));
    memset(passed, 0, sizeof(*passed));
    *withheld = 0;
    for (size_t i = 0; base && base[i]; i++) {
        size_t len = name_len(base[i]);
        if (len > 0 && !refused_n(base[i], len) &&
            (base_n(base[i], len) || asked(base[i], len, pass))) {
            strv_push(env, base[i]);
            strv_push_owned(passed, xstrndup(base[i], len));
        } else {
            (*withheld)++;
        }
    }
    /* execve() wants an array even when it is empty. */
    if (!env->v) {
        env->v = xcalloc(1, sizeof(*env->v));
        env->cap = 1;
    }
}
