#pragma once
// Stragglers: a synchronous step ends when the slowest of its GPUs is done. With each GPU's
// step time normal around the predicted step (relative standard deviation `step_jitter`,
// independent GPUs and steps), the step time is the predicted step stretched by the largest of
// N standard normal variables. See docs/cost-model.md, "Goodput".

#include <cstdint>
#include <vector>

namespace cs {

// The p-quantile of the standard normal distribution (0 < p < 1).
double normalQuantile(double p);

// Mean and standard deviation of the largest of n independent standard normal variables.
struct MaxOfNormals {
    double mean = 0;
    double stddev = 1;
};
MaxOfNormals maxOfNormals(int64_t n);

// The p-quantile of that largest one: its distribution function is Phi(x)^n.
double maxOfNormalsQuantile(int64_t n, double p);

struct StepJitter {
    double stepS = 0; // the predicted step without jitter
    double sigma = 0; // relative standard deviation of one GPU's step time
    int64_t gpus = 1; // GPUs that synchronize every step
};

// The step time below which a fraction p of steps end.
double stepTimeQuantile(const StepJitter& jitter, double p);

struct StepVariance {
    StepJitter jitter;
    double stragglerS = 0;  // expected wait for the slowest GPU, every step
    double stepStddevS = 0; // standard deviation of the step time from step to step
    // Equal-probability quantiles of the step time, at (k + 1/2) / K, ascending: a histogram of
    // them is the distribution's, drawn deterministically.
    std::vector<double> quantilesS;

    double meanStepS() const { return jitter.stepS + stragglerS; }
};

StepVariance stepVariance(const StepJitter& jitter, int quantiles = 100);

} // namespace cs
