#!/usr/bin/env bash
# Builds the pathlock Python package (release preset) and installs it for
# Debian's python3 under /usr/local (lib/python3.X/dist-packages), so that
# `python3 -c "import pathlock"` works afterwards. If the python3 first on
# PATH is another interpreter of the same version (pyenv, say), the package
# is copied into its site-packages too (again on every run). Run by scripts/run.sh and
# scripts/test.sh; PATHLOCK_PYTHON_PREFIX overrides the prefix.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target pathlock_python
prefix="${PATHLOCK_PYTHON_PREFIX:-/usr/local}"
cmake --install build/release --component python --prefix "$prefix" >/dev/null
installed="$prefix/$(sed -n 's/^PATHLOCK_PYTHON_INSTALL_DIR:STRING=//p' build/release/CMakeCache.txt)/pathlock"
echo "install-python: installed $installed"

python_on_path="$(command -v python3 || true)"
# Another interpreter first on PATH imports its own copy (refreshed on every run).
found="$("$python_on_path" -c 'import os, pathlock; print(os.path.dirname(pathlock.__file__))' 2>/dev/null || true)"
if [ -n "$python_on_path" ] && [ "$found" != "$installed" ]; then
  debian_version="$(/usr/bin/python3 -c 'import sys; print(sys.version_info[:2])')"
  path_version="$("$python_on_path" -c 'import sys; print(sys.version_info[:2])')"
  if [ "$debian_version" = "$path_version" ]; then
    site="$("$python_on_path" -c 'import site; print(site.getsitepackages()[0])')"
    rm -rf "${site:?}/pathlock"
    cp -r "$installed" "$site/pathlock"
    echo "install-python: also copied into $site for $python_on_path"
  else
    echo "install-python: $python_on_path is Python $path_version, the package is built for /usr/bin/python3 ($debian_version)" >&2
  fi
fi
/usr/bin/python3 -c "import pathlock; print('install-python: import pathlock works (' + pathlock.__version__ + ')')"
