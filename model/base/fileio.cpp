#include "fileio.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cs {

namespace fs = std::filesystem;

std::optional<std::string> readFileText(const std::string& path, Diagnostics& diags)
{
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        diags.atPointer(path, "", "is a directory, not a file");
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        diags.atPointer(path, "", std::string("cannot read: ") + std::strerror(errno));
        return std::nullopt;
    }
    // Read in bounded chunks rather than trusting the size: devices and pipes have none.
    std::string text;
    char chunk[1 << 16];
    while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
        text.append(chunk, size_t(in.gcount()));
        if (text.size() > kMaxFileBytes) {
            diags.atPointer(path, "",
                            "the file is larger than " + std::to_string(kMaxFileBytes >> 20) +
                                " MiB, the most ClusterScope reads");
            return std::nullopt;
        }
    }
    if (in.bad()) {
        diags.atPointer(path, "", std::string("cannot read: ") + std::strerror(errno));
        return std::nullopt;
    }
    return text;
}

std::string resolveRelative(const std::string& fromFile, const std::string& relative)
{
    const fs::path target(relative);
    if (target.is_absolute())
        return target.lexically_normal().string();
    return (fs::path(fromFile).parent_path() / target).lexically_normal().string();
}

namespace {

bool writeAll(int fd, const std::string& text)
{
    size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        written += size_t(n);
    }
    return true;
}

// Keeps the permissions of the file being replaced; a new file gets rw-r--r--.
mode_t modeFor(const std::string& path)
{
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
}

} // namespace

bool writeFileAtomically(const std::string& path, const std::string& text, Diagnostics& diags)
{
    std::string temp = path + ".XXXXXX";
    const int fd = ::mkstemp(temp.data());
    if (fd < 0) {
        diags.atPointer(path, "", std::string("cannot write: ") + std::strerror(errno));
        return false;
    }
    const bool ok = ::fchmod(fd, modeFor(path)) == 0 && writeAll(fd, text) && ::fsync(fd) == 0;
    const int savedErrno = errno;
    if (::close(fd) != 0 || !ok || ::rename(temp.c_str(), path.c_str()) != 0) {
        const int error = ok ? errno : savedErrno;
        ::unlink(temp.c_str());
        diags.atPointer(path, "", std::string("cannot write: ") + std::strerror(error));
        return false;
    }
    return true;
}

} // namespace cs
