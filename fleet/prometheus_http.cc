#include "fleet/prometheus_http.h"

#include <curl/curl.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

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
  static std::once_flag initialised;
  std::call_once(initialised, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return Status(StatusCode::kUnavailable, "cannot start libcurl");
  std::string url = e.url;
  while (!url.empty() && url.back() == '/') url.pop_back();
  url += "/api/v1/query";
  std::unique_ptr<char, void (*)(void*)> escaped(curl_easy_escape(curl.get(), promql.c_str(), static_cast<int>(promql.size())),
                                                 curl_free);
  std::string form = std::string("query=") + (escaped ? escaped.get() : "");
  curl_slist* list = nullptr;
  for (const std::string& h : e.headers) list = curl_slist_append(list, h.c_str());
  std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers(list, curl_slist_free_all);
  std::string body;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, form.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, e.timeoutSeconds);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_ACCEPT_ENCODING, "");  // gzip where the server offers it
  CURLcode done = curl_easy_perform(curl.get());
  if (done != CURLE_OK) {
    return Status(StatusCode::kUnavailable, "Prometheus at " + e.url + ": " + curl_easy_strerror(done) +
                                                (done == CURLE_WRITE_ERROR ? " (an answer past 4 GiB)" : ""));
  }
  long code = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &code);
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
