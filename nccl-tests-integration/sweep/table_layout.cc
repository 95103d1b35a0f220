#include "nccl-tests-integration/sweep/table_layout.h"

#include <cmath>

#include "common/strings.h"
#include "nccl-tests-integration/sweep/log_text.h"

namespace nccl_roce::sweep {

namespace {

std::optional<Column> columnFor(std::string_view name) {
  struct Entry {
    const char* name;
    Column column;
  };
  static const Entry kNames[] = {
      {"size", Column::kSize},     {"bytes", Column::kSize},    {"count", Column::kCount},   {"N", Column::kCount},
      {"type", Column::kType},     {"redop", Column::kRedop},   {"op", Column::kRedop},      {"root", Column::kRoot},
      {"time", Column::kTime},     {"cputime", Column::kTime},  {"algbw", Column::kAlgBw},   {"busbw", Column::kBusBw},
      {"#wrong", Column::kWrong},  {"wrong", Column::kWrong},   {"error", Column::kError},   {"res", Column::kError},
      {"i_min", Column::kIterMin}, {"i_max", Column::kIterMax}, {"i_p99", Column::kIterP99}, {"i_cv%", Column::kIterCv},
  };
  for (const Entry& e : kNames) {
    if (name == e.name) return e.column;
  }
  return std::nullopt;
}

bool isPreamble(Column c) {
  return c == Column::kSize || c == Column::kCount || c == Column::kType || c == Column::kRedop || c == Column::kRoot;
}

}  // namespace

std::optional<TableLayout> TableLayout::fromHeader(const std::vector<std::string_view>& rawFields) {
  std::vector<std::string_view> fields = rawFields;
  if (!fields.empty() && fields.front() == "#")
    fields.erase(fields.begin());
  else if (!fields.empty() && startsWith(fields.front(), "#"))
    fields.front().remove_prefix(1);
  if (fields.size() < 4) return std::nullopt;
  std::optional<Column> first = columnFor(fields[0]);
  if (!first || *first != Column::kSize) return std::nullopt;

  TableLayout layout;
  size_t i = 0;
  for (; i < fields.size(); ++i) {
    std::optional<Column> c = columnFor(fields[i]);
    if (c && *c == Column::kTime) break;
    if (!c || !isPreamble(*c)) return std::nullopt;
    layout.preamble.push_back(*c);
    layout.names.emplace_back(fields[i]);
  }
  if (i == fields.size()) return std::nullopt;
  layout.cpuTime = fields[i] == "cputime";

  std::vector<Column> halves[2];
  int which = -1;
  for (; i < fields.size(); ++i) {
    std::string_view name = fields[i];
    if (name == "timestamp") {
      if (i + 1 != fields.size()) return std::nullopt;
      layout.timestamp = true;
      layout.names.emplace_back(name);
      break;
    }
    std::optional<Column> c = columnFor(name);
    if (c && *c == Column::kTime) ++which;
    if (which > 1 || (c && isPreamble(*c))) return std::nullopt;
    halves[which].push_back(c ? *c : Column::kSkipped);
    layout.names.emplace_back(name);
  }
  if (which != 1 || halves[0] != halves[1]) return std::nullopt;
  layout.half = halves[0];
  bool hasBandwidth = false;
  for (Column c : layout.half) hasBandwidth |= c == Column::kBusBw || c == Column::kAlgBw;
  if (!hasBandwidth) return std::nullopt;
  // The 2017 layout ("bytes N ... res") printed the time in milliseconds.
  if (fields[0] == "bytes" && layout.half.back() == Column::kError) layout.timeToUs = 1000.0;
  return layout;
}

TableLayout TableLayout::standard() {
  TableLayout layout;
  layout.preamble = {Column::kSize, Column::kCount, Column::kType, Column::kRedop, Column::kRoot};
  layout.half = {Column::kTime, Column::kAlgBw, Column::kBusBw, Column::kWrong};
  layout.names = {"size",  "count",  "type", "redop", "root",  "time",  "algbw",
                  "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"};
  return layout;
}

bool looksLikeRow(const std::vector<std::string_view>& fields) {
  return fields.size() >= 3 && parseUnsigned(fields[0]) && parseUnsigned(fields[1]);
}

namespace {

bool parseHalf(const TableLayout& layout, const std::vector<std::string_view>& fields, size_t start, PerfHalf* half,
               std::string* error) {
  for (size_t k = 0; k < layout.half.size(); ++k) {
    std::string_view token = fields[start + k];
    Column column = layout.half[k];
    if (column == Column::kSkipped) continue;
    bool notAvailable = token == "N/A";
    std::optional<double> value = parseDecimal(token);
    if (!value && !notAvailable) {
      *error = "field " + std::to_string(start + k + 1) + " '" + std::string(token) + "' is not a number";
      return false;
    }
    switch (column) {
      case Column::kTime:
        if (!value) {
          *error = "time is N/A";
          return false;
        }
        half->timeUs = *value * layout.timeToUs;
        break;
      case Column::kAlgBw:
        half->algBwGBs = value;
        break;
      case Column::kBusBw:
        half->busBwGBs = value;
        break;
      case Column::kWrong:
        // %g prints large counts as 1e+06.
        if (value) half->wrong = static_cast<int64_t>(std::llround(*value));
        break;
      case Column::kError:
        half->maxError = value;
        break;
      case Column::kIterMin:
        half->iterMinUs = value;
        break;
      case Column::kIterMax:
        half->iterMaxUs = value;
        break;
      case Column::kIterP99:
        half->iterP99Us = value;
        break;
      case Column::kIterCv:
        half->iterCvPct = value;
        break;
      default:
        break;
    }
  }
  return true;
}

}  // namespace

std::optional<PerfRow> parseRow(const TableLayout& layout, const std::vector<std::string_view>& fields,
                                std::string* error) {
  bool full = fields.size() == layout.fullWidth();
  bool inPlaceOnly = !full && fields.size() == layout.inPlaceOnlyWidth();
  if (!full && !inPlaceOnly) {
    *error = "row has " + std::to_string(fields.size()) + " fields, the table header has " +
             std::to_string(layout.fullWidth());
    return std::nullopt;
  }
  PerfRow row;
  for (size_t k = 0; k < layout.preamble.size(); ++k) {
    std::string_view token = fields[k];
    switch (layout.preamble[k]) {
      case Column::kSize:
      case Column::kCount: {
        std::optional<uint64_t> value = parseUnsigned(token);
        if (!value) {
          *error = "'" + std::string(token) + "' is not a byte or element count";
          return std::nullopt;
        }
        (layout.preamble[k] == Column::kSize ? row.size : row.count) = *value;
        break;
      }
      case Column::kType:
        row.type = std::string(token);
        break;
      case Column::kRedop:
        row.redop = std::string(token);
        break;
      case Column::kRoot: {
        std::optional<int64_t> root = parseSigned(token);
        if (!root) {
          *error = "root '" + std::string(token) + "' is not an integer";
          return std::nullopt;
        }
        row.root = root;
        break;
      }
      default:
        break;
    }
  }
  size_t next = layout.preamble.size();
  if (full) {
    row.outOfPlace.emplace();
    if (!parseHalf(layout, fields, next, &*row.outOfPlace, error)) return std::nullopt;
    next += layout.half.size();
  }
  row.inPlace.emplace();
  if (!parseHalf(layout, fields, next, &*row.inPlace, error)) return std::nullopt;
  next += layout.half.size();
  if (layout.timestamp) row.timestamp = std::string(fields[next]) + " " + std::string(fields[next + 1]);
  return row;
}

}  // namespace nccl_roce::sweep
