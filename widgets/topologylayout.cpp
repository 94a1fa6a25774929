#include "topologylayout.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <unordered_map>

#include "placement.h"

namespace {

constexpr double kGpuInset = 0.08;
constexpr double kTrayGap = 0.25;
constexpr double kNvSwitchThick = 0.25;
constexpr double kNvSwitchGap = 0.1;
constexpr double kRackPad = 0.4;
constexpr double kRackGap = 1.5;
constexpr double kBankGap = 0.4;
constexpr double kAisle = 3.0; // above each row of racks: room for rack labels
// Far out, switch-to-switch links are bundled between blocks: a sixteenth of the lower row to
// a quarter of the upper one.
constexpr size_t kLowerBlocks = 16;
constexpr size_t kUpperBlocks = 4;

int blockOf(int slot, size_t rowSize, size_t blocks)
{
    return slot / std::max(1, int((rowSize + blocks - 1) / blocks));
}

double distanceToSegment(QPointF p, const QLineF& s)
{
    const QPointF d = s.p2() - s.p1();
    const double len2 = d.x() * d.x() + d.y() * d.y();
    double t = len2 > 0 ? QPointF::dotProduct(p - s.p1(), d) / len2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    const QPointF q = s.p1() + t * d - p;
    return std::hypot(q.x(), q.y());
}

bool intersects(const std::vector<int>& ids, const std::set<int>& set)
{
    return std::any_of(ids.begin(), ids.end(), [&](int id) { return set.count(id) > 0; });
}

QPointF topCenter(const QRectF& r)
{
    return {r.center().x(), r.top()};
}
QPointF bottomCenter(const QRectF& r)
{
    return {r.center().x(), r.bottom()};
}

} // namespace

TopologyLayout::TopologyLayout(const cs::Topology& topology, RackOrientation orientation, int banks)
    : TopologyLayout(topology, orientation, banks, true)
{
}

TopologyLayout::TopologyLayout(const cs::Topology& topology, RackOrientation orientation, int banks,
                               bool bundles)
    : m_topology(&topology)
    , m_devicesId(topology.devicesId())
    , m_orientation(orientation)
    , m_banks(std::clamp(banks, 1, std::max(1, topology.cluster().nodesPerRack)))
{
    place();
    if (bundles)
        buildBundles();
}

TopologyLayout::TopologyLayout(const cs::Topology& topology, double aspect)
    : m_topology(&topology)
    , m_devicesId(topology.devicesId())
{
    // Scored at a window's size: fitScale keeps fixed pixels free for labels. The candidates
    // are placed without their bundles, most of the work; the one chosen gets them.
    const QSizeF target(1000 * aspect, 1000);
    double best = 0;
    for (RackOrientation o : {RackOrientation::TraysAcross, RackOrientation::TraysDown}) {
        for (int banks : {1, 2, 4}) {
            if (banks > topology.cluster().nodesPerRack / 2 && banks > 1)
                continue;
            TopologyLayout candidate(topology, o, banks, false);
            // Trays across keeps the hall wide, which leaves room for the switch rows above
            // it; the other orientation must fit clearly better to win.
            const double bias = o == RackOrientation::TraysAcross ? 1.0 : 1.0 / 1.05;
            const double score = fitScale(candidate.bounds(), target) * bias;
            if (best == 0 || score > best * 1.01) {
                best = score;
                *this = std::move(candidate);
            }
        }
    }
    buildBundles();
}

bool TopologyLayout::retime(const cs::Topology& topology)
{
    if (topology.devicesId() != m_devicesId)
        return false;
    m_topology = &topology;
    sumBundleRates();
    return true;
}

void TopologyLayout::sumBundleRates()
{
    const auto& links = m_topology->links();
    for (LinkBundle& b : m_bundles)
        b.GBps = 0;
    for (size_t i = 0; i < m_linkBundle.size(); ++i)
        if (m_linkBundle[i] >= 0)
            m_bundles[size_t(m_linkBundle[i])].GBps += links[size_t(m_firstBundledLink) + i].GBps;
}

