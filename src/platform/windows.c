/* Windows back-end of the platform contract (platform.h).
 *
 * A spawned target runs in a job object of its own: it is created suspended, put in the
 * job, then resumed, so every descendant is in the job from its first instruction and
 * none can leave it. The job is Windows' process tree: its accounting is the CPU of
 * every process that ever ran in it, exited ones included (job-object-accounting), its
 * process list gives the members for memory, terminating it ends the whole tree, and
 * closing its last handle does too (KILL_ON_JOB_CLOSE), so a loopbench that dies
 * however it dies leaves no server running, as PR_SET_PDEATHSIG does on Linux. The
 * accounting is updated at each scheduler tick for a running thread, so its resolution
 * is the tick (GetSystemTimeAdjustment, 15.625 ms by default).
 *
 * Windows has no signals between processes. "Signals" here are the Linux numbers of
 * compat.h, mapped to what Windows has: stopping sends CTRL_BREAK to the target's
 * process group (the one polite request a console program can receive), SIGKILL is
 * TerminateJobObject; loopbench's own Ctrl+C, Ctrl+Break and console close become
 * SIGINT, SIGTERM and SIGHUP events.
 *
 * Strings cross the contract in UTF-8 and are converted to UTF-16 for the W functions
 * here, so paths and arguments outside the ANSI code page work. */
#ifndef _WIN32_WINNT /* meson passes it too */
#define _WIN32_WINNT 0x0A00
#endif
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <psapi.h>
#include <bcrypt.h>

#include "platform/platform.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "compat.h"
#include "util.h"

#define TREE_MAX 4096                 /* processes listed per read of a job */
#define LEADERS_MAX (MAXIMUM_WAIT_OBJECTS - 2) /* the wait set also holds the timer and
                                               * the console event */
#define KILL_WAIT_NS (5 * NS_PER_SEC)
#define STOP_POLL_NS (50 * 1000000ULL) /* how often a stop looks at the job's process count */
#define TCP_WAIT_NS (100 * 1000000ULL)
#define DEFAULT_TICK_NS 15625000ULL
/* The exit code TerminateJobObject gives, 128 + SIGKILL as a shell would show it. */
#define KILLED_EXIT_CODE 137
/* A lock on one byte at 2^62, far beyond any content, so the pid written at the start
 * of the lock file stays readable through another handle. */
#define LOCK_OFFSET_HIGH 0x40000000UL
#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION /* Windows 10 1803; not in mingw's headers */
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

const char *plat_name(void)
{
    return "windows";
}

/* ---- Errors and strings ----------------------------------------------------------- */

/* The system's text for a Win32 error code, in UTF-8, without its final period. */
static void win_error_text(DWORD code, char *buf, size_t cap)
{
    wchar_t w[256];
    DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                             code, 0, w, ARRAY_SIZE(w), NULL);
    while (n > 0 && (w[n - 1] == L'\r' || w[n - 1] == L'\n' || w[n - 1] == L' ' ||
                     w[n - 1] == L'.'))
        n--;
    w[n] = L'\0';
    if (n == 0 || WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, (int)cap, NULL, NULL) <= 0)
        snprintf(buf, cap, "unknown error");
}

/* lb_fail for a Win32 failure: "WHAT: the system's text (Windows error N)". */
static int win_fail(struct lb_error *err, DWORD code, const char *fmt, ...) LB_PRINTF(3, 4);
static int win_fail(struct lb_error *err, DWORD code, const char *fmt, ...)
{
    char what[LB_ERROR_MAX / 2], text[LB_ERROR_MAX / 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    win_error_text(code, text, sizeof(text));
    return lb_fail(err, "%s: %s (Windows error %lu)", what, text, (unsigned long)code);
}

/* The errno closest to a Win32 error, for the functions whose contract is errno. */
static int errno_of(DWORD code)
{
    switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
    case ERROR_BAD_NET_NAME:
    case ERROR_INVALID_NAME:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_WRITE_PROTECT:
        return EACCES;
    case ERROR_LOCK_VIOLATION:
        return EWOULDBLOCK;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        return EEXIST;
    case ERROR_NOT_SAME_DEVICE:
        return EXDEV;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ENOSPC;
    case ERROR_DIRECTORY:
        return ENOTDIR;
    case ERROR_DIR_NOT_EMPTY:
        return ENOTEMPTY;
    case ERROR_INVALID_HANDLE:
        return EBADF;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    default:
        return EIO;
    }
}

/* UTF-8 to a new UTF-16 string. Invalid bytes become U+FFFD, so a bad name fails where
 * it is used, naming the file. */
static wchar_t *utf16(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, s, -1, NULL, 0);
    wchar_t *w = xmalloc((size_t)(n > 0 ? n : 1) * sizeof(*w));
    if (n <= 0 || MultiByteToWideChar(CP_UTF8, 0, s, -1, w, n) <= 0)
        w[0] = L'\0';
    return w;
}

/* UTF-16 to a new UTF-8 string. */
static char *utf8(const wchar_t *w)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = xmalloc(n > 0 ? (size_t)n : 1);
    if (n <= 0 || WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) <= 0)
        s[0] = '\0';
    return s;
}

