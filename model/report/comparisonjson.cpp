#include "comparison.h"

#include <nlohmann/json.hpp>

#include "evaluationjson.h"

namespace cs {

using nlohmann::json;

namespace {

json pairOf(double a, double b)
{
    return json::array({a, b});
}

// A what-if's figures after the fields that name it; why it was refused instead, if it was.
json whatIfJson(const WhatIf& w, json item)
{
    item["valid"] = w.valid;
    if (w.valid) {
        item["tokens_per_s_per_gpu"] = w.tokensPerSPerGpu;
        item["memory_gib_per_gpu"] = w.memoryGiBPerGpu;
        item["fits_memory"] = w.fitsMemory;
    } else {
        item["why"] = w.why;
    }
    return item;
}
} // namespace

json comparisonJson(const Comparison& c)
{
    json j;
    j["a"] = evaluationJson(c.evalA, c.a.run);
    j["b"] = evaluationJson(c.evalB, c.b.run);
    j["a"]["uncertainty"] = uncertaintyJson(c.rangeA);
    j["b"]["uncertainty"] = uncertaintyJson(c.rangeB);
    json normalized = json::object();
    json raw = json::object();
    for (const Figure& f : c.figures)
        (f.normalized ? normalized : raw)[f.key] = pairOf(f.a, f.b);
    const std::optional<double> ratio = c.figure("tokens_per_s_per_gpu")->ratio();
    normalized["ratio"] = ratio ? json(*ratio) : json(nullptr);
    j["normalized"] = normalized;
    j["raw"] = raw;
    json differences = json::array();
    for (const InputDifference& d : c.differences)
        differences.push_back({{"path", d.path}, {"label", d.label}, {"a", d.a}, {"b", d.b}});
    j["differences"] = differences;
    json breakdown = json::object(), perToken = json::object(), delta = json::object();
    for (const BreakdownRow& r : c.breakdown) {
        breakdown[r.key] = pairOf(r.a, r.b);
        perToken[r.key] = pairOf(r.aPerToken, r.bPerToken);
        delta[r.key] = r.delta();
    }
    j["breakdown"] = breakdown;
    j["breakdown_gpu_s_per_token"] = perToken;
    j["breakdown_delta"] = delta;
    json whatIfs = json::array();
    for (const WhatIf& w : c.whatIfs)
        whatIfs.push_back(whatIfJson(w, {{"change", w.label}}));
    j["what_if"] = whatIfs;
    json oneAtATime = json::array();
    for (const WhatIf& w : c.oneAtATime)
        oneAtATime.push_back(whatIfJson(w, {{"path", w.path}, {"label", w.label}}));
    j["one_at_a_time"] = oneAtATime;
    j["findings"] = c.findings;
    return j;
}

} // namespace cs
