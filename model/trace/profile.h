#pragma once
// Measured profiles: PyTorch profiler (Kineto) traces of a real run, one JSON file per rank,
// plain or gzip-compressed (formats.md, "Measured profiles" and `import trace`), read as the
// measurement of the run: per rank and per ProfilerStep#N, the GPU kernels by kind, the compute
// busy time, the communication not hidden under compute and the idle time; the ranks' clocks
// aligned on the collectives they share. docs/measured-profiles.md says what is read and how.
//
// Each file is read in one streamed pass (zlib for gzip, a SAX handler over nlohmann's parser),
// never as a document: memory is what is kept of the file (its kernels, 32 bytes each, and one
// launch per kernel while the file is read), not its size. Reading reports its progress in bytes
// and stops at a cancel flag, so that the window can run it off the UI thread behind a progress
// bar with Cancel (app/backgroundwork.h's TaskProgress fits ReadProfileOptions directly).
//
// Times: every time in a MeasuredProfile is in seconds from the profile's origin (the earliest
// step start of any rank, on the reference rank's clock after alignment).

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics.h"
#include "kernelkinds.h"

namespace cs {

// Limits of what a profile holds; each refused (or, for kept kernels, left out) by name with
// the file (docs/robustness.md lists them).
inline constexpr size_t kMaxProfileFiles = 131072;         // trace files of one profile (ranks)
inline constexpr size_t kMaxRankKernels = size_t(1) << 21; // GPU kernels in one rank's file
inline constexpr size_t kMaxRankSteps = 100000;            // ProfilerStep#N annotations of a file
inline constexpr size_t kMaxRankGroups = 4096;             // process groups of a file
inline constexpr size_t kMaxKernelNames = 65536;           // distinct kernel names kept per file
// Kernels kept for the views over all ranks (32 bytes each): past it the later ranks keep
// their figures but not their kernels, with a note.
inline constexpr size_t kMaxKeptKernels = size_t(1) << 23;

// One GPU kernel of a rank (kept when ReadProfileOptions::keepKernels).
struct ProfileKernel {
    double startS = 0; // seconds from the profile's origin, on the aligned clock
    double endS = 0;
    int32_t stream = 0;
    int32_t name = 0;   // index in RankProfile::kernelNames
    int32_t group = -1; // a communication kernel's process group: index in RankProfile::groups
    int32_t step = -1;  // index in RankProfile::steps of the step that launched it; -1: none
    KernelKind kind = KernelKind::Compute;
};

// A process group as the trace names it (distributedInfo's pg_config, or the "Process Group"
// arguments of a collective).
struct ProcessGroup {
    std::string name;        // "0", "5"
    std::string description; // "default_pg", "TENSOR_MODEL_PARALLEL_GROUP" (may be empty)
    std::vector<int> ranks;  // global ranks, in the trace's order
};

// Seconds per process group (index in RankProfile::groups; -1 for communication whose group
// is not known).
struct GroupSeconds {
    int group = -1;
    double seconds = 0;
};

// One ProfilerStep#N of a rank. Kernels belong to the step during which the CPU launched them
// (by their correlation with the launch; a kernel whose launch is not in the file, by its
// start). The step's duration is its annotation's.
struct StepFigures {
    std::string name; // "ProfilerStep#5"
    int64_t number = 0;
    double startS = 0;
    double durationS = 0;
    PerKernelKind<double> kernelS; // sum of kernel durations by kind
    double computeBusyS = 0;       // union of compute kernel intervals
    double commBusyS = 0;          // union of communication kernel intervals
    double exposedCommS = 0;       // communication union minus compute union
    // exposedCommS by process group; where several groups' kernels run together, not under
    // compute, each gets an even share.
    std::vector<GroupSeconds> exposedByGroup;
    double idleS = 0; // duration minus the union of all kernels (at least 0)
};

struct RankProfile {
    std::string file;
    int rank = 0;
    int worldSize = 1;
    bool distributedInfo = true; // false: the file had none (rank 0, world 1 assumed, noted)
    std::vector<ProcessGroup> groups;
    std::vector<StepFigures> steps; // in the order they ran
    // Over the whole file, steps or not.
    PerKernelKind<double> totalKernelS; // sum of kernel durations by kind
    double totalComputeBusyS = 0;       // union of compute kernel intervals
    size_t kernelCount = 0;
    std::vector<int32_t> streams; // the streams kernels ran on, ascending
    // Kept when ReadProfileOptions::keepKernels (and within kMaxKeptKernels), by start.
    std::vector<ProfileKernel> kernels;
    std::vector<std::string> kernelNames;
    // This rank's clock minus the reference rank's (ClockAlignment), already taken out of every
    // time above.
    double clockOffsetS = 0;
    // The file's clock, in nanoseconds (baseTimeNanoseconds + ts), at the rank's own time 0 (its
    // first step's start) as read, before alignment.
    int64_t originNs = 0;
    // The end of each collective kernel (not send/recv) with its process group, by start: what
    // the alignment matches across ranks. Seconds on the aligned clock, as every time above.
    struct CollectiveEnd {
        int32_t group = -1;
        double endS = 0;
    };
    std::vector<CollectiveEnd> collectiveEnds;

