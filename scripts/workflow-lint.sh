#!/usr/bin/env bash
# `make lint-workflows`: zizmor (PyPI, pinned in test/release/zizmor-requirements.txt) audits the
# GitHub Actions workflows as an auditor would (`--persona=auditor`, offline: no GitHub API), and
# fails on any finding. An accepted finding is ignored in the workflow itself, on its line, with
# the reason beside it (`# zizmor: ignore[…]`), so the exception is read where it applies.
set -euo pipefail
cd "$(dirname "$0")/.."
python=$(scripts/py-venv.sh zizmor-venv test/release/zizmor-requirements.txt "${BREEZE_CI_CACHE:-/var/cache/breeze-agent-ci}")
exec "$(dirname "$python")/zizmor" --persona=auditor --offline --no-progress .github/workflows/
