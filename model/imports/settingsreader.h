#pragma once
// Reading Megatron-Core settings (TrainingSettings: a launch script's flags or a NeMo config's
// keys) one value at a time, every problem located at the setting, every assumption kept for
// the run's notes.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "importreport.h"
#include "loader.h"
#include "text.h"
#include "trainingsettings.h"

namespace cs {

inline constexpr int64_t kMaxSettingValue = int64_t(1) << 40;

// "null", "none", "~" or nothing: a value that says as much as none.
bool isNullWord(const std::string& v);
// "false", "0", "no", "off".
bool isFalseWord(const std::string& v);

// What runFromSettings has read of a run that later settings depend on: the readers of the
// switches and of the work outside the fused kernels take it.
struct RunTraits {
    bool experts = false;
    bool latentAttention = false; // multi-latent attention (its RoPE is its own path)
    std::string precision;        // "bf16", "fp8", "nvfp4"
    int64_t tp = 1;
};

// Reads settings with every problem located at the setting (or, when missing, where the
// command or config starts) and keeps the assumptions for the run's notes.
class SettingsReader {
public:
    SettingsReader(const TrainingSettings& s, const SettingsOrigin& o, ImportReport& r)
        : m_settings(s)
        , m_origin(o)
        , m_report(r)
    {
    }

    // A setting given a null word ("num_query_groups: null") says as much as one left out.
    const Setting* find(const std::string& name) const
    {
        const auto it = m_settings.find(name);
        if (it == m_settings.end())
            return nullptr;
        const std::vector<std::string>& values = it->second.values;
        return values.size() == 1 && isNullWord(values[0]) ? nullptr : &it->second;
    }

    // Set, and not to a false word: "--fp8-format hybrid", "fp8: true", but not "fp8: false".
    bool enabled(const std::string& name) const
    {
        const Setting* s = find(name);
        return s && (s->values.empty() || !isFalseWord(s->values.front()));
    }

    std::string spell(const std::string& name) const
    {
        return m_origin.spell ? m_origin.spell(name) : name;
    }

    const SourcePlace& placeOf(const std::string& name) const
    {
        const Setting* s = find(name);
        return s ? s->place : m_origin.start;
    }

    const SettingsOrigin& origin() const { return m_origin; }

    bool failed() const { return m_failed; }

    void error(const SourcePlace& at, const std::string& message)
    {
        m_report.error(at, message);
        m_failed = true;
    }

    void missing(const std::string& name, const std::string& what)
    {
        error(m_origin.start,
              spell(name) + " is missing (" + what + "); " + m_origin.description + " starts here");
    }

    void assume(const SourcePlace& at, const std::string& message)
    {
        m_report.note(at, message);
        m_assumptions.push_back(message);
    }

    const std::vector<std::string>& assumptions() const { return m_assumptions; }

    // A whole number from `min` to `max`; nothing when absent (reported when required).
    std::optional<int64_t> integer(const std::string& name, const std::string& what,
                                   bool required = false, int64_t min = 1,
                                   int64_t max = kMaxSettingValue)
    {
        const Setting* s = find(name);
        if (!s) {
            if (required)
                missing(name, what);
            return std::nullopt;
        }
        if (s->values.empty()) {
            error(s->place, spell(name) + " needs a value (" + what + ")");
            return std::nullopt;
        }
        const std::string& text = s->values.front();
        const auto n = wholeNumber(text);
        if (!n) {
            std::string hint;
            if (text.find('$') != std::string::npos)
                hint = ": a variable or command the script does not set";
            error(s->place,
                  spell(name) + " = " + cs::inQuotes(text) + " is not a whole number" + hint);
            return std::nullopt;
        }
        if (*n < min || *n > max) {
            error(s->place, spell(name) + " = " + text + " is out of range (" + what + ", " +
                                std::to_string(min) + " to " + withThousands(max) + ")");
            return std::nullopt;
        }
        return *n;
    }

    // A parallel size (or GPU count): 1 when not given, and at most the GPUs a cluster may hold.
    int64_t parallelSize(const std::string& name, const std::string& what)
    {
        return integer(name, what, false, 1, kMaxGpus).value_or(1);
    }

    std::optional<double> number(const std::string& name)
    {
        const Setting* s = find(name);
        if (!s || s->values.empty())
            return std::nullopt;
        const std::string& text = s->values.front();
        size_t used = 0;
        try {
            const double v = std::stod(text, &used);
            if (used == text.size() && std::isfinite(v) && v >= 0)
                return v;
        } catch (const std::exception&) {
        }
        error(s->place, spell(name) + " = " + cs::inQuotes(text) + " is not a number");
        return std::nullopt;
    }

    // A switch: present with no value or a true word.
    bool flag(const std::string& name) const { return enabled(name); }

    std::optional<std::string> word(const std::string& name) const
    {
        const Setting* s = find(name);
        if (!s || s->values.empty())
            return std::nullopt;
        return s->values.front();
    }

    std::vector<std::string> words(const std::string& name) const
    {
        const Setting* s = find(name);
        return s ? s->values : std::vector<std::string>{};
    }

private:
    static std::optional<int64_t> wholeNumber(const std::string& text)
    {
        size_t used = 0;
        try {
            if (!text.empty() && (std::isdigit(static_cast<unsigned char>(text[0])) ||
                                  text[0] == '-' || text[0] == '+')) {
                const long long n = std::stoll(text, &used);
                if (used == text.size())
                    return n;
                const double d = std::stod(text, &used); // 8.0, 1e3
                if (used == text.size() && d == std::floor(d) && std::fabs(d) < 1e15)
                    return int64_t(d);
            }
        } catch (const std::exception&) {
        }
        return std::nullopt;
    }

    const TrainingSettings& m_settings;
    const SettingsOrigin& m_origin;
    ImportReport& m_report;
    std::vector<std::string> m_assumptions;
    bool m_failed = false;
};

} // namespace cs