    double medianStepS() const; // 0 without steps
    // The step of that number, or nullptr.
    const StepFigures* step(int64_t number) const;
};

// How the ranks' clocks were aligned: a collective ends at the same moment on all its members,
// so each rank's offset is the median difference of the ends of the collectives it shares
// (the k-th collective of a process group on one rank with the k-th on another), walked out
// from the reference rank through the groups.
struct ClockAlignment {
    int referenceRank = 0;
    int alignedRanks = 0;       // ranks whose offset was measured (the reference included)
    int64_t matchedEnds = 0;    // pairs of collective ends compared
    double largestOffsetS = 0;  // the largest |offset| taken out
    double residualS = 0;       // after alignment, the median |difference| of matched ends
    std::vector<int> unaligned; // ranks that share no collective with the others (offset 0)
    std::string summary;        // a sentence for people: "8 ranks aligned on 1,204 ..."
};

// The measured step of one pipeline stage's slowest rank as the timeline draws it under the
// predicted one (measuredlanes.h makes it): contiguous intervals from the step's start, each
// compute, communication the GPU waited for, or idle.
enum class LaneIntervalKind : uint8_t { Compute, Comm, Idle };

struct LaneInterval {
    double startS = 0; // from the step's start
    double durationS = 0;
    LaneIntervalKind kind = LaneIntervalKind::Idle;
    KernelKind collective = KernelKind::Compute; // a Comm interval's kernel kind
    // A Comm interval's process group: index in the rank's RankProfile::groups; -1: not known.
    int32_t group = -1;
    double endS() const { return startS + durationS; }
};

struct MeasuredLane {
    int stage = 0; // the rank's pipeline stage in the run the lane was made with
    int rank = -1;
    int64_t stepNumber = 0;              // the N of the ProfilerStep#N shown
    double stepS = 0;                    // that step's duration
    std::vector<LaneInterval> intervals; // by start, each starting where the last ended
};

struct MeasuredProfile {
    std::vector<RankProfile> ranks; // by rank, each once
    int worldSize = 0;              // as the files say (0: nothing read)
    ClockAlignment alignment;
    double stepTimeS = 0; // the median over steps of the step's longest duration on any rank
    int slowestRank = -1; // the rank with the longest median step (ties: the busiest GPU)
    bool cancelled = false;
    Diagnostics notes;  // what was assumed, left out or does not match, each naming its file
    Diagnostics errors; // files refused, each with what is wrong; the other files still load
    // The timeline's measured lanes, one per pipeline stage that has a measured rank: made with
    // a run from the kernels (addMeasuredLanes), kept in a session without them.
    std::vector<MeasuredLane> lanes;
};

struct ReadProfileOptions {
    // Bytes read (compressed bytes for gzip) out of all the files' sizes; from the reading
    // thread, about every megabyte.
    std::function<void(int64_t done, int64_t total)> progress;
    // Set from any thread: reading stops soon after, and the profile says `cancelled`.
    const std::atomic<bool>* cancel = nullptr;
    // Keep each rank's kernels (the views' timeline); the figures are the same without.
    bool keepKernels = true;
};

// The trace files `paths` name: a file as itself, a folder as the files in it (not its
// subfolders) ending in .json or .json.gz, sorted by name. Problems (a path that does not
// exist, a folder with no trace) go to `errors`.
std::vector<std::string> profileFilesOf(const std::vector<std::string>& paths, Diagnostics& errors);

// Reads the files (or folders) as one run's profile. Files that cannot be read, are not
// traces, hold no events, come from another run (a different world size) or repeat a rank are
// refused in `errors`; the others make the profile. Steps that do not match across ranks are
// noted; the step time is taken over the steps every rank has.
MeasuredProfile readProfile(const std::vector<std::string>& paths,
                            const ReadProfileOptions& options = {});

// One file read on its own (no alignment, times from its own first step): nothing, with the
// reason in `errors`, when it is refused. The context places its bytes in the progress of all.
struct RankReadContext {
    const ReadProfileOptions* options = nullptr;
    int64_t doneBefore = 0; // bytes of the files before it
    int64_t total = 0;      // bytes of all files
};
std::optional<RankProfile> readRankTrace(const std::string& path, const RankReadContext& context,
                                         Diagnostics& notes, Diagnostics& errors);

} // namespace cs
