#include "fileio.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "text.h"

namespace cs {

namespace fs = std::filesystem;

namespace {

// The kernel's own limit on symbolic links followed in one path (Linux MAXSYMLINKS).
constexpr int kMaxLinkHops = 40;

std::string systemReason(int error)
{
    return std::strerror(error);
}

std::string notAFile(mode_t mode)
{
    const char* kind = S_ISDIR(mode)    ? "a directory"
                       : S_ISFIFO(mode) ? "a FIFO (named pipe)"
                       : S_ISCHR(mode)  ? "a character device"
                       : S_ISBLK(mode)  ? "a block device"
                       : S_ISSOCK(mode) ? "a socket"
                                        : "a special file";
    return std::string("is ") + kind + ", not a file";
}

std::string linkLoop()
{
    return "is a symbolic link loop (" + systemReason(ELOOP) + ")";
}

// Closes a descriptor when its scope ends, unless released.
class Descriptor {
public:
    explicit Descriptor(int fd)
        : m_fd(fd)
    {
    }
    ~Descriptor()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return m_fd; }
    // Closes now, so that the caller sees close's error (a delayed write failure shows here).
    bool close()
    {
        const int fd = m_fd;
        m_fd = -1;
        return ::close(fd) == 0;
    }

private:
    int m_fd;
};

// A character text starts with: printable ASCII or a blank.
bool isTextAscii(char c)
{
    return (c >= 0x20 && c < 0x7F) || c == '\t' || c == '\n' || c == '\r';
}

// JSON text starts with ASCII, so a NUL beside an ASCII character in the first code unit gives a
// wide encoding away even without a byte order mark; NULs beside anything else are binary.
std::optional<std::string_view> wideEncoding(std::string_view text)
{
    const auto startsWith = [&](std::string_view prefix) {
        return text.substr(0, prefix.size()) == prefix;
    };
    using namespace std::string_view_literals;
    if (startsWith("\xFF\xFE\0\0"sv) || startsWith("\0\0\xFE\xFF"sv))
        return "UTF-32";
    if (startsWith("\xFF\xFE"sv) || startsWith("\xFE\xFF"sv))
        return "UTF-16";
    if (text.size() >= 4 && text[1] == 0 && text[2] == 0 &&
        ((isTextAscii(text[0]) && text[3] == 0) || (text[0] == 0 && isTextAscii(text[3]))))
        return "UTF-32";
    if (text.size() >= 2 &&
        ((isTextAscii(text[0]) && text[1] == 0) || (text[0] == 0 && isTextAscii(text[1]))))
        return "UTF-16";
    return std::nullopt;
}

// The length of the well-formed UTF-8 character at text[at]; 0 when there is none.
size_t utf8Length(std::string_view text, size_t at)
{
    const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    if (lead < 0x80)
        return 1;
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF; // the second byte's range (RFC 3629)
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        low = lead == 0xE0 ? 0xA0 : 0x80;
        high = lead == 0xED ? 0x9F : 0xBF;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        low = lead == 0xF0 ? 0x90 : 0x80;
        high = lead == 0xF4 ? 0x8F : 0xBF;
    }
    if (length == 0 || at + length > text.size() || byte(at + 1) < low || byte(at + 1) > high)
        return 0;
    for (size_t i = at + 2; i < at + length; ++i) {
        if ((byte(i) & 0xC0) != 0x80)
            return 0;
    }
    return length;
}

// The offset of the first byte JSON text cannot hold (a control character other than a blank,
// or a byte outside well-formed UTF-8), when it comes before a NUL within the first
// kBinaryWindow bytes: git's test for a binary file. A NUL further on (the zeroed tail a crash
// leaves in a log) does not make a text file binary.
constexpr size_t kBinaryWindow = 8000;

std::optional<size_t> binaryOffset(std::string_view text)
{
    if (text.substr(0, kBinaryWindow).find('\0') == std::string_view::npos)
        return std::nullopt;
    for (size_t at = 0; at < text.size();) {
        const size_t length = utf8Length(text, at);
        if (length == 0 || (length == 1 && !isTextAscii(text[at]) && text[at] != 0x7F))
            return at;
        at += length;
    }
    return std::nullopt; // not reached: the NUL is such a byte
}

