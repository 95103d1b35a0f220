#!/usr/bin/env bash
# The packages as a new user meets them. cpack builds the .deb and .tar.gz of each component; each .deb is unpacked
# into a fresh root (dpkg-deb -x, no root needed) and must hold exactly its files under /usr, declare a package for
# every library its ELF files need (libc6 at least as new as the newest GLIBC_ symbol version they reference), and
# work from that root. The base package installs as declared on this machine; its command-line tool runs and its
# plugin loads by NCCL's names. The driver, where it was built, is a package of its own that declares the CUDA
# runtime and NCCL; where it was not built, no driver package appears.
# Usage: deb_packages_test.sh SOURCE_DIR BUILD_DIR LOAD_FROM_C DRIVER_BUILT(0|1). Exits 77 (skipped) without dpkg.
set -euo pipefail
source_dir=$1 build=$2 load_from_c=$3 driver_built=$4
# shellcheck source=installed_tree.sh
source "$(dirname "${BASH_SOURCE[0]}")/installed_tree.sh"
for tool in dpkg dpkg-deb dpkg-query; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool: .deb packages are built and checked on Debian only"; exit 77; }
done
for tool in cpack dpkg-shlibdeps readelf ldd; do
  command -v "$tool" >/dev/null || fail "no $tool here (scripts/install-deps.sh installs it)"
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arch=$(dpkg --print-architecture)

# Sonames in the DT_NEEDED entries of an ELF file.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'; }

# Regular ELF files under a root.
elf_files() { find "$1" -type f -exec sh -c 'for f; do head -c4 "$f" | grep -q ELF && echo "$f"; done' _ {} +; }

# For every library the ELF files under ROOT need: "ELF SONAME PROVIDER...", where the providers are the dpkg
# package owning the file the loader resolves SONAME to here, else those of this fixed table, for libraries that
# come from outside dpkg on this machine (the CUDA toolkit and NCCL from NVIDIA's wheels):
#   libcudart.so.<major>   cuda-cudart-<major>-<minor> (NVIDIA's repository) or libcudart<major> (Debian, Ubuntu)
#   libnccl.so.2           libnccl2 (NVIDIA's repository, Debian, Ubuntu)
# One dpkg-query for all paths: each call reads the whole package database.
needs_and_providers() {
  local root=$1 elf soname path candidate pkg line need
  local -A resolved=() owner=()
  local -a needs=() paths=()
  while IFS= read -r elf; do
    for soname in $(needed "$elf"); do
      needs+=("$elf $soname")
      path=$(ldd "$elf" | awk -v n="$soname" '$1 == n && $2 == "=>" && $3 != "not" {print $3; exit}
                                              $1 ~ ("/" n "$") {print $1; exit}')
      resolved["$elf $soname"]=$path
      # dpkg may record either side of the /usr merge
      if [ -n "$path" ]; then paths+=("$path" "${path#/usr}" "/usr$path"); fi
    done
  done < <(elf_files "$root")
  while IFS= read -r line; do
    pkg=${line%%: /*} path=${line#*: }
    owner[$path]=${pkg%%[:,]*}
  done < <(dpkg-query -S "${paths[@]}" 2>/dev/null || true)
  for need in "${needs[@]}"; do
    path=${resolved[$need]} soname=${need##* } pkg=
    if [ -n "$path" ]; then
      for candidate in "$path" "${path#/usr}" "/usr$path"; do pkg=${pkg:-${owner[$candidate]:-}}; done
    fi
    if [ -n "$pkg" ]; then
      echo "$need $pkg"
    else
      case $soname in
        libcudart.so.*) echo "$need cuda-cudart-${soname#libcudart.so.}-* libcudart${soname#libcudart.so.}" ;;
        libnccl.so.2) echo "$need libnccl2" ;;
        *) echo "$need" ;;
      esac
    fi
  done
}

# The Depends clauses of a .deb, one per line, without version constraints: "libc6", "a|b".
depends_clauses() { dpkg-deb -f "$1" Depends | tr ',' '\n' | sed 's/([^)]*)//g; s/[[:space:]]//g' | grep -v '^$'; }

# Whether some clause (lines of depends_clauses) names one of the providers (patterns allowed) as an alternative.
declared() {
  local clauses=$1 clause alt provider alternatives
  shift
  while IFS= read -r clause; do
    IFS='|' read -ra alternatives <<<"$clause"
    for alt in "${alternatives[@]}"; do
      for provider in "$@"; do
        # shellcheck disable=SC2053  # the provider is a pattern on purpose
        [[ $alt == $provider ]] && return 0
      done
    done
  done <<<"$clauses"
  return 1
}

# Every library each ELF file in ROOT needs comes from a package DEB declares; no ELF file carries a run path (one
# would point into the build tree); the libc6 floor covers the newest GLIBC_ symbol version referenced. Prints
# the needs and their providers, for further checks.
check_elf_needs() {
  local deb=$1 root=$2 clauses elf soname glibc floor needs
  local -a providers
  clauses=$(depends_clauses "$deb")
  while IFS= read -r elf; do
    if readelf -d "$elf" | grep -qE '\((RPATH|RUNPATH)\)'; then fail "${elf#"$root"} carries a run path"; fi
  done < <(elf_files "$root")
  needs=$(needs_and_providers "$root")
  while read -r elf soname providers_line; do
    read -ra providers <<<"$providers_line"
    [ ${#providers[@]} -gt 0 ] || fail "${elf#"$root"} needs $soname, which no package here provides (not in the table)"
    declared "$clauses" "${providers[@]}" ||
      fail "${elf#"$root"} needs $soname (from ${providers[*]}); $(basename "$deb") declares Depends: $(dpkg-deb -f "$deb" Depends)"
  done <<<"$needs"
  glibc=$(elf_files "$root" | xargs readelf -V --wide | grep -o 'Name: GLIBC_[0-9.]*' | sed 's/.*GLIBC_//' | sort -V | tail -1)
  floor=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed -n 's/^ *libc6 *(>= *\([^)]*\)).*/\1/p')
  if [ -z "$floor" ] || ! dpkg --compare-versions "$floor" ge "$glibc"; then
    fail "$(basename "$deb"): symbols of GLIBC_$glibc referenced, Depends declares libc6 (>= ${floor:-none})"
  fi
  echo "$needs"
}

# Every Depends clause of DEB is satisfied by a package installed here (as dpkg -i would check).
check_installable_here() {
  local deb=$1 clause alt name op version installed ok
  local -a alternatives
  while IFS= read -r clause; do
    ok=0
    IFS='|' read -ra alternatives <<<"$clause"
    for alt in "${alternatives[@]}"; do
      read -r name op version <<<"${alt//[()]/ }"
      installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}\n' "$name:$arch" "$name" 2>/dev/null |
        awk '$1 == "ii" {print $2; exit}') || true
      [ -n "$installed" ] || continue
      if [ -z "$op" ] || dpkg --compare-versions "$installed" "$op" "${version}"; then ok=1; fi
    done
    [ "$ok" = 1 ] || fail "$(basename "$deb") depends on $clause, which this machine does not have"
  done < <(dpkg-deb -f "$deb" Depends | tr ',' '\n')
}