void TopologyLayout::place()
{
    m_rack = rackGeometry();
    m_rackSize = m_orientation == RackOrientation::TraysAcross
                     ? QSizeF(m_rack.width, m_rack.height)
                     : QSizeF(m_rack.height, m_rack.width);
    const auto& nvs = m_topology->nvSwitches();
    const int perDomain = std::max(1, m_topology->nvSwitchesPerDomain());
    m_nvSwitchSlot.assign(size_t(m_topology->domainCount()) * size_t(perDomain), -1);
    for (size_t s = 0; s < nvs.size(); ++s)
        m_nvSwitchSlot[size_t(nvs[s].domain) * perDomain + nvs[s].indexInDomain] = int(s);
    placeRacks();
    placeSwitches();

    QRectF raw = m_hall;
    for (const QRectF& r : m_switchRects)
        raw |= r;
    const QPointF shift = -raw.center();
    m_hallOrigin += shift;
    m_hall.translate(shift);
    for (QPointF& p : m_rackOrigins)
        p += shift;
    for (QRectF& r : m_switchRects)
        r.translate(shift);
    m_bounds = raw.translated(shift);
}

TopologyLayout::RackGeometry TopologyLayout::rackGeometry() const
{
    const cs::ClusterDesc& c = m_topology->cluster();
    const bool rackDomain = c.scaleUp.domain == cs::DomainKind::Rack;
    const int nvs = m_topology->nvSwitchesPerDomain();
    const int perBank = (c.nodesPerRack + m_banks - 1) / m_banks;
    RackGeometry g;
    g.trayAcross = 1.0;
    g.trayAlong = c.gpusPerNode + (rackDomain || nvs == 0 ? 0.0 : 0.1 + nvs * kNvSwitchThick);
    double u = kRackPad;
    // An NVL72 rack has its switch trays between the upper and lower compute trays; folded
    // into banks, they stand as one column in front of the banks.
    const int switchesBefore = m_banks == 1 ? perBank / 2 : 0;
    std::vector<double> position; // along the tray axis, per tray position in a bank
    for (int k = 0; k < perBank; ++k) {
        if (rackDomain && k == switchesBefore) {
            for (int j = 0; j < nvs; ++j) {
                g.nvSwitchOffset.push_back(u);
                u += kNvSwitchThick + kNvSwitchGap;
            }
            u += kTrayGap;
        }
        position.push_back(u);
        u += g.trayAcross + kTrayGap;
    }
    for (int k = 0; k < c.nodesPerRack; ++k) {
        g.trayOffset.push_back(position[size_t(k % perBank)]);
        g.trayBankOffset.push_back(kRackPad + (k / perBank) * (g.trayAlong + kBankGap));
    }
    g.width = u - kTrayGap + kRackPad;
    g.height = m_banks * g.trayAlong + (m_banks - 1) * kBankGap + 2 * kRackPad;
    return g;
}

QRectF TopologyLayout::rackLocal(int rack, double u, double v, double du, double dv) const
{
    const QPointF o = m_rackOrigins[size_t(rack)];
    if (m_orientation == RackOrientation::TraysAcross)
        return {o.x() + u, o.y() + v, du, dv};
    return {o.x() + v, o.y() + u, dv, du};
}

QPointF TopologyLayout::rackLocalPoint(int rack, QPointF world) const
{
    const QPointF d = world - m_rackOrigins[size_t(rack)];
    return m_orientation == RackOrientation::TraysAcross ? d : QPointF(d.y(), d.x());
}

void TopologyLayout::placeRacks()
{
    const auto& racks = m_topology->racks();
    m_rows = 1;
    m_columns = 1;
    for (const cs::Rack& r : racks) {
        m_rows = std::max(m_rows, r.row + 1);
        m_columns = std::max(m_columns, r.column + 1);
    }
    m_rackPitch = QPointF(m_rackSize.width() + kRackGap, m_rackSize.height() + kAisle);
    m_hallOrigin = QPointF(0, 0);
    m_rackAtCell.assign(size_t(m_rows) * size_t(m_columns), -1);
    m_rackOrigins.clear();
    for (size_t i = 0; i < racks.size(); ++i) {
        m_rackOrigins.emplace_back(racks[i].column * m_rackPitch.x(),
                                   racks[i].row * m_rackPitch.y() + kAisle);
        m_rackAtCell[size_t(racks[i].row) * m_columns + racks[i].column] = int(i);
    }
    m_hall = QRectF(0, 0, m_columns * m_rackPitch.x() - kRackGap, m_rows * m_rackPitch.y());
}

