/* src/model/targetenv.c: a target gets the base, what is passed on purpose and its profile's
 * env, never a credential or a CI control file of loopbench's environment. */
#include <check.h>
#include <string.h>

#include "setter.h"
#include "profile.h"
#include "targetenv.h"
#include "testlib.h"
#include "util.h"

static bool has(const struct strv *sv, const char *s)
{
    for (size_t i = 0; i < sv->n; i++)
        if (strcmp(sv->v[i], s) == 0)
            return true;
    return false;
}

START_TEST(credentials_and_control_files_are_refused)
{
    static const char *const refused[] = {"GITHUB_TOKEN",
                                          "GH_TOKEN",
                                          "gh_token",
                                          "ACTIONS_RUNTIME_TOKEN",
                                          "ACTIONS_ID_TOKEN_REQUEST_URL",
                                          "actions_cache_url",
                                          "GITHUB_ENV",
                                          "GITHUB_OUTPUT",
                                          "GITHUB_STEP_SUMMARY",
                                          "GITHUB_PATH",
                                          "GITHUB_STATE",
                                          "NPM_TOKEN",
                                          "MYTOKENS",
                                          "DB_PASSWORD",
                                          "MYSQL_PWD_PASSWD",
                                          "CLIENT_SECRET",
                                          "GOOGLE_APPLICATION_CREDENTIALS",
                                          "AWS_REGION",
                                          "AWS_SECRET_ACCESS_KEY",
                                          "API_KEY",
                                          "KEY",
                                          "STRIPE_KEY_LIVE",
                                          "SSH_AUTH_SOCK",
                                          "auth",
                                          "GIT_ASKPASS",
                                          "SSH_ASKPASS",
                                          "GIT_CONFIG_PARAMETERS",
                                          "GIT_CONFIG_KEY_0",
                                          "SENTRY_APIKEY"};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
        ck_assert_msg(targetenv_refused(refused[i]), "%s was not refused", refused[i]);
    static const char *const allowed[] = {
        "PATH",     "HOME",    "CC",     "CFLAGS",          "GITHUB_SHA",  "GITHUB_REPOSITORY",
        "KEYBOARD", "MONKEY",  "AUTHOR", "GIT_AUTHOR_NAME", "DOTNET_ROOT", "LC_ALL",
        "PASS_ME",  "KEYS_DIR"};
    for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
        ck_assert_msg(!targetenv_refused(allowed[i]), "%s was refused: %s", allowed[i],
                      targetenv_refused(allowed[i]));
}
END_TEST

START_TEST(asking_names_the_variable_and_why)
{
    struct lb_error err;
    ck_assert_int_eq(targetenv_check("CC", "--pass-env", &err), 0);
    ck_assert_int_eq(targetenv_check("GITHUB_TOKEN", "--pass-env", &err), -1);
    ck_assert_str_eq(err.msg,
                     "--pass-env 'GITHUB_TOKEN': never passed to a target: a name that holds "
                     "TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL or ASKPASS looks like a "
                     "credential (set a value in the profile's env if the target needs one)");
    ck_assert_int_eq(targetenv_check("GITHUB_OUTPUT", "pass_env[0]", &err), -1);
    ck_assert_str_eq(err.msg,
                     "pass_env[0] 'GITHUB_OUTPUT': never passed to a target: a GitHub "
                     "Actions file that steers the job (set a value in the profile's env if "
                     "the target needs one)");
    static const char *const bad[] = {"", "1X", "A-B", "A=B", "A B", "X\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_int_eq(targetenv_check(bad[i], "--pass-env", &err), -1);
        ck_assert_msg(strstr(err.msg, "expected a variable name"), "%s", err.msg);
    }
}
END_TEST

START_TEST(select_keeps_the_base_and_what_is_asked)
{
    char *base[] = {"PATH=/usr/bin",
                    "HOME=/home/u",
                    "LC_TIME=C",
                    "GITHUB_TOKEN=t0ken",
                    "GITHUB_OUTPUT=/home/runner/_temp/_runner_file_commands/set_output",
                    "CC=gcc",
                    "STRAY=1",
                    "AWS_SECRET_ACCESS_KEY=k",
                    "=C:=C:\\",
                    "TERM=xterm",
                    NULL};
    struct strv pass = {0}, env, names;
    strv_push(&pass, "CC");
    strv_push(&pass, "GITHUB_TOKEN"); /* refused however it got here */
    size_t withheld;
    targetenv_select(base, &pass, &env, &names, &withheld);
    ck_assert_uint_eq(env.n, 5);
    ck_assert_str_eq(env.v[0], "PATH=/usr/bin");
    ck_assert_str_eq(env.v[1], "HOME=/home/u");
    ck_assert_str_eq(env.v[2], "LC_TIME=C");
    ck_assert_str_eq(env.v[3], "CC=gcc");
    ck_assert_str_eq(env.v[4], "TERM=xterm");
    ck_assert_ptr_null(env.v[5]);
    ck_assert_uint_eq(names.n, 5);
    ck_assert(has(&names, "CC") && has(&names, "LC_TIME") && !has(&names, "GITHUB_TOKEN"));
    ck_assert_uint_eq(withheld, 5);
    strv_release(&env);
    strv_release(&names);

    /* Nothing: an empty array, as execve wants. */
    char *none[] = {"GH_TOKEN=x", NULL};
    targetenv_select(none, NULL, &env, &names, &withheld);
    ck_assert_ptr_nonnull(env.v);
    ck_assert_ptr_null(env.v[0]);
    ck_assert_uint_eq(withheld, 1);
    strv_release(&env);
    strv_release(&names);
    strv_release(&pass);
}
END_TEST

/* The profile's own env is its author's explicit value: kept, even a refused name. */
START_TEST(profile_env_is_added_on_top)
{
    struct profile p = {0};
    strv_push(&p.env, "GITHUB_TOKEN=from-the-profile");
    strv_push(&p.env, "HOME=/srv");
    p.knob.set.kind = SETTER_ENV;
    char knob[] = "KNOB";
    p.knob.set.env_name = knob;
    char *base[] = {"PATH=/usr/bin", "HOME=/home/u", NULL};
    struct strv env;
    setter_envp(&p, "2", base, &env);
    ck_assert_uint_eq(env.n, 4);
    ck_assert_str_eq(env.v[1], "HOME=/srv");
    ck_assert(has(&env, "GITHUB_TOKEN=from-the-profile") && has(&env, "KNOB=2"));
    strv_release(&env);
    strv_release(&p.env);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("targetenv");
    TCase *tc = tcase_create("targetenv");
    tcase_add_test(tc, credentials_and_control_files_are_refused);
    tcase_add_test(tc, asking_names_the_variable_and_why);
    tcase_add_test(tc, select_keeps_the_base_and_what_is_asked);
    tcase_add_test(tc, profile_env_is_added_on_top);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
