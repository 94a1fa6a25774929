#pragma once
// The cluster description of formats.md that the importers write, and the catalog GPU a vendor's
// product name means.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "description.h"

namespace cs {

// The catalog GPU a product name names ("NVIDIA H100-SXM5-80GB" -> H100, "NVIDIA GB200" -> GB200,
// "b200" -> B200): the longest catalog name found in it, not preceded by a letter.
const GpuSpec* findGpuIn(const std::string& text);

// GB200 and GB300 come in NVL72 racks: every GPU of a rack in one NVLink domain.
bool isRackScale(const GpuSpec& gpu);

// The scale-out rate per GPU such machines ship with, for a cluster whose files do not say:
// ConnectX-6 (200 Gb/s) for the A100, ConnectX-7 (400) up to the GB200, ConnectX-8 (800) after.
int typicalNicGbps(const GpuSpec& gpu);

// The fewest fabric tiers of 64-port switches (formats.md's default radix) that reach every GPU
// at full bisection: 64 endpoints, 2,048 or 65,536.
int fabricTiersFor(int64_t gpus);

struct ClusterParts {
    std::string name;
    std::string notes;
    std::string gpu; // a catalog name
    int racks = 1;
    int nodesPerRack = 1;
    int gpusPerNode = 1;
    bool rackDomain = false;
    std::string scaleUpName;
    double scaleUpGBps = 0;
    std::string scaleOutName;
    double scaleOutGbps = 0;
    nlohmann::json topology = nlohmann::json::object(); // scale_out.topology
    nlohmann::json failures;                            // null when nothing is out of service
};

nlohmann::json clusterDocument(const ClusterParts& parts);

} // namespace cs
