"""The Kubernetes manifests of docs/kubernetes.md, parsed and checked against each other and the plugin.

Every yaml block must parse. In the vLLM LeaderWorkerSet, leader and workers alike: the four plugins selected, the
downward-API variables with the fields the plugin expects, every `$(VAR)` defined before its use (Kubernetes expands
only those), every NCCL_ROCE_* variable documented in docs/environment.md, the statistics and metrics directories
on writable hostPath volumes, and the securityContext of docs/security.md (a read-only root file system, no
privilege escalation, capabilities dropped). node-exporter's --collector.textfile.directory must be the host folder
the pods write their textfiles into. Usage: kubernetes_manifests.py SOURCE_DIR
"""

import posixpath
import re
import sys

import yaml

from markdown_blocks import read_blocks

DOWNWARD_API = {"POD_NAMESPACE": "metadata.namespace", "POD_NAME": "metadata.name", "NODE_NAME": "spec.nodeName"}
PLUGINS = ["NCCL_NET_PLUGIN", "NCCL_TUNER_PLUGIN", "NCCL_ENV_PLUGIN", "NCCL_PROFILER_PLUGIN"]


def host_path(spec, container, path):
    """The host folder behind a container path, through the container's volume mounts (the longest that holds it)."""
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    best = None
    for mount in container.get("volumeMounts", []):
        root = mount["mountPath"].rstrip("/") or "/"
        if path == root or path.startswith(root.rstrip("/") + "/"):
            if best is None or len(root) > len(best["mountPath"]):
                best = mount
    if best is None:
        return None
    volume = volumes.get(best["name"], {})
    if "hostPath" not in volume:
        return None
    rest = path[len(best["mountPath"].rstrip("/")):].lstrip("/")
    return posixpath.normpath(posixpath.join(volume["hostPath"]["path"], rest))


def writable(container, path):
    """Whether the mount that holds a container path is mounted read-write."""
    mounts = [m for m in container.get("volumeMounts", [])
              if path == m["mountPath"].rstrip("/") or path.startswith(m["mountPath"].rstrip("/") + "/")]
    return bool(mounts) and not max(mounts, key=lambda m: len(m["mountPath"])).get("readOnly", False)


def check_vllm_container(where, spec, container, documented, problems):
    env = container.get("env", [])
    names = [e["name"] for e in env]
    values = {e["name"]: e.get("value") for e in env}
    for plugin in PLUGINS:
        if values.get(plugin) != "roce":
            problems.append(f"{where}: {plugin} is not roce")
    for name, field in DOWNWARD_API.items():
        entry = next((e for e in env if e["name"] == name), None)
        got = entry and entry.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
        if got != field:
            problems.append(f"{where}: {name} must come from the downward API field {field}, not {got}")
    for i, e in enumerate(env):
        for used in re.findall(r"\$\((\w+)\)", e.get("value") or ""):
            if used not in names[:i]:
                problems.append(f"{where}: {e['name']} uses $({used}) before it is defined: Kubernetes leaves it as is")
        if e["name"].startswith("NCCL_ROCE_") and e["name"] not in documented:
            problems.append(f"{where}: {e['name']} has no section in docs/environment.md")
    security = container.get("securityContext", {})
    # docs/security.md: a read-only root file system, the plugin writing only into its two hostPath mounts.
    if security.get("readOnlyRootFilesystem") is not True:
        problems.append(f"{where}: readOnlyRootFilesystem is not true (docs/security.md)")
    if security.get("allowPrivilegeEscalation") is not False:
        problems.append(f"{where}: allowPrivilegeEscalation is not false (docs/security.md)")
    if "ALL" not in security.get("capabilities", {}).get("drop", []):
        problems.append(f"{where}: the capabilities are not dropped (drop: [ALL], docs/security.md)")
    textfiles = None
    for name in ("NCCL_ROCE_STATS", "NCCL_ROCE_METRICS"):
        value = values.get(name)
        if not value:
            problems.append(f"{where}: {name} is not set")
            continue
        folder = value if name == "NCCL_ROCE_METRICS" else posixpath.dirname(re.sub(r"/\$\(\w+\)", "", value))
        on_host = host_path(spec, container, folder)
        if on_host is None:
            problems.append(f"{where}: {name}={value} is on no hostPath volume: it dies with the pod")
        elif not writable(container, folder):
            problems.append(f"{where}: {name}={value} is on a read-only mount: the plugin cannot write it")
        if name == "NCCL_ROCE_METRICS":
            textfiles = on_host
    return textfiles


def main(source):
    documented = set(re.findall(r"^## (\w+)", open(f"{source}/docs/environment.md").read(), re.M))
    problems, written, read = [], set(), set()
    documents = []
    blocks, unreadable = read_blocks(source, "docs/kubernetes.md")
    problems += unreadable
    for block in blocks:
        if block.language != "yaml":
            continue
        try:
            documents += [d for d in yaml.safe_load_all("\n".join(block.lines)) if d]
        except yaml.YAMLError as error:
            problems.append(f"{block.where()}: not YAML: {error}")
    kinds = [d.get("kind") for d in documents]
    for kind in ("SriovNetwork", "LeaderWorkerSet", "DaemonSet"):
        if kind not in kinds:
            problems.append(f"docs/kubernetes.md shows no {kind}")
    for doc in documents:
        if doc.get("kind") == "LeaderWorkerSet":
            template = doc["spec"]["leaderWorkerTemplate"]
            for role in ("leaderTemplate", "workerTemplate"):
                spec = template[role]["spec"]
                for container in spec["containers"]:
                    folder = check_vllm_container(f"{role}/{container['name']}", spec, container, documented, problems)
                    if folder:
                        written.add(folder)
        if doc.get("kind") == "DaemonSet":
            spec = doc["spec"]["template"]["spec"]
            for container in spec["containers"]:
                for arg in container.get("args", []):
                    if arg.startswith("--collector.textfile.directory="):
                        folder = host_path(spec, container, arg.split("=", 1)[1])
                        if folder is None:
                            problems.append(f"node-exporter's {arg} is on no hostPath volume")
                        else:
                            read.add(folder)
    if not read:
        problems.append("node-exporter has no --collector.textfile.directory")
    if written and read and written != read:
        problems.append(f"the pods write textfiles into {sorted(written)} on the node, node-exporter reads {sorted(read)}")
    for problem in problems:
        print("FAIL:", problem)
    if not problems:
        print(f"ok: {len(documents)} manifests; pods write and node-exporter reads {sorted(read)[0]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
