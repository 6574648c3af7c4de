// The runner played for a composite action (tests/e2e/action.sh): reads action.yml and runs
// its steps in order as GitHub's runner does, each with the job's environment plus its own
// `env:`, a GITHUB_OUTPUT file of its own (read back into steps.ID.outputs), the job's
// GITHUB_STEP_SUMMARY, GITHUB_ACTION_PATH, in GITHUB_WORKSPACE, under
// `bash --noprofile --norc -eo pipefail FILE`; evaluates `if:` (success() by default) and
// the ${{ }} expressions the file uses; then appends the action's outputs to the job's
// GITHUB_OUTPUT and exits with the first failed step's status.
//
//   LOOPBENCH_NPM_DIR=CACHE node play-action.mjs ACTION.yml INPUTS.json ENV_DIR
//
// INPUTS.json maps input names to values (the `with:` of a workflow); the github context
// comes from the job's variables (GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, ...). Each step's
// environment is written to ENV_DIR/N-ID.env (NUL-separated NAME=VALUE), so the test can
// see what each step was given. Composite actions get no INPUT_* variables, so none are
// set here: a step that read one would find it empty on GitHub too. An expression this
// player does not know (a `uses:` step, an unknown context or function) is an error, never
// an empty string.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

// The yaml package from the npm cache harness/npm-deps.sh fills (LOOPBENCH_NPM_DIR), which
// is the player's, not the job's: the steps do not get it.
const { LOOPBENCH_NPM_DIR: npmDir, ...job } = process.env;
if (!npmDir) {
  console.error("play-action: LOOPBENCH_NPM_DIR is not set: expected the npm cache of tests/node");
  process.exit(2);
}
const require = createRequire(path.join(npmDir, "package.json"));
const { default: YAML } = await import(pathToFileURL(require.resolve("yaml")).href);

const [actionFile, inputsFile, envDir] = process.argv.slice(2);
if (!envDir) {
  console.error("usage: node play-action.mjs ACTION.yml INPUTS.json ENV_DIR");
  process.exit(2);
}
const action = YAML.parse(fs.readFileSync(actionFile, "utf8"));
const given = JSON.parse(fs.readFileSync(inputsFile, "utf8"));
const need = (name) => {
  if (!job[name]) throw new Error(`the job's environment has no ${name}`);
  return job[name];
};

const github = {
  event_name: need("GITHUB_EVENT_NAME"),
  event: JSON.parse(fs.readFileSync(need("GITHUB_EVENT_PATH"), "utf8")),
  action_path: need("GITHUB_ACTION_PATH"),
  workspace: need("GITHUB_WORKSPACE"),
  repository: need("GITHUB_REPOSITORY"),
  base_ref: job.GITHUB_BASE_REF ?? "",
  head_ref: job.GITHUB_HEAD_REF ?? "",
  api_url: need("GITHUB_API_URL"),
};
const steps = {};
let failed = 0;

// --- expressions: literals, context paths, ! == != && || ( ), status functions ----------
function tokenize(src) {
  const re = /\s*(?:('(?:[^']|'')*')|(\d+(?:\.\d+)?)|([A-Za-z_][A-Za-z0-9_.-]*(?:\(\))?)|(==|!=|&&|\|\||!|\(|\)))/y;
  const out = [];
  let m;
  re.lastIndex = 0;
  while (re.lastIndex < src.trimEnd().length && (m = re.exec(src))) {
    if (m[1]) out.push({ lit: m[1].slice(1, -1).replaceAll("''", "'") });
    else if (m[2]) out.push({ lit: Number(m[2]) });
    else if (m[3]) out.push({ id: m[3] });
    else out.push({ op: m[4] });
  }
  if (re.lastIndex < src.trimEnd().length) throw new Error(`cannot read the expression '${src}'`);
  return out;
}

function lookup(name) {
  if (name === "true" || name === "false") return name === "true";
  if (name === "null") return null;
  const fn = { "success()": () => !failed, "failure()": () => !!failed, "always()": () => true,
    "cancelled()": () => false }[name];
  if (fn) return fn();
  const [ctx, ...rest] = name.split(".");
  if (ctx === "inputs") {
    if (rest.length !== 1 || !(rest[0] in (action.inputs ?? {})))
      throw new Error(`${name}: no such input in ${actionFile}`);
    return input(rest[0]);
  }
  if (ctx === "steps") {
    if (rest.length !== 3 || rest[1] !== "outputs") throw new Error(`${name}: only steps.ID.outputs.NAME`);
    if (!(rest[0] in steps)) throw new Error(`${name}: step ${rest[0]} has not run yet`);
    return steps[rest[0]][rest[2]] ?? "";
  }
  if (ctx === "github") {
    let v = github;
    for (const k of rest) {
      if (v === undefined || v === null) break;
      if (v === github && !(k in github)) throw new Error(`${name}: not in this player's github context`);
      v = v[k];
    }
    return v ?? "";
  }
  throw new Error(`${name}: unknown context`);
}

