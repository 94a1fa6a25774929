#pragma once
// Descriptions written back as the JSON of formats.md. Optional fields at their defaults are
// left out where the reader would derive them (so that a run still fits a cluster of another
// size), and the newer optional fields are written only when they are used, so that a file
// written from an older one has the same shape.

#include <nlohmann/json_fwd.hpp>

namespace cs {

struct ClusterDesc;
struct Parallelism;
struct RunDesc;
struct ViewState;
struct Session;

nlohmann::json toJson(const ClusterDesc& c);
nlohmann::json toJson(const RunDesc& r);
nlohmann::json toJson(const Parallelism& p); // the run's `parallelism` object
nlohmann::json toJson(const ViewState& v);
nlohmann::json toJson(const Session& s);

} // namespace cs
