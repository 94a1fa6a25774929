#include "timelinemapping.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "activity.h"

namespace {

// Below a microsecond the model has nothing to show.
constexpr double kMinSpanS = 1e-6;

// Stage rows: send lane on top, main lane, communication lane below.
constexpr int kSendLane = 0;
constexpr int kMainLane = 1;
constexpr int kCommLane = 2;
constexpr int kStageLanes = 3;
// The lanes' boundaries in a stage row: without a measured band, and with one (the predicted
// lanes in the rows' top, the measured lane under them, TimelineLanes::kMeasuredTop).
struct StageBands {
    double sendBottom;
    double commTop;
    double commBottom;
};
constexpr StageBands kPredictedOnly{0.18, 0.80, 1.0};
constexpr StageBands kWithMeasured{0.12, 0.52, 0.66};

const StageBands& bandsOf(bool measured)
{
    return measured ? kWithMeasured : kPredictedOnly;
}

} // namespace

TimelineMapping TimelineMapping::fit(double totalS, double left, double width)
{
    TimelineMapping m;
    m.left = left;
    m.width = std::max(1.0, width);
    m.totalS = std::max(kMinSpanS, totalS);
    m.startS = 0;
    m.spanS = m.totalS;
    return m;
}

TimelineMapping TimelineMapping::clamped() const
{
    TimelineMapping m = *this;
    m.spanS = std::clamp(spanS, std::min(kMinSpanS, totalS), totalS);
    m.startS = std::clamp(startS, 0.0, totalS - m.spanS);
    return m;
}

TimelineMapping TimelineMapping::zoomedAt(double x, double factor) const
{
    const double anchor = timeOf(x);
    TimelineMapping m = *this;
    m.spanS = std::clamp(spanS / factor, std::min(kMinSpanS, totalS), totalS);
    m.startS = anchor - (x - left) * (m.spanS / width);
    return m.clamped();
}

TimelineMapping TimelineMapping::pannedBy(double dx) const
{
    TimelineMapping m = *this;
    m.startS -= dx * secondsPerPixel();
    return m.clamped();
}

TimelineMapping TimelineMapping::resized(double newLeft, double newWidth) const
{
    TimelineMapping m = *this;
    m.left = newLeft;
    m.width = std::max(1.0, newWidth);
    return m.clamped();
}

TimelineMapping TimelineMapping::following(double t) const
{
    if (t >= startS && t <= endS())
        return *this;
    TimelineMapping m = *this;
    m.startS = t < startS ? t : t - spanS;
    return m.clamped();
}

TimelineMapping TimelineMapping::centeredOn(double t) const
{
    TimelineMapping m = *this;
    m.startS = t - spanS / 2;
    return m.clamped();
}

int TimelineGeometry::rowAt(double y) const
{
    if (y < top || rowHeight <= 0)
        return -1;
    const int row = int(std::floor((y - top + scroll) / rowHeight));
    return row < rows ? row : -1;
}

double TimelineGeometry::fractionInRow(double y) const
{
    const double f = (y - top + scroll) / rowHeight;
    return f - std::floor(f);
}

