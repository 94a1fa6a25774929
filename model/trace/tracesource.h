#pragma once
// The bytes of a trace file, plain or gzip-compressed, read a chunk at a time through zlib (which
// reads a file that is not gzip as it is), as the characters nlohmann's SAX parser asks for. It
// reports its progress and stops at the cancel flag between chunks.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

namespace cs {

class TraceSource {
public:
    // Progress: raw (compressed) bytes read so far of this file.
    TraceSource(const std::string& path, std::function<void(int64_t)> progress,
                const std::atomic<bool>* cancel);
    ~TraceSource();
    TraceSource(const TraceSource&) = delete;
    TraceSource& operator=(const TraceSource&) = delete;

    bool opened() const { return m_file != nullptr; }
    // Why it stopped early: the system's or zlib's reason ("unexpected end of file"); empty when
    // it read to the end (or was cancelled).
    const std::string& error() const { return m_error; }
    bool cancelled() const { return m_cancelled; }
    bool gzip() const { return m_gzip; }
    int64_t bytesOut() const { return m_bytesOut; } // uncompressed bytes handed out

    // The characters, as an input iterator pair for nlohmann::json::sax_parse.
    class Iterator {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = char;
        using difference_type = std::ptrdiff_t;
        using pointer = const char*;
        using reference = const char&;

        Iterator() = default;
        explicit Iterator(TraceSource* source)
            : m_source(source)
        {
        }
        const char& operator*() const { return m_source->m_buffer[m_source->m_pos]; }
        Iterator& operator++()
        {
            if (++m_source->m_pos >= m_source->m_size)
                m_source->refill();
            return *this;
        }
        bool operator==(const Iterator& other) const { return atEnd() == other.atEnd(); }
        bool operator!=(const Iterator& other) const { return !(*this == other); }

    private:
        bool atEnd() const { return !m_source || m_source->m_pos >= m_source->m_size; }
        TraceSource* m_source = nullptr;
    };
    Iterator begin();
    Iterator end() { return Iterator(); }

private:
    void refill();

    void* m_file = nullptr; // gzFile
    std::vector<char> m_buffer;
    size_t m_pos = 0;
    size_t m_size = 0;
    int64_t m_bytesOut = 0;
    bool m_gzip = false;
    bool m_cancelled = false;
    std::string m_error;
    std::function<void(int64_t)> m_progress;
    const std::atomic<bool>* m_cancel = nullptr;
};

} // namespace cs
