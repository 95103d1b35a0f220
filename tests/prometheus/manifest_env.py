"""The nccl-roce environment of docs/kubernetes.md's vLLM leader container, as Kubernetes would give it to one pod:
the downward-API variables set to NAMESPACE, POD and NODE, `$(VAR)` expanded, and every path on a hostPath volume
moved under ROOT (the node's file system, for a test). Prints VAR=VALUE lines: the NCCL_ROCE_* variables and the
downward-API ones. Usage: manifest_env.py SOURCE_DIR ROOT NAMESPACE POD NODE
"""

import os
import re
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs"))
from kubernetes_manifests import DOWNWARD_API, host_path  # noqa: E402
from markdown_blocks import read_blocks  # noqa: E402


def main(source, root, namespace, pod, node):
    fields = {"metadata.namespace": namespace, "metadata.name": pod, "spec.nodeName": node}
    blocks, problems = read_blocks(source, "docs/kubernetes.md")
    if problems:
        sys.exit("; ".join(problems))
    for block in blocks:
        if block.language != "yaml":
            continue
        for doc in yaml.safe_load_all("\n".join(block.lines)):
            if not doc or doc.get("kind") != "LeaderWorkerSet":
                continue
            spec = doc["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]
            container = spec["containers"][0]
            values = {}
            for e in container["env"]:
                if "valueFrom" in e:
                    values[e["name"]] = fields[e["valueFrom"]["fieldRef"]["fieldPath"]]
                else:  # Kubernetes expands $(VAR) of variables defined before
                    values[e["name"]] = re.sub(r"\$\((\w+)\)", lambda m: values.get(m.group(1), m.group(0)),
                                               str(e["value"]))
            for name, value in values.items():
                if not (name.startswith("NCCL_ROCE_") or name in DOWNWARD_API):
                    continue
                if value.startswith("/"):
                    on_host = host_path(spec, container, value)
                    if on_host is None:
                        sys.exit(f"{name}={value} is on no hostPath volume of the manifest")
                    value = os.path.join(root, on_host.lstrip("/"))
                print(f"{name}={value}")
            return 0
    sys.exit("docs/kubernetes.md shows no LeaderWorkerSet")


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
