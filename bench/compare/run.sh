#!/usr/bin/env bash
# One command for the whole comparison: set up the peers (bench/compare/setup.sh,
# as root), check that all four runtimes agree on the models' outputs, then
# run the grid. Arguments go to run_compare.py (e.g. --quick, --reps 5).
set -euo pipefail
cd "$(dirname "$0")/../.."
bench/compare/setup.sh
.venv-compare/bin/python bench/compare/check_models.py --models ../shared/models
exec .venv-compare/bin/python bench/compare/run_compare.py --models ../shared/models "$@"
