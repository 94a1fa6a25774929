#pragma once
// Where everything of a cluster sits in world coordinates, and what is under a point.
// The data hall holds racks in rows; a rack holds trays (nodes) and, for rack-wide NVLink
// domains, the NVSwitch trays in its middle; a tray holds its GPUs. The scale-out fabric sits
// in a band above the hall, one row of switches per tier. One world unit is one GPU pitch.
// The world is centred on the origin, so a view centred on (0, 0) at zoom 1 fits the whole.

#include <QLineF>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <array>
#include <vector>

#include "topology.h"

namespace cs {
class Placement;
}

// Which details are legible at a scale (pixels per GPU pitch).
struct LevelOfDetail {
    bool rackLabels = false;
    bool trayOutlines = false;
    bool gpuLinks = false;       // every GPU's NVLink and NIC link instead of bundles
    bool gpuLabels = false;      // rank inside the GPU cell
    bool gpuCoordinates = false; // tp/cp/pp/dp coordinates under the rank
    bool linkLabels = false;
    bool switchLabels = false;
};
LevelOfDetail levelOfDetail(double pixelsPerGpu);

// World <-> screen: `scale` pixels per world unit, `center` the world point at the viewport
// centre.
struct ViewTransform {
    double scale = 1;
    QPointF center;
    QSizeF viewport;

    QPointF toScreen(QPointF world) const;
    QPointF toWorld(QPointF screen) const;
    QRectF toScreen(const QRectF& world) const;
    QRectF visibleWorld() const;
    // The transform after zooming by `factor` keeping the world point under `anchor` fixed.
    ViewTransform zoomedAt(QPointF anchor, double factor) const;
};
// Pixels per world unit that fit `world` in `viewport` with a small margin.
double fitScale(const QRectF& world, QSizeF viewport);
// zoom is relative to fit-to-view; center in world units.
ViewTransform viewTransformFor(const QRectF& world, QSizeF viewport, double zoom, QPointF center);

enum class HitKind { None, Gpu, NvSwitch, Rack, Switch, Link, Bundle };
struct Hit {
    HitKind kind = HitKind::None;
    int index = -1; // into gpus(), nvSwitches(), racks(), switches(), links() or bundles()
    bool operator==(const Hit&) const = default;
};

// Scale-out links drawn together far out, their bandwidth summed: from a rack to the leaves
// of the node group it belongs to, or from a block of neighbouring switches to a block of the
// tier above. A few hundred bundles stand for tens of thousands of links.
struct LinkBundle {
    cs::LinkClass cls = cs::LinkClass::ScaleOut1;
    int rack = -1;                  // lower end when it is a rack of GPUs, else -1
    std::vector<int> lowerSwitches; // lower end when it is switches; sorted
    std::vector<int> upperSwitches; // sorted
    int links = 0;
    int cables = 0;
    double GBps = 0; // per direction
    QLineF line;
};

enum class RackOrientation {
    TraysAcross, // trays side by side, each tray's GPUs stacked downwards
    TraysDown,   // trays stacked downwards, each tray's GPUs side by side
};

class TopologyLayout {
public:
    // Picks the rack orientation whose whole picture best fills a viewport of `aspect`.
    explicit TopologyLayout(const cs::Topology& topology, double aspect = 16.0 / 9.0);
    // A rack's trays in `banks` lines stacked along the GPU axis (wide racks fill the view
    // better folded).
    TopologyLayout(const cs::Topology& topology, RackOrientation orientation, int banks = 1);

    // The same devices (cs::Topology::devicesId) with new rates, or a copy of them: this layout
    // draws `topology` from now on, its bundles' rates summed again; placing every GPU and
    // bundling every link anew was most of an edit of a rate. False, and nothing changed, for
    // other devices.
    bool retime(const cs::Topology& topology);

    const cs::Topology& topology() const { return *m_topology; }
    uint64_t devicesId() const { return m_devicesId; }
    RackOrientation orientation() const { return m_orientation; }
    int banks() const { return m_banks; }
    QRectF bounds() const { return m_bounds; }
    QRectF hallBounds() const { return m_hall; }

