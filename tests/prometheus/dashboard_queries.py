"""Runs the Grafana dashboard's queries on a real Prometheus, as Grafana would, for every fleet its `experiment`
variable offers (each experiment, and the pods that run a plain policy).

Grafana, as emulated here (grafana/grafana, packages/grafana-prometheus: metric_find_query.ts, escaping.ts;
public/app/features/variables/utils.ts: metricNamesToVariableValues):
  - `label_values(SERIES, LABEL)` asks /api/v1/label/LABEL/values with match[]=SERIES over the time range;
    `query_result(EXPR)` evaluates EXPR at the range's end and makes each series a text
    `name{label="value",...} VALUE TIMESTAMP_MS` (labels in the order Prometheus gives them);
  - a variable's regex keeps the texts it matches; named groups `(?<value>...)` and `(?<text>...)` (the first
    match with a non-empty group, over every match with the g flag) give the option's value and text, each
    standing in for the other when missing;
  - in a query, a variable at "All" is its allValue; a variable with neither multi nor includeAll is inserted as
    is, only backslashes doubled and single quotes escaped (prometheusRegularEscape: no regex escaping); one with
    multi or includeAll has its value regex-escaped (prometheusSpecialRegexEscape);
  - variables resolve in order, each at its first option unless it has "All" (then All); $__rate_interval is 1m
    and $__range RANGE.

  live      for every fleet, every panel over nccl-roce's timing series finds data (the pods are serving);
  finished  the pods are gone, and the dashboard is looked at 90 s later: the rate panels are blank, and every
            panel over the range ($__range) still finds data, so a finished job stays on it.

With --fleet TEXT=ARMS (repeatable; ARMS comma-separated, empty for a plain policy) the `experiment` variable must
offer exactly these fleets, and every panel grouped by arm must show exactly these arms for its fleet.

Usage: dashboard_queries.py URL DASHBOARD live|finished RANGE [--fleet TEXT=ARMS]...
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


def regular_escape(value):  # prometheusRegularEscape, classic behaviour
    return value.replace("\\", "\\\\").replace("'", "\\\\'")


def special_regex_escape(value):  # prometheusSpecialRegexEscape, classic behaviour
    return re.sub(r"([$^*{}\[\]'+?.()|])", r"\\\\\1", value.replace("\\", "\\\\\\\\"))


def interpolate(text, values):
    for name in sorted(values, key=len, reverse=True):
        text = text.replace("$" + name, values[name])
    return text


def js_regex(pattern):
    """A Grafana /regex/flags as Python's: named groups (?<n>...) are (?P<n>...)."""
    m = re.fullmatch(r"/(.*)/([gimsuy]*)", pattern)
    if not m:
        sys.exit(f"not a Grafana /regex/: {pattern}")
    flags = re.IGNORECASE if "i" in m.group(2) else 0
    return re.compile(m.group(1).replace("(?<", "(?P<"), flags), "g" in m.group(2)


def options_of(texts, pattern):
    """metricNamesToVariableValues: (text, value) per option, in order, unique by value."""
    options = []
    regex, glob = js_regex(pattern) if pattern else (None, False)
    for item in texts:
        text = value = item
        if regex:
            matches = list(regex.finditer(item)) if glob else [m for m in [regex.search(item)] if m]
            if not matches:
                continue
            group = lambda name: next((m.group(name) for m in matches  # noqa: E731
                                       if name in m.groupdict() and m.group(name)), None)
            v, t = group("value"), group("text")
            if v is not None or t is not None:
                value, text = (v if v is not None else t), (t if t is not None else v)
            elif matches[0].groups():
                text = value = matches[0].group(1)
        if value not in [o[1] for o in options]:
            options.append((text, value))
    return options


def query_texts(url, query, values, range_, now):
    m = re.fullmatch(r"label_values\((.+), (\w+)\)", query)
    if m:
        series = interpolate(m.group(1), values)
        return get(url, f"/api/v1/label/{m.group(2)}/values",
                   {"match[]": series, "start": now - seconds(range_), "end": now})
    m = re.fullmatch(r"query_result\((.+)\)", query)
    if m:
        texts = []
        for r in get(url, "/api/v1/query", {"query": interpolate(m.group(1), values), "time": now})["result"]:
            labels = dict(r["metric"])
            name = labels.pop("__name__", "")
            texts.append(name + "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}" +
                         f" {r['value'][1]} {int(r['value'][0] * 1000)}")
        return texts
    sys.exit(f"variable query neither label_values(SERIES, LABEL) nor query_result(EXPR): {query}")


def resolve(url, variables, values, range_, now, pick=None):
    """Resolves `variables` in order into `values`; `pick` chooses the first one's option by value."""
    for i, variable in enumerate(variables):
        texts = query_texts(url, variable["query"]["query"], values, range_, now)
        options = options_of(texts, variable.get("regex", ""))
        if variable.get("includeAll"):
            values[variable["name"]] = variable["allValue"]
        else:
            value = pick if (i == 0 and pick is not None) else (options[0][1] if options else "")
            escape = special_regex_escape if variable.get("multi") else regular_escape
            values[variable["name"]] = escape(value)
        print(f"  ${variable['name']} = {values[variable['name']]!r} (of {options})")
    return values


def run_panels(url, dashboard, values, mode, now, fleet, arms, problems):
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = interpolate(target["expr"], values)
            if "$" in expr:
                problems.append(f"panel '{panel['title']}': an unresolved variable in {expr}")
                continue
            result = get(url, "/api/v1/query", {"query": expr, "time": now})["result"]
            timing = "nccl_roce_ab_log_duration" in expr or "nccl_roce_collective_duration" in expr
            over_range = "$__range" in target["expr"]
            where = f"fleet '{fleet}', panel '{panel['title']}'"
            if mode == "live" and timing and not result:
                problems.append(f"{where} finds no series")
            if mode == "finished" and over_range and not result:
                problems.append(f"{where} lost the finished job")
            if mode == "finished" and timing and not over_range and result:
                problems.append(f"{where} still has live data: the job is not finished")
            if arms is not None and result and re.search(r"by \([^)]*\barm\b", target["expr"]):
                shown = sorted({r["metric"].get("arm", "") for r in result})
                if shown != arms:
                    problems.append(f"{where} shows arms {shown}, expected {arms}")


def main(url, dashboard_path, mode, range_, *expect):
    dashboard = json.load(open(dashboard_path))
    now = time.time() + (90 if mode == "finished" else 0)
    expected = {}
    for e in expect:
        if e != "--fleet":
            text, _, arms = e.partition("=")
            expected[text] = sorted(arms.split(",")) if arms else [""]
    variables = [v for v in dashboard["templating"]["list"] if v["type"] == "query"]
    first = next(i for i, v in enumerate(variables) if v["name"] == "experiment")
    before = resolve(url, variables[:first], {"__rate_interval": "1m", "__range": range_}, range_, now)
    fleet_variable = variables[first]
    fleets = options_of(query_texts(url, fleet_variable["query"]["query"], before, range_, now),
                        fleet_variable.get("regex", ""))
    problems = []
    if not fleets:
        problems.append("the experiment variable offers no fleet")
    if expected and sorted(t for t, _ in fleets) != sorted(expected):
        problems.append(f"the experiment variable offers {[t for t, _ in fleets]}, expected {sorted(expected)}")
    for text, value in fleets:
        print(f"fleet '{text}' (experiment value {value!r}):")
        values = resolve(url, variables[first:], dict(before), range_, now, pick=value)
        run_panels(url, dashboard, values, mode, now, text, expected.get(text) if expected else None, problems)
    for problem in problems:
        print("FAIL:", problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
