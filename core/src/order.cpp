// The core's one stable sort (order.hpp).
#include "gpucalc/order.hpp"

#include <utility>

namespace gpucalc {

std::vector<std::uint32_t> stable_order(std::size_t n, ItemLess less, const void* items) {
    std::vector<std::uint32_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
    const auto before = [&](std::uint32_t a, std::uint32_t b) {  // by item, then by index: stable
        return less(items, a, b) || (!less(items, b, a) && a < b);
    };
    const auto sift = [&](std::size_t root, std::size_t end) {
        for (std::size_t child; (child = 2 * root + 1) < end; root = child) {
            if (child + 1 < end && before(order[child], order[child + 1])) ++child;
            if (!before(order[root], order[child])) return;
            std::swap(order[root], order[child]);
        }
    };
    for (std::size_t i = n / 2; i-- > 0;) sift(i, n);
    for (std::size_t end = n; end-- > 1;) {
        std::swap(order[0], order[end]);
        sift(0, end);
    }
    return order;
}

}  // namespace gpucalc
