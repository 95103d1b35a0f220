#!/usr/bin/env bash
# The wheel as a vLLM image meets it (docs/install.md, "The wheel"). Built from this build tree with the same
# script as the `wheel` target, it must be named for its glibc floor, hold exactly the package, the library (no
# links), the command and share/nccl-roce, with ELF files that need the C runtime alone and carry no run path, and
# complete metadata. Installed into a fresh virtual environment without network, its vllm.general_plugins entry
# point, found through importlib.metadata and called as vLLM's loader calls it (twice), sets the plugin variables
# to the library's path unless the user set them, says so in one line on vLLM's logger, and never raises; the
# real NCCL then loads the env plugin from that path (ncclGetUniqueId, no GPU). The wheel's `nccl-roce` runs from
# the environment's bin/ and finds the wheel's data; `doctor` recognises the wheel, whether the variables are
# unset (the entry point will set them) or set to its path.
# Usage: wheel_test.sh SOURCE_DIR BUILD_DIR. Exits 77 (skipped, after every other check) where no libnccl.so.2
# is installed (NCCL_ROCE_TEST_LIBNCCL names one).
set -euo pipefail
source_dir=$1 build=$2
# shellcheck source=installed_tree.sh
source "$(dirname "${BASH_SOURCE[0]}")/installed_tree.sh"
for tool in readelf cmake; do command -v "$tool" >/dev/null || fail "no $tool here (scripts/install-deps.sh installs it)"; done
settings=$build/python/wheel_settings.cmake
[ -f "$settings" ] || fail "no $settings: configure the build first"
setting() { sed -n "s/^set($1 \"\(.*\)\")\$/\1/p" "$settings"; }
python=$(setting PYTHON) version=$(setting NCCL_ROCE_VERSION) floor=$(setting NCCL_ROCE_GLIBC_FLOOR)
summary=$(setting NCCL_ROCE_SUMMARY) platform=$(setting NCCL_ROCE_WHEEL_PLATFORM)
"$python" -c 'import build, setuptools, wheel, venv, ensurepip' 2>/dev/null ||
  fail "$python lacks build, setuptools, wheel or venv (scripts/install-deps.sh installs python3-build, python3-venv, ...)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Nothing of the caller's Python or NCCL settings reaches the environment under test.
clean_env=(env -i "HOME=$work/home" "PATH=/usr/bin:/bin" "LC_ALL=C.UTF-8" "TMPDIR=$work")
mkdir "$work/home"

# 1. The wheel, named for the floor.
cmake -DSETTINGS="$settings" -DOUT_DIR="$work/dist" -DWORK_DIR="$work/build" -P "$source_dir/python/build_wheel.cmake" \
  >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "building the wheel"; }
expected_name="nccl_roce-$version-py3-none-manylinux_${floor//./_}_$(uname -m).whl"
[ "$platform" = "manylinux_${floor//./_}_$(uname -m)" ] || fail "platform tag $platform does not follow the floor $floor"
wheel=$work/dist/$expected_name
[ -f "$wheel" ] || fail "no $expected_name; the build wrote: $(ls "$work/dist" | tr '\n' ' ')"

# 2. Its contents: exactly these, no links, the command executable.
"$python" - "$wheel" >"$work/entries" <<'EOF'
import stat, sys, zipfile
for info in zipfile.ZipFile(sys.argv[1]).infolist():
    mode = info.external_attr >> 16
    kind = "link" if stat.S_ISLNK(mode) else "exec" if mode & 0o111 else "file"
    print(kind, info.filename)
EOF
dist_info=nccl_roce-$version.dist-info
expected=$(
  {
    for f in __init__.py __main__.py _version.py command.py vllm_plugin.py lib/libnccl-roce.so bin/nccl-roce; do
      echo "nccl_roce/$f"
    done
    (cd "$source_dir/share/nccl-roce" && find . -type f | sed 's|^\./|nccl_roce/share/nccl-roce/|')
    for f in METADATA WHEEL RECORD entry_points.txt top_level.txt; do echo "$dist_info/$f"; done
  } | LC_ALL=C sort
)
diff=$(diff <(echo "$expected") <(awk '{print $2}' "$work/entries" | LC_ALL=C sort)) ||
  fail "$expected_name: unexpected contents (< missing, > extra):
