#include "profiletimeline.h"

#include "profiledocument.h"
#include "timelineview.h"

namespace {

void updateLanes(TimelineView* timeline, const ProfileDocument& profile)
{
    if (!profile.hasProfile()) {
        timeline->setMeasuredLanes({});
        return;
    }
    const cs::MeasuredProfile& p = profile.profile();
    // Lanes of stages the run no longer has are not drawn (the view checks again, as the step
    // and the profile change apart).
    timeline->setMeasuredLanes(
        timelineMeasuredLanes(p, profile.comparison().groups, timeline->stageCount()),
        p.lanes.empty() ? QObject::tr("measured profile: no lanes kept in this session")
                        : QString());
}

} // namespace

void showMeasuredLanes(TimelineView* timeline, const ProfileDocument* profile)
{
    if (!timeline || !profile)
        return;
    QObject::connect(profile, &ProfileDocument::changed, timeline,
                     [timeline, profile] { updateLanes(timeline, *profile); });
    updateLanes(timeline, *profile);
}

QString measuredLanesNote(const ProfileDocument& profile)
{
    if (!profile.hasProfile() || !profile.profile().lanes.empty())
        return {};
    return QObject::tr("The timeline shows no measured lanes: this session was saved before "
                       "they were kept. Open the traces again (File > Open Measured Profile) to "
                       "draw them.");
}
