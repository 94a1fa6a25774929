#pragma once
// The inspector's lines on a measured profile: the selected rank's measured step, part by part,
// beside the prediction of its pipeline stage read the same way (profilemapping.h).

#include <QString>

class ProfileDocument;

// Empty without a profile or a selected rank; a line saying so for a rank the profile lacks.
QString measuredRankHtml(const ProfileDocument& profile, int rank);
