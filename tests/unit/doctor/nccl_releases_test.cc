// What the doctor says each NCCL release takes from this library is what docs/nccl-versions.md says ("Which table
// each release takes"), row by row; and the doctor names those tables for the NCCL it finds, warning on one newer
// than any it knows.
#include "cli/doctor/nccl_releases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "cli/doctor/checks.h"
#include "common/strings.h"
#include "tests/unit/doctor/doctor_world.h"

namespace nccl_roce::testing {
namespace {

using doctor::Outcome;
using ::testing::HasSubstr;

struct DocRow {
  std::string releases;  // "2.24, 2.25", "2.30.2 - 2.30.4"
  std::vector<std::string> tables;
};

std::vector<DocRow> docRows() {
  std::ifstream in(NCCL_ROCE_VERSIONS_DOC);
  std::vector<DocRow> rows;
  bool inSection = false;
  std::string line;
  static const std::regex row(R"(^\| ([0-9., -]+) \| (.*) \|$)");
  while (std::getline(in, line)) {
    if (startsWith(line, "## ")) inSection = line == "## Which table each release takes";
    std::smatch m;
    if (!inSection || !std::regex_match(line, m, row)) continue;
    DocRow r{m[1], {}};
    const std::string cells = m[2];
    for (std::string_view cell : split(cells, '|')) {
      std::string c(trim(cell));
      r.tables.push_back(c == "none" ? "" : c.substr(1, c.size() - 2));  // without the backticks
    }
    rows.push_back(r);
  }
  return rows;
}

// "2.24" -> 22400, "2.28.7" -> 22807.
int code(const std::string& text) {
  std::vector<std::string_view> parts = split(text, '.');
  int c = std::stoi(std::string(parts[0])) * 10000 + std::stoi(std::string(parts[1])) * 100;
  return parts.size() > 2 ? c + std::stoi(std::string(parts[2])) : c;
}

TEST(NcclReleases, TheDoctorsTablesAreTheDocumentsRowByRow) {
  std::vector<DocRow> rows = docRows();
  ASSERT_GE(rows.size(), 15u) << "the table of docs/nccl-versions.md";
  int newest = 0;
  for (const DocRow& r : rows) {
    ASSERT_EQ(r.tables.size(), 4u) << r.releases;
    std::vector<std::string> releases;
    for (std::string_view part : split(r.releases, ',')) {
      for (std::string_view one : split(trim(part), ' ')) {
        if (one != "-" && !one.empty()) releases.emplace_back(one);
      }
    }
    for (const std::string& release : releases) {
      doctor::TakenTables t = doctor::tablesTakenBy(code(release));
      EXPECT_EQ(t.net, r.tables[0]) << release;
      EXPECT_EQ(t.tuner, r.tables[1]) << release;
      EXPECT_EQ(t.profiler, r.tables[2]) << release;
      EXPECT_EQ(t.env, r.tables[3]) << release;
      newest = std::max(newest, code(release));
    }
  }
  EXPECT_EQ(newest, doctor::kNewestKnownNccl) << "the newest release the doctor knows is the document's last";
}

TEST(NcclReleases, TheDoctorNamesTheTablesAnNcclTakes) {
  DoctorWorld w;
  w.ncclLibrary = NCCL_2_31_PATH;
  auto r = doctor::checkNcclLibrary(w.inputs());
  EXPECT_THAT(r.detail, HasSubstr("NCCL 2.31.2 takes ncclNetPlugin_v12, ncclTunerPlugin_v6, ncclProfiler_v7, "
                                  "ncclEnvPlugin_v2 from nccl-roce"));
  EXPECT_THAT(r.detail, ::testing::Not(HasSubstr("newer than")));
}

TEST(NcclReleases, TheDoctorWarnsOnAnNcclNewerThanAnyItKnowsAndSaysWhatItMeans) {
  DoctorWorld w;
  w.ncclLibrary = NCCL_2_33_PATH;
  auto r = doctor::checkNcclLibrary(w.inputs());
  EXPECT_EQ(r.outcome, Outcome::kWarn);
  EXPECT_THAT(r.detail, HasSubstr("NCCL 2.33.1 is newer than the newest release this nccl-roce knows (2.32.6): it "
                                  "takes the newest tables exported here, as 2.32.6 does (ncclNetPlugin_v12, "
                                  "ncclTunerPlugin_v7, ncclProfiler_v7, ncclEnvPlugin_v2)"));
  EXPECT_THAT(r.remedy, HasSubstr("use an nccl-roce release that knows NCCL 2.33.1"));
}

}  // namespace
}  // namespace nccl_roce::testing
