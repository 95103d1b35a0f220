// libcurl, opened with dlopen at the first Prometheus query. The CLI names no libcurl in its DT_NEEDED: libcurl
// pulls in some 30 libraries (TLS, Kerberos, LDAP, HTTP/2, ...) whose loading and relocation cost every command
// about 8 M instructions at start, and only `ab --prometheus` and `ab fit --prometheus` speak HTTP.
#pragma once

#include <curl/curl.h>

#include <string>

#include "common/status.h"

namespace nccl_roce::fleet {

// The libcurl functions the Prometheus reader calls, each typed by curl.h's own declaration.
struct CurlFunctions {
  decltype(&::curl_global_init) globalInit = nullptr;
  decltype(&::curl_easy_init) easyInit = nullptr;
  decltype(&::curl_easy_cleanup) easyCleanup = nullptr;
  decltype(&::curl_easy_setopt) easySetopt = nullptr;
  decltype(&::curl_easy_perform) easyPerform = nullptr;
  decltype(&::curl_easy_getinfo) easyGetinfo = nullptr;
  decltype(&::curl_easy_strerror) easyStrerror = nullptr;
  decltype(&::curl_easy_escape) easyEscape = nullptr;
  decltype(&::curl_free) free = nullptr;
  decltype(&::curl_slist_append) slistAppend = nullptr;
  decltype(&::curl_slist_free_all) slistFreeAll = nullptr;
};

// Opens `soname` (kept open for the life of the process) and resolves every function. The error names the
// library and the Debian package that installs it, the one thing a user who lacks it needs to know.
StatusOr<CurlFunctions> openCurlLibrary(const std::string& soname);

// libcurl.so.4, opened and initialised (curl_global_init) once per process, at the first call; every later call
// returns the same table, or the same error.
StatusOr<const CurlFunctions*> systemCurl();

}  // namespace nccl_roce::fleet