void TopologyLayout::placeSwitches()
{
    const auto& switches = m_topology->switches();
    for (auto& tier : m_switchesByTier)
        tier.clear();
    for (size_t s = 0; s < switches.size(); ++s)
        m_switchesByTier[size_t(std::clamp(switches[s].tier, 1, 3))].push_back(int(s));
    // Leaves above the racks they serve (by the mean column of their GPUs' racks), then by
    // rail, so that rack-to-leaf links run mostly straight up.
    std::vector<double> column(switches.size(), 0.0), count(switches.size(), 0.0);
    for (const cs::Gpu& g : m_topology->gpus()) {
        column[size_t(g.leaf)] += m_topology->racks()[size_t(g.rack)].column;
        count[size_t(g.leaf)] += 1;
    }
    for (size_t s = 0; s < switches.size(); ++s)
        column[s] = count[s] > 0 ? column[s] / count[s] : 0;
    std::stable_sort(m_switchesByTier[1].begin(), m_switchesByTier[1].end(), [&](int a, int b) {
        return std::make_tuple(column[size_t(a)], switches[size_t(a)].rail,
                               switches[size_t(a)].group) <
               std::make_tuple(column[size_t(b)], switches[size_t(b)].rail,
                               switches[size_t(b)].group);
    });
    const double width = m_hall.width();
    const double tierGap = std::max(8.0, width * 0.05);
    const double height = std::max(1.2, tierGap * 0.12);
    m_switchRects.assign(switches.size(), QRectF());
    m_switchSlot.assign(switches.size(), 0);
    for (int tier = 1; tier <= 3; ++tier) {
        const auto& row = m_switchesByTier[size_t(tier)];
        const double n = double(row.size());
        const double pitch = width / std::max(1.0, n);
        const double w = std::min(4.0, pitch * 0.7);
        const double y = m_hall.top() - tier * tierGap;
        for (size_t i = 0; i < row.size(); ++i) {
            m_switchSlot[size_t(row[i])] = int(i);
            m_switchRects[size_t(row[i])] =
                QRectF(m_hall.left() + (double(i) + 0.5) * pitch - w / 2, y, w, height);
        }
    }
}

void TopologyLayout::buildBundles()
{
    const auto& links = m_topology->links();
    const auto& gpus = m_topology->gpus();
    const auto& switches = m_topology->switches();
    std::unordered_map<uint64_t, int> index; // (class, lower end, upper key) -> bundle
    const auto packed = [](cs::LinkClass cls, int lower, int upper) {
        // Racks, groups and blocks are counts of things in a cluster: far below 2^24.
        return uint64_t(cls) << 48 | uint64_t(uint32_t(lower) & 0xffffffu) << 24 |
               uint64_t(uint32_t(upper) & 0xffffffu);
    };
    m_bundles.clear();
    m_gpuBundle.assign(gpus.size(), -1);
    // Each scale-out link's bundle, for sumBundleRates when the rates change: they start at the
    // NICs' links, after the NVLinks (topology.h).
    m_firstBundledLink = m_topology->nicLinkOf(0);
    m_linkBundle.assign(links.size() - size_t(m_firstBundledLink), -1);
    for (size_t l = size_t(m_firstBundledLink); l < links.size(); ++l) {
        const cs::Link& link = links[l];
        if (!cs::isScaleOut(link.cls))
            continue;
        LinkBundle b;
        b.cls = link.cls;
        const cs::Nic* nic = nullptr;
        int lower = -1, upper = 0, lowerKey = 0, upperKey = 0;
        if (link.a.kind == cs::EndpointKind::Nic) {
            nic = &m_topology->nics()[size_t(link.a.index)];
            upper = link.b.index;
            b.rack = gpus[size_t(nic->firstGpu)].rack;
            lowerKey = b.rack;
            upperKey = switches[size_t(upper)].group;
        } else {
            const bool aLower =
                switches[size_t(link.a.index)].tier < switches[size_t(link.b.index)].tier;
            lower = aLower ? link.a.index : link.b.index;
            upper = aLower ? link.b.index : link.a.index;
            lowerKey = blockOf(m_switchSlot[size_t(lower)],
                               m_switchesByTier[size_t(switches[size_t(lower)].tier)].size(),
                               kLowerBlocks);
            upperKey = blockOf(m_switchSlot[size_t(upper)],
                               m_switchesByTier[size_t(switches[size_t(upper)].tier)].size(),
                               kUpperBlocks);
        }
        auto [it, inserted] =
            index.try_emplace(packed(b.cls, lowerKey, upperKey), int(m_bundles.size()));
        if (inserted)
            m_bundles.push_back(b);
        LinkBundle& bundle = m_bundles[size_t(it->second)];
        // Links of one end come together: most repeats are the last switch again.
        if (bundle.upperSwitches.empty() || bundle.upperSwitches.back() != upper)
            bundle.upperSwitches.push_back(upper);
        if (lower >= 0 && (bundle.lowerSwitches.empty() || bundle.lowerSwitches.back() != lower))
            bundle.lowerSwitches.push_back(lower);
        bundle.links += 1;
        bundle.cables += link.cables;
        m_linkBundle[l - size_t(m_firstBundledLink)] = it->second;
        for (int g = nic ? nic->firstGpu : 0; nic && g < nic->firstGpu + nic->gpus; ++g)
            m_gpuBundle[size_t(g)] = it->second;
    }
    sumBundleRates();
    const auto span = [this](std::vector<int>& ids) {
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        QRectF r;
        for (int s : ids)
            r |= m_switchRects[size_t(s)];
        return r;
    };
    for (LinkBundle& b : m_bundles) {
        const QRectF upper = span(b.upperSwitches);
        const QPointF lower =
            b.rack >= 0 ? topCenter(rackRect(b.rack)) : topCenter(span(b.lowerSwitches));
        b.line = QLineF(lower, bottomCenter(upper));
    }
}