/* FILETIME durations count 100 ns units. */
static uint64_t filetime_ns(FILETIME ft)
{
    return (((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime) * 100;
}

char *plat_exe_dir(struct lb_error *err)
{
    DWORD cap = 32768; /* the longest path Windows has */
    wchar_t *buf = xmalloc(cap * sizeof(*buf));
    DWORD n = GetModuleFileNameW(NULL, buf, cap);
    if (n == 0 || n >= cap) {
        win_fail(err, GetLastError(), "cannot find the loopbench executable (GetModuleFileNameW)");
        free(buf);
        return NULL;
    }
    char *exe = utf8(buf);
    free(buf);
    char *dir = path_dirname(exe);
    free(exe);
    return dir;
}

/* ---- CPU source name -------------------------------------------------------------- */

const char plat_tree_source_name[] = "job-object-accounting";

/* ---- Starting programs ------------------------------------------------------------ */

/* Append arg to the command line at *p, quoted so that CommandLineToArgvW and the C
 * runtimes give it back unchanged: inside quotes, backslashes are literal except before
 * a quote, where they come in pairs, and a quote is escaped by one. */
static void cmdline_append(char **p, const char *arg)
{
    char *o = *p;
    if (*arg && !strpbrk(arg, " \t\n\v\"")) {
        size_t n = strlen(arg);
        memcpy(o, arg, n);
        *p = o + n;
        return;
    }
    *o++ = '"';
    for (const char *s = arg;; s++) {
        size_t backslashes = 0;
        while (*s == '\\') {
            backslashes++;
            s++;
        }
        /* Before the closing quote or a quote of the argument, each one is doubled. */
        size_t copies = *s == '\0' ? 2 * backslashes : *s == '"' ? 2 * backslashes + 1 : backslashes;
        memset(o, '\\', copies);
        o += copies;
        if (*s == '\0')
            break;
        *o++ = *s;
    }
    *o++ = '"';
    *p = o;
}

/* The command line for argv (new UTF-16 string). */
static wchar_t *cmdline_build(char *const *argv)
{
    size_t cap = 1;
    for (size_t i = 0; argv[i]; i++)
        cap += 2 * strlen(argv[i]) + 3; /* every byte escaped, two quotes, a blank */
    char *line = xmalloc(cap), *p = line;
    for (size_t i = 0; argv[i]; i++) {
        if (i > 0)
            *p++ = ' ';
        cmdline_append(&p, argv[i]);
    }
    *p = '\0';
    wchar_t *w = utf16(line);
    free(line);
    return w;
}

/* Length of the name of an environment entry: up to its '=', which is not the first
 * character (the hidden per-drive "=C:=C:\dir" entries start with one). */
static int env_name_len(const wchar_t *entry)
{
    const wchar_t *eq = wcschr(entry + (entry[0] == L'='), L'=');
    return eq ? (int)(eq - entry) : (int)wcslen(entry);
}

static int env_entry_cmp(const void *a, const void *b)
{
    const wchar_t *x = *(wchar_t *const *)a, *y = *(wchar_t *const *)b;
    return CompareStringOrdinal(x, env_name_len(x), y, env_name_len(y), TRUE) - CSTR_EQUAL;
}

/* envp as an environment block (new): "NAME=value" strings in UTF-16, sorted by name
 * without regard to case as CreateProcess documents, and an empty one at the end. */
static wchar_t *env_block(char *const *envp)
{
    size_t n = 0;
    while (envp[n])
        n++;
    wchar_t **entries = xcalloc(n + 1, sizeof(*entries));
    size_t total = 2;
    for (size_t i = 0; i < n; i++) {
        entries[i] = utf16(envp[i]);
        total += wcslen(entries[i]) + 1;
    }
    qsort(entries, n, sizeof(*entries), env_entry_cmp);
    wchar_t *block = xmalloc(total * sizeof(*block)), *p = block;
    for (size_t i = 0; i < n; i++) {
        size_t len = wcslen(entries[i]) + 1;
        memcpy(p, entries[i], len * sizeof(*p));
        p += len;
        free(entries[i]);
    }
    *p++ = L'\0';
    if (n == 0)
        *p = L'\0';
    free(entries);
    return block;
}

/* Where a bare program name is looked for (new string): the working directory first,
 * as cmd.exe does, then the PATH of envp, or loopbench's own when envp is NULL. */
static wchar_t *search_list(const char *dir, char *const *envp)
{
    char *path = NULL;
    if (envp) {
        for (size_t i = 0; envp[i] && !path; i++)
            if (_strnicmp(envp[i], "PATH=", 5) == 0)
                path = xstrdup(envp[i] + 5);
    } else {
        DWORD n = GetEnvironmentVariableW(L"PATH", NULL, 0);
        wchar_t *w = xmalloc((n ? n : 1) * sizeof(*w));
        if (n && GetEnvironmentVariableW(L"PATH", w, n) > 0)
            path = utf8(w);
        free(w);
    }
    char *list = xasprintf("%s;%s", dir ? dir : ".", path ? path : "");
    wchar_t *wlist = utf16(list);
    free(list);
    free(path);
    return wlist;
}

static bool is_file(const wchar_t *path)
{
    DWORD a = GetFileAttributesW(path);
    return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

/* The file to run for argv0 (new string), or NULL. A name with a directory part is
 * taken as it is, relative to dir when given (the POSIX back-end changes directory
 * before it execs); a bare name is looked up by search_list. ".exe" may be left out,
 * as for CreateProcess itself. */
static wchar_t *program_find(const char *argv0, const char *dir, char *const *envp)
{
    if (strpbrk(argv0, "/\\")) {
        char *path = path_join(dir, argv0);
        char *exe = xasprintf("%s.exe", path);
        wchar_t *w = utf16(path), *wexe = utf16(exe);
        free(path);
        free(exe);
        if (is_file(w)) {
            free(wexe);
            return w;
        }
        free(w);
        if (is_file(wexe))
            return wexe;
        free(wexe);
        return NULL;
    }
    wchar_t *name = utf16(argv0), *list = search_list(dir, envp), *found = NULL;
    DWORD n = SearchPathW(list, name, L".exe", 0, NULL, NULL);
    if (n > 0) {
        found = xmalloc(n * sizeof(*found));
        DWORD m = SearchPathW(list, name, L".exe", n, found, NULL);
        if (m == 0 || m >= n || !is_file(found)) {
            free(found);
            found = NULL;
        }
    }
    free(name);
    free(list);
    return found;
}

int plat_program_check(const char *program, const char *dir)
{
    wchar_t *found = program_find(program, dir, NULL);
    free(found);
    return found ? 0 : ENOENT;
}

/* A handle the child inherits: path (NULL: the null device) created and truncated for
 * writing, or opened for reading. Others may read and write it meanwhile: loopbench
 * follows the log while the target writes it. */
static HANDLE child_file(const char *path, bool write, struct lb_error *err)
{
    SECURITY_ATTRIBUTES sa = {sizeof(sa), NULL, TRUE};
    wchar_t *w = path ? utf16(path) : NULL;
    HANDLE h = CreateFileW(w ? w : L"NUL", write ? GENERIC_WRITE : GENERIC_READ,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &sa,
                           write ? CREATE_ALWAYS : OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD e = GetLastError();
        win_fail(err, e, "cannot %s '%s'", write ? "create" : "open", path ? path : "NUL");
        SetLastError(e); /* for the caller's errno */
    }
    return h;
}

/* How to start a program: plat_spawn's and plat_run_program's. */
struct launch {
    char *const *argv;       /* argv[0] found by program_find */
    const char *dir;         /* NULL: loopbench's */
    char *const *envp;       /* NULL: loopbench's */
    const char *stdout_path; /* NULL: the null device */
    const char *stderr_path; /* the same path: the same handle, one file offset */
    DWORD flags;             /* CreateProcess creation flags */
};

/* Start l with stdin from the null device. Only the three standard handles are
 * inherited, by an explicit list: no other handle loopbench has open leaks into the
 * target, whichever thread opened it. On failure errno says why (ENOENT: no such
 * program or directory). */
static int launch(const struct launch *l, PROCESS_INFORMATION *pi, struct lb_error *err)
{
    const char *name = l->argv[0];
    if (l->dir) {
        wchar_t *wdir = utf16(l->dir);
        DWORD a = GetFileAttributesW(wdir);
        DWORD e = GetLastError();
        free(wdir);
        if (a == INVALID_FILE_ATTRIBUTES) {
            win_fail(err, e, "cannot change to directory '%s'", l->dir);
            errno = errno_of(e);
            return -1;
        }
        if (!(a & FILE_ATTRIBUTE_DIRECTORY)) {
            errno = ENOTDIR;
            return lb_fail(err, "cannot change to directory '%s': not a directory", l->dir);
        }
    }
    wchar_t *program = program_find(name, l->dir, l->envp);
    if (!program) {
        errno = ENOENT;
        return lb_fail(err, "cannot run '%s': no such program%s", name,
                       strpbrk(name, "/\\") ? "" : " in the working directory or PATH");
    }

    HANDLE std[3] = {INVALID_HANDLE_VALUE, INVALID_HANDLE_VALUE, INVALID_HANDLE_VALUE};
    DWORD failure = 0;
    bool shared = l->stdout_path && l->stderr_path && strcmp(l->stdout_path, l->stderr_path) == 0;
    wchar_t *cmdline = NULL, *env = NULL, *wdir = NULL;
    LPPROC_THREAD_ATTRIBUTE_LIST attrs = NULL;
    int rc = -1;
    if ((std[0] = child_file(NULL, false, err)) == INVALID_HANDLE_VALUE ||
        (std[1] = child_file(l->stdout_path, true, err)) == INVALID_HANDLE_VALUE ||
        (!shared && (std[2] = child_file(l->stderr_path, true, err)) == INVALID_HANDLE_VALUE)) {
        failure = GetLastError();
        goto out;
    }
    HANDLE inherit[3] = {std[0], std[1], std[2]};
    DWORD n_inherit = shared ? 2 : 3;

    SIZE_T size = 0;
    InitializeProcThreadAttributeList(NULL, 1, 0, &size);
    attrs = xmalloc(size);
    if (!InitializeProcThreadAttributeList(attrs, 1, 0, &size)) {
        free(attrs);
        attrs = NULL;
        failure = GetLastError();
        win_fail(err, failure, "cannot start '%s': cannot make its attribute list", name);
        goto out;
    }
    if (!UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit,
                                   n_inherit * sizeof(HANDLE), NULL, NULL)) {
        failure = GetLastError();
        win_fail(err, failure, "cannot start '%s': cannot list its handles", name);
        goto out;
    }
    STARTUPINFOEXW si;
    memset(&si, 0, sizeof(si));
    si.StartupInfo.cb = sizeof(si);
    si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    si.StartupInfo.hStdInput = std[0];
    si.StartupInfo.hStdOutput = std[1];
    si.StartupInfo.hStdError = shared ? std[1] : std[2];
    si.lpAttributeList = attrs;

    cmdline = cmdline_build(l->argv);
    env = l->envp ? env_block(l->envp) : NULL;
    wdir = l->dir ? utf16(l->dir) : NULL;
    if (!CreateProcessW(program, cmdline, NULL, NULL, TRUE,
                        l->flags | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT, env,
                        wdir, &si.StartupInfo, pi)) {
        failure = GetLastError();
        win_fail(err, failure, "cannot run '%s'", name);
        goto out;
    }
    rc = 0;
out:
    if (attrs) {
        DeleteProcThreadAttributeList(attrs);
        free(attrs);
    }
    for (size_t i = 0; i < ARRAY_SIZE(std); i++)
        if (std[i] != INVALID_HANDLE_VALUE)
            CloseHandle(std[i]);
    free(program);
    free(cmdline);
    free(env);
    free(wdir);
    if (rc < 0)
        errno = errno_of(failure);
    return rc;
}

/* A process's exit code as a wait status in Linux's encoding (compat.h). The crashes
 * that POSIX reports as signals are reported as those signals. */
static int wait_status(DWORD code, bool terminated)
{
    static const struct {
        DWORD code;
        int sig;
    } crashes[] = {
        {0xC0000005, SIGSEGV}, /* STATUS_ACCESS_VIOLATION */
        {0xC00000FD, SIGSEGV}, /* STATUS_STACK_OVERFLOW */
        {0xC000001D, SIGILL},  /* STATUS_ILLEGAL_INSTRUCTION */
        {0xC0000094, SIGFPE},  /* STATUS_INTEGER_DIVIDE_BY_ZERO */
        {0xC0000409, SIGABRT}, /* STATUS_STACK_BUFFER_OVERRUN: abort() and fail-fast */
        {0xC000013A, SIGINT},  /* STATUS_CONTROL_C_EXIT */
    };
    if (terminated && code == KILLED_EXIT_CODE)
        return SIGKILL;
    for (size_t i = 0; i < ARRAY_SIZE(crashes); i++)
        if (crashes[i].code == code)
            return crashes[i].sig;
    return (int)(code & 0xff) << 8;
}

/* ---- Targets ---------------------------------------------------------------------- */

struct plat_target {
    pid_t pid;
    bool spawned;
    bool stopped;
    bool terminated; /* loopbench terminated the job while the leader ran */
    HANDLE process;  /* the leader */
    HANDLE job;      /* spawned: the tree */
    enum cpu_source_kind source;
    uint64_t resolution_ns;
    uint64_t last_cpu_ns;
    JOBOBJECT_BASIC_PROCESS_ID_LIST *ids; /* spawned: room for TREE_MAX, made once */
};

/* Leaders of the spawned targets, whose exit plat_wait_until reports, once each. */
static struct {
    HANDLE process;
    bool reported;
} leaders[LEADERS_MAX];
static size_t n_leaders;

static void leader_register(HANDLE process)
{
    leaders[n_leaders].process = process;
    leaders[n_leaders].reported = false;
    n_leaders++;
}

static void leader_unregister(HANDLE process)
{
    for (size_t i = 0; i < n_leaders; i++) {
        if (leaders[i].process == process) {
            leaders[i] = leaders[--n_leaders];
            return;
        }
    }
}

void plat_force_full_scan(bool on)
{
    (void)on; /* the job lists its members: there is no scan */
}

/* How late the accounting of a running thread can be: one scheduler tick. */
static uint64_t tick_ns(void)
{
    DWORD adjustment, increment;
    BOOL disabled;
    if (GetSystemTimeAdjustment(&adjustment, &increment, &disabled) && increment > 0)
        return (uint64_t)increment * 100;
    return DEFAULT_TICK_NS;
}

static struct plat_target *target_new(pid_t pid, HANDLE process, bool spawned)
{
    struct plat_target *t = xcalloc(1, sizeof(*t));
    t->pid = pid;
    t->process = process;
    t->spawned = spawned;
    t->source = CPU_SOURCE_TREE;
    t->resolution_ns = tick_ns();
    return t;
}

int plat_spawn(const struct plat_spawn_opts *opts, struct plat_target **out, struct lb_error *err)
{
    if (!opts->argv || !opts->argv[0])
        return lb_fail(err, "cannot start a target: no command given");
    const char *name = opts->argv[0];
    if (opts->cpu == CPU_SOURCE_PERF)
        return lb_fail(err, "cannot measure '%s' with perf: it is Linux's; Windows measures a "
                            "tree by job-object-accounting (--cpu-source tree or auto)",
                       name);
    if (n_leaders == LEADERS_MAX)
        return lb_fail(err, "cannot start '%s': %d targets are running already", name,
                       LEADERS_MAX);
    if (plat_events_init(err) < 0)
        return -1;
    HANDLE job = CreateJobObjectW(NULL, NULL);
    if (!job)
        return win_fail(err, GetLastError(), "cannot start '%s': cannot create a job object",
                        name);
    /* The tree dies with the last handle of the job, loopbench's: a loopbench that dies
     * takes its target with it. A crash ends the process at once rather than waiting
     * in an error-reporting dialog, so it is seen as an exit. */
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
    memset(&limits, 0, sizeof(limits));
    limits.BasicLimitInformation.LimitFlags =
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE | JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
    if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &limits,
                                 sizeof(limits))) {
        win_fail(err, GetLastError(), "cannot start '%s': cannot set up its job object", name);
        CloseHandle(job);
        return -1;
    }
    struct launch l = {
        .argv = opts->argv,
        .dir = opts->cwd,
        .envp = opts->envp,
        .stdout_path = opts->stdout_path,
        .stderr_path = opts->stderr_path,
        /* Suspended until it is in the job; a group of its own so that a CTRL_BREAK
         * can be sent to the tree and loopbench's Ctrl+C does not reach it. */
        .flags = CREATE_SUSPENDED | CREATE_NEW_PROCESS_GROUP,
    };
    PROCESS_INFORMATION pi;
    if (launch(&l, &pi, err) < 0) {
        CloseHandle(job);
        return -1;
    }
    if (!AssignProcessToJobObject(job, pi.hProcess)) {
        win_fail(err, GetLastError(), "cannot start '%s': cannot put it in a job object", name);
        TerminateProcess(pi.hProcess, KILLED_EXIT_CODE);
        CloseHandle(pi.hThread);
        CloseHandle(pi.hProcess);
        CloseHandle(job);
        return -1;
    }
    ResumeThread(pi.hThread);
    CloseHandle(pi.hThread);
    struct plat_target *t = target_new((pid_t)pi.dwProcessId, pi.hProcess, true);
    t->job = job;
    t->ids = xmalloc(offsetof(JOBOBJECT_BASIC_PROCESS_ID_LIST, ProcessIdList) +
                     TREE_MAX * sizeof(ULONG_PTR));
    leader_register(pi.hProcess);
    *out = t;
    return 0;
}

