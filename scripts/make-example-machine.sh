#!/usr/bin/env bash
# Writes the bundled example machine (share/nccl-roce/examples/sriov-pod-8rail.json): a vLLM pod on an
# H100 node with 8 SR-IOV RoCE VFs (ConnectX-7, 400 Gb/s), the pod's GIDs at 6/7 after other pods' entries,
# and the host's 25 Gb/s management PF visible in sysfs but not in the pod. Kernel formats throughout.
# Usage: scripts/make-example-machine.sh BUILD_DIR   (needs the nccl-roce binary built there)
set -euo pipefail
cd "$(dirname "$0")/.."
cli="${1:-build}/cli/nccl-roce"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

w() { mkdir -p "$(dirname "$tree/$1")"; printf '%s\n' "$2" > "$tree/$1"; }
gid4() { printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${1//./ }; }

: > "$tree/ifaddrs"
for i in 0 1 2 3 4 5 6 7; do
  dev=mlx5_$((10 + i)); net=net$((i + 1)); pci=$(printf '0000:%02x:00.%d' $((0x1a + i * 16)) 2)
  ip="10.$((200 + i)).17.42"; other="10.$((200 + i)).17.43"
  mkdir -p "$tree/devices/pci0000:00/$pci/physfn" "$tree/class/infiniband/$dev" "$tree/class/net/$net"
  ln -s "../../../devices/pci0000:00/$pci" "$tree/class/infiniband/$dev/device"
  w "devices/pci0000:00/$pci/numa_node" $((i / 4))
  w "class/net/$net/operstate" up
  p="class/infiniband/$dev/ports/1"
  w "$p/state" "4: ACTIVE"; w "$p/phys_state" "5: LinkUp"; w "$p/link_layer" Ethernet; w "$p/rate" "400 Gb/sec (4X NDR)"
  mkdir -p "$tree/$p/gid_attrs/types" "$tree/$p/gid_attrs/ndevs"
  for n in $(seq 0 15); do w "$p/gids/$n" "0000:0000:0000:0000:0000:0000:0000:0000"; done
  ll=$(printf 'fe80:0000:0000:0000:0ac0:ebff:fe%02x:1cfb' $((0x10 + i)))
  w "$p/gids/4" "$ll"; w "$p/gid_attrs/types/4" "IB/RoCE v1"; w "$p/gid_attrs/ndevs/4" "$net"
  w "$p/gids/5" "$ll"; w "$p/gid_attrs/types/5" "RoCE v2"; w "$p/gid_attrs/ndevs/5" "$net"
  w "$p/gids/6" "$(gid4 "$ip")"; w "$p/gid_attrs/types/6" "IB/RoCE v1"; w "$p/gid_attrs/ndevs/6" "$net"
  w "$p/gids/7" "$(gid4 "$ip")"; w "$p/gid_attrs/types/7" "RoCE v2"; w "$p/gid_attrs/ndevs/7" "$net"
  # Another pod's macvlan on the same VF: its netdev is net1 in *its* namespace, its address is not ours.
  w "$p/gids/8" "$(gid4 "$other")"; w "$p/gid_attrs/types/8" "IB/RoCE v1"; w "$p/gid_attrs/ndevs/8" "$net"
  w "$p/gids/9" "$(gid4 "$other")"; w "$p/gid_attrs/types/9" "RoCE v2"; w "$p/gid_attrs/ndevs/9" "$net"
  echo "$net $ip/16" >> "$tree/ifaddrs"
done
echo "eth0 10.244.3.17/24" >> "$tree/ifaddrs"
mkdir -p "$tree/class/net/eth0" "$tree/class/net/lo"
dev=mlx5_0; pci=0000:0c:00.0; p="class/infiniband/$dev/ports/1"
mkdir -p "$tree/devices/pci0000:00/$pci" "$tree/class/infiniband/$dev" "$tree/$p/gid_attrs/types" "$tree/$p/gid_attrs/ndevs"
ln -s "../../../devices/pci0000:00/$pci" "$tree/class/infiniband/$dev/device"
w "devices/pci0000:00/$pci/numa_node" 0
w "$p/state" "4: ACTIVE"; w "$p/phys_state" "5: LinkUp"; w "$p/link_layer" Ethernet; w "$p/rate" "25 Gb/sec (1X EDR)"
w "$p/gids/0" "fe80:0000:0000:0000:0ac0:ebff:fe00:0a01"; w "$p/gid_attrs/types/0" "IB/RoCE v1"; w "$p/gid_attrs/ndevs/0" ens9f0
w "$p/gids/1" "fe80:0000:0000:0000:0ac0:ebff:fe00:0a01"; w "$p/gid_attrs/types/1" "RoCE v2"; w "$p/gid_attrs/ndevs/1" ens9f0
w "$p/gids/2" "$(gid4 10.1.0.15)"; w "$p/gid_attrs/types/2" "IB/RoCE v1"; w "$p/gid_attrs/ndevs/2" ens9f0
w "$p/gids/3" "$(gid4 10.1.0.15)"; w "$p/gid_attrs/types/3" "RoCE v2"; w "$p/gid_attrs/ndevs/3" ens9f0

env -i PATH="$PATH" "$cli" snapshot --sysfs-root "$tree" --ifaddrs "$tree/ifaddrs" \
  -o share/nccl-roce/examples/sriov-pod-8rail.json
