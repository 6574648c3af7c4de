#!/usr/bin/env bash
# The docs are true to the binary (issue 34). Every command line README.md and docs/*.md
# show (in code blocks and in code spans) names a command that exists and only options that
# command takes; those that run in about a second do run, without a usage error: help,
# validate of a shipped profile, and report, compare and history, their directories
# replaced by campaigns this test makes. docs/report.md's worked example
# (harness/report-example.sh) must have the form a report has now.
source "$(dirname "$0")/lib.sh"

t=$TMP/target
mkdir -p "$t/base" "$t/head"
cp "$REFSHARD" "$t/refshard"
for v in base head; do
  ln -s ../refshard "$t/$v/refshard"
  cp "$SOURCE_ROOT/profiles/refshard.config.json" "$t/$v/"
done
cp "$SOURCE_ROOT/profiles/refshard.config.json" "$t/"
jq '.command[0] = "{variant_dir}/refshard"' "$SOURCE_ROOT/profiles/refshard.json" >"$t/variants.json"
jq '.command[0] = "./refshard"' "$SOURCE_ROOT/profiles/refshard.json" >"$t/refshard.json"
# two campaigns of variants (for report, compare DIR, BASE NEW, --pool, history) and the
# worked example's campaign, shorter
(
  cd "$t"
  for c in c1 c2; do
    "$LOOPBENCH" run -q variants.json -s 2 -n 2 -w 0.3 -t 1 --variant base=base --variant head=head \
      -o "$TMP/$c"
  done
  "$LOOPBENCH" run -q refshard.json -s 0,2,8 -n 2 -w 0.3 -t 1 -o "$TMP/idle"
) >"$TMP/runs.log" 2>&1 || { cat "$TMP/runs.log"; fail "the campaigns ran"; exit 1; }

# --- every command line of the docs -------------------------------------------------------
check "every command line of README.md and docs/*.md names only what the binary takes" \
  python3 - "$LOOPBENCH" "$SOURCE_ROOT" "$BUILD_ROOT" "$TMP" <<'EOF'
import glob, os, re, shlex, subprocess, sys

lb, src, build, tmp = sys.argv[1:5]
runnable_cmds = {"help", "validate", "report", "compare", "history"}
shipped = set(os.listdir(os.path.join(src, "profiles")))

def lines():
    """(where, command line) of every loopbench command the docs show."""
    for f in ["README.md"] + sorted(os.path.relpath(p, src) for p in glob.glob(os.path.join(src, "docs", "*.md"))):
        block, buf = False, ""
        for i, line in enumerate(open(os.path.join(src, f)), 1):
            if line.startswith("```"):
                block = not block
                continue
            if block:
                l = line.rstrip("\n")
                if buf:
                    buf += " " + l.strip()
                else:
                    m = re.match(r"^\s*(\$ )?(cd \S+ && )?(loopbench .*)$", l)
                    if not m:
                        continue
                    buf = m.group(3)
                if buf.endswith("\\"):
                    buf = buf[:-1]
                    continue
                yield f"{f}:{i}", buf
                buf = ""
            else:
                for m in re.finditer(r"`(loopbench [^`]+)`", line):
                    yield f"{f}:{i}", m.group(1)