int plat_attach(pid_t pid, struct plat_target **out, struct lb_error *err)
{
    if (pid <= 0)
        return lb_fail(err, "no process with pid %d", (int)pid);
    /* Memory needs PROCESS_VM_READ, which another user's process may refuse: then the
     * CPU is still measured and the memory is 0. */
    DWORD access = PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE;
    HANDLE h = OpenProcess(access | PROCESS_VM_READ, FALSE, (DWORD)pid);
    if (!h)
        h = OpenProcess(access, FALSE, (DWORD)pid);
    if (!h) {
        DWORD e = GetLastError();
        if (e == ERROR_INVALID_PARAMETER)
            return lb_fail(err, "no process with pid %d", (int)pid);
        return win_fail(err, e, "cannot open process %d", (int)pid);
    }
    if (WaitForSingleObject(h, 0) == WAIT_OBJECT_0) {
        CloseHandle(h);
        return lb_fail(err, "no process with pid %d", (int)pid);
    }
    *out = target_new(pid, h, false);
    (*out)->source = CPU_SOURCE_PROCESS; /* a process outside any job of ours: its own times */
    return 0;
}

pid_t plat_target_pid(const struct plat_target *t)
{
    return t->pid;
}

enum cpu_source_kind plat_target_cpu_source(const struct plat_target *t)
{
    return t->source;
}

