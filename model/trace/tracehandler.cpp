#include "tracehandler.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "loader.h"
#include "text.h"
#include "tracesource.h"

namespace cs {

using nlohmann::json;

std::vector<int> ranksOfText(const std::string& text)
{
    std::vector<int> ranks;
    const char* p = text.data();
    const char* end = p + text.size();
    while (p < end) {
        if (*p >= '0' && *p <= '9') {
            int r = 0;
            const auto [next, ec] = std::from_chars(p, end, r);
            if (ec != std::errc())
                return {};
            ranks.push_back(r);
            p = next;
        } else {
            ++p;
        }
    }
    return ranks;
}

int32_t RawTrace::groupOf(const std::string& name, const std::string& description,
                          std::vector<int> ranks)
{
    if (name.empty() && ranks.empty())
        return -1; // "Process Group Ranks": "[]" and no name: no group known
    for (size_t i = 0; i < groups.size(); ++i) {
        ProcessGroup& g = groups[i];
        const bool sameName = !name.empty() && g.name == name;
        const bool sameRanks = name.empty() && !ranks.empty() && g.ranks == ranks;
        if (sameName || sameRanks) {
            if (g.ranks.empty())
                g.ranks = std::move(ranks);
            if (g.description.empty())
                g.description = description;
            return int32_t(i);
        }
    }
    if (groups.size() >= kMaxRankGroups) {
        if (overLimit.empty())
            overLimit = "it names more than " + withThousands(int64_t(kMaxRankGroups)) +
                        " process groups, the most a trace may";
        return -1;
    }
    groups.push_back({name, description, std::move(ranks)});
    return int32_t(groups.size() - 1);
}

int32_t RawTrace::nameIndex(std::string&& name, KernelKind& kind)
{
    const auto found = m_names.find(name);
    if (found != m_names.end()) {
        kind = m_nameKinds[size_t(found->second)];
        return found->second;
    }
    kind = kindOfKernelName(name);
    if (kernelNames.size() >= kMaxKernelNames) {
        // The rest share one name; their figures are the same.
        if (kernelNames.size() == kMaxKernelNames)
            kernelNames.push_back("(one of more than " + withThousands(int64_t(kMaxKernelNames)) +
                                  " kernel names)");
        return int32_t(kMaxKernelNames);
    }
    const int32_t index = int32_t(kernelNames.size());
    kernelNames.push_back(name);
    m_nameKinds.push_back(kind);
    m_names.emplace(std::move(name), index);
    return index;
}

namespace {

enum class Top : uint8_t { Other, Events, DistInfo, Unit, Base };
enum class Cat : uint8_t { Other, Kernel, Runtime, Annotation, CpuOp };
enum class Field : uint8_t {
    Other,
    Ph,
    Cat,
    Name,
    Ts,
    Dur,
    Tid,
    Args,
    ExternalId,
    Correlation,
    Stream,
    Collective,
    GroupName,
    GroupDesc,
    GroupRanks
};

// The event being read.
struct Event {
    char ph = 0;
    Cat cat = Cat::Other;
    std::string name;
    double ts = 0;
    double dur = 0;
    bool hasTs = false;
    bool hasDur = false;
    int64_t tid = 0;
    int64_t externalId = -1;
    int64_t correlation = -1;
    int64_t stream = 0;
    std::string collective, groupName, groupDesc, groupRanks;

