// One stable sort for the whole core: the order of n items by a comparison, equal items keeping
// their given order. Written once, as a heap sort of indices by (item, index) behind a plain
// function pointer, because each std::sort / std::stable_sort instantiation costs kilobytes of the
// WebAssembly module per element type and comparison.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpucalc {

// less(items, a, b): item a comes before item b (a strict weak order on the items behind `items`).
using ItemLess = bool (*)(const void* items, std::uint32_t a, std::uint32_t b);

// Indices 0..n-1 in sorted order; of equal items the lower index first. O(n log n) at any size.
std::vector<std::uint32_t> stable_order(std::size_t n, ItemLess less, const void* items);

// v rearranged into that order (moved, not copied).
template <class T>
void stable_sort_items(std::vector<T>& v, ItemLess less) {
    const std::vector<std::uint32_t> order = stable_order(v.size(), less, &v);
    std::vector<T> sorted;
    sorted.reserve(v.size());
    for (std::uint32_t i : order) sorted.push_back(std::move(v[i]));
    v = std::move(sorted);
}

}  // namespace gpucalc
