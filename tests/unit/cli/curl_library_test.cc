// libcurl as `ab --prometheus` opens it: the whole function table or an error that names the package to install.
#include "fleet/curl_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

namespace nccl_roce::testing {
namespace {

using fleet::CurlFunctions;
using fleet::openCurlLibrary;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(CurlLibrary, AMissingLibcurlNamesThePackageThatInstallsIt) {
  auto curl = openCurlLibrary("libcurl.so.3");  // a soname no Debian release ships
  ASSERT_FALSE(curl.isOk());
  EXPECT_THAT(curl.status().message(),
              AllOf(HasSubstr("cannot load libcurl (libcurl.so.3: cannot open shared object file"),
                    HasSubstr("install the libcurl4 package")));
}

TEST(CurlLibrary, ALibraryWithoutCurlsFunctionsIsRefusedTheSameWay) {
  auto curl = openCurlLibrary("libm.so.6");
  ASSERT_FALSE(curl.isOk());
  EXPECT_THAT(curl.status().message(), AllOf(HasSubstr("libm.so.6 is not a usable libcurl"),
                                             HasSubstr("curl_global_init"), HasSubstr("install the libcurl4 package")));
}

TEST(CurlLibrary, TheSystemLibcurlAnswersThroughTheTable) {
  auto loaded = fleet::systemCurl();
  ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
  const CurlFunctions& c = **loaded;
  std::unique_ptr<CURL, void (*)(CURL*)> curl(c.easyInit(), c.easyCleanup);
  ASSERT_TRUE(curl);
  // A PromQL query as the reader sends it, form-encoded by libcurl itself.
  std::string promql = "sum by (arm) (rate(x[5m]))";
  std::unique_ptr<char, void (*)(void*)> escaped(
      c.easyEscape(curl.get(), promql.c_str(), static_cast<int>(promql.size())), c.free);
  EXPECT_STREQ(escaped.get(), "sum%20by%20%28arm%29%20%28rate%28x%5B5m%5D%29%29");
  EXPECT_STREQ(c.easyStrerror(CURLE_COULDNT_CONNECT), "Couldn't connect to server");
  EXPECT_EQ(fleet::systemCurl().value(), &c) << "opened once per process";
}

}  // namespace
}  // namespace nccl_roce::testing