$diff"
! grep -q '^link ' "$work/entries" || fail "$expected_name holds links: $(grep '^link ' "$work/entries")"
grep -qx 'exec nccl_roce/bin/nccl-roce' "$work/entries" || fail "nccl_roce/bin/nccl-roce is not executable in the wheel"

# 3. Every ELF file needs the C runtime alone, carries no run path, and loads on the floor the tag names.
mkdir "$work/unpacked"
"$python" -m zipfile -e "$wheel" "$work/unpacked"
c_runtime=" libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1 ld-linux-x86-64.so.2 ld-linux-aarch64.so.1 "
for elf in "$work/unpacked/nccl_roce/lib/libnccl-roce.so" "$work/unpacked/nccl_roce/bin/nccl-roce"; do
  ! readelf -d "$elf" | grep -qE '\((RPATH|RUNPATH)\)' || fail "${elf#"$work/unpacked/"} carries a run path"
  for soname in $(readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
    [[ $c_runtime == *" $soname "* ]] || fail "${elf#"$work/unpacked/"} needs $soname, which is not the C runtime"
  done
  newest=$(readelf -V --wide "$elf" | grep -o 'Name: GLIBC_[0-9.]*' | sed 's/.*GLIBC_//' | sort -V | tail -1)
  [ "$(printf '%s\n%s\n' "$newest" "$floor" | sort -V | tail -1)" = "$floor" ] ||
    fail "${elf#"$work/unpacked/"} references GLIBC_$newest, newer than the tag's floor $floor"
done

# 4. Metadata a package index and pip read.
metadata=$work/unpacked/$dist_info/METADATA
for field in "Name: nccl-roce" "Version: $version" "Summary: $summary" "Requires-Python: >=3.8"; do
  grep -qxF "$field" "$metadata" || fail "METADATA lacks '$field'"
done
for field in License Author Description-Content-Type; do
  grep -q "^$field: ." "$metadata" || fail "METADATA has no $field"
done
grep -qxF "Tag: py3-none-$platform" "$work/unpacked/$dist_info/WHEEL" || fail "WHEEL: no Tag py3-none-$platform"
grep -qxF "Root-Is-Purelib: false" "$work/unpacked/$dist_info/WHEEL" || fail "WHEEL: binaries belong in platlib"
grep -A1 -xF '[vllm.general_plugins]' "$work/unpacked/$dist_info/entry_points.txt" |
  grep -qxF 'nccl_roce = nccl_roce.vllm_plugin:register' || fail "entry_points.txt: no vllm.general_plugins nccl_roce"

# 5. A fresh virtual environment, without network.
"${clean_env[@]}" "$python" -m venv "$work/venv"
venv_python=$work/venv/bin/python3
"${clean_env[@]}" PIP_NO_INDEX=1 "$venv_python" -m pip install --no-index --no-deps --disable-pip-version-check -q \
  "$wheel" >"$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; fail "pip install --no-index $expected_name"; }
package=$("${clean_env[@]}" "$venv_python" -c 'import nccl_roce, os; print(os.path.dirname(nccl_roce.__file__))')
library=$package/lib/libnccl-roce.so
[ "$package" = "$("${clean_env[@]}" "$venv_python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')/nccl_roce" ] ||
  fail "the package went to $package, not platlib"

# 6. vLLM's loader in a process of its own, with vLLM's logging: `vllm` configured, propagation off.
cat >"$work/vllm_loader.py" <<'EOF'
import ctypes, logging, os, sys
from importlib.metadata import entry_points

root = logging.getLogger("vllm")
handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(logging.Formatter("%(levelname)s [%(filename)s:%(lineno)d] %(message)s"))
root.addHandler(handler)
root.setLevel(logging.DEBUG)
handler.setLevel(logging.INFO)
root.propagate = False

plugins = {ep.name: ep.load() for ep in entry_points(group="vllm.general_plugins")}
plugins["nccl_roce"]()
plugins["nccl_roce"]()  # vLLM may call it again in the same process
for name in ("NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN", "NCCL_PROFILER_PLUGIN"):
    print(f"{name}={os.environ.get(name, '<unset>')}")
if len(sys.argv) > 1:  # then NCCL, as torch and vLLM's pynccl load it: by ctypes, reading the variables at init
    sys.stdout.flush()
    nccl = ctypes.CDLL(sys.argv[1])
    unique_id = ctypes.create_string_buffer(128)
    print("ncclGetUniqueId returned", nccl.ncclGetUniqueId(unique_id), flush=True)
EOF
loader() { "${clean_env[@]}" "$@" "$venv_python" "$work/vllm_loader.py" ${libnccl:+"$libnccl"} 2>&1; }
libnccl=${NCCL_ROCE_TEST_LIBNCCL:-}
if [ -z "$libnccl" ]; then
  for candidate in /usr/local/cuda/lib/libnccl.so.2 /usr/local/cuda/lib64/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2; do
    if [ -r "$candidate" ]; then libnccl=$candidate; break; fi
  done
fi

out=$(loader NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV NCCL_SOCKET_IFNAME=lo) || fail "vLLM's loader failed:
$out"
[ "$(grep -c 'nccl-roce:' <<<"$out")" = 1 ] || fail "the entry point, called twice, said other than one line:
$out"
said=$(grep 'nccl-roce:' <<<"$out" | sed 's/:[0-9]*\] /:N] /')
[ "$said" = "INFO [vllm_plugin.py:N] nccl-roce: NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN set to $library; NCCL_PROFILER_PLUGIN left unset (no NCCL_ROCE_STATS: nothing is timed)" ] ||
  fail "the entry point's line is not the one expected:
$out"
for name in NCCL_NET_PLUGIN NCCL_TUNER_PLUGIN NCCL_ENV_PLUGIN; do
  grep -qxF "$name=$library" <<<"$out" || fail "$name not set to $library:
$out"
done
grep -qxF "NCCL_PROFILER_PLUGIN=<unset>" <<<"$out" || fail "NCCL_PROFILER_PLUGIN set without NCCL_ROCE_STATS"
if [ -n "$libnccl" ]; then
  for expect in "Successfully loaded external env plugin $library" "ENV/Plugin: Using nccl-roce" \
    "ncclGetUniqueId returned 0"; do
    grep -qF "$expect" <<<"$out" || fail "NCCL ($libnccl) did not load the env plugin from the wheel ('$expect'):
$out"
  done
fi

libnccl_given=$libnccl libnccl=  # the cases below stop before NCCL
out=$(loader NCCL_TUNER_PLUGIN=roce NCCL_ROCE_STATS="$work/stats") || fail "vLLM's loader failed:
$out"
grep -qxF "NCCL_TUNER_PLUGIN=roce" <<<"$out" || fail "the user's NCCL_TUNER_PLUGIN did not win:
$out"
grep -qxF "NCCL_PROFILER_PLUGIN=$library" <<<"$out" || fail "NCCL_ROCE_STATS set, but no NCCL_PROFILER_PLUGIN:
$out"
grep -qF "nccl-roce: NCCL_NET_PLUGIN, NCCL_ENV_PLUGIN, NCCL_PROFILER_PLUGIN set to $library; NCCL_TUNER_PLUGIN=roce kept (set by the user)" <<<"$out" ||
  fail "the line does not say what was set and kept:
$out"
out=$(loader NCCL_ROCE_AUTO_ENABLE=0) || fail "vLLM's loader failed:
$out"
grep -qF "nccl-roce: NCCL_ROCE_AUTO_ENABLE=0: no NCCL variable set" <<<"$out" &&
  [ "$(grep -c '=<unset>$' <<<"$out")" = 4 ] || fail "NCCL_ROCE_AUTO_ENABLE=0 did not keep the entry point from setting variables:
$out"

# 7. python -m nccl_roce env: the same forms as `nccl-roce env`.
out=$("${clean_env[@]}" NCCL_TUNER_PLUGIN=roce "$venv_python" -m nccl_roce env)
[ "$out" = "# nccl-roce env: NCCL plugin variables for the nccl-roce $version wheel
export NCCL_NET_PLUGIN='$library'
# NCCL_TUNER_PLUGIN kept: set by the user; the wheel would set $library
export NCCL_ENV_PLUGIN='$library'
# NCCL_PROFILER_PLUGIN left unset: NCCL_ROCE_STATS is unset, so nothing is timed" ] || fail "python -m nccl_roce env printed:
$out"

# 8. The wheel's command, from the environment's bin/: its own version, data and resolution.
command=$work/venv/bin/nccl-roce
run() { (cd "$work" && "${clean_env[@]}" "PATH=$work/venv/bin:/usr/bin:/bin" "$@"); }
[ "$(run nccl-roce --version)" = "nccl-roce $version" ] || fail "$command --version: $(run nccl-roce --version 2>&1)"
for policy in "$package"/share/nccl-roce/policies/*.toml "$package"/share/nccl-roce/examples/*.toml; do
  run nccl-roce policy lint "$policy" >/dev/null || fail "the wheel's policy $policy does not lint"
done
write_one_rail_sysfs "$work/sys"
out=$(run nccl-roce detect --sysfs-root "$work/sys" --format env) || fail "the wheel's detect on a one-rail machine"
grep -qx "export NCCL_IB_HCA='=mlx5_0:1'" <<<"$out" || fail "the wheel's detect on a one-rail machine printed:
$out"
mkdir "$work/empty-sys"
out=$(run nccl-roce detect --sysfs-root "$work/empty-sys" 2>&1 >/dev/null) && fail "detect without RDMA exited 0"
grep -qF "nccl-roce detect --snapshot $package/share/nccl-roce/examples/sriov-pod-8rail.json" <<<"$out" ||
  fail "detect without RDMA does not name the wheel's example machine:
$out"

# 9. doctor recognises the wheel: variables unset (the entry point sets them), set to its path, or opted out.
doctor() {  # its nccl-library line and remedy; the snapshot's other checks may fail on this machine
  { run "$@" nccl-roce doctor --snapshot "$package/share/nccl-roce/examples/sriov-pod-8rail.json" \
    ${libnccl_given:+--nccl-lib "$libnccl_given"} || true; } | grep -A1 nccl-library || true
}
wheel_name="nccl-roce $version wheel"
out=$(doctor)
for expect in "net: $library (nccl-roce, the $wheel_name)" "tuner: $library (nccl-roce, the $wheel_name)" \
  "env: $library (nccl-roce, the $wheel_name)" \
  "NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN unset here: the $wheel_name, which $work/venv/bin/python3 imports, sets them in each vLLM process"; do
  grep -qF "$expect" <<<"$out" || fail "doctor, variables unset, does not say '$expect':
$out"
done
if [ -n "$libnccl_given" ]; then
  grep -q '^pass  nccl-library' <<<"$out" || fail "doctor does not pass the wheel's plugins in NCCL $libnccl_given:
$out"
fi
exports=$("${clean_env[@]}" "$venv_python" -m nccl_roce env)
out=$(eval "$exports"; export NCCL_NET_PLUGIN NCCL_TUNER_PLUGIN NCCL_ENV_PLUGIN
  doctor NCCL_NET_PLUGIN="$NCCL_NET_PLUGIN" NCCL_TUNER_PLUGIN="$NCCL_TUNER_PLUGIN" NCCL_ENV_PLUGIN="$NCCL_ENV_PLUGIN")
grep -qF "net: $library (nccl-roce, the $wheel_name)" <<<"$out" && ! grep -qF "_PLUGIN unset" <<<"$out" ||
  fail "doctor, variables from python -m nccl_roce env, does not name the wheel's library:
$out"
out=$(doctor NCCL_ROCE_AUTO_ENABLE=0)
grep -qF "NCCL_NET_PLUGIN, NCCL_TUNER_PLUGIN, NCCL_ENV_PLUGIN unset (NCCL_ROCE_AUTO_ENABLE=0: the nccl-roce wheel, which $work/venv/bin/python3 imports, sets nothing)" <<<"$out" &&
  grep -q '^warn  nccl-library' <<<"$out" || fail "doctor does not warn of NCCL_ROCE_AUTO_ENABLE=0:
$out"

# 10. A broken install (the library gone): the entry point says why in one warning and sets nothing.
rm "$library"
out=$(loader) || fail "vLLM's loader failed with the library gone (the entry point must never raise):
$out"
grep -qF "WARNING [" <<<"$out" && grep -qF "nccl-roce: NCCL plugin variables not set: $library is missing" <<<"$out" &&
  [ "$(grep -c '=<unset>$' <<<"$out")" = 4 ] || fail "with the library gone, the entry point:
$out"

echo "wheel ok: $expected_name ($(stat -c %s "$wheel") bytes)"
if [ -z "$libnccl_given" ]; then
  echo "SKIP: every check ran but loading the wheel's library into NCCL: no libnccl.so.2 here (NCCL_ROCE_TEST_LIBNCCL names one)"
  exit 77
fi