    void clear()
    {
        ph = 0;
        cat = Cat::Other;
        name.clear();
        hasTs = hasDur = false;
        ts = dur = 0;
        tid = 0;
        externalId = correlation = -1;
        stream = 0;
        collective.clear();
        groupName.clear();
        groupDesc.clear();
        groupRanks.clear();
    }
};

Cat catOf(const std::string& text)
{
    if (text == "kernel")
        return Cat::Kernel;
    if (text == "cuda_runtime" || text == "cuda_driver")
        return Cat::Runtime;
    if (text == "user_annotation")
        return Cat::Annotation;
    if (text == "cpu_op")
        return Cat::CpuOp;
    return Cat::Other;
}

Field eventFieldOf(const std::string& k)
{
    if (k.size() < 2 || k.size() > 4)
        return Field::Other;
    if (k == "ph")
        return Field::Ph;
    if (k == "cat")
        return Field::Cat;
    if (k == "name")
        return Field::Name;
    if (k == "ts")
        return Field::Ts;
    if (k == "dur")
        return Field::Dur;
    if (k == "tid")
        return Field::Tid;
    if (k == "args")
        return Field::Args;
    return Field::Other;
}

Field argFieldOf(const std::string& k)
{
    switch (k.size()) {
    case 6:
        return k == "stream" ? Field::Stream : Field::Other;
    case 11:
        return k == "External id"   ? Field::ExternalId
               : k == "correlation" ? Field::Correlation
                                    : Field::Other;
    case 15:
        return k == "Collective name" ? Field::Collective : Field::Other;
    case 18:
        return k == "Process Group Name" ? Field::GroupName : Field::Other;
    case 19:
        return k == "Process Group Ranks" ? Field::GroupRanks : Field::Other;
    case 25:
        return k == "Process Group Description" ? Field::GroupDesc : Field::Other;
    default:
        return Field::Other;
    }
}

constexpr std::string_view kStepPrefix = "ProfilerStep#";
// Times beyond any clock (microseconds; 2.5e15 is the year 2049 on the epoch clock older
// PyTorch writes): refused, so that sums stay finite and clocks in nanoseconds fit int64.
constexpr double kMaxTraceMicros = kMaxTraceNanoseconds / 1000;

class Handler {
public:
    explicit Handler(RawTrace& trace)
        : m_trace(trace)
    {
    }
    std::string problem;

    bool null() { return scalar(nullptr, 0, 0, false); }
    bool boolean(bool b) { return scalar(nullptr, int64_t(b), double(b), false); }
    bool number_integer(int64_t n) { return scalar(nullptr, n, double(n), true); }
    bool number_unsigned(uint64_t n)
    {
        return scalar(nullptr, int64_t(std::min<uint64_t>(n, INT64_MAX)), double(n), true);
    }
    bool number_float(double x, const std::string&)
    {
        // as a whole number too (ids, ranks), held to int64's range
        return scalar(nullptr, int64_t(std::clamp(x, -9.2e18, 9.2e18)), x, true);
    }
    bool string(std::string& s) { return scalar(&s, 0, 0, false); }
    bool binary(json::binary_t&) { return true; }
    bool start_object(size_t) { return enter(true); }
    bool start_array(size_t) { return enter(false); }
    bool end_object() { return leave(); }
    bool end_array() { return leave(); }
    bool key(std::string& k);
    bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception& e)
    {
        std::string what = e.what();
        const size_t colon = what.find(": ");
        if (what.rfind("[json.exception", 0) == 0 && colon != std::string::npos)
            what = what.substr(colon + 2);
        problem = "not JSON at byte " + withThousands(int64_t(position)) + ": " + what;
        return false;
    }

private:
    bool enter(bool object);
    bool leave();
    bool scalar(std::string* s, int64_t n, double x, bool number);
    void eventScalar(Field f, std::string* s, int64_t n, double x, bool number);
    void finishEvent();
    bool domValue(json value);

