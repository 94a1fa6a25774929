#include "stragglers.h"

#include <algorithm>
#include <cmath>

namespace cs {

namespace {

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kSqrt2Pi = 2.5066282746310002;

double normalPdf(double x)
{
    return std::exp(-0.5 * x * x) / kSqrt2Pi;
}

// log Phi(x), accurate in both tails.
double logNormalCdf(double x)
{
    if (x > 0)
        return std::log1p(-0.5 * std::erfc(x / kSqrt2));
    return std::log(0.5 * std::erfc(-x / kSqrt2));
}

// Acklam's rational approximation of the normal quantile (relative error below 1.2e-9).
double acklam(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    const double low = 0.02425;
    if (p < low || p > 1 - low) {
        const double q = std::sqrt(-2 * std::log(p < low ? p : 1 - p));
        const double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
                         ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        return p < low ? x : -x;
    }
    const double q = p - 0.5;
    const double r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

} // namespace

double normalQuantile(double p)
{
    const double x = acklam(p);
    // One Halley step on Phi(x) - p brings it to full double precision.
    const double e = 0.5 * std::erfc(-x / kSqrt2) - p;
    const double u = e / normalPdf(x);
    return x - u / (1 + x * u / 2);
}

double maxOfNormalsQuantile(int64_t n, double p)
{
    // Phi(x)^n = p: Phi(x) = p^(1/n), whose upper tail 1 - p^(1/n) is kept exact for large n.
    const double upperTail = -std::expm1(std::log(p) / double(n));
    return -normalQuantile(upperTail);
}

// E[max] and E[max^2] by Simpson's rule on the density n phi(x) Phi(x)^(n-1), over the range
// that holds all but 1e-12 of it at either end.
MaxOfNormals maxOfNormals(int64_t n)
{
    const int intervals = 128; // even; the density is smooth: 512 agree to 1e-10
    const double lo = maxOfNormalsQuantile(n, 1e-12);
    const double hi = maxOfNormalsQuantile(n, 1 - 1e-12);
    const double h = (hi - lo) / intervals;
    double mass = 0, first = 0, second = 0;
    for (int i = 0; i <= intervals; ++i) {
        const double x = lo + i * h;
        const double weight = (i == 0 || i == intervals) ? 1 : (i % 2 ? 4 : 2);
        const double density = double(n) * normalPdf(x) * std::exp(double(n - 1) * logNormalCdf(x));
        mass += weight * density;
        first += weight * density * x;
        second += weight * density * x * x;
    }
    MaxOfNormals m;
    m.mean = first / mass;
    m.stddev = std::sqrt(std::max(0.0, second / mass - m.mean * m.mean));
    return m;
}

double stepTimeQuantile(const StepJitter& jitter, double p)
{
    return jitter.stepS * (1 + jitter.sigma * maxOfNormalsQuantile(jitter.gpus, p));
}

StepVariance stepVariance(const StepJitter& jitter, int quantiles)
{
    StepVariance v;
    v.jitter = jitter;
    const MaxOfNormals m = maxOfNormals(jitter.gpus);
    v.stragglerS = jitter.sigma * jitter.stepS * m.mean;
    v.stepStddevS = jitter.sigma * jitter.stepS * m.stddev;
    v.quantilesS.reserve(size_t(quantiles));
    for (int k = 0; k < quantiles; ++k)
        v.quantilesS.push_back(stepTimeQuantile(jitter, (k + 0.5) / quantiles));
    return v;
}

} // namespace cs