const char *plat_target_containment(const struct plat_target *t)
{
    (void)t;
    return "job-object";
}

uint64_t plat_target_cpu_resolution_ns(const struct plat_target *t)
{
    return t->resolution_ns;
}

static int job_accounting(struct plat_target *t, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION *info,
                          struct lb_error *err)
{
    if (!QueryInformationJobObject(t->job, JobObjectBasicAccountingInformation, info,
                                   sizeof(*info), NULL))
        return win_fail(err, GetLastError(), "cannot read the job accounting of pid %d",
                        (int)t->pid);
    return 0;
}

int plat_target_cpu_ns(struct plat_target *t, uint64_t *cpu_ns, struct lb_error *err)
{
    uint64_t v;
    if (t->spawned) {
        JOBOBJECT_BASIC_ACCOUNTING_INFORMATION info;
        if (job_accounting(t, &info, err) < 0)
            return -1;
        v = ((uint64_t)info.TotalUserTime.QuadPart + (uint64_t)info.TotalKernelTime.QuadPart) * 100;
    } else {
        FILETIME created, exited, kernel, user;
        if (!GetProcessTimes(t->process, &created, &exited, &kernel, &user))
            return win_fail(err, GetLastError(), "cannot read the CPU times of pid %d",
                            (int)t->pid);
        v = filetime_ns(kernel) + filetime_ns(user);
    }
    /* Never backwards, whatever the system's bookkeeping does. */
    if (v < t->last_cpu_ns)
        v = t->last_cpu_ns;
    t->last_cpu_ns = v;
    *cpu_ns = v;
    return 0;
}

/* Working set of one process, through a handle with PROCESS_VM_READ; 0 if unreadable. */
static uint64_t working_set(HANDLE process)
{
    PROCESS_MEMORY_COUNTERS m;
    return K32GetProcessMemoryInfo(process, &m, sizeof(m)) ? (uint64_t)m.WorkingSetSize : 0;
}

/* The processes of the job (of an attached target, the one process) and their memory. */
static int tree_stats(struct plat_target *t, struct plat_tree_stats *out, struct lb_error *err)
{
    /* Windows keeps no count of context switches per process that is cheap to read. */
    memset(out, 0, sizeof(*out));
    if (!t->spawned) {
        if (WaitForSingleObject(t->process, 0) == WAIT_TIMEOUT) {
            out->nprocs = 1;
            out->rss_bytes = working_set(t->process);
        }
        return 0;
    }
    DWORD size = (DWORD)(offsetof(JOBOBJECT_BASIC_PROCESS_ID_LIST, ProcessIdList) +
                         TREE_MAX * sizeof(ULONG_PTR));
    /* A tree larger than the list is read in part (ERROR_MORE_DATA): its first members. */
    if (!QueryInformationJobObject(t->job, JobObjectBasicProcessIdList, t->ids, size, NULL) &&
        GetLastError() != ERROR_MORE_DATA)
        return win_fail(err, GetLastError(), "cannot list the processes of pid %d's job",
                        (int)t->pid);
    for (DWORD i = 0; i < t->ids->NumberOfProcessIdsInList; i++) {
        HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ, FALSE,
                               (DWORD)t->ids->ProcessIdList[i]);
        if (!h)
            continue; /* exited since the list was made */
        out->nprocs++;
        out->rss_bytes += working_set(h);
        CloseHandle(h);
    }
    return 0;
}

int plat_target_read(struct plat_target *t, uint64_t *cpu_ns, struct plat_tree_stats *stats,
                     struct lb_error *err)
{
    if (plat_target_cpu_ns(t, cpu_ns, err) < 0)
        return -1;
    return tree_stats(t, stats, err);
}

int plat_target_exited(struct plat_target *t, int *wstatus)
{
    DWORD w = WaitForSingleObject(t->process, 0);
    if (w == WAIT_TIMEOUT)
        return 0;
    if (w != WAIT_OBJECT_0)
        return -1;
    if (wstatus) {
        DWORD code = 0;
        *wstatus = t->spawned && GetExitCodeProcess(t->process, &code) ?
                       wait_status(code, t->terminated) : 0;
    }
    return 1;
}

/* ---- Stopping --------------------------------------------------------------------- */

