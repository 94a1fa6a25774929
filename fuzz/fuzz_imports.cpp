// The importers' parsers: launch scripts, training logs, YAML and JSON configs, MLPerf result
// logs and system descriptions, Slurm topologies and hostlists. The first byte picks the parser;
// whatever it is given, an importer either refuses with errors or returns a description that
// loads.

#include "fuzzutil.h"
#include "hostlist.h"
#include "megatron.h"
#include "mllog.h"
#include "nemo.h"
#include "slurmtopology.h"

namespace {

void requireConsistent(bool produced, const cs::ImportReport& report)
{
    csfuzz::require(produced == report.errors.empty(), "a result disagrees with the errors",
                    report.errors);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    const cs::SourceText input{"f", std::string(csfuzz::asText(data + 1, size - 1))};
    cs::ImportReport report;
    switch (data[0] % 7) {
    case 0:
        requireConsistent(cs::importMegatron({input}, nullptr, report).has_value(), report);
        break;
    case 1:
        requireConsistent(cs::readMegatronLog(input, report).has_value(), report);
        break;
    case 2:
        requireConsistent(cs::importNemo(input, report).has_value(), report);
        break;
    case 3:
        requireConsistent(cs::readMllog(input, report).has_value(), report);
        break;
    case 4:
        requireConsistent(cs::clusterFromSystemDescription(input, report).has_value(), report);
        break;
    case 5: // the same text as topology and as the list of nodes out of service
        requireConsistent(cs::importSlurmTopology(input, {"H100", 8, &input}, report).has_value(),
                          report);
        break;
    default: {
        std::string problem;
        const auto hosts = cs::expandHostlist(input.text, 4096, problem);
        csfuzz::require(hosts.has_value() == problem.empty(), "a hostlist both expands and fails");
        csfuzz::require(!hosts || hosts->size() <= 4096, "a hostlist expands past its limit");
        break;
    }
    }
    return 0;
}
