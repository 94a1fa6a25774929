#pragma once
// The measured profile on the step timeline (issue 37): each stage's measured lane, from the
// lanes the session keeps, coloured by the profile's mapping onto the current run, drawn again
// whenever the profile or the prediction beside it changes.

#include <QString>

class ProfileDocument;
class TimelineView;

// Keeps `timeline`'s measured lanes those of `profile`, now and on each change.
void showMeasuredLanes(TimelineView* timeline, const ProfileDocument* profile);

// Why a profile shows no measured lane (its session was saved before lanes were kept); empty
// when it has lanes, or there is no profile.
QString measuredLanesNote(const ProfileDocument& profile);