    QRectF rackRect(int rack) const;
    // From a rack to the next one in its row (x) and to the one in the next row (y).
    QPointF rackPitch() const { return m_rackPitch; }
    QRectF trayRect(int node) const;
    QRectF gpuRect(int gpu) const; // the drawn cell, inset inside its pitch
    QRectF gpuPitchRect(int gpu) const;
    QRectF nvSwitchRect(int nvSwitch) const;
    QRectF switchRect(int sw) const { return m_switchRects[size_t(sw)]; }
    QRectF domainRect(int domain) const;
    QLineF linkLine(int link) const;
    const std::vector<LinkBundle>& bundles() const { return m_bundles; }
    int bundleOfGpuLink(int gpu) const; // the ScaleOut1 bundle holding the GPU's NIC link
    double maxBundleGBps(cs::LinkClass cls) const;

    // What is under a world point: GPUs, NVSwitches and switches first, then racks, then
    // links within `tolerance` world units (bundles far out, single links close in).
    Hit hitTest(QPointF world, double tolerance, const LevelOfDetail& lod) const;

private:
    struct RackGeometry {
        double trayAcross = 0;              // tray extent along the tray axis
        double trayAlong = 0;               // tray extent along the GPU axis
        std::vector<double> trayOffset;     // per tray in a rack, along the tray axis
        std::vector<double> trayBankOffset; // per tray in a rack, along the GPU axis
        std::vector<double> nvSwitchOffset; // rack domains: per NVSwitch, along the tray axis
        double width = 0;                   // along the tray axis
        double height = 0;                  // along the GPU axis
    };
    TopologyLayout(const cs::Topology& topology, RackOrientation orientation, int banks,
                   bool bundles);
    void place(); // racks and switches; buildBundles() after it
    RackGeometry rackGeometry() const;
    QRectF rackLocal(int rack, double u, double v, double du, double dv) const;
    QPointF rackLocalPoint(int rack, QPointF world) const; // world -> (u, v)
    void placeRacks();
    void placeSwitches();
    void buildBundles();
    void sumBundleRates();
    int rackAt(QPointF world) const;
    Hit hitInRack(int rack, QPointF world) const;
    Hit hitLink(QPointF world, double tolerance, const LevelOfDetail& lod) const;

    const cs::Topology* m_topology;
    uint64_t m_devicesId = 0; // of the topology placed, as retime compares it
    RackOrientation m_orientation;
    int m_banks = 1;
    RackGeometry m_rack;
    QSizeF m_rackSize; // in world units, oriented
    QPointF m_rackPitch;
    QPointF m_hallOrigin;
    int m_rows = 1;
    int m_columns = 1;
    std::vector<QPointF> m_rackOrigins;
    std::vector<int> m_rackAtCell; // row * columns + column -> rack or -1
    std::vector<QRectF> m_switchRects;
    std::array<std::vector<int>, 4> m_switchesByTier; // sorted as drawn, index 1..3
    std::vector<int> m_switchSlot;                    // position of a switch in its tier row
    std::vector<int> m_nvSwitchSlot;                  // per NVSwitch: its slot in the domain
    std::vector<LinkBundle> m_bundles;
    std::vector<int> m_gpuBundle;
    std::vector<int> m_linkBundle; // per scale-out link, from m_firstBundledLink
    int m_firstBundledLink = 0;
    QRectF m_hall;
    QRectF m_bounds;
};

// What selecting a rank lights up: its group members per dimension and the links their
// traffic uses (NVLink inside a domain; NIC, leaf and spine links for groups that cross).
struct GroupSelection {
    int rank = -1;
    cs::PerDim<std::vector<int>> members; // GPU indices
    cs::PerDim<std::vector<int>> links;   // indices into topology.links()
    cs::PerDim<std::vector<int>> bundles; // indices into layout.bundles()
};
GroupSelection selectRank(int rank, const TopologyLayout& layout, const cs::Placement& placement);