namespace {

constexpr uint32_t kEventKindCount = uint32_t(cs::enumValues<cs::EventKind>().size());
// "compute": forward, backward, recompute and the optimizer, and the measured lanes' compute.
constexpr uint32_t kComputeBit = kEventKindCount + uint32_t(cs::kDimCount);
static_assert(kComputeBit < 32);

bool isComputeKind(cs::EventKind k)
{
    return k == cs::EventKind::Forward || k == cs::EventKind::Backward ||
           k == cs::EventKind::Recompute || k == cs::EventKind::Optimizer;
}

std::string lowered(std::string_view word)
{
    std::string out(word);
    for (char& c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::optional<uint32_t> kindBit(const std::string& word)
{
    for (cs::EventKind k : cs::enumValues<cs::EventKind>())
        if (word == cs::toString(k) || word == lowered(cs::labelOf(k)))
            return uint32_t(k);
    if (word == "wait" || word == "waiting" || word == "idle")
        return uint32_t(cs::EventKind::Bubble);
    if (word == "compute")
        return kComputeBit;
    if (word == "send" || word == "sends")
        return kEventKindCount + uint32_t(cs::Dim::PP);
    for (const cs::DimInfo& d : cs::kDims)
        if (word == d.key)
            return kEventKindCount + uint32_t(d.dim);
    return std::nullopt;
}

std::optional<int> numberIn(std::string_view text)
{
    if (text.empty() || text.size() > 9)
        return std::nullopt;
    int n = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

bool contains(const std::vector<int>& values, int v)
{
    return std::find(values.begin(), values.end(), v) != values.end();
}

} // namespace

std::optional<EventFilter> EventFilter::parse(std::string_view text, std::string* problem)
{
    std::vector<std::string> words;
    std::string word;
    for (char c : text) {
        if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
            if (!word.empty())
                words.push_back(lowered(word));
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty())
        words.push_back(lowered(word));

    EventFilter f;
    for (size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        // "stage 3", "stage3", "s3"; "mb 4", "micro-batch 4"; "chunk 1"
        const auto numbered = [&](std::initializer_list<std::string_view> names,
                                  std::vector<int>& into) {
            for (std::string_view name : names) {
                if (w.rfind(name, 0) != 0)
                    continue;
                std::optional<int> n = numberIn(std::string_view(w).substr(name.size()));
                if (!n && w.size() == name.size() && i + 1 < words.size() &&
                    (n = numberIn(words[i + 1])))
                    ++i;
                if (n) {
                    into.push_back(*n);
                    return true;
                }
            }
            return false;
        };
        if (const auto bit = kindBit(w))
            f.m_kinds |= 1u << *bit;
        else if (w == "exposed")
            f.m_exposed = true;
        else if (w == "hidden")
            f.m_hidden = true;
        else if (w == "critical")
            f.m_critical = true;
        else if (w == "measured")
            f.m_measured = true;
        else if (numbered({"stage", "s"}, f.m_stages) ||
                 numbered({"micro-batch", "microbatch", "mb"}, f.m_microBatches) ||
                 numbered({"chunk"}, f.m_chunks)) {
        } else {
            if (problem)
                *problem = "\"" + w +
                           "\" is not a kind, dimension or stage: try forward, backward, "
                           "compute, bubble, tp, dp, stage 3, mb 2, chunk 1, exposed, critical "
                           "or measured";
            return std::nullopt;
        }
    }
    return f;
}

bool EventFilter::empty() const
{
    return m_kinds == 0 && m_stages.empty() && m_microBatches.empty() && m_chunks.empty() &&
           !m_exposed && !m_hidden && !m_critical && !m_measured;
}

bool EventFilter::matches(const cs::Event& e) const
{
    const uint32_t bit = e.isComm() ? kEventKindCount + uint32_t(e.dim) : uint32_t(e.kind);
    const bool comm = m_kinds & (1u << uint32_t(cs::EventKind::Comm));
    const bool compute = (m_kinds & (1u << kComputeBit)) && isComputeKind(e.kind);
    if (m_measured ||
        (m_kinds != 0 && !(m_kinds & (1u << bit)) && !(comm && e.isComm()) && !compute))
        return false;
    if (!m_stages.empty() && !contains(m_stages, e.stage))
        return false;
    if (!m_microBatches.empty() && !contains(m_microBatches, e.microBatch))
        return false;
    if (!m_chunks.empty() && !contains(m_chunks, e.chunk))
        return false;
    if (m_exposed && !(e.isComm() && e.exposed))
        return false;
    if (m_hidden && !(e.isComm() && !e.exposed))
        return false;
    return !m_critical || e.critical;
}

bool EventFilter::matchesMeasured(const TimelineMeasuredItem& item, int stage) const
{
    if (m_kinds != 0) {
        bool kind = false;
        switch (item.kind) {
        case cs::LaneIntervalKind::Compute:
            kind = m_kinds & (1u << kComputeBit);
            break;
        case cs::LaneIntervalKind::Idle:
            kind = m_kinds & (1u << uint32_t(cs::EventKind::Bubble));
            break;
        case cs::LaneIntervalKind::Comm:
            kind = (m_kinds & (1u << uint32_t(cs::EventKind::Comm))) ||
                   (item.dim && (m_kinds & (1u << (kEventKindCount + uint32_t(*item.dim)))));
            break;
        }
        if (!kind)
            return false;
    }
    if (!m_stages.empty() && !contains(m_stages, stage))
        return false;
    if (!m_microBatches.empty() || !m_chunks.empty() || m_hidden || m_critical)
        return false;
    return !m_exposed || item.kind == cs::LaneIntervalKind::Comm;
}

std::vector<TimelineOp> timelineOps(const std::vector<cs::Event>& events)
{
    std::vector<TimelineOp> ops;
    for (int i = 0; i < int(events.size()); ++i) {
        const cs::Event& e = events[size_t(i)];
        // Bubbles precede their op and a pipeline send runs on the sending stage.
        if (e.op < 0 || e.kind == cs::EventKind::Bubble || (e.isComm() && e.dim == cs::Dim::PP))
            continue;
        if (size_t(e.op) >= ops.size())
            ops.resize(size_t(e.op) + 1);
        TimelineOp& op = ops[size_t(e.op)];
        if (op.stage < 0) {
            op = {e.stage, e.start, e.end, e.dependsOn, i};
            continue;
        }
        op.start = std::min(op.start, e.start);
        op.end = std::max(op.end, e.end);
        if (!e.isComm() && e.kind != cs::EventKind::Recompute)
            op.event = i;
    }
    return ops;
}

std::vector<std::pair<int, int>> dependencyArrows(const std::vector<TimelineOp>& ops,
                                                  const cs::Event& selected)
{
    std::vector<std::pair<int, int>> arrows;
    const int op = selected.op;
    if (op < 0 || size_t(op) >= ops.size() || ops[size_t(op)].stage < 0)
        return arrows;
    const int from = ops[size_t(op)].dependsOn;
    if (from >= 0 && size_t(from) < ops.size() && ops[size_t(from)].stage >= 0)
        arrows.push_back({from, op});
    for (int j = 0; j < int(ops.size()); ++j)
        if (ops[size_t(j)].dependsOn == op && ops[size_t(j)].stage >= 0)
            arrows.push_back({op, j});
    return arrows;
}

TimelineLanes::TimelineLanes(const std::vector<cs::Event>& events, int stages, bool measuredBand)
    : m_stages(std::max(1, stages))
    , m_measuredBand(measuredBand)
{
    const StageBands& b = bandsOf(measuredBand);
    for (int s = 0; s < m_stages; ++s) {
        m_lanes.push_back({s, 0.0, b.sendBottom, {}, 0});
        m_lanes.push_back({s, b.sendBottom, b.commTop, {}, 0});
        m_lanes.push_back({s, b.commTop, b.commBottom, {}, 0});
    }
    // The fabric row: a lane across it for cluster-wide traffic, drawn first so that the
    // sub-lanes of each stage stay visible over it.
    m_lanes.push_back({m_stages, 0.0, 1.0, {}, 0});
    for (int s = 0; s < m_stages; ++s) {
        const double h = 1.0 / m_stages;
        m_lanes.push_back({m_stages, s * h, (s + 1) * h, {}, 0});
    }

    auto add = [&](TimelineLane& lane, const cs::Event& e, int i) {
        lane.items.push_back({e.start, e.end, i});
    };
    for (int i = 0; i < int(events.size()); ++i) {
        const cs::Event& e = events[size_t(i)];
        const std::optional<cs::Dim> dim = e.isComm() ? std::optional(e.dim) : std::nullopt;
        const int first = e.stage < 0 ? 0 : std::min(e.stage, m_stages - 1);
        const int last = e.stage < 0 ? m_stages - 1 : first;
        if (dim == cs::Dim::DP) {
            add(lane(m_stages, e.stage < 0 ? 0 : 1 + first), e, i);
            if (e.stage < 0)
                continue;
        }
        const int sub = !dim ? kMainLane : dim == cs::Dim::PP ? kSendLane : kCommLane;
        for (int s = first; s <= last; ++s)
            add(lane(s, sub), e, i);
    }
    for (TimelineLane& l : m_lanes) {
        std::stable_sort(
            l.items.begin(), l.items.end(),
            [](const TimelineItem& a, const TimelineItem& b) { return a.start < b.start; });
        for (const TimelineItem& it : l.items)
            l.longestS = std::max(l.longestS, it.end - it.start);
    }
}

const TimelineLane& TimelineLanes::mainLane(int stage) const
{
    return m_lanes[size_t(laneIndex(stage, kMainLane))];
}

bool TimelineLanes::inMainLane(double fraction) const
{
    const StageBands& b = bandsOf(m_measuredBand);
    return fraction >= b.sendBottom && fraction < b.commTop;
}

double TimelineLanes::commLaneMiddle() const
{
    const StageBands& b = bandsOf(m_measuredBand);
    return (b.commTop + b.commBottom) / 2;
}

bool TimelineLanes::inMeasuredBand(double fraction) const
{
    return m_measuredBand && fraction >= bandsOf(true).commBottom;
}

int TimelineLanes::laneIndex(int row, int sub) const
{
    return row < m_stages ? row * kStageLanes + sub : m_stages * kStageLanes + sub;
}

std::pair<size_t, size_t> TimelineLanes::visibleItems(const TimelineLane& lane, double t0,
                                                      double t1)
{
    auto byStart = [](const TimelineItem& it, double t) { return it.start < t; };
    const auto& items = lane.items;
    const auto first = std::lower_bound(items.begin(), items.end(), t0 - lane.longestS, byStart);
    const auto last =
        std::upper_bound(items.begin(), items.end(), t1,
                         [](double t, const TimelineItem& it) { return t < it.start; });
    return {size_t(first - items.begin()), size_t(last - items.begin())};
}

int TimelineLanes::eventAt(int row, double fraction, double t, double toleranceS) const
{
    int best = -1;
    double bestDistance = toleranceS;
    // Later lanes are drawn on top: search them first.
    for (auto l = m_lanes.rbegin(); l != m_lanes.rend(); ++l) {
        if (l->row != row || fraction < l->from || fraction >= l->to)
            continue;
        const auto [first, last] = visibleItems(*l, t - toleranceS, t + toleranceS);
        for (size_t k = first; k < last; ++k) {
            const TimelineItem& it = l->items[k];
            const double distance = t < it.start ? it.start - t : t > it.end ? t - it.end : 0;
            if (distance <= bestDistance) { // ties: the later item, drawn on top
                best = it.event;
                bestDistance = distance;
            }
        }
        if (best >= 0)
            return best;
    }
    return best;
}
