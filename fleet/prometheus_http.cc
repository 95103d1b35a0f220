#include "fleet/prometheus_http.h"

#include <memory>
#include <nlohmann/json.hpp>

#include "fleet/curl_library.h"

namespace nccl_roce::fleet {

namespace {

constexpr size_t kMaxAnswer = size_t{4} << 30;

size_t append(char* data, size_t size, size_t n, void* out) {
  auto* body = static_cast<std::string*>(out);
  if (body->size() + size * n > kMaxAnswer) return 0;  // curl stops with a write error
  body->append(data, size * n);
  return size * n;
}

// The API's own words for a failed query ({"status": "error", "error": "..."}), else the start of the body.
std::string errorIn(const std::string& body) {
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object() && doc.contains("error") && doc["error"].is_string()) return doc["error"].get<std::string>();
  return body.substr(0, 200);
}

StatusOr<std::string> post(const PrometheusEndpoint& e, const std::string& promql) {
  StatusOr<const CurlFunctions*> loaded = systemCurl();
  if (!loaded.isOk()) return loaded.status();
  const CurlFunctions& c = **loaded;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(c.easyInit(), c.easyCleanup);
  if (!curl) return Status(StatusCode::kUnavailable, "cannot start libcurl");
  std::string url = e.url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/api/v1/query";
  std::unique_ptr<char, void (*)(void*)> escaped(
      c.easyEscape(curl.get(), promql.c_str(), static_cast<int>(promql.size())), c.free);
  std::string form = std::string("query=") + (escaped ? escaped.get() : "");
  curl_slist* list = nullptr;
  for (const std::string& h : e.headers) list = c.slistAppend(list, h.c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(list, c.slistFreeAll);
  std::string body;
  c.easySetopt(curl.get(), CURLOPT_URL, url.c_str());
  c.easySetopt(curl.get(), CURLOPT_POSTFIELDS, form.c_str());
  c.easySetopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  c.easySetopt(curl.get(), CURLOPT_WRITEFUNCTION, append);
  c.easySetopt(curl.get(), CURLOPT_WRITEDATA, &body);
  c.easySetopt(curl.get(), CURLOPT_TIMEOUT, e.timeoutSeconds);
  c.easySetopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  c.easySetopt(curl.get(), CURLOPT_ACCEPT_ENCODING, "");  // gzip where the server offers it
  CURLcode done = c.easyPerform(curl.get());
  if (done != CURLE_OK) {
    return Status(StatusCode::kUnavailable, "Prometheus at " + e.url + ": " + c.easyStrerror(done) +
                                                (done == CURLE_WRITE_ERROR ? " (an answer past 4 GiB)" : ""));
  }
  long code = 0;
  c.easyGetinfo(curl.get(), CURLINFO_RESPONSE_CODE, &code);
  if (code != 200) {
    return Status(StatusCode::kUnavailable,
                  "Prometheus at " + e.url + ": HTTP " + std::to_string(code) + " from " + url + ": " + errorIn(body));
  }
  return body;
}

}  // namespace

PrometheusQuery prometheusOverHttp(const PrometheusEndpoint& endpoint) {
  return [endpoint](const std::string& promql) { return post(endpoint, promql); };
}

}  // namespace nccl_roce::fleet
