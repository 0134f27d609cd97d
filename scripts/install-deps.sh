#!/usr/bin/env bash
# Installs the Debian 12 packages pathlock builds and tests with, if missing.
# Safe to run again: it does nothing when everything is there.
set -euo pipefail

PACKAGES=(
  g++ cmake ninja-build pkg-config
  clang-14 libclang-rt-14-dev          # sanitizer and libFuzzer builds, -Wthread-safety
  libgtest-dev libgmock-dev librapidcheck-dev
  libbenchmark-dev libabsl-dev          # abseil: the scaling benchmark's strongest peer
  libfmt-dev nlohmann-json3-dev libcli11-dev
  libboost-graph-dev                   # Graphviz output of wait-for cycles
  gnuplot-nox                          # the simulation report's plots
  spin                                 # the SPIN cross-check of the model checker (proofs/)
  ccache                               # the mutation script's rebuilds reuse the main build's objects
  python3-dev pybind11-dev python3-pybind11 python3-setuptools   # the pathlock Python package
  python3-pytest python3-pytest-asyncio                          # its tests
  python3-hypothesis                   # pathlock.testing: property-based testing of any lock
  libcurl4-openssl-dev                 # the etcd lock's HTTP client (etcd's JSON gateway)
  etcd-server etcd-client              # the etcd tests' loopback clusters (label etcd)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "install-deps: missing ${missing[*]}; run as root or install sudo" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
