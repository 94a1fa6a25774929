#pragma once
// The arithmetic of the step timeline, free of Qt so that it is tested on its own: time <-> x
// under zoom and pan, which row and lane a y falls in, and which event a point hits.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "costmodel.h"
#include "timelinemeasured.h"

// The visible time range [startS, startS + spanS] spread over [left, left + width] pixels,
// always inside the step [0, totalS].
struct TimelineMapping {
    double left = 0;
    double width = 1;
    double startS = 0;
    double spanS = 1;
    double totalS = 1;

    static TimelineMapping fit(double totalS, double left, double width);

    double endS() const { return startS + spanS; }
    double xOf(double t) const { return left + (t - startS) * (width / spanS); }
    double timeOf(double x) const { return startS + (x - left) * (spanS / width); }
    double secondsPerPixel() const { return spanS / width; }
    bool overlaps(double t0, double t1) const { return t1 >= startS && t0 <= endS(); }

    // factor > 1 zooms in; the time under x stays under x.
    TimelineMapping zoomedAt(double x, double factor) const;
    // Moves the content by dx pixels (dragging right shows earlier times).
    TimelineMapping pannedBy(double dx) const;
    // The same range on a new pixel extent (a resize).
    TimelineMapping resized(double newLeft, double newWidth) const;
    // Shifted, if needed, so that t is visible (keeps the zoom).
    TimelineMapping following(double t) const;
    // The same span with t in its middle (as near as the step's ends allow).
    TimelineMapping centeredOn(double t) const;

private:
    TimelineMapping clamped() const;
};

// Vertical layout: one row per pipeline stage, then the fabric row for data-parallel traffic.
// A stage row has a thin lane on top for PP sends, the main lane for compute, bubble and
// optimizer, and a thin lane below for TP, CP and DP traffic; with a measured profile, a band
// at the bottom for the measured lane. The fabric row has one sub-lane per stage. Rows that do not
// fit scroll under the header: `scroll` pixels are above `top`.
struct TimelineGeometry {
    double top = 0;
    double rowHeight = 20;
    int rows = 1;
    double scroll = 0;

    double rowTop(int row) const { return top + row * rowHeight - scroll; }
    int rowAt(double y) const; // -1 outside
    double fractionInRow(double y) const;
    double contentHeight() const { return rows * rowHeight; }
};

struct TimelineItem {
    double start = 0;
    double end = 0;
    int event = 0; // index into the evaluation's events
};

struct TimelineLane {
    int row = 0;
    double from = 0; // vertical extent inside the row, as fractions of its height
    double to = 1;
    std::vector<TimelineItem> items; // sorted by start
    double longestS = 0;
};

// Which events a search on the timeline matches. Words name kinds ("forward", "backward",
// "recompute", "optimizer", "compute" for all four, "bubble" or "wait" or "idle", "comm"),
// dimensions ("tp" ... "ep", "send"), stages ("stage 3", "s3"), micro-batches ("mb 4",
// "micro-batch 4"), chunks ("chunk 1") and states ("exposed", "hidden", "critical",
// "measured"). Words of one sort widen the match ("forward backward"); different sorts narrow
// it ("backward stage 3"). The measured lanes' intervals match too: compute by "compute", idle
// by "idle", communication by its dimension or "comm" (all of it exposed), by stage; none has
// a micro-batch, a chunk or a place on the critical path; "measured" matches them alone.
class EventFilter {
public:
    // Nothing, with the problem, for a word it does not know.
    static std::optional<EventFilter> parse(std::string_view text, std::string* problem);
    bool empty() const;
    bool matches(const cs::Event& e) const;
    bool matchesMeasured(const TimelineMeasuredItem& item, int stage) const;

private:
    uint32_t m_kinds = 0; // bits: EventKind values, then kEventKindCount + Dim for traffic
    std::vector<int> m_stages;
    std::vector<int> m_microBatches;
    std::vector<int> m_chunks;
    bool m_exposed = false;
    bool m_hidden = false;
    bool m_critical = false;
    bool m_measured = false;
};

// A pipeline op's extent on the timeline, from the events that carry its index.
struct TimelineOp {
    int stage = -1;
    double start = 0;
    double end = 0;
    int dependsOn = -1;
    int event = -1; // its compute event, for descriptions
};
// Indexed by op (cs::Event::op); ops without events stay at stage -1.
std::vector<TimelineOp> timelineOps(const std::vector<cs::Event>& events);

// The dependencies of a selected event's op: the op it takes its input from, and the ops that
// take theirs from it, as (from op, to op) pairs.
std::vector<std::pair<int, int>> dependencyArrows(const std::vector<TimelineOp>& ops,
                                                  const cs::Event& selected);

class TimelineLanes {
public:
    TimelineLanes() = default;
    // `measuredBand`: stage rows leave their bottom to a measured lane.
    TimelineLanes(const std::vector<cs::Event>& events, int stages, bool measuredBand = false);

    int stages() const { return m_stages; }
    int rows() const { return m_stages + 1; }
    int fabricRow() const { return m_stages; }
    const std::vector<TimelineLane>& lanes() const { return m_lanes; }

    // The items of a lane that may intersect [t0, t1], as an index range.
    static std::pair<size_t, size_t> visibleItems(const TimelineLane& lane, double t0, double t1);
    // The event drawn at a point: its row, the fraction of the row's height, its time, with a
    // tolerance in seconds for thin boxes; -1 for none.
    int eventAt(int row, double fraction, double t, double toleranceS) const;
    // The lane that holds a stage's compute, bubbles and optimizer.
    const TimelineLane& mainLane(int stage) const;
    // Whether a fraction of a stage row's height is its main lane, its lane of TP, CP and DP
    // traffic, or its measured lane.
    bool inMainLane(double fraction) const;
    double commLaneMiddle() const;
    bool hasMeasuredBand() const { return m_measuredBand; }
    bool inMeasuredBand(double fraction) const;
    // The measured lane's extent inside a stage row, as fractions of its height.
    static constexpr double kMeasuredTop = 0.72;
    static constexpr double kMeasuredBottom = 0.96;

private:
    int laneIndex(int row, int sub) const;
    TimelineLane& lane(int row, int sub) { return m_lanes[size_t(laneIndex(row, sub))]; }

    int m_stages = 0;
    bool m_measuredBand = false;
    std::vector<TimelineLane> m_lanes;
};
