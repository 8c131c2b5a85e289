#!/usr/bin/env bash
# Regenerate examples/data/ deterministically (the same bytes on every run).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet -p ragged --example gen_example_data -- examples/data
