# Sourced by the packaging tests: what an installed base package holds (docs/contracts.md) and the checks that
# it works from wherever it landed, with nothing from the build tree.

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# The base package's files and links, relative to the install prefix, sorted. SOURCE_DIR gives share/nccl-roce.
base_files() {
  local source_dir=$1
  {
    echo bin/nccl-roce
    echo lib/libnccl-roce.so
    for kind in net tuner env profiler; do echo "lib/libnccl-$kind-roce.so"; done
    (cd "$source_dir/share/nccl-roce" && find . -type f | sed 's|^\./|share/nccl-roce/|')
  } | LC_ALL=C sort
}

# Files and links under DIR, relative to it, sorted.
tree_files() {
  (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | LC_ALL=C sort)
}

# DIR holds exactly the files listed in EXPECTED (one per line); WHAT names DIR in the message.
expect_tree() {
  local dir=$1 expected=$2 what=$3 diff
  diff=$(diff <(echo "$expected") <(tree_files "$dir")) || fail "$what: unexpected contents (< missing, > extra):
$diff"
}

# A one-rail machine as the kernel shows it: ConnectX-7 port mlx5_0/1, the pod's RoCE v2 GID at index 3 on net1.
write_one_rail_sysfs() {
  local root=$1 port=$1/class/infiniband/mlx5_0/ports/1
  mkdir -p "$port/gids" "$port/gid_attrs/types" "$port/gid_attrs/ndevs" "$root/class/net/net1"
  echo "4: ACTIVE" >"$port/state"
  echo "5: LinkUp" >"$port/phys_state"
  echo "Ethernet" >"$port/link_layer"
  echo "400 Gb/sec (4X NDR)" >"$port/rate"
  echo "0000:0000:0000:0000:0000:ffff:0a00:0001" >"$port/gids/3"
  echo "RoCE v2" >"$port/gid_attrs/types/3"
  echo "net1" >"$port/gid_attrs/ndevs/3"
  echo "up" >"$root/class/net/net1/operstate"
}

# The installed base works from PREFIX: the plugin names are links to the library, which loads by those names in a
# C process (LOAD_FROM_C is tests/abi/load_from_c); the command-line tool runs, reads the shipped policies and
# examples (the example experiment lints), and resolves a machine.
check_base_works() {
  local prefix=$1 load_from_c=$2 scratch out
  for kind in net tuner env profiler; do
    local link="$prefix/lib/libnccl-$kind-roce.so"
    [ -L "$link" ] || fail "$link is not a symlink"
    [ "$(readlink "$link")" = libnccl-roce.so ] || fail "$link does not point at libnccl-roce.so"
  done
  "$prefix/bin/nccl-roce" --help >/dev/null || fail "$prefix/bin/nccl-roce --help failed"
  for policy in "$prefix"/share/nccl-roce/policies/*.toml "$prefix"/share/nccl-roce/examples/*.toml; do
    "$prefix/bin/nccl-roce" policy lint "$policy" >/dev/null || fail "shipped policy $policy does not lint"
  done
  "$prefix/bin/nccl-roce" detect --snapshot "$prefix/share/nccl-roce/examples/sriov-pod-8rail.json" --format json \
    >/dev/null || fail "shipped example does not resolve"
  scratch=$(mktemp -d)
  write_one_rail_sysfs "$scratch/sys"
  out=$("$prefix/bin/nccl-roce" detect --sysfs-root "$scratch/sys" --format env) || fail "detect on a one-rail machine"
  rm -rf "$scratch"
  grep -qx "export NCCL_IB_HCA='=mlx5_0:1'" <<<"$out" && grep -qx "export NCCL_IB_GID_INDEX='3'" <<<"$out" || fail "detect on a one-rail machine printed:
$out"
  # Without RDMA devices, detect names the installed example machine (found from bin/), by a path that replays.
  scratch=$(mktemp -d)
  out=$("$prefix/bin/nccl-roce" detect --sysfs-root "$scratch" 2>&1 >/dev/null) && fail "detect without RDMA exited 0"
  rm -rf "$scratch"
  local example
  example=$(realpath "$prefix/share/nccl-roce/examples/sriov-pod-8rail.json")
  grep -qF "nccl-roce detect --snapshot $example" <<<"$out" || fail "detect without RDMA does not name $example:
$out"
  "$load_from_c" "$prefix/lib" >/dev/null || fail "the plugin does not load by NCCL's names from $prefix/lib"
}
