#!/usr/bin/env bash
set -euo pipefail

VERSION=1.2

usage() {
  echo "usage: $0" >&2
}

function build {
  go build ./...
  usage
}

build "$@"
