"""Runs the Grafana dashboard's queries on a real Prometheus, as Grafana would: its variables resolved in order
from the label values Prometheus holds over the time range (a variable at "All" as its allValue, one without "All"
at its first value), Grafana's $__rate_interval at 1m, $__range at RANGE. Every query must be valid PromQL.

  live      every panel over nccl-roce's timing series finds data (the pods are serving);
  finished  the pods are gone, and the dashboard is looked at 90 s later (queries evaluated then): the rate panels
            are blank, and every panel over the range ($__range) still finds data, so a finished job stays on it.

Usage: dashboard_queries.py URL DASHBOARD live|finished RANGE
"""

import json
import re
import sys
import time
import urllib.parse
import urllib.request


def get(url, path, params):
    query = urllib.parse.urlencode(params, doseq=True)
    answer = json.load(urllib.request.urlopen(f"{url}{path}?{query}", timeout=30))
    if answer["status"] != "success":
        sys.exit(f"{path} {params}: {answer}")
    return answer["data"]


def seconds(duration):
    return int(duration[:-1]) * {"s": 1, "m": 60, "h": 3600}[duration[-1]]


def interpolate(text, values):
    for name in sorted(values, key=len, reverse=True):
        text = text.replace("$" + name, values[name])
    return text


def resolve_variables(url, dashboard, range_, now):
    values = {"__rate_interval": "1m", "__range": range_}
    for variable in dashboard["templating"]["list"]:
        if variable["type"] != "query":
            continue
        m = re.fullmatch(r"label_values\((.+), (\w+)\)", variable["query"]["query"])
        if not m:
            sys.exit(f"variable {variable['name']}: not label_values(SERIES, LABEL)")
        series, label = interpolate(m.group(1), values), m.group(2)
        found = get(url, f"/api/v1/label/{label}/values",
                    {"match[]": series, "start": now - seconds(range_), "end": now})
        if variable.get("includeAll"):
            values[variable["name"]] = variable["allValue"]
        else:
            # Grafana escapes a value for the regex, and the backslashes again for the PromQL string.
            values[variable["name"]] = re.escape(found[0]).replace("\\", "\\\\") if found else ""
        print(f"  ${variable['name']} = {values[variable['name']]!r} (of {found})")
    return values


def main(url, dashboard_path, mode, range_):
    dashboard = json.load(open(dashboard_path))
    now = time.time() + (90 if mode == "finished" else 0)
    values = resolve_variables(url, dashboard, range_, now)
    problems = []
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = interpolate(target["expr"], values)
            if "$" in expr:
                problems.append(f"panel '{panel['title']}': an unresolved variable in {expr}")
                continue
            result = get(url, "/api/v1/query", {"query": expr, "time": now})["result"]
            timing = "nccl_roce_ab_log_duration" in expr or "nccl_roce_collective_duration" in expr
            over_range = "$__range" in target["expr"]
            if mode == "live" and timing and not result:
                problems.append(f"panel '{panel['title']}' finds no series")
            if mode == "finished" and over_range and not result:
                problems.append(f"panel '{panel['title']}' lost the finished job")
            if mode == "finished" and timing and not over_range and result:
                problems.append(f"panel '{panel['title']}' still has live data: the job is not finished")
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:5]))
