/* Unit tests of src/model/profile.c: every way a profile can be wrong is rejected with one
 * exact line, defaults are filled in, and the two shipped profiles load. */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "setter.h"
#include "default_profile.h"
#include "http.h"
#include "platform/files.h"
#include "platform/platform.h"
#include "profile.h"
#include "testlib.h"
#include "util.h"

static void put(const char *path, const char *text)
{
    struct lb_error err;
    ck_assert_msg(write_file_atomic(path, text, strlen(text), 0644, &err) == 0, "%s", err.msg);
}

static void copy(const char *from, const char *to)
{
    char *text;
    struct lb_error err;
    ck_assert_msg(read_file(from, &text, NULL, &err) == 0, "%s", err.msg);
    put(to, text);
    free(text);
}

/* Profiles in the table are written with ' for ", for legibility. */
static void put_profile(const char *path, const char *text)
{
    char *json = xstrdup(text);
    for (char *c = json; *c; c++)
        if (*c == '\'')
            *c = '"';
    put(path, json);
    free(json);
}

/* The config files the table's profiles name, beside x.json. */
static void put_config_files(void)
{
    put("cfg.json", "{\"listeners\": [\"0.0.0.0:2593\"], \"settings\": {\"a\": \"1\"}}\n");
    put("list.json", "[1, 2]\n");
    put("broken.json", "{\n  \"a\": 1,\n}\n");
}

#define CMD "'command': ['./srv', '{value}']"
#define KNOB "'knob': {'name': 'idle', 'values': ['0', '2'], 'argv': {}}"
#define READY "'ready': {'delay': 0}"
#define BASE CMD ", " KNOB ", " READY
#define CONFIG_KNOB(config) "'knob': {'name': 'idle', 'values': ['0', '2'], 'config': " config "}"
#define WITH_CONFIG(config) "{" CMD ", " CONFIG_KNOB(config) ", " READY "}"
#define WITH_KNOB(knob) "{" CMD ", 'knob': " knob ", " READY "}"
#define WITH_FIXED(fixed) "{" BASE ", 'fixed': " fixed "}"
#define WITH_READY(ready) "{" CMD ", " KNOB ", 'ready': " ready "}"
#define WITH_HEALTH(health) "{" BASE ", 'metrics': {'health': " health "}}"
#define WITH_BUDGETS(budgets) \
    "{" BASE ", 'metrics': {'health': [{'key': 'slots'}]}, 'budgets': " budgets "}"