/* Processes alive in the job, or -1 (err filled). */
static int job_active(struct plat_target *t, struct lb_error *err)
{
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION info;
    if (job_accounting(t, &info, err) < 0)
        return -1;
    return (int)info.ActiveProcesses;
}

/* Wait up to deadline for the job to empty, polling its count (a job signals nothing
 * when it empties); a second Ctrl+C since sigints ends the wait. Returns what is left. */
static int job_drain(struct plat_target *t, uint64_t deadline, int sigints, struct lb_error *err)
{
    int left;
    while ((left = job_active(t, err)) > 0) {
        uint64_t now = mono_ns();
        if (now >= deadline)
            break;
        enum plat_event ev = plat_wait_until(now + STOP_POLL_NS < deadline ? now + STOP_POLL_NS
                                                                          : deadline);
        if (ev == PLAT_EVENT_INTERRUPT && sigints >= 0 && plat_sigint_count() > sigints)
            break;
    }
    return left;
}

int plat_target_stop(struct plat_target *t, int sig, uint64_t grace_ns, bool *killed,
                     struct lb_error *err)
{
    *killed = false;
    if (!t->spawned)
        return lb_fail(err, "cannot stop pid %d: loopbench did not start it", (int)t->pid);
    if (t->stopped)
        return 0;
    int left = job_active(t, err);
    /* The one request to stop that a console program can receive. It fails when the
     * target shares no console with loopbench (loopbench runs detached, or under
     * wine): then there is no polite way, and the tree is terminated. */
    if (left > 0 && grace_ns > 0 && sig != SIGKILL &&
        GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, (DWORD)t->pid))
        left = job_drain(t, mono_ns() + grace_ns, plat_sigint_count(), err);
    if (left > 0) {
        *killed = true;
        t->terminated = WaitForSingleObject(t->process, 0) == WAIT_TIMEOUT;
        if (!TerminateJobObject(t->job, KILLED_EXIT_CODE))
            return win_fail(err, GetLastError(), "cannot terminate the processes of pid %d",
                            (int)t->pid);
        left = job_drain(t, mono_ns() + KILL_WAIT_NS, -1, err);
        if (left > 0)
            return lb_fail(err, "processes of pid %d survived termination for %llu s: %d left",
                           (int)t->pid, (unsigned long long)(KILL_WAIT_NS / NS_PER_SEC), left);
    }
    if (left < 0)
        return -1;
    /* The job is empty, so the leader has exited: its status is final. */
    WaitForSingleObject(t->process, INFINITE);
    t->stopped = true;
    leader_unregister(t->process);
    return 0;
}

void plat_target_free(struct plat_target *t)
{
    if (!t)
        return;
    if (t->spawned && !t->stopped) {
        bool killed;
        plat_target_stop(t, SIGKILL, 0, &killed, NULL);
        if (!t->stopped)
            leader_unregister(t->process);
    }
    if (t->job)
        CloseHandle(t->job); /* KILL_ON_JOB_CLOSE: whatever is left dies with it */
    CloseHandle(t->process);
    free(t->ids);
    free(t);
}

/* ---- Waiting ---------------------------------------------------------------------- */

static HANDLE ctrl_event; /* set by the console handler; auto-reset: one event per batch */
static HANDLE wait_timer; /* the deadline of plat_wait_until */
static atomic_int last_signal;
static atomic_int sigint_count;

/* Runs on a thread the system starts for each console event. */
static BOOL WINAPI on_console_ctrl(DWORD type)
{
    int sig;
    switch (type) {
    case CTRL_C_EVENT:
        sig = SIGINT;
        break;
    case CTRL_BREAK_EVENT: /* what loopbench itself sends to stop a target */
        sig = SIGTERM;
        break;
    case CTRL_CLOSE_EVENT:
    case CTRL_LOGOFF_EVENT:
    case CTRL_SHUTDOWN_EVENT: /* the terminal goes away, as a SIGHUP says */
        sig = SIGHUP;
        break;
    default:
        return FALSE;
    }
    atomic_store(&last_signal, sig);
    if (sig == SIGINT)
        atomic_fetch_add(&sigint_count, 1);
    SetEvent(ctrl_event);
    /* After these the system ends the process as soon as the handler returns (or after
     * about 5 s): holding it gives the main thread that time to stop the target and
     * restore the files. Its exit ends this thread. */
    if (sig == SIGHUP)
        Sleep(INFINITE);
    return TRUE;
}

int plat_events_init(struct lb_error *err)
{
    if (ctrl_event)
        return 0;
    HANDLE ev = CreateEventW(NULL, FALSE, FALSE, NULL);
    if (!ev)
        return win_fail(err, GetLastError(), "cannot create an event");
    ctrl_event = ev;
    if (!SetConsoleCtrlHandler(on_console_ctrl, TRUE)) {
        DWORD e = GetLastError();
        ctrl_event = NULL;
        CloseHandle(ev);
        return win_fail(err, e, "cannot handle console control events");
    }
    return 0;
}

/* The waitable timer, made at first use: a high-resolution one where the system has
 * it, since plain timers and timeouts round up to the 15.6 ms tick. */
static HANDLE timer_get(void)
{
    if (!wait_timer)
        wait_timer = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                            TIMER_ALL_ACCESS);
    if (!wait_timer)
        wait_timer = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
    return wait_timer;
}

/* Arm the timer for ns from now (rounded up to its 100 ns unit). */
static bool timer_arm(HANDLE timer, uint64_t ns)
{
    LARGE_INTEGER due;
    due.QuadPart = -(LONGLONG)((ns + 99) / 100); /* negative: relative */
    return SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE);
}

enum plat_event plat_wait_until(uint64_t deadline_mono_ns)
{
    HANDLE set[MAXIMUM_WAIT_OBJECTS];
    size_t leader_of[MAXIMUM_WAIT_OBJECTS];
    for (;;) {
        /* Ctrl events first: when several are signalled the lowest index wins, and an
         * interrupt matters more than an exit. */
        DWORD n = 0;
        if (ctrl_event)
            set[n++] = ctrl_event;
        for (size_t i = 0; i < n_leaders; i++) {
            if (!leaders[i].reported) {
                leader_of[n] = i;
                set[n++] = leaders[i].process;
            }
        }
        uint64_t now = mono_ns();
        DWORD r;
        if (now >= deadline_mono_ns) {
            r = n ? WaitForMultipleObjects(n, set, FALSE, 0) : WAIT_TIMEOUT;
            if (r == WAIT_TIMEOUT)
                return PLAT_EVENT_TIMEOUT;
        } else {
            HANDLE timer = timer_get();
            if (timer && timer_arm(timer, deadline_mono_ns - now)) {
                set[n] = timer;
                r = WaitForMultipleObjects(n + 1, set, FALSE, INFINITE);
            } else {
                /* No timer: a timeout in whole ms, rounded up so as never to wake early. */
                DWORD ms = (DWORD)((deadline_mono_ns - now + 999999) / 1000000);
                if (n) {
                    r = WaitForMultipleObjects(n, set, FALSE, ms);
                } else {
                    Sleep(ms);
                    r = WAIT_TIMEOUT;
                }
            }
            /* The timer or the timeout: the deadline is checked again against mono_ns(). */
            if (r == WAIT_OBJECT_0 + n || r == WAIT_TIMEOUT)
                continue;
        }
        if (r >= WAIT_OBJECT_0 + n) {
            /* WAIT_FAILED, which these handles do not give: sleep out the time rather
             * than spin. */
            if (now < deadline_mono_ns)
                Sleep((DWORD)((deadline_mono_ns - now + 999999) / 1000000));
            return PLAT_EVENT_TIMEOUT;
        }
        if (set[r - WAIT_OBJECT_0] == ctrl_event)
            return PLAT_EVENT_INTERRUPT;
        leaders[leader_of[r - WAIT_OBJECT_0]].reported = true;
        return PLAT_EVENT_CHILD;
    }
}

