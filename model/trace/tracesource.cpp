#include "tracesource.h"

#include <cerrno>
#include <cstring>

#include <zlib.h>

namespace cs {

namespace {

constexpr unsigned kChunkBytes = 1u << 20;

} // namespace

TraceSource::TraceSource(const std::string& path, std::function<void(int64_t)> progress,
                         const std::atomic<bool>* cancel)
    : m_progress(std::move(progress))
    , m_cancel(cancel)
{
    errno = 0;
    gzFile file = gzopen(path.c_str(), "rb");
    if (!file) {
        m_error = errno ? std::strerror(errno) : "cannot be opened";
        return;
    }
    gzbuffer(file, 256u << 10);
    m_file = file;
    m_buffer.resize(kChunkBytes);
}

TraceSource::~TraceSource()
{
    if (m_file)
        gzclose(static_cast<gzFile>(m_file));
}

TraceSource::Iterator TraceSource::begin()
{
    if (m_size == 0 && m_file)
        refill();
    return Iterator(this);
}

void TraceSource::refill()
{
    m_pos = 0;
    m_size = 0;
    if (!m_file || !m_error.empty() || m_cancelled)
        return;
    if (m_cancel && m_cancel->load(std::memory_order_relaxed)) {
        m_cancelled = true;
        return;
    }
    gzFile file = static_cast<gzFile>(m_file);
    const int n = gzread(file, m_buffer.data(), kChunkBytes);
    if (n < 0) {
        int code = 0;
        const char* why = gzerror(file, &code);
        m_error = code == Z_ERRNO ? std::strerror(errno) : why;
        return;
    }
    if (n == 0) {
        // zlib says a gzip stream cut short only when asked after the end.
        int code = 0;
        const char* why = gzerror(file, &code);
        if (code != Z_OK && code != Z_STREAM_END)
            m_error = why;
    }
    m_gzip = gzdirect(file) == 0;
    m_size = size_t(n);
    m_bytesOut += n;
    if (m_progress)
        m_progress(int64_t(gzoffset(file)));
}

} // namespace cs
