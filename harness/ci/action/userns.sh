#!/usr/bin/env bash
# The Action's step before the builds (action.yml). loopbench runs every build and target
# in a PID namespace of its own, where it reads no environment of the job's other processes
# (docs/ci.md, "What is and is not a security boundary"); an ordinary user may make one only
# with unprivileged user namespaces, which Ubuntu 24.04 (GitHub's ubuntu-24.04 and
# ubuntu-latest images) restricts through AppArmor. On a GitHub-hosted runner, a VM made
# for this job and thrown away after, this lifts the restriction; anywhere else it changes
# nothing, and each run says whether its targets were isolated. The step never fails.
set -uo pipefail

knob=/proc/sys/kernel/apparmor_restrict_unprivileged_userns
if [ "${RUNNER_ENVIRONMENT:-}" != github-hosted ] || [ "$(cat "$knob" 2>/dev/null)" != 1 ]; then
  exit 0
fi
if sudo -n sysctl -q -w kernel.apparmor_restrict_unprivileged_userns=0; then
  echo "loopbench action: unprivileged user namespaces allowed for this job's builds and targets"
else
  echo "::warning::loopbench action: cannot allow unprivileged user namespaces: builds and targets can read the environment of every process of the job's user (docs/ci.md)"
fi
exit 0