int plat_last_signal(void)
{
    return atomic_load(&last_signal);
}

int plat_sigint_count(void)
{
    return atomic_load(&sigint_count);
}

/* ---- Files ------------------------------------------------------------------------ */

int plat_replace_file(const char *tmp, const char *path)
{
    wchar_t *wtmp = utf16(tmp), *wpath = utf16(path);
    BOOL ok = MoveFileExW(wtmp, wpath, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);
    DWORD e = GetLastError();
    free(wtmp);
    free(wpath);
    if (!ok) {
        errno = errno_of(e);
        return -1;
    }
    return 0;
}

/* MoveFileExW's WRITE_THROUGH and _commit's FlushFileBuffers make the entries durable. */
void plat_sync_dir_of(const char *path)
{
    (void)path;
}

int plat_file_stamp(const char *path, struct plat_file_stamp *out)
{
    wchar_t *w = utf16(path);
    WIN32_FILE_ATTRIBUTE_DATA a;
    BOOL ok = GetFileAttributesExW(w, GetFileExInfoStandard, &a);
    DWORD e = GetLastError();
    free(w);
    if (!ok) {
        errno = errno_of(e);
        return -1;
    }
    *out = (struct plat_file_stamp){
        .regular = !(a.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT |
                                           FILE_ATTRIBUTE_DEVICE)),
        .size = (uint64_t)a.nFileSizeHigh << 32 | a.nFileSizeLow,
        .mtime_ns = filetime_ns(a.ftLastWriteTime),
    };
    return 0;
}

void plat_sleep(uint64_t ns)
{
    Sleep((DWORD)((ns + 999999) / 1000000));
}

/* Shared for reading and writing but not deletion, as the CRT opens files: a lock file
 * made here can be read (its pid) by another loopbench and not deleted under its
 * holder (plat_lock_try). Windows' symbolic links need a privilege loopbench is never
 * given, and CREATE_NEW fails on any name that exists, a link included. */
int plat_create_exclusive(const char *path)
{
    wchar_t *w = utf16(path);
    HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE,
                           NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
    DWORD e = GetLastError();
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        errno = errno_of(e);
        return -1;
    }
    int fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY);
    if (fd < 0)
        CloseHandle(h);
    return fd;
}

/* Windows' symbolic links need a privilege loopbench is never given (as above). */
FILE *plat_fopen_output(const char *path)
{
    return fopen(path, "w");
}

/* NTFS has ACLs, not modes: as the CRT's chmod, only the read-only attribute follows
 * the owner's write bit. Zero times in FILE_BASIC_INFO leave the times as they are. */
int plat_set_mode(int fd, unsigned mode)
{
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    FILE_BASIC_INFO info;
    memset(&info, 0, sizeof(info));
    info.FileAttributes = mode & 0200 ? FILE_ATTRIBUTE_NORMAL : FILE_ATTRIBUTE_READONLY;
    if (h == INVALID_HANDLE_VALUE ||
        !SetFileInformationByHandle(h, FileBasicInfo, &info, sizeof(info))) {
        errno = h == INVALID_HANDLE_VALUE ? EBADF : errno_of(GetLastError());
        return -1;
    }
    return 0;
}