/* {dir} stands for the test's directory, {regex_error} for the platform's own words. */
static const struct bad_case {
    const char *json;
    const char *error;
} bad_cases[] = {
    /* syntax, with jansson's line and column */
    {"{'command': ['./srv',]}", "profile 'x.json' line 1 column 22: unexpected token near ']'"},
    {"{\n  'command': ['./srv'],\n  'knob': {\n    'name': 'x',,\n",
     "profile 'x.json' line 4 column 17: string or '}' expected near ','"},
    {"", "profile 'x.json' line 1 column 0: '[' or '{' expected near end of file"},
    {"{" BASE ", 'command': ['./other']}",
     "profile 'x.json' line 1 column 126: duplicate object key near '\"command\"'"},
    {"['./srv']", "profile 'x.json': expected a JSON object"},
    /* unknown keys, with a suggestion when one is close */
    {"{" BASE ", 'comand': ['./srv']}",
     "profile 'x.json': unknown key 'comand' (did you mean 'command'?)"},
    {"{" BASE ", 'zzz': 1}", "profile 'x.json': unknown key 'zzz'"},
    {WITH_KNOB("{'name': 'idle', 'valuse': ['0'], 'argv': {}}"),
     "profile 'x.json': knob: unknown key 'valuse' (did you mean 'values'?)"},
    {WITH_CONFIG("{'fiel': 'cfg.json', 'path': ['settings', 'a']}"),
     "profile 'x.json': knob.config: unknown key 'fiel' (did you mean 'file'?)"},
    {"{" BASE ", 'stop': {'grase': 5}}",
     "profile 'x.json': stop: unknown key 'grase' (did you mean 'grace'?)"},
    {WITH_HEALTH("[{'key': 'slots', 'lable': 'skipped'}]"),
     "profile 'x.json': metrics.health[0]: unknown key 'lable' (did you mean 'label'?)"},
    /* top level */
    {"{" KNOB ", " READY "}", "profile 'x.json': missing key 'command'"},
    {"{'command': [], " KNOB ", " READY "}",
     "profile 'x.json': command: expected a non-empty array of strings"},
    {"{'command': './srv {value}', " KNOB ", " READY "}",
     "profile 'x.json': command: expected a non-empty array of strings"},
    {"{'command': ['./srv', 2], " KNOB ", " READY "}",
     "profile 'x.json': command[1]: expected a string"},
    {"{'command': ['', '{value}'], " KNOB ", " READY "}",
     "profile 'x.json': command[0]: expected a non-empty string, the program to run"},
    {"{'name': 7, " BASE "}", "profile 'x.json': name: expected a non-empty string"},
    {"{" BASE ", 'cwd': 'nowhere'}",
     "profile 'x.json': cwd: cannot access '{dir}/nowhere': No such file or directory"},
    {"{" BASE ", 'cwd': 'cfg.json'}", "profile 'x.json': cwd: '{dir}/cfg.json' is not a directory"},
    {"{" BASE ", 'env': {'OK': 'a', 'NOT OK': 'b'}}",
     "profile 'x.json': env: invalid variable name 'NOT OK'"},
    {"{" BASE ", 'env': {'DEPTH': 3}}", "profile 'x.json': env.DEPTH: expected a string"},
    {"{" BASE ", 'pass_env': []}",
     "profile 'x.json': pass_env: expected a non-empty array of strings"},
    {"{" BASE ", 'pass_env': ['CC', '']}",
     "profile 'x.json': pass_env[1]: expected a non-empty string"},
    {"{" BASE ", 'pass_env': ['A-B']}",
     "profile 'x.json': pass_env[0] 'A-B': expected a variable name (a letter or '_', then letters, "
     "digits or '_')"},
    {"{" BASE ", 'pass_env': ['CC', 'GITHUB_TOKEN']}",
     "profile 'x.json': pass_env[1] 'GITHUB_TOKEN': never passed to a target: a name that holds "
     "TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL or ASKPASS looks like a credential (set a value "
     "in the profile's env if the target needs one)"},
    {"{" BASE ", 'pass_env': ['GITHUB_STEP_SUMMARY']}",
     "profile 'x.json': pass_env[0] 'GITHUB_STEP_SUMMARY': never passed to a target: a GitHub "
     "Actions file that steers the job (set a value in the profile's env if the target needs one)"},
    /* knob */
    {"{" CMD ", " READY "}", "profile 'x.json': missing key 'knob'"},
    {WITH_KNOB("['0', '2']"), "profile 'x.json': knob: expected an object"},
    {WITH_KNOB("{'values': ['0'], 'argv': {}}"), "profile 'x.json': knob: missing key 'name'"},
    {WITH_KNOB("{'name': 'idle', 'values': [], 'argv': {}}"),
     "profile 'x.json': knob.values: expected a non-empty array of strings"},
    {WITH_KNOB("{'name': 'idle', 'values': ['0', ''], 'argv': {}}"),
     "profile 'x.json': knob.values[1]: expected a non-empty string"},
    {WITH_KNOB("{'name': 'idle', 'values': ['0', 2], 'argv': {}}"),
     "profile 'x.json': knob.values[1]: expected a non-empty string"},
    {WITH_KNOB("{'name': 'idle', 'values': ['0', '2', '0'], 'argv': {}}"),
     "profile 'x.json': knob.values[2]: duplicate value '0'"},
    {WITH_KNOB("{'name': 'idle', 'values': ['0', '2'], 'baseline': '3', 'argv': {}}"),
     "profile 'x.json': knob.baseline: '3' is not one of knob.values"},
    {WITH_KNOB("{'name': 'idle', 'values': ['0', '2']}"),
     "profile 'x.json': knob: expected exactly one of 'config', 'argv' or 'env'"},
    {WITH_KNOB("{'name': 'idle', 'values': ['0', '2'], 'argv': {}, 'env': 'IDLE'}"),
     "profile 'x.json': knob: expected exactly one of 'config', 'argv' or 'env'"},
    {"{'command': ['./srv', '--idle'], " KNOB ", " READY "}",
     "profile 'x.json': knob.argv.placeholder: '{value}' occurs in no element of command"},
    {WITH_KNOB("{'name': 'idle', 'values': ['0', '2'], 'argv': {'placeholder': '{idle}'}}"),
     "profile 'x.json': knob.argv.placeholder: '{idle}' occurs in no element of command"},
    {WITH_KNOB("{'name': 'idle', 'values': ['0', '2'], 'env': '1X'}"),
     "profile 'x.json': knob.env: invalid variable name '1X'"},
    /* config setter: the file and the parents along the path must exist */
    {WITH_CONFIG("{'file': 'nope.json', 'path': ['settings', 'a']}"),
     "profile 'x.json': knob.config.file: cannot open '{dir}/nope.json': No such file or "
     "directory"},
    {WITH_CONFIG("{'file': 'list.json', 'path': ['settings', 'a']}"),
     "profile 'x.json': knob.config.file: '{dir}/list.json' is not a JSON object"},
    {WITH_CONFIG("{'file': 'broken.json', 'path': ['a']}"),
     "profile 'x.json': knob.config.file: '{dir}/broken.json' line 3 column 1: string or '}' "
     "expected near '}'"},
    {WITH_CONFIG("{'file': 'cfg.json', 'path': ['settingz', 'a']}"),
     "profile 'x.json': knob.config.path[0]: missing key 'settingz' in '{dir}/cfg.json'"},
    {WITH_CONFIG("{'file': 'cfg.json', 'path': ['settings', 'x', 'y']}"),
     "profile 'x.json': knob.config.path[1]: missing key 'x' in '{dir}/cfg.json'"},
    {WITH_CONFIG("{'file': 'cfg.json', 'path': ['listeners', 'a']}"),
     "profile 'x.json': knob.config.path[0]: 'listeners' is not an object in '{dir}/cfg.json'"},
    {WITH_CONFIG("{'file': 'cfg.json', 'path': []}"),
     "profile 'x.json': knob.config.path: expected a non-empty array of strings"},
    {WITH_CONFIG("{'file': 'cfg.json', 'path': ['settings', '']}"),
     "profile 'x.json': knob.config.path[1]: expected a non-empty string"},
    {WITH_CONFIG("{'path': ['settings', 'a']}"),
     "profile 'x.json': knob.config: missing key 'file'"},
    {WITH_CONFIG("{'file': 'cfg.json', 'path': ['settings', 'a'], 'type': 'int'}"),
     "profile 'x.json': knob.config.type: expected 'string' or 'number', got 'int'"},
    {"{" CMD ", 'knob': {'name': 'idle', 'values': ['0', 'fast'], 'config': {'file': "
     "'cfg.json', 'path': ['settings', 'a'], 'type': 'number'}}, " READY "}",
     "profile 'x.json': knob.values[1]: 'fast' is not a number (knob.config.type is 'number')"},
    /* fixed settings */
    {WITH_FIXED("{'name': 'a'}"), "profile 'x.json': fixed: expected an array of objects"},
    {WITH_FIXED("['a']"), "profile 'x.json': fixed[0]: expected an object"},
    {WITH_FIXED("[{'name': 'a', 'env': 'A'}]"), "profile 'x.json': fixed[0]: missing key 'value'"},
    {WITH_FIXED("[{'name': 'a', 'value': 'x', 'config': {'file': 'cfg.json', 'path': "
                "['settings', 'a'], 'type': 'number'}}]"),
     "profile 'x.json': fixed[0].value: 'x' is not a number (fixed[0].config.type is 'number')"},
    {WITH_FIXED("[{'name': 'threads', 'value': '4', 'argv': {}}]"),
     "profile 'x.json': fixed[0].argv.placeholder: '{threads}' occurs in no element of command"},
    {WITH_FIXED("[{'name': 'a', 'value': '1', 'env': 'A'}, {'name': 'a', 'value': '2', "
                "'env': 'B'}]"),
     "profile 'x.json': fixed[1].name: duplicate name 'a'"},
    {WITH_FIXED("[{'name': 'a', 'value': '1', 'argv': {'placeholder': '{value}'}}]"),
     "profile 'x.json': fixed[0]: sets the same target as knob"},
    {WITH_FIXED("[{'name': 'a', 'value': '1', 'env': 'A'}, {'name': 'b', 'value': '2', "
                "'env': 'A'}]"),
     "profile 'x.json': fixed[1]: sets the same target as fixed[0]"},
    /* ready */
    {"{" CMD ", " KNOB "}", "profile 'x.json': missing key 'ready'"},
    {WITH_READY("{'delay': 1, 'tcp': 'localhost:2593'}"),
     "profile 'x.json': ready: expected exactly one of 'log', 'tcp', 'http' or 'delay'"},
    {WITH_READY("{'timeout': 5}"),
     "profile 'x.json': ready: expected exactly one of 'log', 'tcp', 'http' or 'delay'"},
    {WITH_READY("{'log': '('}"),
     "profile 'x.json': ready.log: {regex_error}"},
    {WITH_READY("{'tcp': 'localhost'}"),
     "profile 'x.json': ready.tcp: expected 'host:port' with a port from 1 to 65535, got "
     "'localhost'"},
    {WITH_READY("{'tcp': '127.0.0.1:0'}"),
     "profile 'x.json': ready.tcp: expected 'host:port' with a port from 1 to 65535, got "
     "'127.0.0.1:0'"},
    {WITH_READY("{'tcp': ':2593'}"),
     "profile 'x.json': ready.tcp: expected 'host:port' with a port from 1 to 65535, got "
     "':2593'"},
    {WITH_READY("{'log': 'ready', 'timeout': 0}"),
     "profile 'x.json': ready.timeout: expected a number > 0, got 0"},
    {WITH_READY("{'delay': -1}"), "profile 'x.json': ready.delay: expected a number >= 0, got -1"},
    {WITH_READY("{'delay': '5'}"), "profile 'x.json': ready.delay: expected a number >= 0"},
    /* metrics */
    {"{" BASE ", 'metrics': {'marker': ''}}",
     "profile 'x.json': metrics.marker: expected a non-empty string"},
    {WITH_HEALTH("{'key': 'slots'}"),
     "profile 'x.json': metrics.health: expected an array of objects"},
    {WITH_HEALTH("[{'label': 'skipped slots'}]"),
     "profile 'x.json': metrics.health[0]: missing key 'key'"},
    {WITH_HEALTH("[{'key': 'slots', 'better': 'up'}]"),
     "profile 'x.json': metrics.health[0].better: expected 'lower' or 'higher', got 'up'"},
    {WITH_HEALTH("[{'key': 'slots', 'must_be_zero': 'yes'}]"),
     "profile 'x.json': metrics.health[0].must_be_zero: expected true or false"},
    {WITH_HEALTH("[{'key': 'slots'}], 'primary': ['cpu', 'lag']"),
     "profile 'x.json': metrics.primary[1]: unknown key 'lag' (expected 'cpu' or a health key)"},
    {WITH_HEALTH("[{'key': 'slots'}], 'primary': []"),
     "profile 'x.json': metrics.primary: expected a non-empty array of strings"},
    /* budgets: a setting of the knob, cpu or a health key, a bound */
    {WITH_BUDGETS("{'setting': '2'}"), "profile 'x.json': budgets: expected an array of objects"},
    {WITH_BUDGETS("[{'setting': '2', 'key': 'cpu', 'max': 1, 'maxx': 2}]"),
     "profile 'x.json': budgets[0]: unknown key 'maxx' (did you mean 'max'?)"},
    {WITH_BUDGETS("[{'key': 'cpu', 'max': 1}]"),
     "profile 'x.json': budgets[0]: missing key 'setting'"},
    {WITH_BUDGETS("[{'setting': '2', 'key': 'cpu', 'max': 1}, {'setting': '4', 'key': 'cpu', "
                  "'max': 1}]"),
     "profile 'x.json': budgets[1].setting: unknown setting '4' (expected one of knob.values)"},
    {WITH_BUDGETS("[{'setting': '2', 'key': 'lag', 'max': 1}]"),
     "profile 'x.json': budgets[0].key: unknown key 'lag' (expected 'cpu' or a health key)"},
    {WITH_BUDGETS("[{'setting': '2', 'key': 'cpu'}]"),
     "profile 'x.json': budgets[0]: expected a max, a min or both"},
    {WITH_BUDGETS("[{'setting': '2', 'key': 'cpu', 'max': 0}]"),
     "profile 'x.json': budgets[0].max: expected a number > 0, got 0"},
    {WITH_BUDGETS("[{'setting': '2', 'key': 'slots', 'min': -1}]"),
     "profile 'x.json': budgets[0].min: expected a number >= 0, got -1"},
    {WITH_BUDGETS("[{'setting': '2', 'key': 'slots', 'max': '1'}]"),
     "profile 'x.json': budgets[0].max: expected a number >= 0"},
    {WITH_BUDGETS("[{'setting': '0', 'key': 'slots', 'min': 3, 'max': 2}]"),
     "profile 'x.json': budgets[0]: min 3 is above max 2: no value could be within"},
    {WITH_HEALTH("[{'key': 'slots'}, {'key': 'slots'}]"),
     "profile 'x.json': metrics.health[1].key: duplicate key 'slots'"},
    /* stop and defaults */
    {"{" BASE ", 'stop': {'signal': 'SIGFOO'}}",
     "profile 'x.json': stop.signal: unknown signal 'SIGFOO' (expected SIGTERM, SIGINT, SIGHUP, "
     "SIGQUIT, SIGUSR1, SIGUSR2 or SIGKILL)"},
    {"{" BASE ", 'stop': {'grace': -5}}",
     "profile 'x.json': stop.grace: expected a number >= 0, got -5"},
    {"{" BASE ", 'defaults': {'repeat': 0}}",
     "profile 'x.json': defaults.repeat: expected a whole number from 1 to 100000, got 0"},
    {"{" BASE ", 'defaults': {'repeat': 2.5}}",
     "profile 'x.json': defaults.repeat: expected a whole number from 1 to 100000, got 2.5"},
    /* a count or a duration past any campaign a host can run: a typo, said so */
    {"{" BASE ", 'defaults': {'repeat': 1e20}}",
     "profile 'x.json': defaults.repeat: expected a whole number from 1 to 100000, got 1e+20 "
     "(more runs per setting would take years even at the shortest window)"},
    {"{" BASE ", 'defaults': {'warmup': 1e308}}",
     "profile 'x.json': defaults.warmup: expected a number >= 0 and at most 86400, got 1e+308 "
     "(a day: a longer one is a typo, and a campaign of them would outlast the host)"},
    {"{" BASE ", 'defaults': {'sample': 1e308}}",
     "profile 'x.json': defaults.sample: expected a number > 0 and at most 86400, got 1e+308 "
     "(a day: a longer one is a typo, and a campaign of them would outlast the host)"},
    {"{" BASE ", 'defaults': {'sample': 1e-06}}",
     "profile 'x.json': defaults.sample: expected at least 0.1 seconds, got 1e-06 (a shorter "
     "window measures the CPU clock's resolution and the sampler's own reads more than the "
     "target)"},
    {"{" BASE ", 'stop': {'grace': 1e9}}",
     "profile 'x.json': stop.grace: expected a number >= 0 and at most 86400, got 1e+09 (a day: "
     "a longer one is a typo, and a campaign of them would outlast the host)"},
    /* a health key no KEY=VALUE token can hold: it would never be scraped */
    {"{" BASE ", 'metrics': {'health': [{'key': 'lag peak=ms'}]}}",
     "profile 'x.json': metrics.health[0]: key 'lag peak=ms': no KEY=VALUE token of a marker "
     "line can have it: expected letters, digits, '_', '.' or '-' (no space, no '='), at most "
     "63 characters"},
    {"{" BASE ", 'defaults': {'log_limit': '12X'}}",
     "profile 'x.json': defaults.log_limit: expected bytes from 4096, a whole number or a "
     "string with a k, M or G suffix (\"64M\")"},
    {"{" BASE ", 'defaults': {'log_limit': 100}}",
     "profile 'x.json': defaults.log_limit: expected bytes from 4096, a whole number or a "
     "string with a k, M or G suffix (\"64M\")"},
    {"{" BASE ", 'defaults': {'sample': 0}}",
     "profile 'x.json': defaults.sample: expected a number > 0, got 0"},
    {"{" BASE ", 'defaults': {'warmup': -1}}",
     "profile 'x.json': defaults.warmup: expected a number >= 0, got -1"},
    /* control characters are shown escaped: a message stays one line */
    {"{" BASE ", 'env': {'A\\nB': 'x'}}",
     "profile 'x.json': env: invalid variable name 'A\\nB'"},
    /* a readiness pattern glibc would take minutes to compile */
    {WITH_READY("{'log': 'a++++++++++++++'}"),
     "profile 'x.json': ready.log: more than 12 '+' and '{', or an interval over 100, in "
     "'a++++++++++++++': the C library compiles such patterns in exponential time"},
    {WITH_READY("{'log': '(a?a?a?a?){1000}'}"),
     "profile 'x.json': ready.log: more than 12 '+' and '{', or an interval over 100, in "
     "'(a?a?a?a?){1000}': the C library compiles such patterns in exponential time"},
    /* paths that escape in surprising ways */
    {WITH_CONFIG("{'file': '~/cfg.json', 'path': ['settings', 'a']}"),
     "profile 'x.json': knob.config.file: '~/cfg.json': a leading '~' is not expanded; give the "
     "path from the profile's directory '{dir}', or an absolute one"},
    {"{" BASE ", 'cwd': '~'}",
     "profile 'x.json': cwd: '~': a leading '~' is not expanded; give the path from the "
     "profile's directory '{dir}', or an absolute one"},
    {WITH_CONFIG("{'file': '../cfg.json', 'path': ['settings', 'a']}"),
     "profile 'x.json': knob.config.file: cannot open '{dir}/../cfg.json': No such file or "
     "directory"},
    {WITH_CONFIG("{'file': 'x.json', 'path': ['knob']}"),
     "profile 'x.json': knob.config.file: '{dir}/x.json' is the profile itself: a setting "
     "cannot be written into it"},
};

