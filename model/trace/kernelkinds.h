#pragma once
// The kinds of GPU kernel a measured profile is split into: one table, in the words of
// formats.md ("import trace": compute, allreduce, allgather, reducescatter, sendrecv, alltoall,
// broadcast, other_comm), that the reader, the JSON, the text and the views iterate.
//
// A kernel is communication when its name is an NCCL or RCCL kernel's (it holds "nccl" or
// "rccl"); its kind is then the collective its name says. Where the name does not say (NCCL's
// all-to-all runs as SendRecv kernels, newer NCCL launches "Generic" kernels), the collective
// named by the launching `record_param_comms` operator ("Collective name") decides.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "enumtext.h"

namespace cs {

// The values index arrays of per-kind data (PerKernelKind).
enum class KernelKind : uint8_t {
    Compute,
    AllReduce,
    AllGather,
    ReduceScatter,
    SendRecv,
    AllToAll,
    Broadcast,
    OtherComm,
};

struct KernelKindInfo {
    KernelKind kind;
    std::string_view key;   // the word in the JSON: "allreduce"
    std::string_view label; // "all-reduce"
    // The lower-case words, '_' and spaces left out, that name it in an NCCL kernel's name or a
    // record_param_comms "Collective name", '|' between them; empty: no name says it.
    std::string_view words;
};

inline constexpr std::array<KernelKindInfo, 8> kKernelKinds{{
    {KernelKind::Compute, "compute", "compute", ""},
    {KernelKind::AllReduce, "allreduce", "all-reduce", "allreduce"},
    {KernelKind::AllGather, "allgather", "all-gather", "allgather"},
    {KernelKind::ReduceScatter, "reducescatter", "reduce-scatter", "reducescatter"},
    {KernelKind::SendRecv, "sendrecv", "send/recv", "sendrecv|send|recv"},
    {KernelKind::AllToAll, "alltoall", "all-to-all", "alltoall"},
    {KernelKind::Broadcast, "broadcast", "broadcast", "broadcast"},
    {KernelKind::OtherComm, "other_comm", "other communication", ""},
}};
inline constexpr size_t kKernelKindCount = kKernelKinds.size();

constexpr const KernelKindInfo& kernelKindInfo(KernelKind k)
{
    return kKernelKinds[size_t(k)];
}

constexpr auto enumTexts(KernelKind)
{
    std::array<EnumText<KernelKind>, kKernelKindCount> texts{};
    for (size_t i = 0; i < kKernelKindCount; ++i)
        texts[i] = {kKernelKinds[i].kind, kKernelKinds[i].key, kKernelKinds[i].label};
    return texts;
}

constexpr bool isComm(KernelKind k)
{
    return k != KernelKind::Compute;
}

// One value per kind.
template <typename T> struct PerKernelKind {
    std::array<T, kKernelKindCount> values{};
    T& operator[](KernelKind k) { return values[size_t(k)]; }
    const T& operator[](KernelKind k) const { return values[size_t(k)]; }
    auto begin() { return values.begin(); }
    auto end() { return values.end(); }
    auto begin() const { return values.begin(); }
    auto end() const { return values.end(); }
    bool operator==(const PerKernelKind&) const = default;
};

// A kernel by its name: Compute unless it is an NCCL/RCCL kernel; for those the kind its name
// says, OtherComm when it says none ("ncclDevKernel_Generic", "ncclKernel_Reduce_...").
KernelKind kindOfKernelName(std::string_view kernelName);

// A record_param_comms "Collective name" ("allreduce", "_allgather_base", "all_to_allv",
// "reduce_scatter_tensor_coalesced", "send") as a kind; nothing when it names none of them
// ("barrier", "gather").
std::optional<KernelKind> kindOfCollectiveName(std::string_view collectiveName);

// The kind of a kernel whose name says `byName` (kindOfKernelName), launched by an operator
// that names `collectiveName` (empty: none known): for a communication kernel whose name does
// not say (SendRecv, OtherComm), the operator's collective; else what the name says.
KernelKind commKindOf(KernelKind byName, std::string_view collectiveName);
// Whether the kind a kernel's name says is final (compute, or a collective its name names).
constexpr bool nameSaysKind(KernelKind byName)
{
    return byName != KernelKind::SendRecv && byName != KernelKind::OtherComm;
}

} // namespace cs