int plat_random(void *buf, size_t len)
{
    if (len > ULONG_MAX ||
        !BCRYPT_SUCCESS(BCryptGenRandom(NULL, buf, (ULONG)len, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) {
        errno = EIO;
        return -1;
    }
    return 0;
}

bool plat_path_is_separator(char c)
{
    return c == '/' || c == '\\';
}

size_t plat_path_root_len(const char *path)
{
    bool drive = ((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
                 path[1] == ':';
    if (drive)
        return plat_path_is_separator(path[2]) ? 3 : 2;
    if (!plat_path_is_separator(path[0]))
        return 0;
    if (!plat_path_is_separator(path[1]))
        return 1; /* the current drive's root */
    /* \\server\share\ (and \\?\C:\, whose "share" is the drive) */
    size_t n = 2, parts = 0;
    while (path[n] && parts < 2) {
        if (plat_path_is_separator(path[n]))
            parts++;
        n++;
    }
    return n;
}

char *plat_realpath(const char *path)
{
    wchar_t *w = utf16(path);
    char *real = NULL;
    if (GetFileAttributesW(w) == INVALID_FILE_ATTRIBUTES) {
        errno = errno_of(GetLastError());
    } else {
        DWORD n = GetFullPathNameW(w, 0, NULL, NULL);
        wchar_t *full = xmalloc((n ? n : 1) * sizeof(*full));
        DWORD m = n ? GetFullPathNameW(w, n, full, NULL) : 0;
        if (m == 0 || m >= n)
            errno = errno_of(GetLastError());
        else
            real = utf8(full);
        free(full);
    }
    free(w);
    return real;
}

/* Windows' symbolic links need a privilege loopbench is never given: a config reached
 * through one is written through it, as any file. */
char *plat_link_text(const char *path)
{
    (void)path;
    errno = EINVAL;
    return NULL;
}

int plat_mkdir(const char *path, unsigned mode)
{
    (void)mode; /* NTFS has ACLs, not modes: the directory inherits its parent's */
    wchar_t *w = utf16(path);
    int rc = _wmkdir(w);
    int e = errno;
    free(w);
    errno = e;
    return rc;
}

/* path is not looked at: the file cannot have left it. The CRT opens files without
 * FILE_SHARE_DELETE, so a holder's plat_lock_release cannot delete the file while
 * another loopbench has it open, and the lock is always on the file at path. */
int plat_lock_try(int fd, const char *path)
{
    (void)path;
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    /* Held by this handle: another handle, in this process or another, is refused, and
     * the system drops it when the handle closes, at the latest when the process dies. */
    OVERLAPPED at;
    memset(&at, 0, sizeof(at));
    at.OffsetHigh = LOCK_OFFSET_HIGH;
    if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &at)) {
        errno = errno_of(GetLastError());
        return -1;
    }
    return 0;
}

void plat_lock_release(const char *path, int fd)
{
    /* Closed first: a file open here cannot be deleted. Should another loopbench open it
     * in between, the deletion fails (it is open there) and the file stays for it. */
    if (fd >= 0)
        close(fd);
    wchar_t *w = utf16(path);
    DeleteFileW(w);
    free(w);
}

FILE *plat_scratch_file(struct lb_error *err)
{
    /* The CRT's tmpfile() makes its files in the root of the drive, which a user may
     * not write to: the user's temporary directory instead, and 'D' (_O_TEMPORARY) has
     * the system delete the file when it is closed, or when loopbench dies. */
    wchar_t dir[MAX_PATH + 1], name[MAX_PATH];
    DWORD n = GetTempPathW(ARRAY_SIZE(dir), dir);
    if (n == 0 || n > ARRAY_SIZE(dir)) {
        win_fail(err, GetLastError(), "cannot find the temporary directory");
        return NULL;
    }
    if (!GetTempFileNameW(dir, L"lb", 0, name)) {
        char *d = utf8(dir);
        win_fail(err, GetLastError(), "cannot create a scratch file in '%s'", d);
        free(d);
        return NULL;
    }
    FILE *f = _wfopen(name, L"w+bTD");
    if (!f) {
        char *s = utf8(name);
        lb_fail_errno(err, errno, "cannot open scratch file '%s'", s);
        free(s);
        DeleteFileW(name);
    }
    return f;
}

/* ---- Programs and the network ------------------------------------------------------ */

int plat_run_program(char *const *argv, const char *dir, const char *output_path,
                     int *wstatus, struct lb_error *err)
{
    if (!argv || !argv[0])
        return lb_fail(err, "cannot run a program: no command given");
    struct launch l = {
        .argv = argv,
        .dir = dir,
        .stdout_path = output_path,
        .stderr_path = output_path,
    };
    PROCESS_INFORMATION pi;
    if (launch(&l, &pi, err) < 0)
        return -1;
    CloseHandle(pi.hThread);
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 0;
    if (!GetExitCodeProcess(pi.hProcess, &code)) {
        win_fail(err, GetLastError(), "cannot read the exit code of '%s'", argv[0]);
        CloseHandle(pi.hProcess);
        return -1;
    }
    CloseHandle(pi.hProcess);
    *wstatus = wait_status(code, false);
    return 0;
}

static INIT_ONCE winsock_once = INIT_ONCE_STATIC_INIT;

static BOOL CALLBACK winsock_start(PINIT_ONCE once, void *param, void **context)
{
    (void)once;
    (void)param;
    (void)context;
    WSADATA data;
    return WSAStartup(MAKEWORD(2, 2), &data) == 0;
}

/* Connect without blocking to one address and wait for the answer until deadline. */
static bool tcp_connects(const struct addrinfo *ai, uint64_t deadline)
{
    SOCKET s = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (s == INVALID_SOCKET)
        return false;
    bool ok = false;
    u_long nonblocking = 1;
    if (ioctlsocket(s, FIONBIO, &nonblocking) == 0) {
        if (connect(s, ai->ai_addr, (int)ai->ai_addrlen) == 0) {
            ok = true;
        } else if (WSAGetLastError() == WSAEWOULDBLOCK) {
            uint64_t now = mono_ns(), left = now < deadline ? deadline - now : 0;
            struct timeval tv = {(long)(left / NS_PER_SEC), (long)(left % NS_PER_SEC / 1000)};
            /* A refused connection shows in the exception set on Windows. */
            fd_set wr, ex;
            FD_ZERO(&wr);
            FD_ZERO(&ex);
            FD_SET(s, &wr);
            FD_SET(s, &ex);
            int soerr = 1, len = sizeof(soerr);
            ok = select(0, NULL, &wr, &ex, &tv) > 0 && FD_ISSET(s, &wr) &&
                 getsockopt(s, SOL_SOCKET, SO_ERROR, (char *)&soerr, &len) == 0 && soerr == 0;
        }
    }
    closesocket(s);
    return ok;
}

/* Only git runs this way, for the target's commit, which run then does not record
 * (docs/platforms.md). */
int plat_run_output(char *const *argv, char *const *envp, size_t limit, unsigned timeout_ms,
                    char **out, int *wstatus, struct lb_error *err)
{
    (void)envp, (void)limit, (void)timeout_ms, (void)wstatus;
    *out = NULL;
    errno = ENOSYS;
    return lb_fail(err, "cannot run %s: not done on Windows yet", argv[0]);
}

int plat_tcp_accepting(const char *host, int port)
{
    /* Winsock must be started before any socket call; the core never needs it elsewhere
     * (curl starts its own), so it is started here, once. */
    if (!InitOnceExecuteOnce(&winsock_once, winsock_start, NULL, NULL))
        return 0;
    char service[16];
    snprintf(service, sizeof(service), "%d", port);
    struct addrinfo hints, *res;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, service, &hints, &res) != 0)
        return 0;
    uint64_t deadline = mono_ns() + TCP_WAIT_NS;
    bool ok = false;
    for (const struct addrinfo *ai = res; ai && !ok; ai = ai->ai_next)
        ok = tcp_connects(ai, deadline);
    freeaddrinfo(res);
    return ok;
}

void plat_self_usage(struct plat_self_usage *out)
{
    FILETIME created, exited, kernel, user;
    HANDLE self = GetCurrentProcess();
    out->cpu_ns = GetProcessTimes(self, &created, &exited, &kernel, &user) ?
                      filetime_ns(kernel) + filetime_ns(user) : 0;
    PROCESS_MEMORY_COUNTERS m;
    out->max_rss_bytes =
        K32GetProcessMemoryInfo(self, &m, sizeof(m)) ? (uint64_t)m.PeakWorkingSetSize : 0;
}

/* The C runtime has no regcomp, and loopbench carries no regex engine of its own. */
int plat_regex_compile(const char *pattern, struct plat_regex **out, struct lb_error *err)
{
    *out = NULL;
    return lb_fail(err, "cannot use the pattern '%s': regular expressions (ready.log) are not "
                        "available in the Windows build; use ready.tcp, ready.http or ready.delay",
                   pattern);
}

bool plat_regex_match(const struct plat_regex *re, const char *text)
{
    (void)re;
    (void)text;
    return false;
}

void plat_regex_free(struct plat_regex *re)
{
    (void)re; /* plat_regex_compile never makes one */
}

/* ---- Host ------------------------------------------------------------------------- */

int plat_host_cpu(struct plat_host_cpu *out, struct lb_error *err)
{
    FILETIME idle, kernel, user;
    if (!GetSystemTimes(&idle, &kernel, &user))
        return win_fail(err, GetLastError(), "cannot read the system's CPU times (GetSystemTimes)");
    /* Summed over all CPUs; the kernel time includes the idle time. Windows does not
     * report steal. */
    uint64_t all = filetime_ns(kernel) + filetime_ns(user), idle_ns = filetime_ns(idle);
    out->steal_ns = 0;
    out->total_ns = all;
    out->busy_ns = all > idle_ns ? all - idle_ns : 0;
    return 0;
}

typedef LONG(WINAPI *rtl_get_version_fn)(OSVERSIONINFOW *);
typedef const char *(CDECL *wine_get_version_fn)(void);

/* A function of ntdll found at run time (RtlGetVersion has no import library entry in
 * every toolchain; wine_get_version exists only under wine). */
static void (*ntdll_function(const char *name))(void)
{
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    /* Through void (*)(void), the one function type every other converts to. */
    return ntdll ? (void (*)(void))GetProcAddress(ntdll, name) : NULL;
}

