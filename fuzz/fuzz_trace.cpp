// Measured profiles: bytes as one rank's trace file (plain, or gzip when they start as gzip
// does), read by the streamed reader. A file is refused with a problem or read into figures that
// hold together; the JSON of import trace is made of whatever was read.

#include <cmath>
#include <fstream>
#include <string>
#include <unistd.h>

#include "fuzzutil.h"
#include "profilejson.h"

namespace {

const std::string& tracePath()
{
    static const std::string path = "/tmp/cs-fuzz-trace-" + std::to_string(::getpid()) + ".json";
    return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    {
        std::ofstream out(tracePath(), std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    }
    const cs::MeasuredProfile p = cs::readProfile({tracePath()});
    csfuzz::require(p.ranks.size() + p.errors.size() >= 1, "a file neither read nor refused");
    csfuzz::require(p.ranks.size() <= 1, "one file made several ranks");
    for (const cs::RankProfile& r : p.ranks) {
        csfuzz::require(r.rank >= 0 && r.rank < r.worldSize, "a rank outside its world");
        for (const cs::StepFigures& s : r.steps) {
            csfuzz::require(s.idleS >= 0 && s.computeBusyS >= 0 && std::isfinite(s.idleS) &&
                                std::isfinite(s.exposedCommS),
                            "step figures that are no times");
            csfuzz::require(s.exposedCommS <= s.commBusyS + 1e-9 * (1 + s.commBusyS),
                            "more communication exposed than ran");
            double exposed = 0;
            for (const cs::GroupSeconds& g : s.exposedByGroup) {
                csfuzz::require(g.group >= -1 && g.group < int(r.groups.size()),
                                "an exposed time of no group");
                exposed += g.seconds;
            }
            csfuzz::require(std::abs(exposed - s.exposedCommS) <= 1e-6 * (1 + s.exposedCommS),
                            "groups' exposed times do not add up");
        }
        for (double k : r.totalKernelS)
            csfuzz::require(std::isfinite(k) && k >= 0, "a kernel time that is no time");
    }
    // whatever was read is printable as import trace prints it
    (void)cs::profileJson(p).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    return 0;
}
