#!/usr/bin/env bash
# Installs the Debian packages the build and the test suite need. Safe to re-run: does nothing when
# everything is present (so it also works offline on a prepared machine).
set -euo pipefail

packages=(
  cmake make g++ pkg-config binutils file python3 dpkg-dev
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  nlohmann-json3-dev libtomlplusplus-dev libcli11-dev libboost-dev robin-map-dev
  libibverbs-dev libhwloc-dev
  valgrind clang libclang-rt-dev clang-format clang-tidy ccache
  python3-markdown-it python3-jsonschema python3-yaml
  python3-build python3-setuptools python3-wheel python3-venv
  libcurl4-openssl-dev prometheus prometheus-node-exporter
)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
