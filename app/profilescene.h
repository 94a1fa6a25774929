#pragma once
// The topology scene's measured colour modes (measuredcolors.h) from a measured profile's
// per-GPU figures: in the window from its ProfileDocument, in a figure of the document alone
// (File > Export, --render) from the profile its session keeps.

#include <functional>

class Document;
class TopologyScene;
struct GpuMeasures;

// `measures` gives the current figures, or nothing when there is no profile.
void setMeasuredColorSource(TopologyScene& scene, const Document& doc,
                            std::function<const GpuMeasures*()> measures);
// The session's stored profile, read once for this scene.
void colorByStoredProfile(TopologyScene& scene, const Document& doc);
