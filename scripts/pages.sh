#!/usr/bin/env bash
# The GitHub Pages branch (gh-pages) of a release, in two steps of the release workflow
# (.github/workflows/release.yml) that the rehearsal (scripts/test-release.sh) runs against a
# bare repository standing in for github.com:
#   scripts/pages.sh branch GIT   (make pages-branch PAGES_GIT=…) makes gh-pages in the git
#                                 repository GIT (a URL or a folder) when it has none: one orphan
#                                 commit holding .nojekyll (Pages then serves the files as they
#                                 are). A branch that exists is left as it is.
#   scripts/pages.sh push SITE    (make pages-push SITE=…) commits everything in SITE, a clone of
#                                 gh-pages that `make publish` wrote into, and pushes it to its
#                                 origin's gh-pages; a site with no change is not committed.
# Authentication is the caller's: the workflow hands git its token through GIT_CONFIG_* in the
# environment (never written to a .git/config).
set -euo pipefail
cd "$(dirname "$0")/.."
name="breeze-agent release"
email="releases@users.noreply.github.com"
case "${1:-}" in
branch)
    git_url=${2:-}
    [ -n "$git_url" ] || { echo "pages: PAGES_GIT is not set (the git repository whose gh-pages branch the site is)" >&2; exit 2; }
    status=0
    git ls-remote --exit-code --heads "$git_url" gh-pages >/dev/null || status=$?
    case "$status" in
    0) echo "pages: $git_url has a gh-pages branch" >&2; exit 0 ;;
    2) ;;   # reachable, no such branch
    *) echo "pages: cannot read $git_url (git ls-remote exit $status)" >&2; exit 1 ;;
    esac
    site=$(mktemp -d /tmp/breeze-pages.XXXXXX)
    trap 'rm -rf "$site"' EXIT
    git -C "$site" init --quiet
    git -C "$site" checkout --quiet --orphan gh-pages
    touch "$site/.nojekyll"
    git -C "$site" add .nojekyll
    git -C "$site" -c user.name="$name" -c user.email="$email" \
        commit --quiet -m "GitHub Pages: the apt repository and release checksums (docs/releasing.md)"
    git -C "$site" push --quiet "$git_url" HEAD:refs/heads/gh-pages
    echo "pages: made the gh-pages branch in $git_url ($(git -C "$site" rev-parse --short HEAD), .nojekyll)" >&2
    ;;
push)
    site=${2:-}
    [ -n "$site" ] || { echo "pages: SITE is not set (the clone of gh-pages that make publish wrote into)" >&2; exit 2; }
    [ -d "$site/.git" ] || { echo "pages: $site is not a git clone (check out gh-pages there first)" >&2; exit 1; }
    version=$(tr -d '[:space:]' <VERSION)
    git -C "$site" add -A
    if git -C "$site" diff --cached --quiet; then
        echo "pages: $site has no change to commit" >&2
    else
        git -C "$site" -c user.name="$name" -c user.email="$email" \
            commit --quiet -m "breeze-agent v$version: apt repository and release checksums"
    fi
    git -C "$site" push --quiet origin HEAD:refs/heads/gh-pages
    echo "pages: $site pushed to $(git -C "$site" remote get-url origin) gh-pages ($(git -C "$site" rev-parse --short HEAD))" >&2
    ;;
*)
    echo "usage: scripts/pages.sh branch GIT | push SITE" >&2
    exit 2
    ;;
esac
