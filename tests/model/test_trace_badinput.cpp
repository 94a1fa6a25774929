// Measured profiles that are not what they should be: each file refused or noted with its name
// and what is wrong, and what did load stays usable.

#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "clirun.h"
#include "profile.h"

using namespace cs;
namespace fs = std::filesystem;

namespace {

class TempTraceFolder {
public:
    TempTraceFolder()
        : m_path(fs::temp_directory_path() /
                 ("cs-trace-bad-" + std::to_string(::getpid()) + "-" + std::to_string(++s_count)))
    {
        fs::remove_all(m_path);
        fs::create_directories(m_path);
    }
    ~TempTraceFolder() { fs::remove_all(m_path); }
    std::string file(const std::string& name, const std::string& bytes) const
    {
        const std::string path = (m_path / name).string();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    std::string path() const { return m_path.string(); }

private:
    static inline int s_count = 0;
    fs::path m_path;
};

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

const std::string kGoodTrace = std::string(CS_TEST_DATA_DIR) + "/traces/hta-nccl/nccl_data.json.gz";

// A small trace of one rank: its steps (number, start us, length us), a compute kernel in each.
std::string rankTrace(int rank, int world, const std::vector<int>& steps)
{
    nlohmann::json events = nlohmann::json::array();
    for (size_t i = 0; i < steps.size(); ++i) {
        const double start = 1000.0 * double(i);
        events.push_back({{"ph", "X"},
                          {"cat", "user_annotation"},
                          {"name", "ProfilerStep#" + std::to_string(steps[i])},
                          {"ts", start},
                          {"dur", 1000.0}});
        events.push_back({{"ph", "X"},
                          {"cat", "kernel"},
                          {"name", "gemm"},
                          {"ts", start + 10},
                          {"dur", 500.0 + rank},
                          {"args", {{"stream", 7}}}});
    }
    return nlohmann::json{{"distributedInfo", {{"rank", rank}, {"world_size", world}}},
                          {"traceEvents", events}}
        .dump();
}

} // namespace

TEST_CASE("files that are no trace are refused with their name and what is wrong, the others load",
          "[trace]")
{
    struct Case {
        const char* name;
        std::string bytes;
        const char* problem;
    };
    const std::string good = readBytes(kGoodTrace);
    const Case c = GENERATE_COPY(
        Case{"cut.json.gz", good.substr(0, good.size() / 2),
             "the gzip stream is broken or cut short"},
        Case{"empty.json", "{\"traceEvents\": []}", "the trace holds no events"},
        Case{"other.json", "{\"format\": \"clusterscope/run@1\"}", "no traceEvents"},
        Case{"array.json", "[{\"ph\": \"X\"}]", "not a PyTorch profiler trace"},
        Case{"text.json", "ProfilerStep#1 took 3 ms\n", "not JSON at byte 1"},
        Case{"nothing.json", "", "not JSON"},
        Case{"deep.json",
             "{\"traceEvents\": [" + std::string(100, '[') + std::string(100, ']') + "]}",
             "nested deeper than 64 levels"},
        Case{"farfuture.json",
             "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"ts\": 1e300, "
             "\"dur\": 1}]}",
             "a time no profiler writes"},
        Case{"badbase.json", "{\"baseTimeNanoseconds\": 1e30, \"traceEvents\": [{}]}",
             "not a clock"},
        Case{"badrank.json", "{\"distributedInfo\": {\"rank\": -3}, \"traceEvents\": [{}]}",
             "not a rank: a whole number from 0 up"},
        Case{"badworld.json",
             "{\"distributedInfo\": {\"rank\": 4, \"world_size\": 2}, \"traceEvents\": [{}]}",
             "world size 2 does not hold rank 4"});
    INFO(c.name);
    TempTraceFolder dir;
    const std::string bad = dir.file(c.name, c.bytes);
    const MeasuredProfile p = readProfile({kGoodTrace, bad});
    INFO(p.errors.formatAll());
    REQUIRE(p.errors.size() == 1);
    CHECK(p.errors.items().front().file == bad);
    CHECK(p.errors.contains(c.problem));
    // what did load is the profile
    REQUIRE(p.ranks.size() == 1);
    CHECK(p.ranks.front().steps.size() == 3);
}

TEST_CASE("ranks of another run and a rank given twice are refused by file, the run's ranks load",
          "[trace]")
{
    TempTraceFolder dir;
    dir.file("rank-0.json", rankTrace(0, 4, {1, 2}));
    dir.file("rank-1.json", rankTrace(1, 4, {1, 2}));
    dir.file("rank-2.json", rankTrace(2, 4, {1, 2}));
    const std::string other = dir.file("rank-3.json", rankTrace(3, 8, {1, 2}));
    const std::string twice = dir.file("rank-1-again.json", rankTrace(1, 4, {1, 2}));
    const MeasuredProfile p = readProfile({dir.path()});
    INFO(p.errors.formatAll());
    REQUIRE(p.errors.size() == 2);
    CHECK(p.errors.formatAll().find(other + ": /distributedInfo/world_size: from another run: "
                                            "world size 8, the other files' 4") !=
          std::string::npos);
    // the folder is read in name order: rank-1-again.json before rank-1.json
    CHECK(p.errors.contains("rank 1 again"));
    CHECK((p.errors.formatAll().find(twice) != std::string::npos ||
           p.errors.formatAll().find("rank-1.json: /distributedInfo/rank") != std::string::npos));
    REQUIRE(p.ranks.size() == 3);
    CHECK(p.worldSize == 4);
    CHECK(p.notes.contains("3 of the run's 4 ranks have a trace"));
}

TEST_CASE("steps that do not match across ranks are noted, the step time is of the steps all have",
          "[trace]")
{
    TempTraceFolder dir;
    const std::string a = dir.file("rank-0.json", rankTrace(0, 2, {1, 2, 3}));
    const std::string b = dir.file("rank-1.json", rankTrace(1, 2, {2, 3, 4}));
    const MeasuredProfile p = readProfile({a, b});
    REQUIRE(p.errors.empty());
    REQUIRE(p.ranks.size() == 2);
    CHECK(p.notes.formatAll().find(a + ": steps that not every rank has (#1)") !=
          std::string::npos);
    CHECK(p.notes.formatAll().find(b + ": steps that not every rank has (#4)") !=
          std::string::npos);
    CHECK(p.stepTimeS == Approx(0.001));
    CHECK(p.slowestRank == 1); // the same step lengths: the busier GPU
}

TEST_CASE("a profile's reading reports its progress in bytes and stops when cancelled", "[trace]")
{
    SECTION("progress up to the files' size")
    {
        int64_t last = 0;
        int64_t total = 0;
        ReadProfileOptions options;
        options.progress = [&](int64_t done, int64_t all) {
            CHECK(done >= last);
            last = done;
            total = all;
        };
        const MeasuredProfile p = readProfile({kGoodTrace}, options);
        CHECK(p.ranks.size() == 1);
        CHECK(total == int64_t(fs::file_size(kGoodTrace)));
        CHECK(last == total);
    }
    SECTION("cancelled: nothing half read")
    {
        std::atomic<bool> cancel{true};
        ReadProfileOptions options;
        options.cancel = &cancel;
        const MeasuredProfile p = readProfile({kGoodTrace}, options);
        CHECK(p.cancelled);
        CHECK(p.ranks.empty());
        CHECK(p.errors.empty());
    }
}

TEST_CASE("a file of more ProfilerStep#N annotations than a trace holds is refused by its limit",
          "[trace]")
{
    std::string text = "{\"traceEvents\":[";
    for (size_t i = 0; i <= kMaxRankSteps; ++i)
        text += "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" +
                std::to_string(i) + "\",\"ts\":" + std::to_string(i) + ",\"dur\":1},";
    text.back() = ']';
    text += "}";
    TempTraceFolder dir;
    const std::string path = dir.file("many-steps.json", text);
    const MeasuredProfile p = readProfile({path});
    CHECK(p.ranks.empty());
    CHECK(p.errors.contains("more than 100,000 ProfilerStep#N annotations"));
}

TEST_CASE("import trace: refused files named, the rest printed, exit 1, wrong options are usage",
          "[trace]")
{
    TempTraceFolder dir;
    const std::string bad = dir.file("bad.json", "{}");
    SECTION("text")
    {
        const CliRun r = runCli({"import", "trace", kGoodTrace, bad});
        CHECK(r.status == 1);
        CHECK(r.err.find("bad.json: not a PyTorch profiler trace: it has no traceEvents") !=
              std::string::npos);
        CHECK(r.out.find("Measured profile: 1 of 2 ranks") != std::string::npos);
    }
    SECTION("json")
    {
        const CliRun r = runCli({"import", "trace", kGoodTrace, "--json"});
        REQUIRE(r.status == 0);
        const nlohmann::json j = nlohmann::json::parse(r.out);
        CHECK(j["ranks"].size() == 1);
        CHECK(j["ranks"][0]["steps"].size() == 3);
        CHECK(j["ranks"][0]["steps"][0]["name"] == "ProfilerStep#4");
        CHECK(j["ranks"][0]["steps"][0]["kernel_s"].contains("allreduce"));
        CHECK(j["totals"][0]["compute_busy_s"].get<double>() > 0);
        CHECK(j["step_time_s"].get<double>() > 0);
        CHECK(j["slowest_rank"] == 0);
    }
    SECTION("usage")
    {
        CHECK(runCli({"import", "trace", kGoodTrace, "--run", "x.run.json"}).status == 2);
        CHECK(runCli({"import", "trace", kGoodTrace, "-o", "out.json"}).status == 2);
        CHECK(runCli({"import", "nemo", kGoodTrace, "--cluster", "c.json"}).status == 2);
    }
    SECTION("nothing readable")
    {
        const CliRun r = runCli({"import", "trace", dir.path() + "/missing.json.gz"});
        CHECK(r.status == 1);
        CHECK(r.err.find("missing.json.gz: cannot be read") != std::string::npos);
    }
}
