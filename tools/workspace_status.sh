#!/usr/bin/env bash
# Bazel workspace status: stamps the git commit into every binary.
# STABLE_ keys trigger a rebuild of what embeds them when they change.
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  dirty=true
else
  dirty=false
fi
echo "STABLE_GIT_COMMIT ${commit}"
echo "STABLE_GIT_DIRTY ${dirty}"
