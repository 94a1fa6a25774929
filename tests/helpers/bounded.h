#pragma once
// Running code the way a hostile input would be met in use, but fenced: in a child process
// whose address space may grow by a limit past what it has at the fork (RLIMIT_AS; the child
// inherits the test process's whole address space, which grows as a run of many tests goes on)
// and that is killed after a time limit (SIGALRM),
// so that a blow-up or a hang fails the test instead of taking the machine or the CI run with
// it. Under AddressSanitizer, whose shadow memory needs terabytes of address space, the child's
// peak resident set is held to the limit instead (times kSanitizerMemoryFactor for its
// redzones and quarantine).

#include <csignal>
#include <cstdio>
#include <functional>
#include <string>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "datasafety.h"

#if defined(__SANITIZE_ADDRESS__)
#define CS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CS_TEST_ASAN 1
#endif
#endif

namespace testing {

inline constexpr long kSanitizerMemoryFactor = 4;

struct BoundedRun {
    bool exited = false; // on its own, with a status; false: killed (the signal says by what)
    int status = -1;
    int signal = 0; // SIGALRM: over the time limit; SIGSEGV/SIGABRT: out of memory or a crash
    std::string out, err;
    long peakKiB = 0;
    bool overMemory = false; // under a sanitizer: the peak resident set passed the limit

    // A clean end: exit 0 or 1, within the limits.
    bool clean() const { return exited && !overMemory && (status == 0 || status == 1); }
    std::string describe() const
    {
        return "exited " + std::to_string(exited) + " status " + std::to_string(status) +
               " signal " + std::to_string(signal) + " peak " + std::to_string(peakKiB) +
               " KiB\nstdout: " + out.substr(0, 2000) + "\nstderr: " + err.substr(0, 2000);
    }
};

// The address space this process has now, in bytes (/proc/self/statm's first field); 0 if unknown.
inline rlim_t addressSpaceBytes()
{
    unsigned long pages = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%lu", &pages) != 1)
            pages = 0;
        std::fclose(f);
    }
    return rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE));
}

// Runs body() in a child process whose address space may grow by `memoryMiB` and that has
// `seconds` of wall time; body returns the exit status and writes what it prints to the two
// streams.
inline BoundedRun runBounded(const std::function<int(std::ostream&, std::ostream&)>& body,
                             long memoryMiB, unsigned seconds)
{
    ScratchDir dir;
    const std::string outPath = dir.path("out"), errPath = dir.path("err");
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
#ifndef CS_TEST_ASAN
        const rlim_t bytes = addressSpaceBytes() + (rlim_t(memoryMiB) << 20);
        rlimit limit{bytes, bytes};
        ::setrlimit(RLIMIT_AS, &limit);
#endif
        std::signal(SIGALRM, SIG_DFL);
        ::alarm(seconds);
        int status = 3;
        {
            std::ofstream out(outPath, std::ios::binary), err(errPath, std::ios::binary);
            try {
                status = body(out, err);
            } catch (const std::exception& e) {
                err << "exception: " << e.what() << "\n";
                status = 4;
            }
        }
        ::_exit(status);
    }
    BoundedRun run;
    int wstatus = 0;
    rusage usage{};
    if (pid < 0 || ::wait4(pid, &wstatus, 0, &usage) != pid)
        return run;
    run.exited = WIFEXITED(wstatus);
    run.status = run.exited ? WEXITSTATUS(wstatus) : -1;
    run.signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
    run.peakKiB = usage.ru_maxrss;
    run.out = contentOf(outPath);
    run.err = contentOf(errPath);
#ifdef CS_TEST_ASAN
    run.overMemory = run.peakKiB > kSanitizerMemoryFactor * memoryMiB * 1024;
#endif
    return run;
}

} // namespace testing
