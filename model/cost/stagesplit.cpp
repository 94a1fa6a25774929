#include "stagesplit.h"

#include <algorithm>
#include <numeric>

namespace cs {

namespace {

// Groups of consecutive items, exactly `groups` of them, none above `most`: each group closes
// before the item that would take it over, or when only as many items are left as groups.
// Empty when the items need more groups.
std::vector<int> groupsUpTo(const std::vector<double>& items, int groups, double most)
{
    std::vector<int> sizes;
    double sum = 0;
    int size = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        const int itemsLeft = int(items.size() - i), groupsLeft = groups - int(sizes.size());
        if (size > 0 && (sum + items[i] > most || itemsLeft < groupsLeft)) {
            sizes.push_back(size);
            sum = 0;
            size = 0;
        }
        sum += items[i];
        ++size;
        if (sum > most || int(sizes.size()) >= groups)
            return {};
    }
    sizes.push_back(size);
    return int(sizes.size()) == groups ? sizes : std::vector<int>{};
}

// Whether `groups` groups of consecutive items, none above `most`, can hold them all.
bool fitsIn(const std::vector<double>& items, int groups, double most)
{
    if (int(items.size()) < groups)
        return false;
    int needed = 1;
    double sum = 0;
    for (double item : items) {
        if (item > most)
            return false;
        if (sum + item > most) {
            ++needed;
            sum = 0;
        }
        sum += item;
    }
    return needed <= groups;
}

// The lightest the heaviest of `groups` groups of consecutive items can be, to a part in 10^4.
double lightestHeaviest(const std::vector<double>& items, int groups)
{
    double low = *std::max_element(items.begin(), items.end()), high = 0;
    for (double f : items)
        high += f;
    while (high - low > 1e-4 * high) {
        const double mid = (low + high) / 2;
        (fitsIn(items, groups, mid) ? high : low) = mid;
    }
    return high;
}

// Exactly `chunks` groups of consecutive items, none above `most`, each ending as close to its
// share of the total as the cap allows.
std::vector<int> closestSplit(const std::vector<double>& items, int chunks, double most)
{
    std::vector<double> before(items.size() + 1, 0); // the FLOPs of the items before i
    for (size_t i = 0; i < items.size(); ++i)
        before[i + 1] = before[i] + items[i];
    const double total = before.back();
    std::vector<int> split(size_t(chunks), 0);
    size_t first = 0;
    for (int k = 0; k < chunks - 1; ++k) {
        const double target = total * (k + 1) / chunks;
        const size_t latest = items.size() - size_t(chunks - 1 - k); // one item for each after
        size_t end = first + 1;
        while (end < latest && before[end + 1] - before[first] <= most &&
               std::abs(before[end + 1] - target) < std::abs(before[end] - target))
            ++end;
        split[size_t(k)] = int(end - first);
        first = end;
    }
    split.back() = int(items.size() - first);
    if (before.back() - before[first] > most) // the end outweighs the others: pack to the cap
        return groupsUpTo(items, chunks, most);
    return split;
}

double heaviestGroup(const std::vector<double>& items, const std::vector<int>& sizes)
{
    double heaviest = 0;
    size_t first = 0;
    for (int size : sizes) {
        heaviest =
            std::max(heaviest, std::accumulate(items.begin() + long(first),
                                               items.begin() + long(first + size_t(size)), 0.0));
        first += size_t(size);
    }
    return heaviest;
}

} // namespace

std::vector<int> splitByShares(const std::vector<double>& items, int chunks)
{
    std::vector<int> split =
        closestSplit(items, chunks, lightestHeaviest(items, chunks) * (1 + 1e-9));
    if (chunks > 1) {
        const std::vector<double> body(items.begin(), items.end() - split.back());
        const double bodyMost = lightestHeaviest(body, chunks - 1) * (1 + 1e-9);
        std::vector<int> bodySplit(split.begin(), split.end() - 1);
        if (heaviestGroup(body, bodySplit) > bodyMost) {
            bodySplit = closestSplit(body, chunks - 1, bodyMost);
            bodySplit.push_back(split.back());
            split = bodySplit;
        }
    }
    --split.back(); // the head is no layer
    return split;
}

std::vector<int> megatronSplit(int layers, int chunks)
{
    if (chunks <= 0 || layers < 0)
        return {};
    if (layers % chunks == 0)
        return std::vector<int>(size_t(chunks), layers / chunks);
    if ((layers + 2) % chunks != 0 || chunks < 2)
        return {};
    std::vector<int> split(size_t(chunks), (layers + 2) / chunks);
    --split.front(); // the embedding's place
    --split.back();  // the loss's, beside the LM head
    return split;
}

} // namespace cs