QRectF TopologyLayout::rackRect(int rack) const
{
    return {m_rackOrigins[size_t(rack)], m_rackSize};
}

QRectF TopologyLayout::trayRect(int node) const
{
    const cs::Node& n = m_topology->nodes()[size_t(node)];
    return rackLocal(n.rack, m_rack.trayOffset[size_t(n.indexInRack)],
                     m_rack.trayBankOffset[size_t(n.indexInRack)], m_rack.trayAcross,
                     m_rack.trayAlong);
}

QRectF TopologyLayout::gpuPitchRect(int gpu) const
{
    const cs::Gpu& g = m_topology->gpus()[size_t(gpu)];
    const cs::Node& n = m_topology->nodes()[size_t(g.node)];
    return rackLocal(g.rack, m_rack.trayOffset[size_t(n.indexInRack)],
                     m_rack.trayBankOffset[size_t(n.indexInRack)] + g.local, 1.0, 1.0);
}

QRectF TopologyLayout::gpuRect(int gpu) const
{
    return gpuPitchRect(gpu).adjusted(kGpuInset, kGpuInset, -kGpuInset, -kGpuInset);
}

QRectF TopologyLayout::nvSwitchRect(int nvSwitch) const
{
    const cs::NvSwitch& s = m_topology->nvSwitches()[size_t(nvSwitch)];
    if (!m_rack.nvSwitchOffset.empty())
        return rackLocal(s.rack, m_rack.nvSwitchOffset[size_t(s.indexInDomain)], kRackPad,
                         kNvSwitchThick, m_rack.height - 2 * kRackPad);
    const int gpusPerNode = m_topology->cluster().gpusPerNode;
    const int node = s.domain * m_topology->domainSize() / gpusPerNode;
    const cs::Node& n = m_topology->nodes()[size_t(node)];
    const double v = m_rack.trayBankOffset[size_t(n.indexInRack)] + gpusPerNode + 0.1 +
                     s.indexInDomain * kNvSwitchThick;
    return rackLocal(n.rack, m_rack.trayOffset[size_t(n.indexInRack)] + kGpuInset, v + 0.03,
                     m_rack.trayAcross - 2 * kGpuInset, kNvSwitchThick - 0.06);
}

QRectF TopologyLayout::domainRect(int domain) const
{
    const int firstGpu = domain * m_topology->domainSize();
    const cs::Gpu& g = m_topology->gpus()[size_t(firstGpu)];
    if (m_topology->cluster().scaleUp.domain == cs::DomainKind::Rack)
        return rackRect(g.rack);
    return trayRect(g.node);
}

