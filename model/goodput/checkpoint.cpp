#include "checkpoint.h"

#include <algorithm>

namespace cs {

namespace {

constexpr double kGB = 1e9;

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

CheckpointCost checkpointCost(const ClusterDesc& cluster, bool async, double modelParams,
                              int64_t gpusUsed)
{
    CheckpointCost c;
    const Storage storage = cluster.storage.value_or(kAssumedStorage);
    const double nic = cluster.nicGBpsPerDirection();
    c.bytes = checkpointBytes(modelParams);
    c.writeS = storageTransferS(c.bytes, storage.writeGBps, gpusUsed, nic);
    c.readS = storageTransferS(c.bytes, storage.readGBps, gpusUsed, nic);
    c.hostCopyS = c.bytes / double(gpusUsed) / (hostCopyGBps(cluster.gpu, HostCopy::ToHost) * kGB);
    c.async = async;
    c.storageAssumed = !cluster.storage;
    return c;
}

} // namespace cs