function evaluate(src) {
  const t = tokenize(src);
  let i = 0;
  const eq = (a, b) => (typeof a === "string" && typeof b === "string"
    ? a.toLowerCase() === b.toLowerCase() : String(a ?? "") === String(b ?? ""));
  const primary = () => {
    const x = t[i++];
    if (!x) throw new Error(`'${src}' ends too soon`);
    if (x.op === "!") return !truthy(primary());
    if (x.op === "(") {
      const v = or();
      if (t[i++]?.op !== ")") throw new Error(`'${src}': a ( without its )`);
      return v;
    }
    if ("lit" in x) return x.lit;
    if (x.id) return lookup(x.id);
    throw new Error(`'${src}': unexpected ${x.op}`);
  };
  const cmp = () => {
    let v = primary();
    while (t[i]?.op === "==" || t[i]?.op === "!=") {
      const op = t[i++].op, w = primary();
      v = op === "==" ? eq(v, w) : !eq(v, w);
    }
    return v;
  };
  const and = () => {
    let v = cmp();
    while (t[i]?.op === "&&") { i++; const w = cmp(); v = truthy(v) ? w : v; }
    return v;
  };
  const or = () => {
    let v = and();
    while (t[i]?.op === "||") { i++; const w = and(); v = truthy(v) ? v : w; }
    return v;
  };
  const v = or();
  if (i !== t.length) throw new Error(`'${src}': unexpected ${JSON.stringify(t[i])}`);
  return v;
}
const truthy = (v) => !(v === false || v === null || v === "" || v === 0);
const interpolate = (s) => String(s).replace(/\$\{\{(.*?)\}\}/g, (_, e) => String(evaluate(e) ?? ""));

function input(name) {
  if (name in given) return String(given[name]);
  return interpolate(action.inputs[name].default ?? "");
}
for (const name of Object.keys(given))
  if (!(name in (action.inputs ?? {}))) throw new Error(`input ${name}: not an input of ${actionFile}`);

// GITHUB_OUTPUT's two forms: NAME=VALUE and NAME<<DELIMITER ... DELIMITER.
function readOutputs(file) {
  const out = {}, lines = fs.readFileSync(file, "utf8").split("\n");
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k], heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const body = [];
      while (++k < lines.length && lines[k] !== heredoc[2]) body.push(lines[k]);
      out[heredoc[1]] = body.join("\n");
    } else if (line.includes("=")) {
      out[line.slice(0, line.indexOf("="))] = line.slice(line.indexOf("=") + 1);
    }
  }
  return out;
}

// --- the steps -----------------------------------------------------------------------------
if (action.runs?.using !== "composite") throw new Error(`${actionFile} is not a composite action`);
fs.mkdirSync(envDir, { recursive: true });
action.runs.steps.forEach((step, n) => {
  const id = step.id ?? `__${n}`;
  if (!step.run || step.shell !== "bash") throw new Error(`step ${n} (${step.name}): only run: steps with shell: bash`);
  const cond = String(step.if ?? "success()").replace(/^\s*\$\{\{(.*)\}\}\s*$/, "$1");
  if (!truthy(evaluate(/success\(\)|failure\(\)|always\(\)|cancelled\(\)/.test(cond) ? cond
    : `success() && (${cond})`))) {
    console.log(`play-action: step ${n} ${id}: skipped (${cond})`);
    steps[id] = {};
    return;
  }
  const output = path.join(envDir, `${n}-${id}.output`), script = path.join(envDir, `${n}-${id}.sh`);
  fs.writeFileSync(output, "");
  fs.writeFileSync(script, interpolate(step.run));
  const env = { ...job, GITHUB_OUTPUT: output, GITHUB_ACTION_PATH: github.action_path };
  for (const [k, v] of Object.entries(step.env ?? {})) env[k] = interpolate(v);
  fs.writeFileSync(path.join(envDir, `${n}-${id}.env`),
    Object.entries(env).map(([k, v]) => `${k}=${v}\0`).join(""));
  console.log(`play-action: step ${n} ${id}: ${step.name}`);
  const r = spawnSync("bash", ["--noprofile", "--norc", "-eo", "pipefail", script],
    { cwd: step["working-directory"] ? interpolate(step["working-directory"]) : github.workspace, env,
      stdio: "inherit" });
  steps[id] = readOutputs(output);
  const status = r.status ?? 128;
  console.log(`play-action: step ${n} ${id}: exit ${status}`);
  if (status !== 0 && !failed) failed = status;
});

const outputs = Object.entries(action.outputs ?? {}).map(([k, o]) => `${k}=${interpolate(o.value)}\n`);
fs.appendFileSync(need("GITHUB_OUTPUT"), outputs.join(""));
process.exit(failed);