// The line and column (in characters) of a byte that well-formed UTF-8 text leads up to.
std::pair<int, int> lineAndColumn(std::string_view text, size_t at)
{
    int line = 1, column = 1;
    for (size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
            ++column;
        }
    }
    return {line, column};
}

std::string hexByte(unsigned char b)
{
    static constexpr char kDigits[] = "0123456789ABCDEF";
    return std::string("0x") + kDigits[b >> 4] + kDigits[b & 0xF];
}

// Reads at most limit + 1 bytes, so that a file that grew past the limit is noticed.
bool readUpTo(int fd, size_t limit, std::string& text)
{
    char chunk[1 << 16];
    while (text.size() <= limit) {
        const ssize_t n = ::read(fd, chunk, std::min(sizeof chunk, limit + 1 - text.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        if (n == 0)
            break;
        text.append(chunk, size_t(n));
    }
    return true;
}

} // namespace

std::string tooLargeReason(size_t bytes, size_t limit)
{
    const auto mib = [](size_t n) { return withThousands(int64_t((n + (1u << 20) - 1) >> 20)); };
    return "larger than " + mib(limit) + " MiB (" + withThousands(int64_t(bytes)) +
           " bytes), the most ClusterScope reads for a file of its kind";
}

std::optional<std::string> readFileText(const std::string& path, Diagnostics& diags, size_t limit)
{
    const auto refuse = [&](std::string message) -> std::optional<std::string> {
        diags.atPointer(path, "", std::move(message));
        return std::nullopt;
    };
    // What the path names is checked before it is opened: opening a FIFO waits for a writer,
    // opening a device may do anything.
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return refuse(errno == ELOOP ? linkLoop() : "cannot read: " + systemReason(errno));
    if (!S_ISREG(st.st_mode))
        return refuse(notAFile(st.st_mode));
    if (size_t(st.st_size) > limit)
        return refuse("the file is " + tooLargeReason(size_t(st.st_size), limit));
    // The path may name something else by now: O_NONBLOCK keeps a FIFO swapped in from blocking
    // the open, and the opened file is checked again.
    Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (fd.get() < 0)
        return refuse(errno == ELOOP ? linkLoop() : "cannot read: " + systemReason(errno));
    if (::fstat(fd.get(), &st) != 0)
        return refuse("cannot read: " + systemReason(errno));
    if (!S_ISREG(st.st_mode))
        return refuse(notAFile(st.st_mode));
    std::string text;
    text.reserve(std::min(size_t(st.st_size), limit));
    if (!readUpTo(fd.get(), limit, text))
        return refuse("cannot read: " + systemReason(errno));
    if (text.size() > limit)
        return refuse("the file is " + tooLargeReason(text.size(), limit));
    if (const auto encoding = wideEncoding(text))
        return refuse("is " + std::string(*encoding) +
                      " text; ClusterScope reads UTF-8 JSON (save it as UTF-8)");
    if (const auto at = binaryOffset(text)) {
        const auto [line, column] = lineAndColumn(text, *at);
        diags.atPosition(path, line, column,
                         "is not a text file: byte " +
                             hexByte(static_cast<unsigned char>(text[*at])) + " at offset " +
                             withThousands(int64_t(*at)) +
                             " cannot be in JSON text; ClusterScope reads UTF-8 JSON");
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

bool writeAll(int fd, std::string_view bytes)
{
    size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        if (n == 0) {
            errno = EIO;
            return false;
        }
        written += size_t(n);
    }
    return true;
}

// Whether the file holds exactly these bytes, read back from it; errno says why not.
bool holds(int fd, std::string_view bytes)
{
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return false;
    if (size_t(st.st_size) != bytes.size()) {
        errno = EIO;
        return false;
    }
    char chunk[1 << 16];
    for (size_t offset = 0; offset < bytes.size();) {
        const ssize_t n =
            ::pread(fd, chunk, std::min(sizeof chunk, bytes.size() - offset), off_t(offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        if (n == 0 || bytes.substr(offset, size_t(n)) != std::string_view(chunk, size_t(n))) {
            errno = EIO;
            return false;
        }
        offset += size_t(n);
    }
    return true;
}

// The file a path names once the symbolic links at its end are followed: writing replaces
// that file and leaves the links as they are. Nothing when the links loop.
std::optional<std::string> followLinks(std::string path)
{
    for (int hop = 0; hop < kMaxLinkHops; ++hop) {
        std::error_code ec;
        if (!fs::is_symlink(fs::symlink_status(path, ec)))
            return path;
        const fs::path link = fs::read_symlink(path, ec);
        if (ec)
            return path; // unreadable: the write reports why
        // Exactly as the kernel resolves it: relative to the link's directory, no `..` folding.
        path = link.is_absolute() ? link.string() : (fs::path(path).parent_path() / link).string();
    }
    return std::nullopt;
}

// Makes a rename durable: the directory entry is synced too. Some file systems cannot sync a
// directory (EINVAL); there the rename is as durable as it gets.
bool syncDirectoryOf(const std::string& path)
{
    const std::string dir = fs::path(path).parent_path().empty()
                                ? std::string(".")
                                : fs::path(path).parent_path().string();
    Descriptor fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    return fd.get() >= 0 && (::fsync(fd.get()) == 0 || errno == EINVAL);
}

} // namespace

bool writeFileAtomically(const std::string& path, std::string_view bytes, Diagnostics& diags)
{
    const auto refuse = [&](const std::string& reason) {
        diags.atPointer(path, "", "cannot write: " + reason);
        return false;
    };
    const std::optional<std::string> target = followLinks(path);
    if (!target)
        return refuse(linkLoop());
    struct stat st {};
    const bool replacing = ::stat(target->c_str(), &st) == 0;
    if (!replacing && errno != ENOENT)
        return refuse(errno == ELOOP ? linkLoop() : systemReason(errno));
    if (replacing && !S_ISREG(st.st_mode))
        return refuse(notAFile(st.st_mode) + "; only regular files are replaced");
    // Renaming needs only the directory's permission; the file's own is what the user set.
    // Root may write anything, so a file with no write permission at all is read-only for it too.
    if (replacing && ::access(target->c_str(), W_OK) != 0)
        return refuse(systemReason(errno));
    if (replacing && (st.st_mode & 0222) == 0)
        return refuse(systemReason(EACCES) + " (the file is read-only)");

    std::string temp = *target + ".XXXXXX";
    Descriptor fd(::mkstemp(temp.data()));
    if (fd.get() < 0)
        return refuse(systemReason(errno) + " (creating a temporary file beside it)");
    const auto fail = [&](int error) {
        ::unlink(temp.c_str());
        return refuse(systemReason(error));
    };
    const mode_t mode = replacing ? (st.st_mode & 07777) : 0644;
    if (::fchmod(fd.get(), mode) != 0 || !writeAll(fd.get(), bytes) || ::fsync(fd.get()) != 0 ||
        !holds(fd.get(), bytes))
        return fail(errno);
    if (!fd.close() || ::rename(temp.c_str(), target->c_str()) != 0)
        return fail(errno);
    if (!syncDirectoryOf(*target))
        return refuse(systemReason(errno) +
                      " (the file was replaced, but its directory could not be synced to disk)");
    return true;
}

std::optional<std::string> inputWrittenBy(const std::string& output,
                                          const std::vector<std::string>& inputs)
{
    struct stat out {};
    if (::stat(output.c_str(), &out) != 0)
        return std::nullopt;
    for (const std::string& input : inputs) {
        struct stat in {};
        if (::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
            return input;
    }
    return std::nullopt;
}

std::string writesOverInput(const std::string& output, const std::string& input)
{
    const std::string same =
        output == input ? "is" : "is the same file as " + inQuotes(input) + ",";
    return inQuotes(output) + " " + same +
           " one of the files read; ClusterScope never writes over its own input: name another "
           "output";
}

} // namespace cs