QLineF TopologyLayout::linkLine(int link) const
{
    const cs::Link& l = m_topology->links()[size_t(link)];
    auto point = [&](const cs::Endpoint& e, bool upper) {
        switch (e.kind) {
        case cs::EndpointKind::Gpu:
            return gpuRect(e.index).center();
        case cs::EndpointKind::NvSwitch:
            return nvSwitchRect(e.index).center();
        case cs::EndpointKind::Nic:
            return gpuRect(m_topology->nics()[size_t(e.index)].firstGpu).center();
        case cs::EndpointKind::Switch:
            break;
        }
        const QRectF r = m_switchRects[size_t(e.index)];
        return upper ? bottomCenter(r) : topCenter(r);
    };
    const auto& switches = m_topology->switches();
    const auto tierOf = [&](const cs::Endpoint& e) {
        return e.kind == cs::EndpointKind::Switch ? switches[size_t(e.index)].tier : 0;
    };
    if (l.cls == cs::LinkClass::NVLink) {
        // Straight across to the switch, like a backplane, rather than to its centre.
        const bool aIsGpu = l.a.kind == cs::EndpointKind::Gpu;
        const QPointF gpu = gpuRect(aIsGpu ? l.a.index : l.b.index).center();
        const QRectF sw = nvSwitchRect(aIsGpu ? l.b.index : l.a.index);
        return {gpu, QPointF(std::clamp(gpu.x(), sw.left(), sw.right()),
                             std::clamp(gpu.y(), sw.top(), sw.bottom()))};
    }
    const bool aUpper = tierOf(l.a) > tierOf(l.b);
    return {point(l.a, aUpper), point(l.b, !aUpper)};
}

int TopologyLayout::bundleOfGpuLink(int gpu) const
{
    return m_gpuBundle[size_t(gpu)];
}

double TopologyLayout::maxBundleGBps(cs::LinkClass cls) const
{
    double best = 0;
    for (const LinkBundle& b : m_bundles)
        if (b.cls == cls)
            best = std::max(best, b.GBps);
    return best;
}

int TopologyLayout::rackAt(QPointF world) const
{
    const QPointF d = world - m_hallOrigin;
    const int column = int(std::floor(d.x() / m_rackPitch.x()));
    const int row = int(std::floor(d.y() / m_rackPitch.y()));
    if (column < 0 || row < 0 || column >= m_columns || row >= m_rows)
        return -1;
    const int rack = m_rackAtCell[size_t(row) * m_columns + column];
    return rack >= 0 && rackRect(rack).contains(world) ? rack : -1;
}

Hit TopologyLayout::hitInRack(int rack, QPointF world) const
{
    const QPointF p = rackLocalPoint(rack, world);
    const cs::ClusterDesc& c = m_topology->cluster();
    const cs::Rack& r = m_topology->racks()[size_t(rack)];
    const int perDomain = std::max(1, m_topology->nvSwitchesPerDomain());
    for (size_t j = 0; j < m_rack.nvSwitchOffset.size(); ++j) {
        const double u0 = m_rack.nvSwitchOffset[j];
        if (p.x() >= u0 && p.x() < u0 + kNvSwitchThick && p.y() >= kRackPad &&
            p.y() < m_rack.height - kRackPad) {
            const int domain = m_topology->gpus()[size_t(r.firstGpu)].domain;
            return {HitKind::NvSwitch, m_nvSwitchSlot[size_t(domain) * perDomain + j]};
        }
    }
    for (int k = 0; k < c.nodesPerRack; ++k) {
        const double u0 = m_rack.trayOffset[size_t(k)];
        if (p.x() < u0 || p.x() >= u0 + m_rack.trayAcross)
            continue;
        const double v = p.y() - m_rack.trayBankOffset[size_t(k)];
        if (v < 0 || v >= m_rack.trayAlong)
            continue;
        const int node = r.firstNode + k;
        const int firstGpu = m_topology->nodes()[size_t(node)].firstGpu;
        if (v >= 0 && v < c.gpusPerNode)
            return {HitKind::Gpu, firstGpu + int(v)};
        const double sv = v - c.gpusPerNode - 0.1;
        if (m_rack.nvSwitchOffset.empty() && sv >= 0 &&
            sv < m_topology->nvSwitchesPerDomain() * kNvSwitchThick) {
            const int domain = m_topology->gpus()[size_t(firstGpu)].domain;
            return {HitKind::NvSwitch,
                    m_nvSwitchSlot[size_t(domain) * perDomain + int(sv / kNvSwitchThick)]};
        }
    }
    return {HitKind::Rack, rack};
}

Hit TopologyLayout::hitLink(QPointF world, double tolerance, const LevelOfDetail& lod) const
{
    Hit best;
    double bestDistance = tolerance;
    if (lod.gpuLinks) {
        const auto& links = m_topology->links();
        for (size_t i = 0; i < links.size(); ++i) {
            if (!cs::isScaleOut(links[i].cls))
                continue;
            const double d = distanceToSegment(world, linkLine(int(i)));
            if (d <= bestDistance) {
                bestDistance = d;
                best = {HitKind::Link, int(i)};
            }
        }
        return best;
    }
    for (size_t i = 0; i < m_bundles.size(); ++i) {
        const double d = distanceToSegment(world, m_bundles[i].line);
        if (d <= bestDistance) {
            bestDistance = d;
            best = {HitKind::Bundle, int(i)};
        }
    }
    return best;
}

