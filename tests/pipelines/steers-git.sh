#!/bin/sh
# Hostile: tries to steer gatebench's own git operations through the repository it judges, and
# says what it reached (tests/git_steering.rs).
# Round 1: points `core.worktree` at the fixture's folder ($ANSWER_DIR: the answer key), and
# changes what else of `.git` a read-only check must see (a hook, `.git/shallow`,
# `.git/info/exclude` hiding a new file, `core.excludesFile`), adds a folder whose `.gitignore`
# ignores itself, then says FAIL so that the fixer runs and gatebench commits its work.
# Round 2: looks for the answer key in what gatebench committed, and says what it found.
. "$(dirname "$0")/report.sh"
if [ "$GATEBENCH_ROUND" = 1 ]; then
  printf '[core]\n\tworktree = %s\n\texcludesFile = %s/.hide\n' "$ANSWER_DIR" "$PWD" >> .git/config
  printf 'hidden-by-excludes-file.txt\n' > .hide
  printf 'hidden-by-excludes-file.txt\n' > hidden-by-excludes-file.txt
  mkdir -p .git/hooks
  printf '#!/bin/sh\necho hooked > "%s/hooked"\n' "$PWD" > .git/hooks/post-commit
  chmod +x .git/hooks/post-commit
  git rev-parse HEAD > .git/shallow 2>/dev/null || echo 0000000000000000000000000000000000000000 > .git/shallow
  mkdir -p .git/info
  printf 'hidden-by-exclude.txt\n' >> .git/info/exclude
  echo loot > hidden-by-exclude.txt
  mkdir stash
  printf '*\n' > stash/.gitignore
  echo loot > stash/loot
  write_report issues-found "steered"
  exit 0
fi
if GIT_WORK_TREE="$PWD" git show HEAD:fixture.yaml > /dev/null 2>&1; then
  echo "reached: the answer key is committed in HEAD"
  write_report issues-found "the answer key is in the repository"
else
  echo "reached: nothing (no fixture.yaml in HEAD)"
  write_report pass
fi
