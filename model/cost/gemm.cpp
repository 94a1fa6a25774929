#include "gemm.h"

#include <algorithm>
#include <cmath>

namespace cs {

namespace {

// Seconds of `tiles` tiles of the shape's inner dimension, in waves.
double tileSeconds(double tiles, const GemmShape& s, const GemmDevice& d)
{
    const double k = std::max(1.0, s.k);
    const double fixedCost = (1 + d.kHalf / k) / (1 + d.kHalf / kReferenceK);
    const double tileFlops = 2 * d.tileM * d.tileN * k * fixedCost;
    if (d.sms <= 0)
        return tiles * tileFlops / (d.peak * d.eff);
    return wavesOf(tiles, d.sms) * tileFlops / (d.peak * d.eff / d.sms);
}

// Bytes of A, B and C, with B read once for each of `groups` weight matrices.
double bytesOf(double groups, const GemmShape& s, const GemmDevice& d)
{
    return groups * ((s.m * s.k + s.k * s.n) * d.inBytes + s.m * s.n * d.outBytes);
}

double roofline(double computeS, double bytes, const GemmDevice& d)
{
    return d.memory > 0 ? std::max(computeS, bytes / d.memory) : computeS;
}

} // namespace

double wavesOf(double tiles, int sms)
{
    if (sms <= 0)
        return tiles;
    return std::ceil(tiles / sms - 1e-9);
}

double tilesOf(const GemmShape& s, const GemmDevice& d)
{
    // A fraction of a row (an average share of tokens) still fills its tile row.
    return std::ceil(s.m / d.tileM - 1e-9) * std::ceil(s.n / d.tileN - 1e-9);
}

double gemmSeconds(const GemmShape& s, const GemmDevice& d)
{
    if (s.m <= 0 || s.n <= 0 || s.k <= 0)
        return 0;
    return roofline(tileSeconds(tilesOf(s, d), s, d), bytesOf(1, s, d), d);
}

double groupedGemmSeconds(double groups, const GemmShape& s, const GemmDevice& d)
{
    if (groups <= 0 || s.m <= 0 || s.n <= 0 || s.k <= 0)
        return 0;
    return roofline(tileSeconds(groups * tilesOf(s, d), s, d), bytesOf(groups, s, d), d);
}

} // namespace cs
