#pragma once
// The arithmetic of the step timeline, free of Qt so that it is tested on its own: time <-> x
// under zoom and pan, which row and lane a y falls in, and which event a point hits.

#include <utility>
#include <vector>

#include "costmodel.h"

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

private:
    TimelineMapping clamped() const;
};

// Vertical layout: one row per pipeline stage, then the fabric row for data-parallel traffic.
// A stage row has a thin lane on top for PP sends, the main lane for compute, bubble and
// optimizer, and a thin lane below for TP, CP and DP traffic; the fabric row has one sub-lane
// per stage.
struct TimelineGeometry {
    double top = 0;
    double rowHeight = 20;
    int rows = 1;

    double rowTop(int row) const { return top + row * rowHeight; }
    int rowAt(double y) const; // -1 outside
    double fractionInRow(double y) const;
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

class TimelineLanes {
public:
    TimelineLanes() = default;
    TimelineLanes(const std::vector<cs::Event>& events, int stages);

    int stages() const { return m_stages; }
    int rows() const { return m_stages + 1; }
    int fabricRow() const { return m_stages; }
    const std::vector<TimelineLane>& lanes() const { return m_lanes; }

    // The items of a lane that may intersect [t0, t1], as an index range.
    static std::pair<size_t, size_t> visibleItems(const TimelineLane& lane, double t0, double t1);
    // The event drawn at a point: its row, the fraction of the row's height, its time, with a
    // tolerance in seconds for thin boxes; -1 for none.
    int eventAt(int row, double fraction, double t, double toleranceS) const;

private:
    int laneIndex(int row, int sub) const;
    TimelineLane& lane(int row, int sub) { return m_lanes[size_t(laneIndex(row, sub))]; }

    int m_stages = 0;
    std::vector<TimelineLane> m_lanes;
};
