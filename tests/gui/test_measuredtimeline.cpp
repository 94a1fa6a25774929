// The measured profile on the step timeline (issue 37): a session keeps each stage's measured
// lane, so that, opened without the traces, the timeline draws it under the predicted lanes,
// describes it on hover and finds its intervals; a session saved before lanes were kept opens
// with none and says why.

#include <catch2/catch.hpp>

#include <QDir>
#include <QTemporaryDir>

#include "document.h"
#include "documentio.h"
#include "guitestutil.h"
#include "mainwindow.h"
#include "profilebreakdown.h"
#include "profiledocument.h"
#include "profilesession.h"
#include "syntheticprofile.h"
#include "timelineview.h"

namespace {

// GPT-3's shape cut to 8 layers, TP 2 x PP 2 x DP 4: 16 small traces.
cs::Session twoStageSession()
{
    cs::Session session = sampleSession("ndv5-h100-128-gpt3-175b.run.json");
    cs::RunDesc& run = session.run;
    run.model.layers = 8;
    run.model.seqLen = 4096;
    run.batch.global = 16;
    run.batch.micro = 1;
    run.parallelism = cs::Parallelism{};
    run.parallelism.tp = 2;
    run.parallelism.pp = 2;
    run.parallelism.dp = 4;
    run.parallelism.distributedOptimizer = true;
    run.placement = cs::kPlacedDims;
    return session;
}

// A session of the run with its measured profile (a synthetic one: the prediction as traces),
// saved; the traces deleted.
QString savedSessionWithProfile(const QTemporaryDir& dir)
{
    MainWindow window(dir.path());
    window.setQuiet(true);
    REQUIRE(window.openUnsaved(twoStageSession()));
    const QString traces = dir.filePath(QStringLiteral("traces"));
    cs::SyntheticProfileOptions options;
    options.cpuEvents = false;
    cs::Diagnostics diags;
    REQUIRE(cs::writeSyntheticProfile(traces.toStdString(), window.document()->cluster(),
                                      window.document()->run(), options, diags));
    REQUIRE(window.openMeasuredProfile({traces}));
    const QString saved = dir.filePath(QStringLiteral("measured.csession"));
    REQUIRE(window.saveTo(saved));
    REQUIRE(QDir(traces).removeRecursively());
    return saved;
}

size_t itemCount(const TimelineView& timeline)
{
    size_t n = 0;
    for (const TimelineMeasuredLane& lane : timeline.measuredLanes())
        n += lane.items.size();
    return n;
}

} // namespace

TEST_CASE("a session with a measured profile opens with a measured lane under each stage",
          "[profile][timeline]")
{
    QTemporaryDir dir;
    const QString saved = savedSessionWithProfile(dir);
    MainWindow window(dir.path());
    window.setQuiet(true);
    window.resize(1280, 720);
    REQUIRE(window.openFile(saved));
    auto* timeline = window.findChild<TimelineView*>(QStringLiteral("timelineView"));
    REQUIRE(timeline);
    timeline->resize(1000, 300);
    const std::vector<TimelineMeasuredLane>& lanes = timeline->measuredLanes();
    REQUIRE(lanes.size() == 2);
    CHECK(timeline->measuredNote().isEmpty());
    const cs::ProfileComparison& c = window.measuredProfile()->comparison();
    for (int stage = 0; stage < 2; ++stage) {
        INFO("stage " << stage);
        const TimelineMeasuredLane& lane = lanes[size_t(stage)];
        CHECK(lane.stage == stage);
        CHECK(lane.file == "rank-" + std::to_string(lane.rank) + ".pt.trace.json");
        REQUIRE(!lane.items.empty());
        // every communication interval of the synthetic trace is of a dimension of the run
        for (const TimelineMeasuredItem& item : lane.items)
            if (item.kind == cs::LaneIntervalKind::Comm)
                CHECK(item.dim.has_value());
        if (lane.rank == c.rank) // the lane of the compared rank is the dock's step
            CHECK(lane.endS() == Approx(c.measuredStepS).epsilon(1e-6));
    }

    SECTION("hover says what an interval is, when and which rank's trace it came from")
    {
        const TimelineMeasuredLane& lane = lanes[1];
        const auto longest = std::max_element(
            lane.items.begin(), lane.items.end(),
            [](const auto& a, const auto& b) { return a.end - a.start < b.end - b.start; });
        const QPointF at(timeline->mapping().xOf((longest->start + longest->end) / 2),
                         timeline->geometry().rowTop(1) + 0.84 * timeline->geometry().rowHeight);
        const auto hit = timeline->measuredItemAt(at);
        REQUIRE(hit);
        CHECK(hit->first == 1);
        CHECK(hit->second == int(longest - lane.items.begin()));
        const QString text = timeline->describeAt(at);
        CHECK(text.startsWith(QStringLiteral("Measured ")));
        CHECK(text.contains(QStringLiteral("rank %1 (stage 1)").arg(lane.rank)));
        CHECK(text.contains(QString::fromStdString(lane.file)));
        // the predicted lanes above answer as before
        const QPointF above(at.x(),
                            timeline->geometry().rowTop(1) + 0.3 * timeline->geometry().rowHeight);
        CHECK_FALSE(timeline->measuredItemAt(above));
    }
    SECTION("find matches measured intervals too")
    {
        REQUIRE(timeline->setFilter(QStringLiteral("measured")));
        CHECK(size_t(timeline->filterMatches()) == itemCount(*timeline));
        REQUIRE(timeline->setFilter(QStringLiteral("measured tp stage 0")));
        const auto tpOfStage0 =
            std::count_if(lanes[0].items.begin(), lanes[0].items.end(),
                          [](const TimelineMeasuredItem& i) { return i.dim == cs::Dim::TP; });
        CHECK(timeline->filterMatches() == tpOfStage0);
        CHECK(tpOfStage0 > 0);
        // "compute" finds the predicted compute and the measured
        REQUIRE(timeline->setFilter(QStringLiteral("compute")));
        const int compute = timeline->filterMatches();
        REQUIRE(timeline->setFilter(QStringLiteral("forward backward recompute optimizer")));
        CHECK(compute > timeline->filterMatches());
    }
    SECTION("no profile, no lane")
    {
        window.measuredProfile()->setProfile({}, QStringLiteral("Remove the profile"));
        CHECK(timeline->measuredLanes().empty());
        CHECK(timeline->measuredNote().isEmpty());
    }
}

