#pragma once
// The expert all-to-all: how many copies of a token cross NVLink and the fabric, by token
// dispatcher and group-limited routing, and how long one dispatch or combine takes
// (docs/cost-model.md, "Mixture of experts").

#include <optional>

#include "calibration.h"
#include "workload.h"

namespace cs {

// The chance that a token's top-k experts miss one given NVLink domain of the `domains` an
// expert-parallel group spans, the experts spread evenly over them. With group-limited routing
// (`limit`) they come from limit->topK of the groups; a domain holds whole groups, or a group
// spans whole domains (the token's experts spread evenly over its groups). Other shapes are
// taken as unlimited.
double missesDomain(double domains, int topK, const std::optional<RouterGroups>& limit);

// The copies of one token an expert-parallel group's dispatch (or combine) sends from a GPU,
// over NVLink and across NVLink domains (docs/cost-model.md, "Mixture of experts"). Megatron-
// Core's alltoall dispatcher sends one for each of the token's experts straight to the expert's
// GPU. Its flex dispatcher (DeepEP, HybridEP; `flex`) sends one to each other domain that holds
// one of the token's experts and one over NVLink to each other GPU that holds one, whether the
// GPU is in the sender's domain or the token was forwarded there (at most: a domain's first
// receiver may be a target itself).
struct AllToAllCopies {
    double nvlink = 0;
    double fabric = 0;
};
AllToAllCopies allToAllCopies(const GroupShape& shape, int topK,
                              const std::optional<RouterGroups>& limit, bool flex);

// One dispatch (or combine) of a GPU's token copies, in seconds: `tokens` the GPU's tokens,
// `tokenBytes` one token's bytes, over the expert-parallel group's links (the slower of NVLink
// and the fabric for the copies each carries) plus a hop's latency.
double allToAllSeconds(double tokens, double tokenBytes, int topK, const Workload& w,
                       const Calibration& cal);

} // namespace cs