/* What needs the network features (src/measure/network_off.c), with the error a build without
 * them gives instead (NULL: the same, found before the feature is asked for). */
#define OFFLINE(key) "profile 'x.json': " key ": " NETWORK_UNAVAILABLE
static const struct network_case {
    const char *json;
    const char *error;
    const char *offline;
} network_cases[] = {
    /* metrics from an HTTP endpoint */
    {"{" BASE ", 'http_metrics': {'values': [{'key': 'a', 'series': 'a'}]}}", "profile 'x.json': http_metrics: missing key 'url'", OFFLINE("http_metrics")},
    {"{" BASE ", 'http_metrics': {'url': 'http://127.0.0.1:9/m', 'format': 'xml', "
     "'values': [{'key': 'a', 'series': 'a'}]}}", "profile 'x.json': http_metrics.format: expected 'prometheus' or 'json', got 'xml'", OFFLINE("http_metrics")},
    {"{" BASE ", 'http_metrics': {'url': 'http://127.0.0.1:9/m', 'values': []}}", "profile 'x.json': http_metrics.values: expected a non-empty array of objects", OFFLINE("http_metrics")},
    {"{" BASE ", 'http_metrics': {'url': 'http://127.0.0.1:9/m', "
     "'values': [{'key': 'a', 'series': 'a{b=}'}]}}", "profile 'x.json': http_metrics.values[0].series: series selector 'a{b=}': expected a "
     "quoted label value at byte 5", OFFLINE("http_metrics")},
    {"{" BASE ", 'http_metrics': {'url': 'http://127.0.0.1:9/m', "
     "'values': [{'key': 'a', 'series': 'a', 'kind': 'histogram'}]}}", "profile 'x.json': http_metrics.values[0].kind: expected 'counter' or 'gauge', got "
     "'histogram'", OFFLINE("http_metrics")},
    {"{" BASE ", 'http_metrics': {'url': 'http://127.0.0.1:9/m', 'format': 'json', "
     "'values': [{'key': 'a', 'path': ['x']}]}}", "profile 'x.json': http_metrics: metrics endpoint: 'a': expected a kind, counter or gauge "
     "(JSON has no types)", OFFLINE("http_metrics")},
    {"{" BASE ", 'http_metrics': {'url': 'http://127.0.0.1:9/m', "
     "'values': [{'key': 'slots', 'series': 'a'}]}, 'metrics': {'health': [{'key': 'slots'}]}}",
     "profile 'x.json': http_metrics.values[0]: key 'slots' is also a health key of the log or "
     "the rtt probe", OFFLINE("http_metrics")},
    /* readiness by HTTP */
    {WITH_READY("{'http': 'ftp://host/x'}"), "profile 'x.json': ready.http: URL 'ftp://host/x': expected an http:// or https:// URL", OFFLINE("ready.http")},
    {WITH_READY("{'http': ''}"), "profile 'x.json': ready.http: expected a non-empty string", OFFLINE("ready.http")},
    /* the round-trip probe */
    {"{" BASE ", 'rtt': {'send': 'ping'}}", "profile 'x.json': rtt: missing key 'tcp'", OFFLINE("rtt")},
    {"{" BASE ", 'rtt': {'tcp': '127.0.0.1:0', 'send': 'ping'}}", "profile 'x.json': rtt.tcp: expected 'host:port' with a port from 1 to 65535, got '127.0.0.1:0'", OFFLINE("rtt")},
    {"{" BASE ", 'rtt': {'tcp': '127.0.0.1:2593'}}", "profile 'x.json': rtt: missing key 'send'", OFFLINE("rtt")},
    {"{" BASE ", 'rtt': {'tcp': '127.0.0.1:2593', 'send': 'ping', 'rate': 0}}", "profile 'x.json': rtt.rate: expected a number > 0, got 0", OFFLINE("rtt")},
    {"{" BASE ", 'rtt': {'tcp': '127.0.0.1:2593', 'send': 'ping', 'connections': 1.5}}", "profile 'x.json': rtt.connections: expected a whole number from 1 to 1024", OFFLINE("rtt")},
    {"{" BASE ", 'rtt': {'tcp': '127.0.0.1:2593', 'send': 'ping', 'rate': 1e6, 'timeout': 10}}",
     "profile 'x.json': rtt: rate x timeout (1e+07 requests in flight) exceeds 1000000: "
     "lower one of them", OFFLINE("rtt")},
    {"{" BASE ", 'rtt': {'tcp': '127.0.0.1:2593', 'send': 'ping', 'rat': 5}}", "profile 'x.json': rtt: unknown key 'rat' (did you mean 'rate'?)", NULL},
    {"{" BASE ", 'rtt': {'tcp': '127.0.0.1:2593', 'send': 'ping'}, 'metrics': {'health': "
     "[{'key': 'rtt_p99_ms'}]}}",
     "profile 'x.json': metrics.health: key 'rtt_p99_ms' is also a health key of the log or "
     "the rtt probe", OFFLINE("rtt")},
};

