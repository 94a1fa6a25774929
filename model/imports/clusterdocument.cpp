#include "clusterdocument.h"

#include <algorithm>
#include <cctype>

namespace cs {

const GpuSpec* findGpuIn(const std::string& text)
{
    std::string upper = text;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return char(std::toupper(c)); });
    const GpuSpec* best = nullptr;
    for (const GpuSpec& gpu : gpuCatalog()) {
        for (size_t at = upper.find(gpu.name); at != std::string::npos;
             at = upper.find(gpu.name, at + 1)) {
            const bool afterLetter =
                at > 0 && std::isalpha(static_cast<unsigned char>(upper[at - 1]));
            if (!afterLetter && (!best || gpu.name.size() > best->name.size()))
                best = &gpu;
        }
    }
    return best;
}

bool isRackScale(const GpuSpec& gpu)
{
    return gpu.name == "GB200" || gpu.name == "GB300";
}

int typicalNicGbps(const GpuSpec& gpu)
{
    if (gpu.name == "A100")
        return 200;
    return gpu.name == "GB300" || gpu.name == "B300" ? 800 : 400; // ConnectX-8 on Blackwell Ultra
}

int fabricTiersFor(int64_t gpus)
{
    if (gpus <= 64)
        return 1;
    return gpus <= 2048 ? 2 : 3;
}

nlohmann::json clusterDocument(const ClusterParts& p)
{
    nlohmann::json j = {
        {"format", "clusterscope/cluster@1"},
        {"name", p.name},
        {"notes", p.notes},
        {"gpu", p.gpu},
        {"racks", p.racks},
        {"nodes_per_rack", p.nodesPerRack},
        {"gpus_per_node", p.gpusPerNode},
        {"scale_up",
         {{"name", p.scaleUpName},
          {"domain", p.rackDomain ? "rack" : "node"},
          {"GBps_per_gpu", p.scaleUpGBps}}},
        {"scale_out",
         {{"name", p.scaleOutName}, {"Gbps_per_gpu", p.scaleOutGbps}, {"topology", p.topology}}},
    };
    if (!p.failures.is_null())
        j["failures"] = p.failures;
    return j;
}

} // namespace cs
