#!/usr/bin/env bash
# README command 1: install dependencies, build, and run the main job (`loom`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh release
exec build/release/bin/loom "$@"