/* What the system's regular expressions say of '(' (Windows: that there are none). */
static char *regex_error_text(void)
{
    struct plat_regex *re;
    struct lb_error err;
    ck_assert_int_eq(plat_regex_compile("(", &re, &err), -1);
    return xstrdup(err.msg);
}

/* Load x.json written from json and expect exactly the error (after substitution). */
static void expect_refused(const char *json, const char *error)
{
    const char *dir = testlib_case_dir();
    put_config_files();
    put_profile("x.json", json);

    char *why = regex_error_text();
    const char *from[] = {"{dir}", "{regex_error}"};
    const char *to[] = {dir, why};
    char *want = setter_subst(error, from, to, 2, NULL);

    struct profile p;
    struct lb_error err = {{0}};
    ck_assert_int_eq(profile_load("x.json", &p, &err), -1);
    ck_assert_msg(strcmp(err.msg, want) == 0, "\n got: %s\nwant: %s", err.msg, want);
    /* A failed load leaves nothing to release. */
    ck_assert_ptr_null(p.path);
    ck_assert_ptr_null(p.text);
    free(want);
    free(why);
}

START_TEST(test_bad_profile)
{
    expect_refused(bad_cases[_i].json, bad_cases[_i].error);
}
END_TEST

/* A device, which could be read forever: POSIX's /dev/null (Windows' NUL is no file). */
START_TEST(test_config_file_not_regular)
{
    expect_refused(WITH_CONFIG("{'file': '/dev/null', 'path': ['settings', 'a']}"),
                   "profile 'x.json': knob.config.file: '/dev/null' is not a regular file");
}
END_TEST

