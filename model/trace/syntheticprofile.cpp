#include "syntheticprofile.h"

#include <charconv>
#include <filesystem>

#include <zlib.h>

#include "fileio.h"
#include "placement.h"

namespace cs {

namespace {

// A process group of the run as Megatron-Core names it, with a name unique in the run.
struct SynthGroup {
    std::string name;
    std::string description;
    std::vector<int> ranks;
};

const char* groupDescription(Dim d)
{
    switch (d) {
    case Dim::TP:
        return "TENSOR_MODEL_PARALLEL_GROUP";
    case Dim::CP:
        return "CONTEXT_PARALLEL_GROUP";
    case Dim::PP:
        return "PIPELINE_MODEL_PARALLEL_GROUP";
    case Dim::DP:
        return "DATA_PARALLEL_GROUP";
    case Dim::EP:
        return "EXPERT_MODEL_PARALLEL_GROUP";
    }
    return "";
}

// What a dimension's communication looks like in a trace: the kernel's name, and the collective
// its record_param_comms names. Expert all-to-all runs as SendRecv kernels named only by the
// operator, as NCCL runs it.
struct CommLook {
    const char* kernel;
    const char* collective;
    bool namedOnKernel; // the kernel's own args say the collective and the group
};

CommLook commLook(Dim d, bool distributedOptimizer)
{
    switch (d) {
    case Dim::TP:
        return {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
                "allreduce", true};
    case Dim::CP:
    case Dim::PP:
        return {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "send", true};
    case Dim::DP:
        return distributedOptimizer
                   ? CommLook{"ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevComm*, "
                              "unsigned long, ncclWork*)",
                              "_reduce_scatter_base", true}
                   : CommLook{"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned "
                              "long, ncclWork*)",
                              "allreduce", true};
    case Dim::EP:
        return {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "all_to_all",
                false};
    }
    return {"", "", true};
}

const char* computeKernelName(EventKind k)
{
    switch (k) {
    case EventKind::Forward:
        return "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_"
               "execute_segment_k_off_kernel__5x_cublas (forward)";
    case EventKind::Backward:
        return "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_"
               "execute_segment_k_off_kernel__5x_cublas (backward)";
    case EventKind::Recompute:
        return "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>> (recompute)";
    case EventKind::Optimizer:
        return "void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>";
    default:
        return "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>";
    }
}

class Writer {
public:
    std::string text;

    Writer& raw(std::string_view s)
    {
        text += s;
        return *this;
    }
    Writer& num(int64_t n)
    {
        char b[24];
        text.append(b, std::to_chars(b, b + sizeof b, n).ptr);
        return *this;
    }
    // Microseconds with nanosecond digits, as Kineto writes them.
    Writer& us(double x)
    {
        char b[48];
        text.append(b, std::to_chars(b, b + sizeof b, x, std::chars_format::fixed, 3).ptr);
        return *this;
    }
    Writer& str(std::string_view s)
    {
        text += '"';
        text += s; // our own names: nothing to escape
        text += '"';
        return *this;
    }
};

std::string ranksText(const std::vector<int>& ranks)
{
    std::string s = "[";
    for (size_t i = 0; i < ranks.size(); ++i)
        s += (i ? ", " : "") + std::to_string(ranks[i]);
    return s + "]";
}

std::vector<SynthGroup> groupsOfRank(const Placement& p, int rank)
{
    std::vector<SynthGroup> groups;
    const int world = p.worldSize();
    std::vector<int> all(static_cast<size_t>(world), 0);
    for (int r = 0; r < world; ++r)
        all[size_t(r)] = r;
    groups.push_back({"0", "default_pg", all});
    for (const DimInfo& d : kDims) {
        std::vector<int> members = p.groupMembers(rank, d.dim);
        std::sort(members.begin(), members.end());
        groups.push_back({std::to_string(1 + int(d.dim) * world + members.front()),
                          groupDescription(d.dim), members});
    }
    // Megatron's model-parallel group (TP x PP): the gradient norm's all-reduce, which gives the
    // stages a collective in common.
    std::vector<int> mp;
    for (int s : p.groupMembers(rank, Dim::PP))
        for (int t : p.groupMembers(s, Dim::TP))
            mp.push_back(t);
    std::sort(mp.begin(), mp.end());
    groups.push_back(
        {std::to_string(1 + int(kDimCount) * world + mp.front()), "MODEL_PARALLEL_GROUP", mp});
    // The group Megatron's gradients are reduced over: data parallel with the CP ranks (with
    // DP 1, the CP group's ranks; with CP 1, the DP group's).
    std::vector<int> dpcp;
    for (int c : p.groupMembers(rank, Dim::CP))
        for (int d : p.groupMembers(c, Dim::DP))
            dpcp.push_back(d);
    std::sort(dpcp.begin(), dpcp.end());
    groups.push_back({std::to_string(1 + int(kDimCount + 1) * world + dpcp.front()),
                      "DATA_PARALLEL_GROUP_WITH_CP", dpcp});
    return groups;
}

// The group of the rank's groups (groupsOfRank) a dimension's communication runs in: its own,
// DP's over the CP ranks too.
const SynthGroup& commGroup(const std::vector<SynthGroup>& groups, Dim d)
{
    return d == Dim::DP ? groups.back() : groups[1 + size_t(d)];
}

// Megatron's model-parallel group, which the gradient norm's all-reduce runs in.
const SynthGroup& modelParallelGroup(const std::vector<SynthGroup>& groups)
{
    return groups[1 + kDimCount];
}

struct KernelOut {
    double startUs;
    double endUs;
    const char* name;
    int stream;
    const SynthGroup* group; // communication only
    const char* collective;
    bool namedOnKernel;
};

class RankWriter {
public:
    RankWriter(Writer& w, const SyntheticProfileOptions& o)
        : m_w(w)
        , m_o(o)
    {
    }