/* "10.0.19045": GetVersionEx lies to programs without a compatibility manifest. */
static char *windows_version(void)
{
    rtl_get_version_fn get = (rtl_get_version_fn)ntdll_function("RtlGetVersion");
    OSVERSIONINFOW v;
    memset(&v, 0, sizeof(v));
    v.dwOSVersionInfoSize = sizeof(v);
    if (!get || get(&v) != 0)
        return NULL;
    return xasprintf("%lu.%lu.%lu", (unsigned long)v.dwMajorVersion,
                     (unsigned long)v.dwMinorVersion, (unsigned long)v.dwBuildNumber);
}

/* uname's names for the machine, so results compare across back-ends. */
static char *native_arch(void)
{
    SYSTEM_INFO si;
    GetNativeSystemInfo(&si);
    switch (si.wProcessorArchitecture) {
    case PROCESSOR_ARCHITECTURE_AMD64:
        return xstrdup("x86_64");
    case PROCESSOR_ARCHITECTURE_ARM64:
        return xstrdup("aarch64");
    case PROCESSOR_ARCHITECTURE_INTEL:
        return xstrdup("i686");
    case PROCESSOR_ARCHITECTURE_ARM:
        return xstrdup("arm");
    default:
        return NULL;
    }
}

static char *cpu_model(void)
{
    wchar_t name[256];
    DWORD size = sizeof(name);
    if (RegGetValueW(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                     L"ProcessorNameString", RRF_RT_REG_SZ, NULL, name, &size) != ERROR_SUCCESS)
        return NULL;
    /* Some models are padded with blanks on either side. */
    size_t len = wcslen(name);
    while (len > 0 && name[len - 1] == L' ')
        name[--len] = L'\0';
    const wchar_t *p = name;
    while (*p == L' ')
        p++;
    return *p ? utf8(p) : NULL;
}

int plat_host_facts(struct plat_host_facts *out, struct lb_error *err)
{
    (void)err; /* every fact is optional here: an unreadable one is unknown */
    memset(out, 0, sizeof(*out));
    wchar_t host[256];
    DWORD n = ARRAY_SIZE(host);
    if (GetComputerNameExW(ComputerNameDnsHostname, host, &n))
        out->hostname = utf8(host);
    out->os = xstrdup("Windows");
    out->kernel = windows_version();
    out->arch = native_arch();
    out->cpu_model = cpu_model();
    out->logical_cpus = (int)GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
    MEMORYSTATUSEX mem;
    mem.dwLength = sizeof(mem);
    if (GlobalMemoryStatusEx(&mem))
        out->mem_total_bytes = mem.ullTotalPhys;
    /* Windows keeps no load average: -1, the Linux back-end's "unknown", which the
     * noise checks read as not loaded. */
    out->loadavg[0] = out->loadavg[1] = out->loadavg[2] = -1;
    LARGE_INTEGER freq;
    if (QueryPerformanceFrequency(&freq) && freq.QuadPart > 0) {
        out->clocksource = xasprintf("QueryPerformanceCounter (%lld Hz)", (long long)freq.QuadPart);
        out->clock_resolution_ns = (NS_PER_SEC + (uint64_t)freq.QuadPart - 1) / (uint64_t)freq.QuadPart;
    }
    out->virtualization = ntdll_function("wine_get_version") ? xstrdup("wine") : NULL;
    plat_host_facts_common(out);
    return 0;
}

/* ---- Probing the host ------------------------------------------------------------- */

const char *const plat_wait_names[2] = {
    [PLAT_WAIT_POLLER] = "GetQueuedCompletionStatus",
    [PLAT_WAIT_SLEEP] = "Sleep",
};

struct plat_waiter {
    enum plat_wait_kind kind;
    HANDLE port; /* an I/O completion port nothing is ever posted to */
};

int plat_waiter_open(enum plat_wait_kind kind, struct plat_waiter **out, struct lb_error *err)
{
    struct plat_waiter *w = xcalloc(1, sizeof(*w));
    w->kind = kind;
    /* What IOCP event loops (libuv, .NET's thread pool) idle in. */
    if (kind == PLAT_WAIT_POLLER && !(w->port = CreateIoCompletionPort(INVALID_HANDLE_VALUE,
                                                                       NULL, 0, 1))) {
        win_fail(err, GetLastError(), "cannot make an I/O completion port");
        free(w);
        return -1;
    }
    *out = w;
    return 0;
}

int plat_waiter_wait(struct plat_waiter *w, unsigned ms, struct lb_error *err)
{
    if (w->kind != PLAT_WAIT_POLLER) {
        Sleep(ms);
        return 0;
    }
    DWORD bytes;
    ULONG_PTR key;
    OVERLAPPED *ov;
    if (!GetQueuedCompletionStatus(w->port, &bytes, &key, &ov, ms) &&
        GetLastError() != WAIT_TIMEOUT)
        return win_fail(err, GetLastError(), "GetQueuedCompletionStatus failed");
    return 0;
}

void plat_waiter_free(struct plat_waiter *w)
{
    if (!w)
        return;
    if (w->port)
        CloseHandle(w->port);
    free(w);
}

/* Windows cannot fork, and starting loopbench's own executable again to spin would
 * need a hidden command: the competing load is threads of loopbench instead, one per
 * CPU, which compete for the CPUs just the same, and die with loopbench as the Linux
 * back-end's children do. pids[] get their thread ids. One set at a time. */
static HANDLE *hogs;
static unsigned n_hogs;
static atomic_bool hogs_stopping;

static DWORD WINAPI hog_spin(void *arg)
{
    (void)arg;
    while (!atomic_load_explicit(&hogs_stopping, memory_order_relaxed))
        ;
    return 0;
}

/* Console control events are delivered on a thread of their own anyway. */
int plat_thread_start(pthread_t *thread, void *(*run)(void *), void *arg)
{
    return pthread_create(thread, NULL, run, arg);
}

int plat_hogs_start(pid_t *pids, unsigned n, struct lb_error *err)
{
    if (hogs)
        return lb_fail(err, "cannot start busy threads: some are running already");
    atomic_store(&hogs_stopping, false);
    hogs = xcalloc(n ? n : 1, sizeof(*hogs));
    for (n_hogs = 0; n_hogs < n; n_hogs++) {
        DWORD tid;
        hogs[n_hogs] = CreateThread(NULL, 0, hog_spin, NULL, 0, &tid);
        if (!hogs[n_hogs]) {
            DWORD e = GetLastError();
            plat_hogs_stop(pids, n_hogs);
            return win_fail(err, e, "cannot start a busy thread");
        }
        pids[n_hogs] = (pid_t)tid;
    }
    return 0;
}

void plat_hogs_stop(const pid_t *pids, unsigned n)
{
    (void)pids;
    (void)n; /* all of them: the one set there is */
    atomic_store(&hogs_stopping, true);
    for (unsigned i = 0; i < n_hogs; i++) {
        WaitForSingleObject(hogs[i], INFINITE);
        CloseHandle(hogs[i]);
    }
    free(hogs);
    hogs = NULL;
    n_hogs = 0;
}
