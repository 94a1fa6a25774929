#pragma once
// What each pipeline stage is doing at a time of the step, and which parallel dimensions move
// data then, from an Evaluation's events. The index is built once per evaluation; a lookup
// costs one binary search per stage and dimension, so it can run every animation frame.

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "evaluation.h"

namespace cs {

enum class Activity : uint8_t {
    Idle,
    Forward,
    Backward,
    Recompute,
    Bubble,        // waiting on the pipeline
    Communication, // exposed communication: the stage waits for data
    Optimizer,
};
constexpr auto enumTexts(Activity)
{
    return std::array<EnumText<Activity>, 7>{
        {{Activity::Idle, "idle", "idle"},
         {Activity::Forward, "forward", "forward"},
         {Activity::Backward, "backward", "backward"},
         {Activity::Recompute, "recompute", "recompute"},
         {Activity::Bubble, "bubble", "bubble"},
         {Activity::Communication, "communication", "exposed communication"},
         {Activity::Optimizer, "optimizer", "optimizer"}}};
}
inline constexpr int kActivityCount = int(enumTexts(Activity{}).size());

struct StageState {
    Activity activity = Activity::Idle;
    int event = -1; // index into the evaluation's events of what decides the activity
};

// Per dimension: the share of pipeline stages whose GPUs move data in that dimension, in
// [0, 1]. Every stage holds the same number of GPUs, so this is the share of the dimension's
// links in use; farthest is the highest tier that traffic reaches (NVLink: it stays inside
// the NVLink domains).
struct LinkUse {
    PerDim<double> share;
    PerDim<LinkClass> farthest;
    double operator[](Dim d) const { return share[d]; }
    bool crossesFabric(Dim d) const { return isScaleOut(farthest[d]); }
};

class ActivityIndex {
public:
    ActivityIndex() = default;
    // events: an Evaluation's events; stages: the run's pipeline depth. Events with stage -1
    // concern every stage.
    ActivityIndex(const std::vector<Event>& events, int stages);

    int stages() const { return int(m_spans.size()); }
    StageState at(int stage, double t) const;
    Activity activity(int stage, double t) const { return at(stage, t).activity; }
    LinkUse linkUse(double t) const;

private:
    struct Span {
        double start = 0;
        double end = 0;
        StageState state;
    };
    struct CommSpan {
        double start = 0;
        double end = 0;
        LinkClass farthest = LinkClass::NVLink;
    };

    void buildStage(int stage, const std::vector<Event>& events, const std::vector<int>& mine);
    void buildComm(int stage, const std::vector<Event>& events, const std::vector<int>& mine);

    std::vector<std::vector<Span>> m_spans;            // per stage, sorted and disjoint
    PerDim<std::vector<std::vector<CommSpan>>> m_comm; // per stage, disjoint
};

// The nearest start or end of an event strictly after (before) t; the step's end (0) when none.
double nextEventTime(const std::vector<Event>& events, double t);
double previousEventTime(const std::vector<Event>& events, double t);

} // namespace cs