    // Laid out as Kineto writes its events (an event over a few lines, its args one a line).
    void kernel(const KernelOut& k, double stepStartUs)
    {
        const int64_t id = m_next++;
        const double launch = std::max(stepStartUs, k.startUs - 5.0);
        if (m_o.cpuEvents) {
            cpuEvent(k.group ? "record_param_comms" : "aten::mm", launch, 4.0);
            m_w.raw("      \"External id\": ").num(id);
            if (k.group) {
                m_w.raw(",\n      \"Collective name\": ").str(k.collective);
                groupArgs(*k.group);
            } else {
                m_w.raw(",\n      \"Input Dims\": [[4096, 8192], [8192, 8192]], \"Input type\": "
                        "[\"c10::BFloat16\", \"c10::BFloat16\"]");
            }
            m_w.raw("\n    }\n  },\n");
            m_w.raw("  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                    "\"cudaLaunchKernel\", \"pid\": 1000, \"tid\": 1000,\n    \"ts\": ")
                .us(launch + 1)
                .raw(", \"dur\": 2.000,\n    \"args\": {\n      \"External id\": ")
                .num(id)
                .raw(",\n      \"cbid\": 211, \"correlation\": ")
                .num(id)
                .raw("\n    }\n  },\n");
        }
        m_w.raw("  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": ")
            .str(k.name)
            .raw(", \"pid\": 0, \"tid\": ")
            .num(k.stream)
            .raw(",\n    \"ts\": ")
            .us(k.startUs)
            .raw(", \"dur\": ")
            .us(k.endUs - k.startUs)
            .raw(",\n    \"args\": {\n      \"External id\": ")
            .num(id)
            .raw(",\n      \"queued\": 0, \"device\": 0, \"context\": 1,\n      \"stream\": ")
            .num(k.stream)
            .raw(", \"correlation\": ")
            .num(m_o.cpuEvents ? id : -1);
        if (k.group && (k.namedOnKernel || !m_o.cpuEvents)) {
            m_w.raw(",\n      \"Collective name\": ").str(k.collective);
            groupArgs(*k.group);
        }
        m_w.raw(",\n      \"registers per thread\": 168,\n      \"shared memory\": 213248,\n"
                "      \"blocks per SM\": 1,\n      \"warps per SM\": 12,\n"
                "      \"grid\": [132, 1, 1],\n      \"block\": [384, 1, 1],\n"
                "      \"est. achieved occupancy %\": 19\n    }\n  },\n");
    }

    void cpuEvent(const char* name, double ts, double dur)
    {
        m_w.raw("  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": ")
            .str(name)
            .raw(", \"pid\": 1000, \"tid\": 1000,\n    \"ts\": ")
            .us(ts)
            .raw(", \"dur\": ")
            .us(dur)
            .raw(",\n    \"args\": {\n");
    }

private:
    void groupArgs(const SynthGroup& g)
    {
        m_w.raw(",\n      \"Process Group Name\": ")
            .str(g.name)
            .raw(",\n      \"Process Group Description\": ")
            .str(g.description)
            .raw(",\n      \"Process Group Ranks\": \"")
            .raw(ranksText(g.ranks))
            .raw("\"");
    }

    Writer& m_w;
    const SyntheticProfileOptions& m_o;
    int64_t m_next = 1;
};

bool gzipped(const std::string& text, std::string& out)
{
    z_stream z{};
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return false;
    out.resize(deflateBound(&z, uLong(text.size())));
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = uInt(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    const int rc = deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return rc == Z_STREAM_END;
}

} // namespace

std::string syntheticRankTrace(const Evaluation& e, const ClusterDesc& cluster, const RunDesc& run,
                               int rank, const SyntheticProfileOptions& o)
{
    const Placement p = placeRun(run, cluster);
    const int stage = p.coord(rank)[Dim::PP];
    const std::vector<SynthGroup> groups = groupsOfRank(p, rank);
    const double offsetUs =
        size_t(rank) < o.clockOffsetS.size() ? o.clockOffsetS[size_t(rank)] * 1e6 : 0.0;
    Writer w;
    w.text.reserve(size_t(o.steps) * e.events.size() * 600 + 4096);
    w.raw("{\n\"schemaVersion\":1,\n\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":")
        .num(rank)
        .raw(",\"world_size\":")
        .num(p.worldSize())
        .raw(",\"pg_count\":")
        .num(int64_t(groups.size()))
        .raw(",\"pg_config\":[");
    for (size_t i = 0; i < groups.size(); ++i)
        w.raw(i ? "," : "")
            .raw("{\"pg_name\":")
            .str(groups[i].name)
            .raw(",\"pg_desc\":")
            .str(groups[i].description)
            .raw(",\"backend_config\":\"cuda:nccl\",\"pg_size\":")
            .num(int64_t(groups[i].ranks.size()))
            .raw(",\"ranks\":")
            .raw(ranksText(groups[i].ranks))
            .raw("}");
    w.raw("],\"nccl_version\":\"2.21.5\"},\n\"displayTimeUnit\":\"ms\",\n"
          "\"baseTimeNanoseconds\":1700000000000000000,\n\"traceEvents\":[\n");
    RankWriter out(w, o);
    const int parts = std::max(1, o.kernelsPerEvent);
    const SynthGroup& modelParallel = modelParallelGroup(groups);
    for (int s = 0; s < o.steps; ++s) {
        const double stepUs = offsetUs + s * e.stepTimeS * 1e6;
        w.raw("  {\n    \"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#")
            .num(o.firstStepNumber + s)
            .raw("\", \"pid\": 1000, \"tid\": 1000,\n    \"ts\": ")
            .us(stepUs)
            .raw(", \"dur\": ")
            .us(e.stepTimeS * 1e6)
            .raw(",\n    \"args\": {\n      \"External id\": 0\n    }\n  },\n");
        for (const Event& ev : e.events) {
            if (ev.stage != stage && ev.stage >= 0)
                continue;
            const bool compute =
                ev.kind == EventKind::Forward || ev.kind == EventKind::Backward ||
                ev.kind == EventKind::Recompute || ev.kind == EventKind::Optimizer ||
                (ev.kind == EventKind::Bubble && ev.wait == WaitReason::Contention);
            if (!compute && !ev.isComm())
                continue;
            KernelOut k{0, 0, computeKernelName(ev.kind), 7, nullptr, "", true};
            if (ev.isComm()) {
                const CommLook look = commLook(ev.dim, run.parallelism.distributedOptimizer);
                k = {0,
                     0,
                     look.kernel,
                     20 + int(ev.dim),
                     &commGroup(groups, ev.dim),
                     look.collective,
                     look.namedOnKernel};
            }
            const double from = stepUs + ev.start * 1e6;
            const double each = (ev.end - ev.start) * 1e6 / parts;
            for (int i = 0; i < parts; ++i) {
                k.startUs = from + i * each;
                k.endUs = from + (i + 1) * each;
                out.kernel(k, stepUs);
            }
            if (ev.kind == EventKind::Optimizer) {
                const double dur = std::min(20.0, (ev.end - ev.start) * 1e6 / 4);
                out.kernel({from, from + dur,
                            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, "
                            "ncclWork*)",
                            30, &modelParallel, "allreduce", true},
                           stepUs);
            }
        }
    }
    if (w.text.back() == '\n' && w.text[w.text.size() - 2] == ',')
        w.text.erase(w.text.size() - 2, 1);
    w.raw("],\n\"traceName\":\"synthetic\"\n}\n");
    return std::move(w.text);
}

bool writeSyntheticProfile(const std::string& folder, const ClusterDesc& cluster,
                           const RunDesc& run, const SyntheticProfileOptions& options,
                           Diagnostics& diags, int ranks, bool gzip)
{
    const Evaluation e = evaluate(cluster, run);
    const int world = placeRun(run, cluster).worldSize();
    if (ranks <= 0 || ranks > world)
        ranks = world;
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    for (int r = 0; r < ranks; ++r) {
        std::string text = syntheticRankTrace(e, cluster, run, r, options);
        const std::string path =
            folder + "/rank-" + std::to_string(r) + ".pt.trace.json" + (gzip ? ".gz" : "");
        if (gzip) {
            std::string packed;
            if (!gzipped(text, packed)) {
                diags.atPointer(path, "", "could not be compressed");
                return false;
            }
            text = std::move(packed);
        }
        if (!writeFileAtomically(path, text, diags))
            return false;
    }
    return true;
}

} // namespace cs