TEST_CASE("a session keeps the measured lanes' intervals, and one without them still opens",
          "[profile][timeline]")
{
    QTemporaryDir dir;
    const QString saved = savedSessionWithProfile(dir);
    QString problems;
    const auto session = loadSessionFromFile(saved, &problems);
    INFO(problems.toStdString());
    REQUIRE(session);
    const nlohmann::json stored = session->extensions.value().at(kMeasuredProfileKey);
    std::string error;
    const auto profile = storedProfileFrom(stored, &error);
    INFO(error);
    REQUIRE(profile);
    REQUIRE(profile->lanes.size() == 2);
    // stored again, read back: the same intervals
    const auto again = storedProfileFrom(storedProfileJson(*profile), &error);
    REQUIRE(again);
    REQUIRE(again->lanes.size() == profile->lanes.size());
    for (size_t l = 0; l < again->lanes.size(); ++l) {
        const cs::MeasuredLane& a = again->lanes[l];
        const cs::MeasuredLane& b = profile->lanes[l];
        CHECK(a.rank == b.rank);
        CHECK(a.stage == b.stage);
        CHECK(a.stepNumber == b.stepNumber);
        CHECK(a.stepS == b.stepS);
        REQUIRE(a.intervals.size() == b.intervals.size());
        for (size_t i = 0; i < a.intervals.size(); ++i) {
            CHECK(a.intervals[i].startS == b.intervals[i].startS);
            CHECK(a.intervals[i].durationS == b.intervals[i].durationS);
            CHECK(a.intervals[i].kind == b.intervals[i].kind);
            CHECK(a.intervals[i].collective == b.intervals[i].collective);
            CHECK(a.intervals[i].group == b.intervals[i].group);
        }
    }

    SECTION("an interval that is not one is refused at its place")
    {
        nlohmann::json bad = stored;
        bad["measured_lanes"][0]["intervals"][0][2] = "nap";
        CHECK_FALSE(storedProfileFrom(bad, &error));
        CHECK(error == "/x-measured_profile/measured_lanes/0/intervals/0/2: is not compute, idle "
                       "or a kind of communication");
        bad = stored;
        bad["measured_lanes"][1]["rank"] = 99;
        CHECK_FALSE(storedProfileFrom(bad, &error));
        CHECK(error == "/x-measured_profile/measured_lanes/1/rank: is not a rank of the profile");
    }
    SECTION("a session saved before lanes were kept opens with none, and says so")
    {
        cs::Session old = *session;
        nlohmann::json withoutLanes = stored;
        withoutLanes.erase("measured_lanes");
        old.extensions.set(kMeasuredProfileKey, withoutLanes);
        MainWindow window(dir.path());
        window.setQuiet(true);
        REQUIRE(window.openUnsaved(old));
        REQUIRE(window.measuredProfile()->hasProfile());
        auto* timeline = window.findChild<TimelineView*>(QStringLiteral("timelineView"));
        REQUIRE(timeline);
        CHECK(timeline->measuredLanes().empty());
        CHECK_FALSE(timeline->measuredNote().isEmpty());
        const auto* chart = window.findChild<ProfileBreakdown*>(QStringLiteral("profileBreakdown"));
        REQUIRE(chart);
        CHECK(chart->summary().contains(QStringLiteral("no measured lanes")));
    }
}
