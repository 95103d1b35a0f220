// The values the driver all-reduces and how it counts wrong results (the #wrong columns). Every input is a
// small whole number, so the sum over ranks is exact in float and double whatever order NCCL adds in: a
// wrong element is a real error, never rounding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nccl_roce::driver {

// Element i of rank r's input: a whole number in 0..15 (varied in i and r, so a rank's data sent to the
// wrong place or a missed rank changes the sum).
inline double inputValue(size_t i, int rank) {
  return static_cast<double>((i * 7 + static_cast<size_t>(rank) * 3) % 16);
}

// The sum over nranks ranks of inputValue(i, r). It depends on i only through i % 16, so the 16 sums are
// computed once per rank count.
class ExpectedSums {
 public:
  explicit ExpectedSums(int nranks);
  double at(size_t i) const { return sums_[i % 16]; }

 private:
  double sums_[16];
};

template <typename T>
void fillInput(std::vector<T>* buffer, int rank) {
  for (size_t i = 0; i < buffer->size(); ++i) (*buffer)[i] = static_cast<T>(inputValue(i, rank));
}

// Elements among the first `count` of `result` that differ from the expected sum.
template <typename T>
int64_t countWrong(const T* result, size_t count, int nranks) {
  const ExpectedSums expected(nranks);
  int64_t wrong = 0;
  for (size_t i = 0; i < count; ++i) {
    if (static_cast<double>(result[i]) != expected.at(i)) ++wrong;
  }
  return wrong;
}

}  // namespace nccl_roce::driver
