// The table of NCCL_ROCE_* settings (common/settings.h) and docs/environment.md say the same thing: every setting
// has its heading there, every "## NCCL_ROCE_*" heading is a setting, and the value that holds while a variable
// is unset is the one the page states.
#include "common/settings.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "tests/support/run_command.h"

namespace nccl_roce::settings {
namespace {

std::string environmentPage() {
  std::ifstream in(testing::sourcePath("docs/environment.md"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text under "## name", up to the next heading.
std::string sectionOf(const std::string& page, const std::string& name) {
  std::string heading = "\n## " + name + "\n";
  size_t start = page.find(heading);
  if (start == std::string::npos) return "";
  start += heading.size();
  size_t end = page.find("\n#", start);
  return page.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(Settings, EveryOneHasItsHeadingInTheEnvironmentPage) {
  std::string page = environmentPage();
  ASSERT_FALSE(page.empty());
  for (const Setting& s : kAll) EXPECT_FALSE(sectionOf(page, s.name).empty()) << s.name;
}

TEST(Settings, EveryVariableHeadingOfThePageIsASetting) {
  std::string page = environmentPage();
  std::set<std::string> names;
  for (const Setting& s : kAll) names.insert(s.name);
  std::regex heading("\n## (NCCL_ROCE_[A-Z0-9_]+)\n");
  int headings = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), heading), end; it != end; ++it, ++headings) {
    EXPECT_EQ(names.count((*it)[1]), 1u) << (*it)[1] << " has a heading but no entry in common/settings.h";
  }
  EXPECT_EQ(headings, static_cast<int>(kAll.size()));
}

TEST(Settings, ThePageStatesTheValueThatHoldsWhileUnset) {
  std::string page = environmentPage();
  for (const Setting& s : kAll) {
    std::string section = sectionOf(page, s.name);
    std::string value = s.unsetValue;
    if (value.empty()) {
      // Unset means "not used": the page says what that means.
      EXPECT_NE(section.find("nset"), std::string::npos) << s.name << ": the page does not say what unset means";
    } else {
      // "Default `90`", "default `90`", "Unset: `/sys`", "Unset or empty: `inference`".
      std::regex stated("(Default|default|Unset[^.]*?):? `" + value + "`");
      EXPECT_TRUE(std::regex_search(section, stated)) << s.name << ": the page does not state `" << value << "`";
    }
  }
}

TEST(Settings, NamesAreOursAndDeclaredOnce) {
  std::set<std::string> names;
  for (const Setting& s : kAll) {
    EXPECT_EQ(std::string(s.name).rfind("NCCL_ROCE_", 0), 0u) << s.name;
    EXPECT_TRUE(names.insert(s.name).second) << s.name << " declared twice";
  }
}

TEST(Settings, NumericDefaultsAreWholeNumbersTheCodeCanRead) {
  for (const Setting& s : kAll) {
    if (s.kind != Kind::kWholeSeconds && s.kind != Kind::kSeconds) continue;
    std::string value = s.unsetValue;
    ASSERT_FALSE(value.empty()) << s.name;
    EXPECT_EQ(std::to_string(wholeNumber(s.unsetValue)), value) << s.name;
  }
  static_assert(wholeNumber("90") == 90 && wholeNumber("0") == 0);
}

}  // namespace
}  // namespace nccl_roce::settings