START_TEST(test_network_profile)
{
    const struct network_case *c = &network_cases[_i];
    expect_refused(c->json, c->offline && !network_available() ? c->offline : c->error);
}
END_TEST

START_TEST(test_missing_file)
{
    testlib_case_dir();
    struct profile p;
    struct lb_error err;
    ck_assert_int_eq(profile_load("nope.json", &p, &err), -1);
    ck_assert_str_eq(err.msg, "cannot open 'nope.json': No such file or directory");
}
END_TEST

START_TEST(test_defaults)
{
    const char *dir = testlib_case_dir();
    const char *text =
        "{\"command\": [\"./srv\", \"{value}\"],\n"
        " \"knob\": {\"name\": \"idle\", \"values\": [\"4\", \"0\"], \"argv\": {}},\n"
        " \"ready\": {\"tcp\": \"127.0.0.1:2593\"}}";
    put("minimal.json", text);
    struct profile p;
    struct lb_error err;
    ck_assert_msg(profile_load("minimal.json", &p, &err) == 0, "%s", err.msg);

    ck_assert_str_eq(p.path, "minimal.json");
    ck_assert_str_eq(p.dir, dir);
    ck_assert_str_eq(p.name, "minimal");
    ck_assert_ptr_null(p.description);
    ck_assert_uint_eq(p.command.n, 2);
    ck_assert_str_eq(p.command.v[1], "{value}");
    ck_assert_str_eq(p.cwd, dir);
    ck_assert_uint_eq(p.env.n, 0);
    ck_assert_str_eq(p.knob.label, "idle");
    ck_assert_str_eq(p.knob.baseline, "4");
    ck_assert_int_eq(p.knob.set.kind, SETTER_ARGV);
    ck_assert_str_eq(p.knob.set.placeholder, "{value}");
    ck_assert_uint_eq(p.n_fixed, 0);
    ck_assert_int_eq(p.ready.kind, READY_TCP);
    ck_assert_double_eq(p.ready.timeout_s, 60);
    ck_assert_str_eq(p.marker, "loop: ");
    ck_assert_uint_eq(p.n_health, 0);
    ck_assert_int_eq(p.stop_signal, SIGTERM);
    ck_assert_double_eq(p.stop_grace_s, 10);
    ck_assert_double_eq(p.warmup_s, 45);
    ck_assert_double_eq(p.sample_s, 60);
    ck_assert_int_eq(p.repeat, 3);

    char hash[17];
    hash_fnv1a64_hex(text, strlen(text), hash);
    ck_assert_str_eq(p.hash, hash);
    ck_assert_str_eq(p.text, text);
    profile_release(&p);
}
END_TEST

