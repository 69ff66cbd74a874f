#!/usr/bin/env bash
# Prints megagit's package graph: each package, its non-test line count and
# the megagit packages it imports. ARCHITECTURE.md shows its output.
set -euo pipefail
cd "$(dirname "$0")/.."
# The product module only: lab/ is a module of its own, which ./... leaves
# out unless a go.work joins the two.
export GOWORK=off
mod=$(go list -m)
go list -f '{{.ImportPath}}|{{.Dir}}|{{join .Imports " "}}' ./... | while IFS='|' read -r pkg dir imports; do
  lines=$(cd "$dir" && ls *.go 2>/dev/null | grep -v '_test\.go$' | xargs -r cat | wc -l)
  deps=$(tr ' ' '\n' <<<"$imports" | grep "^$mod/" | sed "s#^$mod/##" | paste -sd' ' - || true)
  printf '%-24s %5s  -> %s\n' "${pkg#"$mod"/}" "$lines" "${deps:-(none)}"
done
