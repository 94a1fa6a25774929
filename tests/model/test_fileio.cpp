// Data safety at the file level: what readFileText refuses without blocking, and what the one
// atomic writer refuses, keeps and reports, directly and through `clusterscope-cli trace -o`.

#include <catch2/catch.hpp>

#include "../helpers/datasafety.h"
#include "clirun.h"
#include "fileio.h"
#include "samplefiles.h"

using testing::BoundSocket;
using testing::contentOf;
using testing::FullDisk;
using testing::modeOf;
using testing::ScratchDir;
using testing::WatchedFifo;
using testing::writeContent;

namespace {

std::string readError(const std::string& path)
{
    cs::Diagnostics diags;
    CHECK_FALSE(cs::readFileText(path, diags));
    REQUIRE(diags.size() == 1);
    return diags.items()[0].format();
}

std::string writeError(const std::string& path, std::string_view bytes)
{
    cs::Diagnostics diags;
    CHECK_FALSE(cs::writeFileAtomically(path, bytes, diags));
    REQUIRE(diags.size() == 1);
    return diags.items()[0].format();
}

// Nothing but the named entries: no temporary file left behind.
std::vector<std::string> entriesOf(const std::string& dir)
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// The smallest sample, traced.
const cs::cli::Args kTraceInputs = {samplePath("ndv5-h200-64.cluster.json"),
                                    samplePath("ndv5-h200-64-gpt3-175b.run.json")};

cs::cli::Args traceTo(const std::string& out)
{
    cs::cli::Args args{"trace"};
    args.insert(args.end(), kTraceInputs.begin(), kTraceInputs.end());
    args.insert(args.end(), {"-o", out});
    return args;
}

} // namespace

TEST_CASE("readFileText refuses a FIFO by name without opening it", "[fileio][read]")
{
    ScratchDir dir;
    WatchedFifo fifo(dir.path("pipe.json"));
    REQUIRE(fifo.made());
    CHECK(readError(fifo.path()) == fifo.path() + ": is a FIFO (named pipe), not a file");
    CHECK_FALSE(fifo.opened());
}

TEST_CASE("readFileText refuses devices, directories and sockets by kind", "[fileio][read]")
{
    ScratchDir dir;
    CHECK(readError("/dev/null") == "/dev/null: is a character device, not a file");
    CHECK(readError(dir.path()) == dir.path() + ": is a directory, not a file");
    const std::string socketPath = dir.path("s.json");
    const BoundSocket socket(socketPath);
    REQUIRE(socket.bound());
    CHECK(readError(socketPath) == socketPath + ": is a socket, not a file");
}

TEST_CASE("readFileText names a symbolic link loop", "[fileio][read]")
{
    ScratchDir dir;
    std::filesystem::create_symlink("b.json", dir.path("a.json"));
    std::filesystem::create_symlink("a.json", dir.path("b.json"));
    CHECK_THAT(readError(dir.path("a.json")),
               Catch::Equals(dir.path("a.json") + ": is a symbolic link loop (Too many levels of "
                                                  "symbolic links)"));
}

TEST_CASE("readFileText refuses a file over the limit by its size", "[fileio][read]")
{
    ScratchDir dir;
    const std::string path = dir.path("huge.json");
    writeContent(path, "{}");
    // A terabyte, sparse: refused by the size it claims, before a byte is read.
    std::filesystem::resize_file(path, uintmax_t(1) << 40);
    CHECK_THAT(readError(path), Catch::Contains("larger than 64 MiB"));
}

TEST_CASE("readFileText names UTF-16 and UTF-32 text", "[fileio][read]")
{
    using namespace std::string_literals;
    ScratchDir dir;
    const struct {
        const char* name;
        std::string bytes;
        const char* encoding;
    } cases[] = {
        {"le-bom.json", "\xFF\xFE{\0}\0"s, "UTF-16"},
        {"be-bom.json", "\xFE\xFF\0{\0}"s, "UTF-16"},
        {"le.json", "{\0\n\0}\0"s, "UTF-16"},
        {"be.json", "\0{\0\n\0}"s, "UTF-16"},
        {"32le-bom.json", "\xFF\xFE\0\0{\0\0\0"s, "UTF-32"},
        {"32be.json", "\0\0\0{\0\0\0}"s, "UTF-32"},
    };
    for (const auto& c : cases) {
        const std::string path = dir.path(c.name);
        writeContent(path, c.bytes);
        CHECK(readError(path) == path + ": is " + c.encoding +
                                     " text; ClusterScope reads UTF-8 JSON (save it as UTF-8)");
    }
    const std::string utf8 = dir.path("utf8.json");
    writeContent(utf8, "\xEF\xBB\xBF{\"name\": \"\xC3\xA9\"}");
    cs::Diagnostics diags;
    CHECK(cs::readFileText(utf8, diags));
    CHECK(diags.empty());
}