START_TEST(test_ready_log)
{
    testlib_case_dir();
    put_profile("x.json", "{" CMD ", " KNOB ", 'ready': {'log': '^ready [0-9]+$'}}");
    struct profile p;
    struct lb_error err;
    ck_assert_msg(profile_load("x.json", &p, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(p.ready.kind, READY_LOG);
    ck_assert_str_eq(p.ready.log_pattern, "^ready [0-9]+$");
    ck_assert_double_eq(p.ready.timeout_s, 60);
    profile_release(&p);
}
END_TEST

START_TEST(test_every_key)
{
    const char *dir = testlib_case_dir();
    put_config_files();
    ck_assert_int_eq(plat_mkdir("run", 0755), 0);
    put_profile("every.json",
                "{'name': 'srv', 'description': 'all of it', 'command': ['./srv', '-t', '{t}'],"
                " 'cwd': 'run', 'env': {'A': '1', 'B': ''},"
                " 'knob': {'name': 'idle', 'label': 'idle (ms)', 'values': ['0', '2.5', '8'],"
                "   'baseline': '8', 'config': {'file': 'cfg.json', 'path': ['settings', 'idle'],"
                "   'type': 'number'}},"
                " 'fixed': [{'name': 't', 'value': '4', 'argv': {}},"
                "   {'name': 'mode', 'value': 'bench', 'env': 'SRV_MODE'},"
                "   {'name': 'a', 'value': '1', 'config': {'file': 'cfg.json',"
                "     'path': ['settings', 'a']}}],"
                " 'ready': {'tcp': '[::1]:2593', 'timeout': 7.5},"
                " 'metrics': {'marker': 'stats: ', 'health': [{'key': 'slots', 'label': 'skipped',"
                "   'must_be_zero': true}, {'key': 'cps', 'better': 'higher'}], 'primary': ['cps', 'cpu']},"
                " 'stop': {'signal': 'INT', 'grace': 0},"
                " 'defaults': {'warmup': 0, 'sample': 1.5, 'repeat': 5}}");
    struct profile p;
    struct lb_error err;
    ck_assert_msg(profile_load("every.json", &p, &err) == 0, "%s", err.msg);

    char *cwd = path_join(dir, "run"), *cfg = path_join(dir, "cfg.json");
    ck_assert_str_eq(p.name, "srv");
    ck_assert_str_eq(p.description, "all of it");
    ck_assert_str_eq(p.cwd, cwd);
    ck_assert_uint_eq(p.env.n, 2);
    ck_assert_str_eq(p.env.v[0], "A=1");
    ck_assert_str_eq(p.env.v[1], "B=");
    ck_assert_str_eq(p.knob.label, "idle (ms)");
    ck_assert_str_eq(p.knob.baseline, "8");
    ck_assert_uint_eq(p.knob.values.n, 3);
    ck_assert_int_eq(p.knob.set.kind, SETTER_CONFIG);
    ck_assert_int_eq(p.knob.set.type, SETTER_NUMBER);
    ck_assert_str_eq(p.knob.set.file, cfg);
    ck_assert_uint_eq(p.knob.set.key_depth, 2);
    ck_assert_str_eq(p.knob.set.key_path[1], "idle");
    ck_assert_uint_eq(p.n_fixed, 3);
    ck_assert_str_eq(p.fixed[0].set.placeholder, "{t}");
    ck_assert_int_eq(p.fixed[1].set.kind, SETTER_ENV);
    ck_assert_str_eq(p.fixed[1].set.env_name, "SRV_MODE");
    ck_assert_int_eq(p.fixed[2].set.type, SETTER_STRING);
    ck_assert_int_eq(p.ready.kind, READY_TCP);
    ck_assert_str_eq(p.ready.host, "::1");
    ck_assert_int_eq(p.ready.port, 2593);
    ck_assert_double_eq(p.ready.timeout_s, 7.5);
    ck_assert_str_eq(p.marker, "stats: ");
    ck_assert_uint_eq(p.n_health, 2);
    ck_assert_str_eq(p.health[0].label, "skipped");
    ck_assert(p.health[0].must_be_zero);
    ck_assert_int_eq(p.health[0].better, LOWER_IS_BETTER);
    ck_assert_str_eq(p.health[1].label, "cps");
    ck_assert_int_eq(p.health[1].better, HIGHER_IS_BETTER);
    ck_assert(!p.health[1].must_be_zero);
    ck_assert_uint_eq(p.primary.n, 2);
    ck_assert_str_eq(p.primary.v[0], "cps");
    ck_assert_int_eq(p.stop_signal, SIGINT);
    ck_assert_str_eq(profile_signal_name(p.stop_signal), "SIGINT");
    ck_assert_double_eq(p.stop_grace_s, 0);
    ck_assert_double_eq(p.warmup_s, 0);
    ck_assert_double_eq(p.sample_s, 1.5);
    ck_assert_int_eq(p.repeat, 5);
    free(cwd);
    free(cfg);
    profile_release(&p);
}
END_TEST

/* Budgets are kept, each bound NaN when not given, and written back as results.json
 * records them (what compare reads). */
START_TEST(test_budgets)
{
    testlib_case_dir();
    put_profile("x.json", WITH_BUDGETS("[{'setting': '2', 'key': 'cpu', 'max': 1.5}, "
                                       "{'setting': '0', 'key': 'slots', 'min': 0, 'max': 4}]"));
    struct profile p;
    struct lb_error err;
    ck_assert_msg(profile_load("x.json", &p, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(p.n_budgets, 2);
    ck_assert_str_eq(p.budgets[0].setting, "2");
    ck_assert_str_eq(p.budgets[0].key, "cpu");
    ck_assert_double_eq(p.budgets[0].max, 1.5);
    ck_assert(isnan(p.budgets[0].min));
    ck_assert_double_eq(p.budgets[1].min, 0);
    ck_assert_double_eq(p.budgets[1].max, 4);
    json_t *o = profile_to_json(&p);
    char *text = json_dumps(json_object_get(o, "budgets"), JSON_COMPACT);
    ck_assert_str_eq(text, "[{\"setting\":\"2\",\"key\":\"cpu\",\"max\":1.5},"
                           "{\"setting\":\"0\",\"key\":\"slots\",\"max\":4.0,\"min\":0.0}]");
    free(text);
    json_decref(o);
    profile_release(&p);
}
END_TEST

/* An empty argument is an argument (Redis: `--save ""` keeps no snapshots), and it
 * reaches the target's argv as one. */
START_TEST(test_empty_argument)
{
    testlib_case_dir();
    put_profile("x.json", "{'command': ['./srv', '--save', '', '{value}'], " KNOB ", " READY "}");
    struct profile p;
    struct lb_error err;
    ck_assert_msg(profile_load("x.json", &p, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(p.command.n, 4);
    ck_assert_str_eq(p.command.v[2], "");
    struct strv argv = {0};
    ck_assert_msg(setter_argv(&p, "2", &argv, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(argv.n, 4);
    ck_assert_str_eq(argv.v[1], "--save");
    ck_assert_str_eq(argv.v[2], "");
    ck_assert_str_eq(argv.v[3], "2");
    strv_release(&argv);
    profile_release(&p);
}
END_TEST

START_TEST(test_loopbench_dir)
{
    testlib_case_dir();
    put_profile("x.json", "{'command': ['{loopbench_dir}/srv', '{value}'], 'cwd': "
                          "'{loopbench_dir}', " KNOB ", " READY "}");
    struct profile p;
    struct lb_error err;
    ck_assert_msg(profile_load("x.json", &p, &err) == 0, "%s", err.msg);
    char *exe_dir = plat_exe_dir(&err);
    ck_assert_ptr_nonnull(exe_dir);
    char *srv = path_join(exe_dir, "srv");
    ck_assert_str_eq(p.command.v[0], srv);
    ck_assert_str_eq(p.cwd, exe_dir);
    free(srv);
    free(exe_dir);
    profile_release(&p);
}
END_TEST

/* What results.json records of a profile and `validate --json` prints: the keys a
 * results reader relies on (name, path, the prefixed hash, the knob, the marker and
 * every health key at the top), and the profile's own keys with defaults filled in. */
START_TEST(test_profile_json)
{
    testlib_case_dir();
    put_config_files();
    bool network = network_available();
    char *json = xasprintf(
        "{'name': 'srv', " CMD ", 'env': {'A': '1'}, " CONFIG_KNOB(
            "{'file': 'cfg.json', 'path': ['settings', 'idle']}") ", " READY ","
        " 'fixed': [{'name': 'mode', 'value': 'bench', 'env': 'SRV_MODE'}],"
        " 'metrics': {'health': [{'key': 'slots', 'label': 'skipped', 'must_be_zero': true},"
        "   {'key': 'cps', 'better': 'higher'}]}%s}",
        network ? ", 'rtt': {'tcp': '127.0.0.1:2593', 'send': 'ping'}, 'http_metrics': {'url': "
                  "'http://127.0.0.1:9/m', 'values': [{'key': 'temp', 'series': 'temp'}]}"
                : "");
    put_profile("x.json", json);
    struct profile p;
    struct lb_error err;
    ck_assert_msg(profile_load("x.json", &p, &err) == 0, "%s", err.msg);
    json_t *o = profile_to_json(&p);

    ck_assert_str_eq(json_string_value(json_object_get(o, "name")), "srv");
    ck_assert_str_eq(json_string_value(json_object_get(o, "path")), "x.json");
    char *hash = xasprintf("fnv1a64:%s", p.hash);
    ck_assert_str_eq(json_string_value(json_object_get(o, "hash")), hash);
    json_t *knob = json_object_get(o, "knob");
    ck_assert_str_eq(json_string_value(json_object_get(knob, "name")), "idle");
    ck_assert_str_eq(json_string_value(json_object_get(knob, "label")), "idle");
    ck_assert_uint_eq(json_array_size(json_object_get(knob, "values")), 2);
    ck_assert_str_eq(json_string_value(json_object_get(knob, "baseline")), "0");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(knob, "config"), "type")),
                     "string");
    ck_assert_str_eq(json_string_value(json_object_get(o, "marker")), "loop: ");
    ck_assert_ptr_null(json_object_get(o, "metrics"));
    ck_assert_ptr_null(json_object_get(o, "document"));
    const char *own[] = {"command", "cwd", "env", "fixed", "ready", "stop", "defaults"};
    for (size_t i = 0; i < ARRAY_SIZE(own); i++)
        ck_assert_msg(json_object_get(o, own[i]) != NULL, "no '%s'", own[i]);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(o, "defaults"), "warmup")),
                     45);

    /* Every health key, the rtt probe's and the endpoint's after the declared ones. */
    static const struct {
        const char *key, *label, *better;
        bool must_be_zero;
    } want[] = {
        {"slots", "skipped", "lower", true},    {"cps", "cps", "higher", false},
        {"rtt_p50_ms", "RTT p50", "lower", false}, {"rtt_p99_ms", "RTT p99", "lower", false},
        {"rtt_failed", "RTT failures", "lower", true}, {"temp", "temp", "lower", false},
    };
    json_t *health = json_object_get(o, "health");
    ck_assert_uint_eq(json_array_size(health), network ? ARRAY_SIZE(want) : 2);
    for (size_t i = 0; i < json_array_size(health); i++) {
        json_t *h = json_array_get(health, i);
        ck_assert_uint_eq(json_object_size(h), 4);
        ck_assert_str_eq(json_string_value(json_object_get(h, "key")), want[i].key);
        ck_assert_str_eq(json_string_value(json_object_get(h, "label")), want[i].label);
        ck_assert_str_eq(json_string_value(json_object_get(h, "better")), want[i].better);
        ck_assert(json_is_true(json_object_get(h, "must_be_zero")) == want[i].must_be_zero);
    }
    if (network) {
        ck_assert_str_eq(json_string_value(json_object_get(json_object_get(o, "rtt"), "tcp")),
                         "127.0.0.1:2593");
        json_t *v = json_array_get(json_object_get(json_object_get(o, "http_metrics"), "values"), 0);
        ck_assert_str_eq(json_string_value(json_object_get(v, "series")), "temp");
    }
    json_decref(o);
    free(hash);
    free(json);
    profile_release(&p);
}
END_TEST

/* The words validate --json and results.json write are the words a profile is read
 * with, so a written profile reads back. */
START_TEST(test_enum_words)
{
    for (int d = LOWER_IS_BETTER; d <= HIGHER_IS_BETTER; d++) {
        enum direction back = (enum direction)!d;
        ck_assert_int_eq(profile_direction_parse(profile_direction_name((enum direction)d), &back),
                         0);
        ck_assert_int_eq(back, d);
    }
    for (int t = SETTER_STRING; t <= SETTER_NUMBER; t++) {
        enum setter_type back = (enum setter_type)!t;
        ck_assert_int_eq(
            profile_setter_type_parse(profile_setter_type_name((enum setter_type)t), &back), 0);
        ck_assert_int_eq(back, t);
    }
    for (int f = METRICS_PROMETHEUS; f <= METRICS_JSON; f++) {
        enum metrics_format back = (enum metrics_format)!f;
        ck_assert_int_eq(metrics_format_parse(metrics_format_name((enum metrics_format)f), &back),
                         0);
        ck_assert_int_eq(back, f);
    }
    for (int k = METRICS_COUNTER; k <= METRICS_GAUGE; k++) {
        enum metrics_kind back = METRICS_KIND_AUTO;
        ck_assert_int_eq(metrics_kind_parse(metrics_kind_name((enum metrics_kind)k), &back), 0);
        ck_assert_int_eq(back, k);
    }
    enum metrics_kind kind = METRICS_GAUGE;
    ck_assert_int_eq(metrics_kind_parse("auto", &kind), -1);
    ck_assert_int_eq(kind, METRICS_GAUGE);
    enum direction better = HIGHER_IS_BETTER;
    ck_assert_int_eq(profile_direction_parse("Lower", &better), -1);
    ck_assert_int_eq(better, HIGHER_IS_BETTER);
    ck_assert_str_eq(profile_setter_kind_name(SETTER_CONFIG), "config");
    ck_assert_str_eq(profile_setter_kind_name(SETTER_ARGV), "argv");
    ck_assert_str_eq(profile_setter_kind_name(SETTER_ENV), "env");
    ck_assert_str_eq(profile_ready_kind_name(READY_LOG), "log");
    ck_assert_str_eq(profile_ready_kind_name(READY_TCP), "tcp");
    ck_assert_str_eq(profile_ready_kind_name(READY_DELAY), "delay");
    ck_assert_str_eq(profile_ready_kind_name(READY_HTTP), "http");
    ck_assert_str_eq(profile_direction_name((enum direction)7), "unknown");
}
END_TEST

/* The source tree's profiles/ directory. */
static char *shipped(const char *name)
{
    return xasprintf("%s/../../profiles/%s", testlib_data(), name);
}

START_TEST(test_refshard_shipped)
{
    const char *dir = testlib_case_dir();
    char *json = shipped("refshard.json"), *config = shipped("refshard.config.json");
    copy(json, "refshard.json");
    copy(config, "refshard.config.json");
    struct profile p;
    struct lb_error err;
    ck_assert_msg(profile_load("refshard.json", &p, &err) == 0, "%s", err.msg);

    char *exe_dir = plat_exe_dir(&err);
    char *refshard = path_join(exe_dir, "refshard");
    char *cfg = path_join(dir, "refshard.config.json");
    ck_assert_str_eq(p.name, "refshard");
    ck_assert_str_eq(p.command.v[0], refshard);
    ck_assert_str_eq(p.knob.name, "server.eventLoopIdleWaitMs");
    ck_assert_str_eq(p.knob.baseline, "0");
    ck_assert_int_eq(p.knob.set.kind, SETTER_CONFIG);
    ck_assert_str_eq(p.knob.set.file, cfg);
    ck_assert_int_eq(p.ready.kind, READY_LOG);
    ck_assert_uint_eq(p.n_health, 3);
    free(json);
    free(config);
    free(exe_dir);
    free(refshard);
    free(cfg);
    profile_release(&p);
}
END_TEST

START_TEST(test_modernuo_shipped)
{
    const char *dir = testlib_case_dir();
    char *json = shipped("modernuo.json");
    char *config = xasprintf("%s/profiles/modernuo.config.json", testlib_data());
    struct lb_error err;
    copy(json, "modernuo.json");
    ck_assert_int_eq(mkdir_p("Distribution/Configuration", 0755, &err), 0);
    copy(config, "Distribution/Configuration/modernuo.json");
    struct profile p;
    ck_assert_msg(profile_load("modernuo.json", &p, &err) == 0, "%s", err.msg);

    char *cwd = path_join(dir, "Distribution");
    ck_assert_str_eq(p.name, "modernuo");
    ck_assert_str_eq(p.command.v[0], "./ModernUO");
    ck_assert_str_eq(p.cwd, cwd);
    ck_assert_uint_eq(p.knob.values.n, 5);
    ck_assert_str_eq(p.knob.values.v[4], "8");
    ck_assert_str_eq(p.knob.baseline, "0");
    ck_assert_int_eq(p.knob.set.type, SETTER_STRING);
    ck_assert_str_eq(p.knob.set.key_path[0], "settings");
    ck_assert_uint_eq(p.n_fixed, 3);
    ck_assert_str_eq(p.fixed[2].name, "server.loopStatsIntervalSeconds");
    ck_assert_int_eq(p.ready.kind, READY_TCP);
    ck_assert_str_eq(p.ready.host, "127.0.0.1");
    ck_assert_int_eq(p.ready.port, 2593);
    ck_assert_str_eq(p.marker, "loop: ");
    free(json);
    free(config);
    free(cwd);
    profile_release(&p);
}
END_TEST

/* The first thing a ModernUO operator who put the profile in the wrong place sees. */
START_TEST(test_modernuo_without_config)
{
    const char *dir = testlib_case_dir();
    char *json = shipped("modernuo.json");
    copy(json, "modernuo.json");
    ck_assert_int_eq(plat_mkdir("Distribution", 0755), 0);
    struct profile p;
    struct lb_error err;
    ck_assert_int_eq(profile_load("modernuo.json", &p, &err), -1);
    char *want = xasprintf("profile 'modernuo.json': knob.config.file: cannot open "
                           "'%s/Distribution/Configuration/modernuo.json': No such file or "
                           "directory",
                           dir);
    ck_assert_str_eq(err.msg, want);
    free(want);
    free(json);
}
END_TEST

/* The test executables are not beside a build's profiles/ nor installed. */
START_TEST(test_default_path_missing)
{
    struct lb_error err;
    char *exe_dir = plat_exe_dir(&err);
    ck_assert_ptr_nonnull(exe_dir);
    ck_assert_ptr_null(profile_default_path(&err));
    char *want = xasprintf("cannot find the built-in profile: neither '%s/profiles/refshard.json' "
                           "nor '%s/../share/loopbench/profiles/refshard.json' exists",
                           exe_dir, exe_dir);
    ck_assert_str_eq(err.msg, want);
    free(want);
    free(exe_dir);
}
END_TEST

static Suite *profile_suite(void)
{
    Suite *s = suite_create("profile");
    TCase *tc = tcase_create("profile");
    tcase_add_unchecked_fixture(tc, testlib_root_make, testlib_root_remove);
    tcase_add_loop_test(tc, test_bad_profile, 0, (int)ARRAY_SIZE(bad_cases));
    tcase_add_loop_test(tc, test_network_profile, 0, (int)ARRAY_SIZE(network_cases));
    /* Windows has no devices as files, no regular expressions (ready.log, which
     * refshard's profile uses; the table's one case gets Windows' refusal) and no
     * refshard. */
    if (strcmp(plat_name(), "windows") != 0) {
        tcase_add_test(tc, test_config_file_not_regular);
        tcase_add_test(tc, test_ready_log);
        tcase_add_test(tc, test_refshard_shipped);
    }
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_every_key);
    tcase_add_test(tc, test_loopbench_dir);
    tcase_add_test(tc, test_empty_argument);
    tcase_add_test(tc, test_budgets);
    tcase_add_test(tc, test_profile_json);
    tcase_add_test(tc, test_enum_words);
    tcase_add_test(tc, test_modernuo_shipped);
    tcase_add_test(tc, test_modernuo_without_config);
    tcase_add_test(tc, test_default_path_missing);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return testlib_run(profile_suite());
}