Hit TopologyLayout::hitTest(QPointF world, double tolerance, const LevelOfDetail& lod) const
{
    Hit nearestSwitch;
    double switchDistance = tolerance;
    for (int tier = 1; tier <= 3; ++tier)
        for (int s : m_switchesByTier[size_t(tier)]) {
            const QRectF r = m_switchRects[size_t(s)];
            const double dx = std::max({r.left() - world.x(), 0.0, world.x() - r.right()});
            const double dy = std::max({r.top() - world.y(), 0.0, world.y() - r.bottom()});
            const double d = std::hypot(dx, dy);
            if (d <= switchDistance) {
                switchDistance = d;
                nearestSwitch = {HitKind::Switch, s};
            }
        }
    if (nearestSwitch.kind != HitKind::None)
        return nearestSwitch;
    const int rack = rackAt(world);
    if (rack >= 0) {
        const Hit inRack = hitInRack(rack, world);
        if (inRack.kind != HitKind::Rack || !lod.gpuLinks)
            return inRack;
        // Close in, the NVLinks crossing the rack's gaps are pickable too.
        const cs::Rack& r = m_topology->racks()[size_t(rack)];
        const int gpusPerRack =
            m_topology->cluster().nodesPerRack * m_topology->cluster().gpusPerNode;
        double bestDistance = tolerance;
        Hit best = inRack;
        const int nvlinks = m_topology->nvSwitchesPerDomain();
        for (int g = r.firstGpu; g < r.firstGpu + gpusPerRack; ++g)
            for (int i = m_topology->nvLinkOf(g, 0); i < m_topology->nvLinkOf(g, nvlinks); ++i) {
                const double d = distanceToSegment(world, linkLine(i));
                if (d <= bestDistance) {
                    bestDistance = d;
                    best = {HitKind::Link, i};
                }
            }
        return best;
    }
    return hitLink(world, tolerance, lod);
}

GroupSelection selectRank(int rank, const TopologyLayout& layout, const cs::Placement& placement)
{
    GroupSelection sel;
    const cs::Topology& topo = layout.topology();
    if (rank < 0 || rank >= placement.worldSize())
        return sel;
    sel.rank = rank;
    const auto& gpus = topo.gpus();
    for (cs::Dim d : cs::kAllDims) {
        std::vector<int> members;
        for (int r : placement.groupMembers(rank, d))
            members.push_back(placement.gpuOfRank(r));
        if (members.size() <= 1) {
            sel.members[d] = members;
            continue;
        }
        std::set<int> domains, leaves, bundles;
        for (int g : members)
            domains.insert(gpus[size_t(g)].domain);
        const bool crosses = domains.size() > 1;
        for (int g : members) {
            if (crosses)
                sel.links[d].push_back(topo.nicLinkOfGpu(g));
            else
                for (int i = topo.nvLinkOf(g, 0); i < topo.nvLinkOf(g, topo.nvSwitchesPerDomain());
                     ++i)
                    sel.links[d].push_back(i);
            if (crosses && layout.bundleOfGpuLink(g) >= 0) {
                bundles.insert(layout.bundleOfGpuLink(g));
                leaves.insert(gpus[size_t(g)].leaf);
            }
        }
        if (leaves.size() > 1) {
            // Traffic between leaves spreads over every uplink of those leaves.
            std::set<int> spines;
            std::set<int> leafGroups;
            for (int leaf : leaves)
                leafGroups.insert(topo.switches()[size_t(leaf)].group);
            const auto& all = layout.bundles();
            for (size_t b = 0; b < all.size(); ++b)
                if (all[b].cls == cs::LinkClass::ScaleOut2 &&
                    intersects(all[b].lowerSwitches, leaves)) {
                    bundles.insert(int(b));
                    spines.insert(all[b].upperSwitches.begin(), all[b].upperSwitches.end());
                }
            if (leafGroups.size() > 1)
                for (size_t b = 0; b < all.size(); ++b)
                    if (all[b].cls == cs::LinkClass::ScaleOut3 &&
                        intersects(all[b].lowerSwitches, spines))
                        bundles.insert(int(b));
        }
        sel.members[d] = std::move(members);
        sel.bundles[d].assign(bundles.begin(), bundles.end());
    }
    return sel;
}
