#pragma once
// The measured lanes of the step timeline (issue 37), free of Qt: the measured step of each
// stage's slowest rank (cs::MeasuredLane, kept in the session) with each interval's dimension
// as the profile's mapping onto the current run gives it, for drawing, hover and find.

#include <optional>
#include <string>
#include <vector>

#include "profilemapping.h"

struct TimelineMeasuredItem {
    double start = 0; // seconds from the step's start, as the predicted events
    double end = 0;
    cs::LaneIntervalKind kind = cs::LaneIntervalKind::Idle;
    cs::KernelKind collective = cs::KernelKind::Compute; // a communication interval's
    std::optional<cs::Dim> dim; // a communication interval's dimension, where its group has one
    std::string group;          // its group as the mapping names it: "TP", "world", "unmatched"
};

struct TimelineMeasuredLane {
    int stage = 0;
    int rank = -1;
    std::string file;                        // the trace it came from
    std::string step;                        // "ProfilerStep#5"
    std::vector<TimelineMeasuredItem> items; // by start

    // The item under time t (within `toleranceS` of it), -1 for none.
    int itemAt(double t, double toleranceS) const;
    double endS() const { return items.empty() ? 0 : items.back().end; }
};

// The profile's lanes of stages [0, stages), each interval's dimension by `groups`
// (matchGroups against the current run).
std::vector<TimelineMeasuredLane> timelineMeasuredLanes(const cs::MeasuredProfile& profile,
                                                        const std::vector<cs::GroupMatch>& groups,
                                                        int stages);

// "TP all-reduce", "compute", "idle", "unmatched send/recv": what an item is, in words.
std::string measuredItemName(const TimelineMeasuredItem& item);
