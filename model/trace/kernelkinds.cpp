#include "kernelkinds.h"

#include <string>

namespace cs {

namespace {

// Lower case without '_', '-' and spaces: "ncclDevKernel_ReduceScatter_Sum" ->
// "nccldevkernelreducescatter...", "all_to_allv" -> "alltoallv".
std::string squeezed(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        if (c == '_' || c == '-' || c == ' ')
            continue;
        out += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    }
    return out;
}

// The kind whose first word `text` holds; a kernel name is matched on its first word of each
// kind only ("send" alone would match "sendrecv"'s spelling anyway).
std::optional<KernelKind> kindIn(const std::string& text, bool wholeWordsToo)
{
    for (const KernelKindInfo& k : kKernelKinds) {
        std::string_view words = k.words;
        while (!words.empty()) {
            const size_t bar = words.find('|');
            const std::string_view word = words.substr(0, bar);
            if (text.find(word) != std::string::npos)
                return k.kind;
            if (!wholeWordsToo)
                break;
            words = bar == std::string_view::npos ? std::string_view() : words.substr(bar + 1);
        }
    }
    return std::nullopt;
}

} // namespace

KernelKind kindOfKernelName(std::string_view kernelName)
{
    // Only the name before its parameter list: "(ncclDevComm*, ...)" says nothing.
    const std::string name = squeezed(kernelName.substr(0, kernelName.find('(')));
    if (name.find("nccl") == std::string::npos && name.find("rccl") == std::string::npos)
        return KernelKind::Compute;
    return kindIn(name, false).value_or(KernelKind::OtherComm);
}

std::optional<KernelKind> kindOfCollectiveName(std::string_view collectiveName)
{
    return kindIn(squeezed(collectiveName), true);
}

KernelKind commKindOf(KernelKind byName, std::string_view collectiveName)
{
    if (nameSaysKind(byName) || collectiveName.empty())
        return byName;
    return kindOfCollectiveName(collectiveName).value_or(byName);
}

} // namespace cs
