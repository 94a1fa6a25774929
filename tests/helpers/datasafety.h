#pragma once
// What the data-safety tests need from the system: a disk that fills up, a FIFO that notices a
// reader, and a scratch directory. Plain POSIX, for the model and the GUI tests alike.

#include <atomic>
#include <cerrno>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace testing {

// A full disk for this process while the object lives: a write that would take a regular file
// past `bytes` fails (EFBIG, "File too large"), as it would with ENOSPC. SIGXFSZ, which would
// kill the process instead, is ignored. Everything the test wrote before stays as it is.
class FullDisk {
public:
    explicit FullDisk(rlim_t bytes = 16)
    {
        m_saved = {};
        m_active = ::getrlimit(RLIMIT_FSIZE, &m_saved) == 0;
        m_handler = std::signal(SIGXFSZ, SIG_IGN);
        rlimit limit = m_saved;
        limit.rlim_cur = bytes;
        m_active = m_active && ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FullDisk()
    {
        ::setrlimit(RLIMIT_FSIZE, &m_saved);
        std::signal(SIGXFSZ, m_handler);
    }
    FullDisk(const FullDisk&) = delete;
    FullDisk& operator=(const FullDisk&) = delete;
    bool active() const { return m_active; }

private:
    rlimit m_saved;
    void (*m_handler)(int) = SIG_DFL;
    bool m_active = false;
};

// A FIFO that watches for readers: whoever opens it to read is let go at once (a writer opens
// and closes it, so the reader sees an empty file instead of blocking forever) and noticed.
// Code that must refuse a FIFO without opening it leaves opened() false.
class WatchedFifo {
public:
    explicit WatchedFifo(std::string path)
        : m_path(std::move(path))
    {
        m_made = ::mkfifo(m_path.c_str(), 0644) == 0;
        m_watcher = std::thread([this] {
            while (!m_stop) {
                const int fd = ::open(m_path.c_str(), O_WRONLY | O_NONBLOCK);
                if (fd >= 0) { // only succeeds while someone has it open to read
                    m_opened = true;
                    ::close(fd);
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
        });
    }
    ~WatchedFifo()
    {
        m_stop = true;
        m_watcher.join();
        ::unlink(m_path.c_str());
    }
    WatchedFifo(const WatchedFifo&) = delete;
    WatchedFifo& operator=(const WatchedFifo&) = delete;
    const std::string& path() const { return m_path; }
    bool made() const { return m_made; }
    bool opened() const { return m_opened; }

private:
    std::string m_path;
    bool m_made = false;
    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_opened{false};
    std::thread m_watcher;
};

// A listening-less Unix socket bound at a path: a special file any user can make. Tests write
// to it rather than to a device, so that a writer that wrongly replaces special files cannot
// break the machine (as root, replacing /dev/null would).
class BoundSocket {
public:
    explicit BoundSocket(const std::string& path)
        : m_fd(::socket(AF_UNIX, SOCK_STREAM, 0))
    {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        m_bound = m_fd >= 0 && path.size() < sizeof address.sun_path;
        if (m_bound) {
            path.copy(address.sun_path, path.size());
            m_bound =
                ::bind(m_fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0;
        }
    }
    ~BoundSocket()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    BoundSocket(const BoundSocket&) = delete;
    BoundSocket& operator=(const BoundSocket&) = delete;
    bool bound() const { return m_bound; }

private:
    int m_fd;
    bool m_bound = false;
};

// A fresh directory, removed with everything in it.
class ScratchDir {
public:
    ScratchDir()
    {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "cs-datasafety-XXXXXX").string();
        m_path = ::mkdtemp(pattern.data()) ? pattern : std::string();
    }
    ~ScratchDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    std::string path(const std::string& name) const { return m_path + "/" + name; }
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

// `name` in the system's temporary directory.
inline std::string tempPath(const std::string& name)
{
    return (std::filesystem::temp_directory_path() / name).string();
}

inline std::string contentOf(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

inline void writeContent(const std::string& path, const std::string& content)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

inline mode_t modeOf(const std::string& path)
{
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

} // namespace testing
