#pragma once
// What a checkpoint holds and what writing and reading it costs. See docs/cost-model.md,
// "Goodput", for every formula and its source.

#include <cstdint>

#include "description.h"

namespace cs {

// A checkpoint holds what training cannot rebuild, per parameter as the memory model keeps it
// (model/cost/workload.cpp): the BF16 weights and, for mixed-precision Adam, the FP32 master
// weights and both moments. Gradients (rebuilt by the next step), activations (rebuilt by the
// next forward pass) and the low-precision copies of FP8/NVFP4 GEMMs (cast from the weights)
// are not in it; RNG states and the data loader's position are a few bytes per rank.
inline constexpr double kCheckpointWeightBytes = 2;     // BF16 weights
inline constexpr double kCheckpointOptimizerBytes = 12; // FP32 master weights, Adam's m and v

// The whole model's checkpoint in bytes.
double checkpointBytes(double modelParams);

// Storage when the cluster gives none: 2 TB/s both ways, the sustained throughput Meta reports
// for the Tectonic file system behind Llama 3's 16,384-GPU training (Llama 3 paper, 2024).
inline constexpr Storage kAssumedStorage{2000, 2000};

// Seconds to move `bytes` between storage and the GPUs in use: the checkpoint is sharded over
// every GPU (each data-parallel replica writes its share), so the transfer runs at the storage's
// aggregate rate, and never faster than the NICs that carry it.
double storageTransferS(double bytes, double storageGBps, int64_t gpus, double nicGBpsPerGpu);

struct CheckpointCost {
    double bytes = 0;
    double writeS = 0;    // the whole checkpoint to storage
    double readS = 0;     // the whole checkpoint back, on a restart
    double hostCopyS = 0; // each GPU's shard to host memory (what an asynchronous write stalls)
    bool async = false;
    bool storageAssumed = false; // the cluster gives no `storage`: kAssumedStorage
};

CheckpointCost checkpointCost(const ClusterDesc& cluster, bool async, double modelParams,
                              int64_t gpusUsed);

} // namespace cs
