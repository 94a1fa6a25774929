#include "layerpattern.h"

#include <cctype>
#include <cstdint>

namespace cs {

namespace {

constexpr size_t kMaxLayerPattern = 1 << 16;

class LayerPattern {
public:
    explicit LayerPattern(std::string text)
        : m_text(std::move(text))
    {
    }

    std::optional<std::vector<int>> evaluate()
    {
        auto v = sum();
        skip();
        if (!v || m_i != m_text.size())
            return std::nullopt;
        return v;
    }

private:
    void skip()
    {
        while (m_i < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_i])))
            ++m_i;
    }
    bool eat(char c)
    {
        skip();
        if (m_i < m_text.size() && m_text[m_i] == c) {
            ++m_i;
            return true;
        }
        return false;
    }
    std::optional<int64_t> integer()
    {
        skip();
        const size_t start = m_i;
        while (m_i < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_i])) &&
               m_i - start < 9)
            ++m_i;
        if (m_i == start)
            return std::nullopt;
        return std::stoll(m_text.substr(start, m_i - start));
    }
    std::optional<std::vector<int>> sum()
    {
        auto left = product();
        while (left && eat('+')) {
            const auto right = product();
            if (!right || left->size() + right->size() > kMaxLayerPattern)
                return std::nullopt;
            left->insert(left->end(), right->begin(), right->end());
        }
        return left;
    }
    std::optional<std::vector<int>> product()
    {
        auto left = atom();
        while (left && eat('*')) {
            const auto times = integer();
            if (!times || left->size() * size_t(*times) > kMaxLayerPattern)
                return std::nullopt;
            std::vector<int> repeated;
            for (int64_t k = 0; k < *times; ++k)
                repeated.insert(repeated.end(), left->begin(), left->end());
            left = std::move(repeated);
        }
        return left;
    }
    std::optional<std::vector<int>> atom()
    {
        if (++m_depth > 64)
            return std::nullopt;
        std::optional<std::vector<int>> out;
        if (eat('(')) {
            out = sum();
            if (!eat(')'))
                out.reset();
        } else if (eat('[')) {
            out.emplace();
            if (!eat(']')) {
                do {
                    const auto v = integer();
                    if (!v || out->size() >= kMaxLayerPattern) {
                        out.reset();
                        break;
                    }
                    out->push_back(int(*v));
                } while (eat(','));
                if (out && !eat(']'))
                    out.reset();
            }
        }
        --m_depth;
        return out;
    }

    std::string m_text;
    size_t m_i = 0;
    int m_depth = 0;
};

} // namespace

std::optional<std::vector<int>> evaluateLayerPattern(const std::string& text)
{
    return LayerPattern(text).evaluate();
}

} // namespace cs
