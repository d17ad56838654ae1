#!/usr/bin/env bash
# Issue 26: what the Python half (py/) needs, installed from the registries
# and verified: python3 with venv and pip, and, for the python3 on PATH (the
# one the README's test command uses), numpy (the numpy cases of the suite),
# pytest and maturin (the `pip install ./py` stage builds with maturin), and
# hypothesis (the stateful property test of the Pythonic layer).
set -euo pipefail

if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  echo "installing python3, python3-venv and python3-pip (apt)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv python3-pip >/dev/null
fi
python3 --version

if python3 -c 'import numpy, pytest, hypothesis' >/dev/null 2>&1 && python3 -m maturin --version >/dev/null 2>&1; then
  echo "numpy, pytest, hypothesis and maturin already installed"
else
  # Debian's system python refuses global installs (PEP 668) without the flag;
  # pyenv's and others ignore it.
  python3 -m pip install --quiet --disable-pip-version-check numpy pytest hypothesis maturin \
    || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages numpy pytest hypothesis maturin
fi
python3 -c 'import numpy, pytest, hypothesis; print("numpy", numpy.__version__, "pytest", pytest.__version__, "hypothesis", hypothesis.__version__)'
python3 -m maturin --version
