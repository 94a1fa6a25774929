// Reading measured profiles: a generated folder of 64 ranks' Kineto traces, about 1 GB (the
// predicted step of a 64-GPU run written by syntheticprofile.h, laid out as Kineto writes), read
// as `import trace` reads it (kernels not kept) and as the window does (kept). Targets: at least
// 100 MB/s on one core and under 500 MB of memory. The in-run baseline is reading the same bytes
// with no parsing (read(2) through zlib's gzread, which passes plain files through), so the
// ratio says what the parsing costs over the disk and page cache.
//
//     bench_tracereading [MB]     # the folder's size, 1024 by default

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

#include <zlib.h>

#include "benchutil.h"
#include "profile.h"
#include "samplerun.h"
#include "syntheticprofile.h"

namespace {

namespace fs = std::filesystem;

struct Reading {
    double seconds;    // wall
    double cpuSeconds; // the child's user + system time: what one core spends, whatever the load
    double peakMiB;    // the child's maximum resident set
    int ranks;
    int errors;
};

double cpuSeconds()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
           1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

double peakMiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / 1024.0;
}

// A 64-GPU layout of GPT-3's shape on 8 ND H100 v5 VMs: tp 8, pp 4, dp 2.
cs::ClusterRun run64()
{
    cs::ClusterRun cr = csbench::loadSampleRun("ndv5-h100-128-gpt3-175b.run.json");
    cr.cluster.racks = 2;
    cr.cluster.nodesPerRack = 4;
    cr.run.model.layers = 16;
    cr.run.batch.global = 64;
    cr.run.batch.micro = 1;
    cr.run.parallelism = cs::Parallelism{};
    cr.run.parallelism.tp = 8;
    cr.run.parallelism.pp = 4;
    cr.run.parallelism.dp = 2;
    cr.run.parallelism.sequenceParallel = true;
    cr.run.parallelism.distributedOptimizer = true;
    return cr;
}

int64_t folderBytes(const std::string& folder)
{
    int64_t bytes = 0;
    for (const fs::directory_entry& e : fs::directory_iterator(folder))
        bytes += int64_t(e.file_size());
    return bytes;
}

Reading readFolder(const std::string& folder, bool keepKernels)
{
    return csbench::inChildProcess([&] {
        cs::ReadProfileOptions options;
        options.keepKernels = keepKernels;
        const auto t0 = std::chrono::steady_clock::now();
        const cs::MeasuredProfile p = cs::readProfile({folder}, options);
        const auto t1 = std::chrono::steady_clock::now();
        return Reading{std::chrono::duration<double>(t1 - t0).count(), cpuSeconds(), peakMiB(),
                       int(p.ranks.size()), int(p.errors.size())};
    });
}

Reading rawRead(const std::string& folder)
{
    return csbench::inChildProcess([&] {
        const auto t0 = std::chrono::steady_clock::now();
        std::vector<char> buffer(1 << 20);
        int64_t sink = 0;
        for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
            gzFile f = gzopen(e.path().c_str(), "rb");
            int n = 0;
            while ((n = gzread(f, buffer.data(), unsigned(buffer.size()))) > 0)
                sink += buffer[size_t(n) - 1];
            gzclose(f);
        }
        const auto t1 = std::chrono::steady_clock::now();
        return Reading{std::chrono::duration<double>(t1 - t0).count(), cpuSeconds(), peakMiB(),
                       int(sink & 1), 0};
    });
}

template <typename F> Reading median(int repeats, F measure)
{
    std::vector<Reading> all;
    for (int i = 0; i < repeats; ++i)
        all.push_back(measure());
    std::sort(all.begin(), all.end(),
              [](const Reading& a, const Reading& b) { return a.cpuSeconds < b.cpuSeconds; });
    return all[all.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    const double targetMiB = argc > 1 ? std::atof(argv[1]) : 1024.0;
    const cs::ClusterRun cr = run64();
    const cs::Evaluation e = cs::evaluate(cr.cluster, cr.run);
    const std::string folder =
        (fs::temp_directory_path() / ("cs-bench-traces-" + std::to_string(::getpid()))).string();
    // one step's size, to choose the steps that make the folder's size
    cs::SyntheticProfileOptions options;
    options.steps = 1;
    options.kernelsPerEvent = 4;
    const double stepBytes =
        double(cs::syntheticRankTrace(e, cr.cluster, cr.run, 0, options).size());
    options.steps = std::max(1, int(targetMiB * 1048576.0 / 64.0 / stepBytes + 0.5));
    for (int r = 0; r < 64; ++r)
        options.clockOffsetS.push_back(1e-4 * (r % 7));
    cs::Diagnostics diags;
    std::printf("writing 64 ranks x %d steps of %s (step %.3f s, %zu events) to %s ...\n",
                options.steps, cr.run.name.c_str(), e.stepTimeS, e.events.size(), folder.c_str());
    if (!cs::writeSyntheticProfile(folder, cr.cluster, cr.run, options, diags)) {
        std::fprintf(stderr, "%s", diags.formatAll().c_str());
        return 1;
    }
    const double mb = double(folderBytes(folder)) / 1e6;
    const Reading raw = median(3, [&] { return rawRead(folder); });
    const Reading figures = median(3, [&] { return readFolder(folder, false); });
    const Reading kept = median(3, [&] { return readFolder(folder, true); });
    fs::remove_all(folder);
    std::printf("folder: 64 files, %.0f MB (plain JSON); MB/s of CPU time (one core), wall in "
                "brackets\n",
                mb);
    auto row = [&](const char* what, const Reading& r) {
        std::printf("  %-32s %6.2f s CPU %7.0f MB/s  (wall %6.2f s, %5.0f MB/s)  peak %5.0f MiB\n",
                    what, r.cpuSeconds, mb / r.cpuSeconds, r.seconds, mb / r.seconds, r.peakMiB);
    };
    row("raw read (gzread, no parsing)", raw);
    row("figures only (import trace)", figures);
    row("kernels kept (the window)", kept);
    std::printf("  ranks read %d, refused %d; parse / raw read (CPU): %.1fx\n", figures.ranks,
                figures.errors, figures.cpuSeconds / raw.cpuSeconds);
    std::printf("  targets: >= 100 MB/s on one core, < 500 MB\n");
    return 0;
}
