// The HTTP side of `ab --prometheus`: instant queries POSTed to URL/api/v1/query with libcurl (Prometheus,
// Thanos Query, Mimir under its /prometheus prefix, VictoriaMetrics: one API). CLI only: never linked into
// libnccl-roce.so.
#pragma once

#include <string>
#include <vector>

#include "fleet/prometheus_reader.h"

namespace nccl_roce::fleet {

struct PrometheusEndpoint {
  std::string url;                   // the API's base, e.g. http://prometheus:9090 or http://mimir/prometheus
  std::vector<std::string> headers;  // "Name: value" each, e.g. "X-Scope-OrgID: serving" for Mimir
  long timeoutSeconds = 300;         // per query: a wide window over a large fleet reads many samples
};

// A PrometheusQuery over HTTP. Errors name the endpoint and say what failed: the connection, the HTTP status
// (with the API's own "error" text where it sends one), or an answer past 4 GiB.
PrometheusQuery prometheusOverHttp(const PrometheusEndpoint& endpoint);

}  // namespace nccl_roce::fleet