TEST_CASE("readFileText says a binary file is not text, at the first byte JSON cannot hold",
          "[fileio][read]")
{
    using namespace std::string_literals;
    std::string everyByte;
    for (int b = 0; b < 256; ++b)
        everyByte += char(b);
    const std::string elf = "\x7F"
                            "ELF\x02\x01\x01\0\0\0"s;
    const std::string png = "\x89PNG\r\n\x1A\n\0\0\0\rIHDR"s;
    const std::string textThenBinary = "{\"name\": \"caf\xC3\xA9\"}\n\x01\x02\0"s;
    const std::string brokenUtf8 = "{\"a\": \"\xE2\x82\"}\0"s; // a cut-off three-byte character
    struct Case {
        std::string bytes;
        std::string place; // line:column
        std::string reason;
    };
    const Case c = GENERATE_COPY(values<Case>({
        {everyByte, "1:1", "byte 0x00 at offset 0"},
        {"\x01\x02\0"s, "1:1", "byte 0x01 at offset 0"},
        {elf, "1:5", "byte 0x02 at offset 4"},
        {png, "1:1", "byte 0x89 at offset 0"},
        {textThenBinary, "2:1", "byte 0x01 at offset 18"},
        {brokenUtf8, "1:8", "byte 0xE2 at offset 7"},
    }));
    ScratchDir dir;
    const std::string path = dir.path("data.json");
    writeContent(path, c.bytes);
    CHECK(readError(path) == path + ":" + c.place + ": is not a text file: " + c.reason +
                                 " cannot be in JSON text; ClusterScope reads UTF-8 JSON");
}

TEST_CASE("readFileText reads a text file whose NULs start past the first 8,000 bytes",
          "[fileio][read]")
{
    // A log a crash left with a zeroed tail.
    ScratchDir dir;
    const std::string path = dir.path("train.log");
    const std::string text = std::string(9000, 'x') + "\n" + std::string(64, '\0');
    writeContent(path, text);
    cs::Diagnostics diags;
    CHECK(cs::readFileText(path, diags) == text);
    CHECK(diags.empty());
}

TEST_CASE("check and a run whose cluster is a FIFO fail at once, naming the FIFO",
          "[fileio][read][cli]")
{
    ScratchDir dir;
    WatchedFifo fifo(dir.path("cluster.json"));
    REQUIRE(fifo.made());
    const CliRun checked = runCli({"check", fifo.path()});
    CHECK(checked.status == cs::cli::kExitBadInput);
    CHECK_THAT(checked.out + checked.err,
               Catch::Contains(fifo.path() + ": is a FIFO (named pipe), not a file"));

    auto run = nlohmann::json::parse(contentOf(samplePath("ndv5-h200-64-gpt3-175b.run.json")));
    run["cluster"] = "cluster.json";
    const std::string runPath = dir.path("a.run.json");
    writeContent(runPath, run.dump());
    for (const cs::cli::Args& args :
         {cs::cli::Args{"check", runPath},
          cs::cli::Args{"evaluate", samplePath("ndv5-h200-64.cluster.json"), runPath}}) {
        const CliRun r = runCli(args);
        CHECK(r.status == cs::cli::kExitBadInput);
        CHECK_THAT(r.out + r.err, Catch::Contains("is a FIFO (named pipe), not a file"));
    }
    CHECK_FALSE(fifo.opened());
}

TEST_CASE("the atomic writer keeps the file on a full disk and says why", "[fileio][write]")
{
    ScratchDir dir;
    const std::string path = dir.path("kept.json");
    writeContent(path, "old");
    {
        FullDisk full;
        REQUIRE(full.active());
        CHECK(writeError(path, std::string(4096, 'x')) == path + ": cannot write: File too large");
    }
    CHECK(contentOf(path) == "old");
    CHECK(entriesOf(dir.path()) == std::vector<std::string>{"kept.json"});
}

TEST_CASE("the atomic writer refuses a read-only file and leaves it", "[fileio][write]")
{
    ScratchDir dir;
    const std::string path = dir.path("readonly.json");
    writeContent(path, "old");
    std::filesystem::permissions(path, std::filesystem::perms::owner_read |
                                           std::filesystem::perms::group_read);
    CHECK_THAT(writeError(path, "new"),
               Catch::StartsWith(path + ": cannot write: Permission denied"));
    CHECK(contentOf(path) == "old");
    CHECK((modeOf(path) & 07777) == 0440);
    CHECK(entriesOf(dir.path()) == std::vector<std::string>{"readonly.json"});
}

