#pragma once
// Timing for the benchmarks: the median of repeated runs, in milliseconds.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace csbench {

template <typename F> double medianMs(int repeats, F&& body)
{
    std::vector<double> ms;
    ms.reserve(size_t(repeats));
    for (int i = 0; i < repeats; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        body(i);
        auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::nth_element(ms.begin(), ms.begin() + ms.size() / 2, ms.end());
    return ms[ms.size() / 2];
}

// CPU time of the process (every thread), in milliseconds: unlike the wall clock, it does not
// count the time other processes on a loaded machine take.
inline double processCpuMs()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

// The median wall time of `repeats` runs of body(i), and the median CPU time they took.
struct Timing {
    double wallMs = 0;
    double cpuMs = 0;
};
template <typename F> Timing medianTiming(int repeats, F&& body)
{
    std::vector<double> cpu;
    cpu.reserve(size_t(repeats));
    Timing t;
    t.wallMs = medianMs(repeats, [&](int i) {
        const double c0 = processCpuMs();
        body(i);
        cpu.push_back(processCpuMs() - c0);
    });
    std::nth_element(cpu.begin(), cpu.begin() + cpu.size() / 2, cpu.end());
    t.cpuMs = cpu[cpu.size() / 2];
    return t;
}

// Runs body() in a child process and returns what it returned, so that each measurement's
// peak RSS is its own and not the largest one before it. Exits when the child fails.
template <typename Body> auto inChildProcess(Body body)
{
    using Result = decltype(body());
    static_assert(std::is_trivially_copyable_v<Result>);
    int fds[2];
    if (pipe(fds) != 0)
        std::exit(1);
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const Result r = body();
        const bool ok = write(fds[1], &r, sizeof r) == ssize_t(sizeof r);
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    Result r{};
    const bool ok = read(fds[0], &r, sizeof r) == ssize_t(sizeof r);
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "the measurement failed\n");
        std::exit(1);
    }
    return r;
}

} // namespace csbench
