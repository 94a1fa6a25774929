#include "checkpoint.h"

#include <algorithm>

namespace cs {

namespace {

constexpr double kGB = 1e9;
constexpr double kLinkEfficiency = 0.8;
constexpr double kC2CGBps = 450;     // NVLink-C2C: 900 GB/s both directions together
constexpr double kPcieGen4GBps = 32; // x16, one direction
constexpr double kPcieGen5GBps = 64; // x16, one direction

} // namespace

double checkpointBytes(double modelParams)
{
    return modelParams * (kCheckpointWeightBytes + kCheckpointOptimizerBytes);
}

double storageTransferS(double bytes, double storageGBps, int64_t gpus, double nicGBpsPerGpu)
{
    const double GBps = std::min(storageGBps, double(gpus) * nicGBpsPerGpu);
    return bytes / (GBps * kGB);
}

double hostCopyGBps(const GpuSpec& gpu)
{
    if (gpu.name == "GB200" || gpu.name == "GB300")
        return kC2CGBps * kLinkEfficiency;
    if (gpu.name == "A100")
        return kPcieGen4GBps * kLinkEfficiency;
    return kPcieGen5GBps * kLinkEfficiency;
}

CheckpointCost checkpointCost(const ClusterDesc& cluster, bool async, double modelParams,
                              int64_t gpusUsed)
{
    CheckpointCost c;
    const Storage storage = cluster.storage.value_or(kAssumedStorage);
    const double nic = cluster.nicGBpsPerDirection();
    c.bytes = checkpointBytes(modelParams);
    c.writeS = storageTransferS(c.bytes, storage.writeGBps, gpusUsed, nic);
    c.readS = storageTransferS(c.bytes, storage.readGBps, gpusUsed, nic);
    c.hostCopyS = c.bytes / double(gpusUsed) / (hostCopyGBps(cluster.gpu) * kGB);
    c.async = async;
    c.storageAssumed = !cluster.storage;
    return c;
}

} // namespace cs
