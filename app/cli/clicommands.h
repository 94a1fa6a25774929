#pragma once
// clusterscope-cli's commands. Each takes the words after the command name and returns the
// exit status of formats.md: 0 success, 1 bad input, 2 bad usage. Each declares its words
// once, in its CommandSpec (options.h), next to it.

#include <iosfwd>
#include <string>
#include <vector>

namespace cs::cli {

using Args = std::vector<std::string>;

struct Io {
    std::ostream& out;
    std::ostream& err;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

int run(const Args& argv, Io io); // argv without the program name

struct CommandSpec;
extern const CommandSpec kCheckSpec;
extern const CommandSpec kDescribeSpec;
extern const CommandSpec kEvaluateSpec;
extern const CommandSpec kCompareSpec;
extern const CommandSpec kValidateRunsSpec;
extern const CommandSpec kTraceSpec;
extern const CommandSpec kSearchSpec;
extern const CommandSpec kImportSpec;
extern const CommandSpec kCalibrateSpec;
extern const CommandSpec kLinksSpec;
extern const CommandSpec kPlaceSpec;

int runCheck(const Args& args, Io io);
int runDescribe(const Args& args, Io io);
int runEvaluate(const Args& args, Io io);
int runCompare(const Args& args, Io io);
int runValidateRuns(const Args& args, Io io);
int runTrace(const Args& args, Io io);
int runSearch(const Args& args, Io io);
int runImport(const Args& args, Io io);
int runCalibrate(const Args& args, Io io);
int runLinks(const Args& args, Io io);
int runPlace(const Args& args, Io io);

} // namespace cs::cli
