#pragma once
// Lights the links the step's traffic uses at the current time: fabric bundles for dimensions
// that cross NVLink domains, domain outlines for traffic that stays inside them, each in its
// dimension's colour, brighter with more of it in use. Drawn over the renderer's frame,
// because the renderer keeps links in its cached static layer.

#include "activity.h"

class QPainter;
class TopologyLayout;
struct ViewTransform;

// Draws the lit links of `use` over a topology drawn with `view` (also for --render).
void paintActivityLinks(QPainter& p, const TopologyLayout& layout, const ViewTransform& view,
                        const cs::LinkUse& use);
