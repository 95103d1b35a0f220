// The one flat hash map: tsl::robin_map (Debian's robin-map-dev, header-only, so nothing is added to the .so's
// dependencies) with prime table sizes. Keys here are a few small fields, hashed by packing them into one
// integer; a prime modulus spreads such a hash over the table where a power-of-two mask would keep only its low
// field.
#pragma once

#include <tsl/robin_map.h>

#include <functional>
#include <memory>
#include <utility>

namespace nccl_roce {

template <typename Key, typename Value, typename Hash>
using FlatMap = tsl::robin_map<Key, Value, Hash, std::equal_to<Key>, std::allocator<std::pair<Key, Value>>,
                               /*StoreHash=*/false, tsl::rh::prime_growth_policy>;

}  // namespace nccl_roce