def options_of(cmd):
    """The options `loopbench help CMD` lists: {name: takes a value}."""
    out = subprocess.run([lb, "help", cmd] if cmd else [lb, "--help"], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    opts = {}
    for l in out.stdout.splitlines():
        m = re.match(r"^\s+(?:(-\w), )?(--[a-z][a-z-]*)(?: (\S+))?(?:\s{2,}|$)", l)
        if m:
            for name in (m.group(1), m.group(2)):
                if name:
                    opts[name] = m.group(3) is not None
    opts.update({"-h": False, "--help": False})
    return opts

placeholder = re.compile(r"^([A-Z][A-Z0-9_]*|[A-Z]+/[A-Z]+#N|FILE\|DIR|[A-Z]+\.md)(\.\.\.)?$")
failures = 0
checked = ran = 0
for where, text in lines():
    try:
        tokens = shlex.split(text, comments=True)
    except ValueError:
        tokens = text.split()
    cmd = tokens[1].strip("[]") if len(tokens) > 1 else ""
    words = [w.strip("[]") for w in tokens[2:]]
    if "--" in words:  # what follows is the command exec runs, not loopbench's options
        words = words[: words.index("--")]
    if cmd.startswith("-") or cmd in ("COMMAND", ""):  # the top-level synopsis
        continue
    opts = options_of(cmd)
    if opts is None:
        print(f"FAIL: {where}: `{text}`: no command '{cmd}'")
        failures += 1
        continue
    checked += 1
    bad, positional, concrete, skip = [], [], True, False
    for w in words:
        for part in w.split("|") if w.startswith("-") else [w]:
            if not part.startswith("-") or re.match(r"^-[0-9.]", part):
                continue
            name = part.split("=")[0].rstrip(".")
            if name not in opts:
                bad.append(name)
    for w in words:
        if skip:
            skip = False
            concrete = concrete and not ("|" in w or "..." in w or placeholder.match(w))
            continue
        if w.startswith("-") and not re.match(r"^-[0-9.]", w):
            skip = opts.get(w.split("=")[0], False) and "=" not in w
        elif w in ("options", "..."):
            concrete = False
        else:
            positional.append(w)
    if bad:
        print(f"FAIL: {where}: `{text}`: {cmd} takes no {', '.join(bad)}")
        failures += 1
        continue
    if cmd not in runnable_cmds or not concrete:
        continue
    # its directories, this test's campaigns; a shipped profile, the build's copy
    args = [w for w in words if w not in positional]
    if cmd == "validate":
        if not positional or any(os.path.basename(p) not in shipped for p in positional):
            continue
        args += [os.path.join(build, "profiles", os.path.basename(p)) for p in positional]
    elif cmd == "help":
        if any(placeholder.match(p) for p in positional):
            continue
        args += positional
    elif cmd in ("compare", "history") and len(positional) != 1 or "--pool" in words:
        args += [os.path.join(tmp, "c1"), os.path.join(tmp, "c2")]
    else:
        args += [os.path.join(tmp, "c1")]
    scratch = os.path.join(tmp, "scratch")
    os.makedirs(scratch, exist_ok=True)
    for i, w in enumerate(args[:-1]):  # what it writes goes in the scratch directory
        if w in ("-o", "--output", "--plots") and not os.path.isabs(args[i + 1]):
            os.makedirs(os.path.join(scratch, os.path.dirname(args[i + 1])), exist_ok=True)
    out = subprocess.run([lb, cmd] + args, cwd=scratch, capture_output=True, text=True, timeout=60)
    ran += 1
    if out.returncode not in (0, 1, 3):
        print(f"FAIL: {where}: `{text}` exits {out.returncode}: {out.stderr.strip()}")
        failures += 1
    else:
        print(f"ok: {where}: `{text}` runs (exit {out.returncode})")
print(f"{checked} command lines checked, {ran} run")
sys.exit(1 if failures or ran < 5 else 0)
EOF

# --- the worked example of docs/report.md ------------------------------------------------
# Its form (the table's columns, the lines per setting, the method) must be a report's now:
# the figures and the verdicts differ from one campaign to the next, so they are masked.
"$LOOPBENCH" report "$TMP/idle" --title "refshard: idle wait 0, 2 and 8 ms" -f md >"$TMP/fresh.md"
awk '/^<!-- report-example: made by/ { on = 1; next } /^<!-- report-example: end/ { on = 0 } on' \
  "$SOURCE_ROOT/docs/report.md" | sed -E 's/^#(#+ )/\1/' >"$TMP/example.md"
mask() {
  sed -E 's/[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?/#/g;
    s/(regressed|improved|no change|inconclusive|cannot test)/V/g;
    s/#x (more|less)|no clear difference/D/g' "$1"
}
check "docs/report.md has the worked example (harness/report-example.sh)" grep -q '^- ' "$TMP/example.md"
check "  ... its table has a report's columns now" \
  cmp -s <(grep -m1 '^| idle wait' "$TMP/example.md") <(grep -m1 '^| idle wait' "$TMP/fresh.md")
check "  ... its method is a report's now" \
  cmp -s <(mask "$TMP/example.md" | grep '^CPU: percent') <(mask "$TMP/fresh.md" | grep '^CPU: percent')
check "  ... and each setting's CPU line reads as one does now" bash -c "
  diff <(grep -E '^(- |  - CPU)' '$TMP/example.md' | sed -E 's/[0-9]+(\\.[0-9]+)?/#/g' | sort -u) \
       <(grep -E '^(- |  - CPU)' '$TMP/fresh.md' | sed -E 's/[0-9]+(\\.[0-9]+)?/#/g' | sort -u)"

# --- docs/cli.md names every option each command takes ---------------------------------------
commands=$("$LOOPBENCH" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for cmd in $commands; do
  [ "$cmd" = help ] && continue
  opts=$("$LOOPBENCH" help "$cmd" | grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z-]*' |
    grep -oE -- '--[a-z][a-z-]*' | grep -vx -e --help | sort -u || true)
  section=$(awk -v h="## \`loopbench $cmd\`" 'index($0, h) == 1 { on = 1; next } /^## / { on = 0 } on' \
    "$SOURCE_ROOT/docs/cli.md")
  missing=$(for o in $opts; do grep -qF -- "$o" <<<"$section" || echo "$o"; done)
  check "docs/cli.md's $cmd section names each of its options${missing:+ (not: $(echo $missing))}" \
    [ -z "$missing" ]
done