# Control fields a package manager and a reader rely on.
check_control() {
  local deb=$1 package=$2 description field
  [ "$(dpkg-deb -f "$deb" Package)" = "$package" ] || fail "$(basename "$deb"): Package is not $package"
  [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] || fail "$(basename "$deb"): Architecture is not $arch"
  for field in Version Maintainer Section Depends; do
    [ -n "$(dpkg-deb -f "$deb" "$field")" ] || fail "$(basename "$deb"): no $field"
  done
  description=$(dpkg-deb -f "$deb" Description)
  [ "$(wc -l <<<"$description")" -ge 2 ] || fail "$(basename "$deb"): a synopsis but no long description"
  if awk 'length > 80 {exit 1}' <<<"$description"; then :; else fail "$(basename "$deb"): description lines over 80"; fi
}

# Unpacks DEB into a fresh root and checks it holds exactly EXPECTED (relative to /usr), under /usr only.
unpack() {
  local deb=$1 root=$2 expected=$3
  dpkg-deb -x "$deb" "$root"
  [ "$(ls -A "$root")" = usr ] || fail "$(basename "$deb") installs outside /usr: $(ls -A "$root" | tr '\n' ' ')"
  expect_tree "$root/usr" "$expected" "$(basename "$deb")"
}

cpack --config "$build/CPackConfig.cmake" -G "DEB;TGZ" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log" >&2; fail "cpack"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")

# The base package: what a serving image needs, and nothing that needs CUDA.
base_deb=$work/out/nccl-roce_${version}_$arch.deb
[ -f "$base_deb" ] || fail "no $(basename "$base_deb"); cpack wrote: $(ls "$work/out" | tr '\n' ' ')"
check_control "$base_deb" nccl-roce
# libcurl is opened with dlopen by `ab --prometheus` alone, out of dpkg-shlibdeps' sight: Suggests names it.
[ "$(dpkg-deb -f "$base_deb" Suggests)" = libcurl4 ] ||
  fail "$(basename "$base_deb"): Suggests is '$(dpkg-deb -f "$base_deb" Suggests)', not libcurl4 (for ab --prometheus)"
unpack "$base_deb" "$work/base" "$(base_files "$source_dir")"
base_needs=$(check_elf_needs "$base_deb" "$work/base")
outside_libc=$(awk '$1 ~ /\/lib\/libnccl-roce\.so$/ && !(NF == 3 && $3 == "libc6")' <<<"$base_needs")
[ -z "$outside_libc" ] || fail "libnccl-roce.so must load on any image, yet needs more than libc6: $outside_libc"
check_installable_here "$base_deb"
check_base_works "$work/base/usr" "$load_from_c"
mkdir "$work/base-tgz"
tar -xzf "$work/out/nccl-roce-$version-Linux.tar.gz" -C "$work/base-tgz"
expect_tree "$work/base-tgz/nccl-roce-$version-Linux" "$(base_files "$source_dir")" "nccl-roce-$version-Linux.tar.gz"

# The driver package.
driver_deb=$work/out/nccl-roce-driver_${version}_$arch.deb
if [ "$driver_built" = 1 ]; then
  [ -f "$driver_deb" ] || fail "the driver was built but no $(basename "$driver_deb") was written"
  check_control "$driver_deb" nccl-roce-driver
  unpack "$driver_deb" "$work/driver" bin/nccl-roce-allreduce-driver
  check_elf_needs "$driver_deb" "$work/driver" >/dev/null
  "$work/driver/usr/bin/nccl-roce-allreduce-driver" --help >/dev/null || fail "the packaged driver does not start"
  mkdir "$work/driver-tgz"
  tar -xzf "$work/out/nccl-roce-driver-$version-Linux.tar.gz" -C "$work/driver-tgz"
  expect_tree "$work/driver-tgz" "nccl-roce-$version-Linux/bin/nccl-roce-allreduce-driver" \
    "nccl-roce-driver-$version-Linux.tar.gz"
else
  [ ! -e "$driver_deb" ] || fail "the driver was not built, yet $(basename "$driver_deb") was written"
fi

echo "packages ok: $(cd "$work/out" && ls ./*.deb ./*.tar.gz | tr '\n' ' ')"
for deb in "$work"/out/*.deb; do echo "$(basename "$deb"): Depends: $(dpkg-deb -f "$deb" Depends)"; done