TEST_CASE("the atomic writer writes through a symbolic link and keeps permissions",
          "[fileio][write]")
{
    ScratchDir dir;
    std::filesystem::create_directory(dir.path("real"));
    const std::string target = dir.path("real/target.json");
    writeContent(target, "old");
    std::filesystem::permissions(target, std::filesystem::perms(0640));
    std::filesystem::create_symlink("real/target.json", dir.path("link.json"));
    std::filesystem::create_symlink("link.json", dir.path("link-to-link.json"));

    cs::Diagnostics diags;
    REQUIRE(cs::writeFileAtomically(dir.path("link-to-link.json"), "new", diags));
    CHECK(diags.empty());
    CHECK(std::filesystem::is_symlink(dir.path("link.json")));
    CHECK(std::filesystem::is_symlink(dir.path("link-to-link.json")));
    CHECK(contentOf(target) == "new");
    CHECK((modeOf(target) & 07777) == 0640);
    CHECK(entriesOf(dir.path("real")) == std::vector<std::string>{"target.json"});

    // A dangling link names the file to create.
    std::filesystem::create_symlink("real/made.json", dir.path("dangling.json"));
    REQUIRE(cs::writeFileAtomically(dir.path("dangling.json"), "made", diags));
    CHECK(std::filesystem::is_symlink(dir.path("dangling.json")));
    CHECK(contentOf(dir.path("real/made.json")) == "made");
}

TEST_CASE("the atomic writer refuses what is not a regular file, never replacing it",
          "[fileio][write]")
{
    ScratchDir dir;
    WatchedFifo fifo(dir.path("pipe.json"));
    REQUIRE(fifo.made());
    CHECK(
        writeError(fifo.path(), "x") ==
        fifo.path() +
            ": cannot write: is a FIFO (named pipe), not a file; only regular files are replaced");
    CHECK(S_ISFIFO(modeOf(fifo.path())));
    CHECK_FALSE(fifo.opened());

    const BoundSocket socket(dir.path("socket.json"));
    REQUIRE(socket.bound());
    CHECK_THAT(writeError(dir.path("socket.json"), "x"), Catch::Contains("is a socket"));
    CHECK(S_ISSOCK(modeOf(dir.path("socket.json"))));
    std::filesystem::create_directory(dir.path("d"));
    CHECK_THAT(writeError(dir.path("d"), "x"), Catch::Contains("is a directory"));
    std::filesystem::create_symlink("pipe.json", dir.path("to-pipe.json"));
    CHECK_THAT(writeError(dir.path("to-pipe.json"), "x"), Catch::Contains("is a FIFO"));
    std::filesystem::create_symlink("loop.json", dir.path("loop.json"));
    CHECK_THAT(writeError(dir.path("loop.json"), "x"), Catch::Contains("symbolic link loop"));
    CHECK(entriesOf(dir.path()) ==
          std::vector<std::string>{"d", "loop.json", "pipe.json", "socket.json", "to-pipe.json"});
}

TEST_CASE("trace -o on a full disk fails with the reason and keeps the old trace",
          "[fileio][write][cli]")
{
    ScratchDir dir;
    const std::string out = dir.path("step.trace.json");
    writeContent(out, "old trace");
    CliRun r;
    {
        FullDisk full;
        REQUIRE(full.active());
        r = runCli(traceTo(out));
    }
    CHECK(r.status == cs::cli::kExitBadInput);
    CHECK(r.err == out + ": cannot write: File too large\n");
    CHECK(r.out.empty());
    CHECK(contentOf(out) == "old trace");
    CHECK(entriesOf(dir.path()) == std::vector<std::string>{"step.trace.json"});
}

TEST_CASE("trace -o refuses read-only files and special files, and writes through links",
          "[fileio][write][cli]")
{
    ScratchDir dir;
    const std::string readonly = dir.path("readonly.json");
    writeContent(readonly, "keep me");
    std::filesystem::permissions(readonly, std::filesystem::perms::owner_read);
    const CliRun refused = runCli(traceTo(readonly));
    CHECK(refused.status == cs::cli::kExitBadInput);
    CHECK_THAT(refused.err, Catch::StartsWith(readonly + ": cannot write: Permission denied"));
    CHECK(contentOf(readonly) == "keep me");

    WatchedFifo fifo(dir.path("pipe.json"));
    REQUIRE(fifo.made());
    const CliRun toFifo = runCli(traceTo(fifo.path()));
    CHECK(toFifo.status == cs::cli::kExitBadInput);
    CHECK_THAT(toFifo.err, Catch::Contains("is a FIFO (named pipe)"));
    CHECK(S_ISFIFO(modeOf(fifo.path())));
    CHECK_FALSE(fifo.opened());
    const BoundSocket socket(dir.path("socket.json"));
    REQUIRE(socket.bound());
    const CliRun toSocket = runCli(traceTo(dir.path("socket.json")));
    CHECK(toSocket.status == cs::cli::kExitBadInput);
    CHECK_THAT(toSocket.err, Catch::Contains("is a socket"));
    CHECK(S_ISSOCK(modeOf(dir.path("socket.json"))));

    const std::string target = dir.path("target.json");
    writeContent(target, "old");
    std::filesystem::permissions(target, std::filesystem::perms(0604));
    std::filesystem::create_symlink("target.json", dir.path("link.json"));
    const CliRun through = runCli(traceTo(dir.path("link.json")));
    CHECK(through.status == cs::cli::kExitOk);
    CHECK(std::filesystem::is_symlink(dir.path("link.json")));
    CHECK(nlohmann::json::parse(contentOf(target)).contains("traceEvents"));
    CHECK((modeOf(target) & 07777) == 0604);
}