    RawTrace& m_trace;
    int m_depth = 0;
    int m_skipFrom = 0; // the depth from which everything is skipped; 0: none
    Top m_top = Top::Other;
    bool m_inEvents = false;
    bool m_inEvent = false;
    bool m_inArgs = false;
    Field m_field = Field::Other;
    Event m_event;
    // distributedInfo as a document
    std::vector<json*> m_dom;
    std::string m_domKey;
    int64_t m_domValues = 0;
};

bool Handler::enter(bool object)
{
    ++m_depth;
    if (m_depth > kMaxJsonDepth) {
        problem = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
        return false;
    }
    if (m_skipFrom)
        return true;
    if (!m_dom.empty())
        return domValue(object ? json::object() : json::array());
    switch (m_depth) {
    case 1:
        if (!object) {
            problem = "not a PyTorch profiler trace: an array, not an object with traceEvents";
            return false;
        }
        return true;
    case 2:
        if (m_top == Top::Events && !object) {
            m_inEvents = true;
            m_trace.hasTraceEvents = true;
            return true;
        }
        if (m_top == Top::DistInfo && object) {
            m_trace.distributedInfo = json::object();
            m_dom.push_back(&*m_trace.distributedInfo);
            return true;
        }
        break;
    case 3:
        if (m_inEvents && object) {
            m_inEvent = true;
            ++m_trace.events;
            m_event.clear();
            return true;
        }
        break;
    case 4:
        if (m_inEvent && object && m_field == Field::Args) {
            m_inArgs = true;
            return true;
        }
        break;
    default:
        break;
    }
    m_skipFrom = m_depth;
    return true;
}

bool Handler::leave()
{
    if (m_skipFrom) {
        if (m_depth == m_skipFrom)
            m_skipFrom = 0;
        --m_depth;
        return true;
    }
    if (!m_dom.empty())
        m_dom.pop_back();
    if (m_depth == 4 && m_inArgs)
        m_inArgs = false;
    else if (m_depth == 3 && m_inEvent) {
        m_inEvent = false;
        finishEvent();
    } else if (m_depth == 2)
        m_inEvents = false;
    --m_depth;
    return m_trace.overLimit.empty();
}

bool Handler::key(std::string& k)
{
    if (m_skipFrom)
        return true;
    if (!m_dom.empty()) {
        m_domKey = k;
        return true;
    }
    if (m_depth == 1) {
        m_top = k == "traceEvents"           ? Top::Events
                : k == "distributedInfo"     ? Top::DistInfo
                : k == "displayTimeUnit"     ? Top::Unit
                : k == "baseTimeNanoseconds" ? Top::Base
                                             : Top::Other;
    } else if (m_inArgs && m_depth == 4) {
        m_field = argFieldOf(k);
    } else if (m_inEvent && m_depth == 3) {
        m_field = eventFieldOf(k);
    }
    return true;
}

bool Handler::domValue(json value)
{
    if (++m_domValues > kMaxJsonValues) {
        problem = "distributedInfo holds more than " + withThousands(kMaxJsonValues) +
                  " values, the most a file may";
        return false;
    }
    json& parent = *m_dom.back();
    json* added = nullptr;
    if (parent.is_object())
        added = &(parent[m_domKey] = std::move(value));
    else {
        parent.push_back(std::move(value));
        added = &parent.back();
    }
    if (added->is_structured())
        m_dom.push_back(added);
    return true;
}

bool Handler::scalar(std::string* s, int64_t n, double x, bool number)
{
    if (m_skipFrom)
        return true;
    if (!m_dom.empty()) {
        if (s)
            return domValue(json(std::move(*s)));
        return domValue(number ? json(x == double(n) ? json(n) : json(x)) : json(nullptr));
    }
    if (m_depth == 1) {
        if (m_top == Top::Unit && s)
            m_trace.displayTimeUnit = *s;
        else if (m_top == Top::Base && number)
            m_trace.baseTimeNanoseconds = n;
        return true;
    }
    if ((m_inArgs && m_depth == 4) || (m_inEvent && m_depth == 3))
        eventScalar(m_field, s, n, x, number);
    return true;
}

void Handler::eventScalar(Field f, std::string* s, int64_t n, double x, bool number)
{
    Event& e = m_event;
    switch (f) {
    case Field::Ph:
        if (s && s->size() == 1)
            e.ph = (*s)[0];
        break;
    case Field::Cat:
        if (s)
            e.cat = catOf(*s);
        break;
    case Field::Name:
        if (s)
            std::swap(e.name, *s);
        break;
    case Field::Ts:
        e.hasTs = number;
        e.ts = x;
        break;
    case Field::Dur:
        e.hasDur = number;
        e.dur = x;
        break;
    case Field::Tid:
        e.tid = number ? n : int64_t(std::hash<std::string>()(s ? *s : std::string()));
        break;
    case Field::ExternalId:
        e.externalId = number ? n : -1;
        break;
    case Field::Correlation:
        e.correlation = number ? n : -1;
        break;
    case Field::Stream:
        e.stream = number ? n : 0;
        break;
    case Field::Collective:
        if (s)
            std::swap(e.collective, *s);
        break;
    case Field::GroupName:
        if (s)
            std::swap(e.groupName, *s);
        else if (number)
            e.groupName = std::to_string(n);
        break;
    case Field::GroupDesc:
        if (s)
            std::swap(e.groupDesc, *s);
        break;
    case Field::GroupRanks:
        if (s)
            std::swap(e.groupRanks, *s);
        break;
    default:
        break;
    }
}

void Handler::finishEvent()
{
    Event& e = m_event;
    if (e.ph != 'X' || !e.hasTs)
        return;
    RawTrace& t = m_trace;
    if (!(std::abs(e.ts) <= kMaxTraceMicros) || !(e.dur <= kMaxTraceMicros)) {
        if (t.overLimit.empty())
            t.overLimit = "an event at ts " + numberText(e.ts) + " lasting " + numberText(e.dur) +
                          " us: a time no profiler writes (at most 2.5e15 us, the year 2049 on an "
                          "epoch clock)";
        return;
    }
    auto full = [&](size_t count, const char* what) {
        if (count < kMaxRankKernels)
            return false;
        if (t.overLimit.empty())
            t.overLimit = "it holds more than " + withThousands(int64_t(kMaxRankKernels)) + " " +
                          what + ", the most a trace of one rank may";
        return true;
    };
    const bool hasGroup = !e.groupName.empty() || !e.groupRanks.empty();
    switch (e.cat) {
    case Cat::Kernel: {
        if (!e.hasDur || full(t.kernels.size(), "GPU kernels"))
            return;
        RawKernel k;
        k.ts = e.ts;
        k.dur = std::max(0.0, e.dur);
        k.externalId = e.externalId;
        k.correlation = e.correlation;
        k.stream = int32_t(e.stream);
        KernelKind byName = KernelKind::Compute;
        k.name = t.nameIndex(std::move(e.name), byName);
        k.kind = commKindOf(byName, e.collective);
        if (isComm(k.kind)) {
            k.kindSettled = nameSaysKind(byName) || !e.collective.empty();
            if (hasGroup)
                k.group = t.groupOf(e.groupName, e.groupDesc, ranksOfText(e.groupRanks));
        }
        t.kernels.push_back(k);
        return;
    }
    case Cat::Runtime:
        if (e.correlation >= 0 && !full(t.launches.size(), "kernel launches"))
            t.launches[e.correlation] = {e.ts, e.tid, e.externalId};
        return;
    case Cat::Annotation:
    case Cat::CpuOp:
        if (e.name.rfind(kStepPrefix, 0) == 0) {
            int64_t number = 0;
            const char* first = e.name.data() + kStepPrefix.size();
            const char* last = e.name.data() + e.name.size();
            if (std::from_chars(first, last, number).ptr != last)
                return;
            if (t.steps.size() >= kMaxRankSteps) {
                if (t.overLimit.empty())
                    t.overLimit = "it holds more than " + withThousands(int64_t(kMaxRankSteps)) +
                                  " ProfilerStep#N annotations, the most a trace may";
                return;
            }
            t.steps.push_back({number, e.ts, e.hasDur ? std::max(0.0, e.dur) : 0.0});
        } else if (e.name == "record_param_comms" && !full(t.commOps.size(), "collectives")) {
            RawCommOp op{e.ts, e.hasDur ? e.dur : 0.0, e.tid, e.externalId, std::nullopt, -1};
            if (!e.collective.empty())
                op.kind = kindOfCollectiveName(e.collective);
            if (hasGroup)
                op.group = t.groupOf(e.groupName, e.groupDesc, ranksOfText(e.groupRanks));
            t.commOps.push_back(op);
        }
        return;
    default:
        return;
    }
}

} // namespace

bool readRawTrace(TraceSource& source, RawTrace& trace, std::string& problem)
{
    Handler handler(trace);
    const bool ok = json::sax_parse(source.begin(), source.end(), &handler);
    if (!handler.problem.empty())
        problem = handler.problem;
    else if (!trace.overLimit.empty())
        problem = trace.overLimit;
    else if (!ok)
        problem = "not JSON";
    return ok && problem.empty();
}

} // namespace cs
